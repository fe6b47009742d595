"""The documented limits of every input, defined once.

Anything outside them is refused before any work starts, with one line that names the limit
(``gpusched.errors.GpuschedError``; exit code 2 on the command line, an inline error on the
dashboard). Every number a scenario, trace, sweep spec or model sidecar holds must also be finite:
``.inf`` and ``.nan`` are refused everywhere.

The *Limits* table of ``docs/scenarios.md`` lists the same values; ``tests/test_limits.py`` checks
that it does.
"""

from __future__ import annotations

MAX_GPUS = 10_000
"""Most GPUs a cluster may have in total (the whole openb cluster has 6,212)."""

MAX_NODES = 10_000
"""Most nodes a cluster may have (the whole openb cluster has 1,213)."""

MAX_GPUS_PER_NODE = 64
"""Most GPUs one node may hold (and so the most one job or pod may ask for)."""

MAX_VRAM_GB = 4096.0
"""Most VRAM one GPU may have (GB)."""

MAX_JOBS = 1_000_000
"""Most jobs of one run (``workload.jobs``, ``--jobs``; 100,000 jobs take about 8 s, see
``docs/performance.md``)."""

ARRIVAL_RATE_RANGE_PER_HOUR: tuple[float, float] = (0.001, 1_000_000.0)
"""Smallest and largest mean arrival rate of a synthetic workload (jobs per hour, inclusive)."""

TIME_COMPRESSION_RANGE: tuple[float, float] = (0.01, 1_000_000.0)
"""Smallest and largest ``time_compression`` of a trace workload (trace seconds per simulated
second, inclusive)."""

MAX_HORIZON_MIN = 1e9
"""Latest ``horizon_min`` (minutes, about 1,900 years)."""

MAX_REWARD_WEIGHT = 1e6
"""Largest magnitude of a reward weight (``reward:`` block)."""

MAX_QUANTITY = 1e15
"""Largest value of any other count or amount in a scenario or trace: node CPU (milli-cores) and
memory (MiB), pod requests, trace times (s). Below 2**53, so it is exact as a float and an int."""

MAX_SEED = 2**53 - 1
"""Largest seed: the largest whole number a double holds exactly, so that results tables, JSON
readers and the dashboard's widgets all keep it exactly."""

MAX_SEEDS = 100_000
"""Most seeds in one seed list, range or count (``--seeds``, ``--seed-list``, a sweep's
``seeds:``)."""

DEFAULT_MAX_RUNS = 10_000
"""Runs a ``compare``, ``allocation`` or ``sweep`` may start without an explicit ``--max-runs``."""

MAX_RUNS = 1_000_000
"""Most runs of one ``compare``, ``allocation`` or ``sweep``, whatever ``--max-runs`` says."""

MAX_TUNE = 10.0
"""Largest ``tune`` of the allocation experiment (multiple of the cluster's GPU capacity)."""

MAX_WORKERS = 1024
"""Most worker processes (``--workers``)."""

MAX_YAML_BYTES = 1024 * 1024
"""Largest scenario file or sweep spec (bytes; the shipped ones are under 2 KB)."""

MAX_TRACE_BYTES = 16 * 1024 * 1024
"""Largest openb node or pod list (bytes; the bundled pod lists are under 600 KB, about 8,000
pods, so this leaves room for about 200,000 pods), and largest Shockwave trace, throughputs or
settings file and Philly CSV (the whole processed Philly trace, 82,247 jobs, is 3.3 MB)."""

MAX_JOB_LIST_BYTES = 128 * 1024 * 1024
"""Largest job list (``workload.trace.jobs``, bytes; the jobs table that ``--jobs-csv`` writes,
results columns included, takes about 170-200 bytes a job: 20 MB for 100,000 jobs)."""

MIN_DURATION_MIN = 1e-6
"""Shortest run time a user gives: a job list's ``duration_min`` and ``estimate_min`` and a history
estimator's ``prior_min`` (minutes, 60 microseconds; an openb trace job keeps 6 decimals of a
minute, so none is shorter). A slowdown divides by the run time and a prediction error takes the
log of declared / true, so a subnormal one (5e-324) once made ``avg_slowdown`` or
``prediction_error_log`` infinite."""

MAX_JOB_WEIGHT = 1e6
"""Largest priority weight of a job in a job list (``weight``; Gavel's generator draws 1 or 5)."""

MIN_JOB_WEIGHT = 1e-6
"""Smallest priority weight of a job in a job list (``weight``): the weighted metrics multiply each
job's time by its weight, and a subnormal weight (5e-324) rounds those products to a few steps,
so a weighted mean came out wrong (1.0 for jobs of 1.2 minutes)."""

MAX_MODEL_CHARS = 200
"""Longest job model name in a job list, job type in a Shockwave trace, GPU type in its throughputs
or virtual cluster in a Philly CSV (characters; Gavel's longest model is 33)."""

MAX_PHASES = 100_000
"""Most phases of all the jobs of a Shockwave trace together, once their batch-size changes are
worked out (the shipped 120-job trace has 227)."""

MAX_SIDECAR_BYTES = 1024 * 1024
"""Largest model sidecar JSON (bytes; the shipped one is under 3 KB)."""

MAX_NAME_CHARS = 100
"""Longest sweep spec ``name`` (characters): the name is the results folder ``sweeps/<name>``, one
plain folder name (a name the file system still refuses, over 255 bytes of UTF-8, is refused as
an unusable ``--out``)."""

MAX_YAML_DEPTH = 32
"""Deepest nesting of mappings and lists in a YAML file (a scenario needs 4)."""

MAX_YAML_NODES = 100_000
"""Most values a YAML file may hold once its aliases are expanded (guards against alias bombs)."""

