"""gpusched against Shockwave's real cluster: the ``shockwave-tacc-32gpu`` preset under a round
policy, side by side with the real cluster's and Shockwave's simulator's outcomes.

The outcomes are Shockwave's artifact (``uw-mad-dash/shockwave``,
``scheduler/reproduce/analyze_fidelity.py`` compares the same figures), read by
:mod:`gpusched.workload.shockwave_results`. For a run and a reference (the real cluster) this
module gives the figures of ``docs/results/real-cluster.md`` (:func:`fidelity`): average JCT and
makespan (s), the error of each against the real cluster (%, signed), and the share of jobs whose
JCT is within 10 % of their measured JCT.

**The one calibrated constant** is the preset's ``checkpoint.restore_min``: the real cluster pays,
each time a job resumes on GPUs it did not hold in the previous round, a cost that no simulator
here models: its process starts, loads its checkpoint and its data, and warms up before it trains
at its measured throughput (a job that keeps its GPUs from one round to the next has its lease
extended and pays nothing; :mod:`gpusched.core.restore`). It is chosen on the policies with shared
results only (:func:`gpusched.workload.shockwave_results.shipped_result_policies`) by
``benchmarks/real_cluster.py --calibrate``: on the grid :data:`RESTORE_GRID_S`, the value with the
least mean absolute error of the average JCT over those policies; never per policy or per job.
Shockwave's ``scheduler/scheduler.py`` keeps a (commented-out) list of the preemption overheads it
measured on TACC, percentiles from 0 to 60 s, mean 10.8 s (:data:`TACC_OVERHEAD_MEAN_S`).

**Shockwave's simulator's own costs.** Shockwave's simulator charges a cost of its own
(:data:`SHOCKWAVE_SIM_RESUME_S`), under another rule: a job that did not run in the round before
pays 20 s of its round, and a job that ran in the round before pays nothing, on whatever GPUs it
runs now. :func:`shockwave_sim_scenario` is the preset told that rule (``checkpoint.restore_min``
20 s, ``checkpoint.move_restore_min`` 0), so that the two simulators can be compared on the same
costs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpusched.core.result import Result
from gpusched.experiment.runner import run_policy
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario
from gpusched.workload.shockwave_results import ShockwaveResult

PRESET = "shockwave-tacc-32gpu"
"""The real cluster as a preset."""

SHOCKWAVE_FILES: dict[str, str] = {"allox": "allox_shockwave",
                                   "finish_time_fairness": "finish_time_fairness_shockwave",
                                   "min_total_duration": "min_total_duration_shockwave",
                                   "max_sum_throughput_perf": "max_sum_throughput_shockwave"}
"""The policies that Shockwave's scheduler, the one that drove the real cluster, ran otherwise
than gpusched reads Gavel's file: a file of its own (``allox``, ``finish_time_fairness``,
``min_total_duration``) or the steps per second it hands the file (``max_sum_throughput_perf``).
Each name's run here is Shockwave's reading (the value), Gavel's file being run beside it for the
policies with shared results (:mod:`gpusched.policies.rounds.allox`,
:mod:`gpusched.policies.rounds.finish_time_fairness`,
:mod:`gpusched.policies.rounds.min_total_duration`,
:mod:`gpusched.policies.rounds.max_sum_throughput`)."""


def shockwave_policy(policy: str) -> str:
    """The round policy that runs ``policy`` as Shockwave's scheduler ran it."""
    return SHOCKWAVE_FILES.get(policy, policy)


TACC_OVERHEAD_MEAN_S = 10.8
"""The mean of the preemption overheads Shockwave measured on TACC (s): the commented-out list in its
``scheduler/scheduler.py``, read there."""

SHOCKWAVE_SIM_RESUME_S = 20.0
"""The cost Shockwave's simulator charges a job that did not run in the round before, in the round
it runs again (s): ``preemption_overhead = 20`` ("an approach similar to pollux") in ``simulate`` of
its ``scheduler/scheduler.py`` (``uw-mad-dash/shockwave``, read at commit e07dd20), which takes it
off the round's execution time and the steps in proportion. A job that ran in the round before pays
nothing there, whether or not its GPUs changed. Two details are not mirrored by
:func:`shockwave_sim_scenario`: the charge is skipped in a round the job does not run to its end
(its execution time is within 5 s of the round's length or shorter), and it is paid in a job's
first round too (here a first start costs nothing: 20 s once per job)."""

WITHIN = 0.10
"""A job's JCT counts as matched when within this share of its measured JCT."""

RESTORE_GRID_S: tuple[float, ...] = (0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 45.0, 60.0)
"""The restore costs the calibration tries (s)."""


@dataclass(frozen=True)
class Fidelity:
    """One run's figures against a reference.

    :param avg_jct_s: average JCT (s).
    :param makespan_s: makespan (s).
    :param jct_error_pct: error of the average JCT against the reference (%, signed).
    :param makespan_error_pct: error of the makespan (%, signed).
    :param within_pct: share of jobs within :data:`WITHIN` of their reference JCT (%).
    """

    avg_jct_s: float
    makespan_s: float
    jct_error_pct: float
    makespan_error_pct: float
    within_pct: float


def fidelity(jct_s: np.ndarray, makespan_s: float, real: ShockwaveResult) -> Fidelity:
    """The figures of a run (``jct_s`` by job id, its makespan in s) against ``real``."""
    jct_s = np.asarray(jct_s, dtype=float)
    if jct_s.shape != real.jct_s.shape:
        raise ValueError(f"{len(jct_s)} JCTs against {len(real.jct_s)} of {real.source}")
    avg = float(jct_s.mean())
    within = float(np.mean(np.abs(jct_s - real.jct_s) <= WITHIN * real.jct_s))
    return Fidelity(avg, float(makespan_s), 100.0 * (avg / real.avg_jct_s - 1.0),
                    100.0 * (makespan_s / real.makespan_s - 1.0), 100.0 * within)


def restore_s(scenario: Scenario) -> float:
    """The restore cost a scenario charges a job that resumes on other GPUs (s)."""
    return 0.0 if scenario.checkpoint is None else 60.0 * float(scenario.checkpoint.restore_min)


def shockwave_sim_scenario() -> Scenario:
    """The preset told the costs of Shockwave's simulator (:data:`SHOCKWAVE_SIM_RESUME_S` at a
    resumption from the queue, nothing for a move from one round to the next) instead of the
    calibrated restore."""
    return load_scenario(PRESET).with_overrides(**{
        "checkpoint.restore_min": SHOCKWAVE_SIM_RESUME_S / 60.0, "checkpoint.move_restore_min": 0.0})


def tacc_scenario(restore: float | None = None) -> Scenario:
    """The preset, or with ``restore`` s charged at each resumption on other GPUs instead."""
    scenario = load_scenario(PRESET)
    if restore is None:
        return scenario
    return scenario.with_overrides(**{"checkpoint.restore_min": restore / 60.0})


def run_tacc(policy: str, restore: float | None = None, scenario: Scenario | None = None
             ) -> tuple[Result, np.ndarray]:
    """Run ``policy`` on the real cluster's preset (or on ``scenario``, one of its variants): the
    result and each job's JCT (s) by job id."""
    result = run_policy(tacc_scenario(restore) if scenario is None else scenario, policy)
    jobs = result.jobs.sort_values("id")
    jct_s = (jobs["end_min"].to_numpy(dtype=float) - jobs["arrival_min"].to_numpy(dtype=float)) * 60.0
    return result, jct_s
