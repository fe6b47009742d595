"""Every folder the project reads from or writes to, defined once.

The shipped data lives under ``assets/`` at the repository root: scenario presets, the openb trace,
sweep specs with their results, and the shipped agent models. The user's own trained models go to
``models/`` and training logs to ``runs/`` (both git-ignored).
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
"""The repository root (the folder that holds ``gpusched/``, ``assets/`` and ``app/``)."""

ASSETS_DIR = REPO_ROOT / "assets"
"""The shipped data."""

SCENARIOS_DIR = ASSETS_DIR / "scenarios"
"""Scenario presets (``NAME.yaml``)."""

TRACES_DIR = ASSETS_DIR / "traces"
"""The bundled openb trace files and the FGD artifact's published results."""

GAVEL_THROUGHPUTS = ASSETS_DIR / "gavel" / "simulation_throughputs.json"
"""Gavel's measured throughputs (Narayanan et al., OSDI 2020; MIT licence, beside the file)."""

SHOCKWAVE_DIR = ASSETS_DIR / "shockwave"
"""Shockwave's 32-GPU TACC cluster (Zheng et al., NSDI 2023; MIT licence, beside the files): its
trace, throughputs, policy settings and per-policy results."""

SHOCKWAVE_TRACE = SHOCKWAVE_DIR / "tacc-120jobs.trace"
"""Shockwave's 120-job trace (one job a line, 12 tab-separated columns)."""

SHOCKWAVE_THROUGHPUTS = SHOCKWAVE_DIR / "tacc_throughputs.json"
"""Throughputs measured on the TACC cluster (steps per second per GPU type, job type and GPUs)."""

SHOCKWAVE_CONFIG = SHOCKWAVE_DIR / "tacc_32gpus.config.json"
"""The Shockwave policy's settings as used on the TACC cluster."""

SHOCKWAVE_RESULTS_DIR = SHOCKWAVE_DIR / "results"
"""Per-policy outcomes: ``POLICY.physical.json`` (the real cluster) and ``POLICY.simulation.json``
(Shockwave's own simulator)."""

PHILLY_DIR = ASSETS_DIR / "philly"
"""Shipped Philly files (``STEM.csv``), with their attribution."""

PHILLY_SAMPLE = PHILLY_DIR / "philly-sample.csv"
"""A few hundred rows of Microsoft's Philly trace as processed by Pollux and Sia (attribution
beside the file); the full trace is read from a path the user gives."""

SWEEPS_DIR = ASSETS_DIR / "sweeps"
"""Shipped sweep specs."""

SHIPPED_SWEEP_RESULTS_DIR = SWEEPS_DIR / "results"
"""Results of shipped sweeps (one folder per sweep, each with a ``results.csv``)."""

STALL_CONDITIONS_SPEC = SWEEPS_DIR / "stall-conditions.yaml"
"""The sweep behind the stall conditions map (cluster families x offered loads x policies x seeds)."""

STALL_CONDITIONS_RESULTS_DIR = SHIPPED_SWEEP_RESULTS_DIR / "stall-conditions"
"""Its shipped results."""

DEFAULT_SWEEP_OUT_DIR = Path("sweeps")
"""Where ``gpusched sweep`` writes when no ``--out`` is given (relative to the working folder)."""

SHIPPED_MODELS_DIR = ASSETS_DIR / "models"
"""Models shipped with the repository."""

USER_MODELS_DIR = REPO_ROOT / "models"
"""The user's own trained models (git-ignored)."""

DEFAULT_MODEL = SHIPPED_MODELS_DIR / "ppo-default.zip"
"""The shipped FIFO agent: ``ppo`` runs it on scenarios with a queue window of 1."""

WINDOW_MODEL = SHIPPED_MODELS_DIR / "ppo-window.zip"
"""The shipped window agent (it chooses which job runs, and where): ``ppo`` runs it on scenarios
with a queue window above 1."""

URGENCY_MODEL = SHIPPED_MODELS_DIR / "ppo-urgency.zip"
"""The shipped urgency agent (``ppo_urgency``): a window agent trained where run times are not
told but predicted from history (observation version 5, ``docs/agent.md``)."""

BENCHMARK_RESULTS_DIR = REPO_ROOT / "benchmarks" / "results"
"""What the long benchmarks measured (JSON), read by the results pages, the README and the
dashboard's shipped numbers."""

WINDOW_AGENT_RESULTS = BENCHMARK_RESULTS_DIR / "window-agent.json"
"""Every heuristic and agent on every preset, seeds 1000-1019 (``benchmarks/window_agent_table.py``):
the source of the headline on Home, Compare and the README."""

URGENCY_RESULTS = BENCHMARK_RESULTS_DIR / "urgency.json"
"""What the scheduler knows: every pair on the same jobs told run times exactly, with an error,
not at all and from history, per preset (``benchmarks/urgency_table.py``; read by
:func:`gpusched.experiment.knowledge.shipped_knowledge`)."""

URGENCY_WINDOW_RESULTS = BENCHMARK_RESULTS_DIR / "urgency-window.json"
"""The uninformed pairs' mean JCT at queue windows 16-128 under ``history``
(``benchmarks/urgency_window.py``)."""

TRACES_RESULTS = BENCHMARK_RESULTS_DIR / "traces.json"
"""The Real traces page's shipped runs (``benchmarks/traces_shipped.py``): the allocation experiment
on the default openb pod list, every policy on the first published seed."""

REAL_CLUSTER_RESULTS = BENCHMARK_RESULTS_DIR / "real-cluster.json"
"""Every round policy on Shockwave's real cluster (``shockwave-tacc-32gpu``) beside the real cluster
and Shockwave's simulator, and the calibration of the restore cost (``benchmarks/real_cluster.py``)."""

PHILLY_PAIRS_RESULTS = BENCHMARK_RESULTS_DIR / "philly-pairs.json"
"""Every order+placement pair on the Philly replay (``philly-replay``) told run times exactly, from
history and not at all, seed by seed (``benchmarks/philly.py --part pairs``)."""

PHILLY_ROUNDS_RESULTS = BENCHMARK_RESULTS_DIR / "philly-rounds.json"
"""Every round policy on the Philly replay the same way (``benchmarks/philly.py --part rounds``)."""

PHILLY_FULL_RESULTS = BENCHMARK_RESULTS_DIR / "philly-full.json"
"""The whole Philly trace under one pair and one round policy: CPU seconds and peak memory
(``benchmarks/philly.py --full``)."""

PHILLY_HISTORY_RESULTS = BENCHMARK_RESULTS_DIR / "philly-history.json"
"""``qssf`` on the Philly replay with other history keys and options, and the ceiling of its keys, on
the tuning and the evaluation seeds (``benchmarks/philly_history.py``)."""

RUNS_DIR = REPO_ROOT / "runs"
"""TensorBoard logs and checkpoints of training runs started from the dashboard."""

FAVICON = ASSETS_DIR / "icons" / "favicon.png"
"""The dashboard's browser-tab icon: a file served by the app itself (a material icon as the
page icon would be fetched from the internet)."""


def shown_path(path: str | Path) -> str:
    """A path as a page shows it: relative to the repository when it lies inside it (``runs/x``),
    else only its last two parts (``…/sweeps/x``), never the machine's absolute path."""
    p = Path(path).expanduser()
    resolved = p.resolve() if p.is_absolute() or p.exists() else p
    try:
        return resolved.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(p) if not p.is_absolute() else "…/" + "/".join(p.parts[-2:])