MAX_SIDECAR_HIDDEN = 4096
"""Widest hidden layer a model sidecar may declare."""

MAX_QUEUE_WINDOW = 1024
"""Longest queue window a model sidecar may declare (jobs)."""

VRAM_SCALE_RANGE_GB: tuple[float, float] = (1.0, MAX_VRAM_GB)
"""Smallest and largest ``vram_scale_gb`` a model sidecar may declare (GB, inclusive): the
observation divides VRAM by it, so every feature stays finite (at most 4,096)."""

MAX_MODEL_WEIGHT = 1e4
"""Largest magnitude of any weight of a loaded model (the shipped ones stay under 10): a model
whose weights are larger, NaN or infinite is refused before its first decision."""

MAX_WINDOW = 128
"""Longest scheduler queue window of a scenario (``queue.window``; RLScheduler's agent picks from
a window of 128)."""

LOAD_RANGE: tuple[float, float] = (0.001, 100.0)
"""Smallest and largest offered load of a synthetic workload (``workload.load``, a fraction of the
cluster's capacity, inclusive)."""

SPEED_RANGE: tuple[float, float] = (0.001, 100.0)
"""Smallest and largest relative GPU speed in a speed table (inclusive)."""

MIN_SPREAD_SPEED = 0.001
"""Smallest ``cluster.spread_speed`` (the speed factor of a gang spread over nodes, at most 1): a
spread gang then runs at least a thousandth as fast, as the slowest speed of a table
(``SPEED_RANGE``), so every run time, cost and metric stays finite (a subnormal factor such as
5e-324 made them infinite)."""

MAX_ESTIMATE_ERROR = 3.0
"""Largest ``workload.runtime_estimate_error`` (sigma of a log-normal: 3 spreads estimates over
about a factor of 20 either way)."""

MAX_TIMESTEPS = 100_000_000
"""Most PPO environment steps of one training run (``--timesteps``; the shipped agents train on
under a million)."""

MAX_N_ENVS = 64
"""Most parallel training environments (``--n-envs``)."""

MAX_SPEED_SIGMA = 1.0
"""Largest speed randomisation of a training run (``--speed-sigma``, sigma of a log-normal factor)."""

MAX_EXPERT_ITERATIONS = 1_000
"""Most expert-iteration rounds of one training run (``--expert-iterations``)."""

MAX_TRAIN_COUNT = 1_000_000
"""Largest value of any other count of a training run (``--set``): rollout length, batch size,
epochs, warm-start and DAgger episodes, epochs and rounds, evaluation and checkpoint intervals
(the shipped agents use at most 50,000)."""

MAX_FAILURE_RATE = 1_000_000.0
"""Highest node failure rate of a ``failures:`` block (failures per 1,000 node-days: a node's mean
up time is then about 1.4 minutes; Kokolis et al. measured 6.5)."""

MIN_FAILURE_RATE = 0.001
"""Lowest node failure rate of a ``failures:`` block other than 0 (failures per 1,000 node-days: a
node's mean up time is then about 2,700 years), so that every up time drawn is finite."""

MAX_REPAIR_MIN = 1e6
"""Longest median or mean repair time of a ``failures:`` block (minutes, about two years)."""

MIN_REPAIR_MIN = 0.01
"""Shortest median repair time of a ``failures:`` block (minutes): with a mean of at most
``MAX_REPAIR_MIN``, the log-normal's sigma is at most 6.1, so that every repair drawn is finite."""

MAX_CHECKPOINT_MIN = 1e6
"""Longest ``checkpoint.interval_min`` (reference-speed minutes of progress)."""

MIN_CHECKPOINT_MIN = 0.01
"""Shortest ``checkpoint.interval_min`` (reference-speed minutes of progress, 0.6 s)."""

SAFETY_HORIZON_FACTOR = 2.0
"""A run with failures and no ``horizon_min`` stops at its safety horizon: its first arrival plus
this many times its failure-free bound (the span of its arrivals plus every job's run on the
cluster's slowest GPU for it, one restore each), plus one long repair
(:data:`SAFETY_REPAIR_QUANTILE`); see ``gpusched.core.failures.safety_horizon_min``. The end
reason is then ``safety_horizon``."""

SAFETY_REPAIR_QUANTILE = 0.9999
"""The quantile of the repair time that the safety horizon adds (a repair time is log-normal and
heavy-tailed: with the default median of 54 min and mean of 355 min, one repair in 10,000 takes
more than about 72,000 min), so that a run that can end is not cut short by one long repair."""

SAFETY_MAX_NODE_FAILURES = 10_000
"""A run with failures and no ``horizon_min`` also stops (end reason ``safety_horizon``) once this
many node failures have happened: a run that can end sees far fewer (``fleet-16gpu-failures``
about ten), while one whose nodes fail every few minutes would otherwise take hours to reach its
safety horizon."""

MAX_RESTORE_MIN = 10_000.0
"""Longest ``checkpoint.restore_min`` and ``checkpoint.move_restore_min`` (minutes a resumed or
moved job spends loading its state)."""

MAX_PREEMPTION_MIN_RUN_MIN = 1e6
"""Longest ``queue.preemption_min_run_min`` (minutes a job runs before it may be preempted)."""

MAX_ROUND_LENGTH_MIN = 1e6
"""Longest ``rounds.length_min`` and ``rounds.reset_min`` (minutes)."""

MAX_ROUNDS = 1_000_000
"""Most rounds one run may take: a ``rounds.length_min`` so short that the run's estimated span
(``horizon_min``, else the arrivals' span plus the jobs' total GPU-minutes at speed 1 ÷ the
cluster's GPUs) holds more rounds is refused before the run."""
