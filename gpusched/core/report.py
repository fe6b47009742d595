"""A finished run's report: the jobs table, the metrics and the packaged result.

Each is the accounting of the run state (:mod:`gpusched.core.accounting`) with what the
mechanisms add: every job's finish-time fairness and GPU-type changes and the run's fairness
metrics (:mod:`gpusched.core.run_fairness`), and on a run in rounds the round metrics
(:func:`gpusched.core.rounds.mechanism.round_metrics`).
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

import pandas as pd

from gpusched.core import accounting
from gpusched.core.result import Result
from gpusched.core.rounds.mechanism import round_metrics
from gpusched.core.run_fairness import fairness_columns, fairness_metrics
from gpusched.core.timeline import Timeline

if TYPE_CHECKING:
    from gpusched.core.run_state import RunState


def jobs_table(run: RunState) -> pd.DataFrame:
    """One row per submitted job (:func:`gpusched.core.accounting.jobs_table`), with each job's
    fairness ``rho`` and ``type_changes`` (:mod:`gpusched.core.run_fairness`)."""
    table = accounting.jobs_table(run)
    table["rho"], table["type_changes"] = fairness_columns(run)
    return table


def metrics(run: RunState) -> dict[str, float]:
    """The per-run metrics (:func:`gpusched.core.accounting.metrics`), the fairness metrics
    (:mod:`gpusched.core.run_fairness`) and with rounds the round metrics."""
    values = accounting.metrics(run)
    values.update(fairness_metrics(run))
    values.update(round_metrics(run.rounds))
    return values


def package(run: RunState, policy_name: str = "", scenario_name: str = "", seed: int | None = None) -> Result:
    """Package a finished run (metrics, jobs table, timeline).

    The tables hold a new list per job and no reference cycle, so the cyclic garbage collector
    is paused while they are built: its passes over the run's live objects would otherwise cost
    about a third of the packaging of 100,000 jobs."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        jobs = jobs_table(run)
        log = run.log
        timeline = Timeline.from_run(run.cluster, run.jobs, jobs, log.holds, log.misroutes,
                                     run.start_time_min, run.time_min,
                                     last_start_min=run.record.start_min, stops=log.stops,
                                     resumes=log.resumes, node_events=log.node_events,
                                     rides=() if run.rounds is None else run.rounds.colocated.all_rides(run))
        values = metrics(run)
    finally:
        if collecting:
            gc.enable()
    return Result(scenario=scenario_name, policy=policy_name, seed=seed, metrics=values, jobs=jobs,
                  timeline=timeline, cluster=run.cluster, end_reason=run.end_reason)
