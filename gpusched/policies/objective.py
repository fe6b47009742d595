"""What a search scores a finished run by: the planners' and the agent's rollouts' objective.

A fork of the simulator played to its end is scored by the mean of one metric over its jobs,
lower being better:

- ``wait``: the average wait (minutes);
- ``jct``: the average job completion time (minutes), the time to result. With GPU speeds it
  weighs a slow GPU as much as a wait; without them it ranks runs as the wait does (JCT = wait +
  duration, the same durations in every fork).

A fork that dead-stalled (a HOLD with nothing running and nothing left to arrive, in a fork that
forgot the future) scores infinity.

A fork cut at a horizon (:meth:`~gpusched.core.simulator.Simulator.fork` with ``horizon_min``) is
scored by :func:`horizon_score`: the job-minutes spent in the system (``jct``) or in the queue
(``wait``) from the start of the run to the fork's end, plus, for ``jct``, a lower bound of the
minutes the unfinished jobs will still spend: a running job's true time left on its gang, a queued
job's remaining work at its best speed (no more wait). Run to the end, that is the sum of the JCTs
(waits), so it ranks finished forks as the mean does when every fork holds the same jobs; cut, it
sees no wait after the horizon. It reads the fork's true run times: clairvoyant forks only.
"""

from __future__ import annotations

import math

import numpy as np

from gpusched.core.simulator import Simulator

OBJECTIVES: dict[str, str] = {"wait": "avg_wait_min", "jct": "avg_jct_min"}
"""Objective name -> the metric it minimises."""


def check_objective(objective: str) -> str:
    """The objective's metric key.

    :raises ValueError: for an unknown objective.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective '{objective}' (use {' or '.join(OBJECTIVES)})")
    return OBJECTIVES[objective]


HORIZON_INTEGRALS: dict[str, str] = {"wait": "waiting_job_min", "jct": "system_job_min"}
"""Objective name -> the integral (:class:`~gpusched.core.integrals.Integrals`, job-minutes) a
fork cut at a horizon is scored by."""


def horizon_score(sim: Simulator, objective: str = "jct") -> float:
    """The score of a clairvoyant fork played to its horizon or its end (job-minutes): the minutes
    spent in the system (``jct``) or queued (``wait``) since the run began, plus for ``jct`` the
    unfinished jobs' :func:`minutes_left_lower_bound`; infinite if it dead-stalled."""
    check_objective(objective)
    if sim.run_state.end_reason == "dead_stall":
        return math.inf
    spent = float(getattr(sim.run_state.integrals, HORIZON_INTEGRALS[objective]))
    return spent + minutes_left_lower_bound(sim) if objective == "jct" else spent


def minutes_left_lower_bound(sim: Simulator) -> float:
    """The minutes the arrived, unfinished jobs of a clairvoyant fork will still spend in the
    system at least: each running job's true time left on its gang (its run's true end minus the
    clock), each queued job's remaining work (reference-speed minutes) at its best speed."""
    run = sim.run_state
    now, record = run.time_min, run.record
    left = 0.0
    running = list(run.running)
    if running:
        ends = record.start_min[running] + record.run_min[running]
        left += float(np.clip(ends - now, 0.0, None).sum())
    queued = list(run.queue)
    if queued:
        work = np.array([run.jobs[i].duration_min for i in queued])
        if record.lives is not None:
            work = work - record.lives.saved_min[queued]
        left += float((np.clip(work, 0.0, None) / run.best_speed[queued]).sum())
    return left


def finished_score(sim: Simulator, objective: str = "wait") -> float:
    """The score of a fork played to its end: its mean wait or JCT (minutes), or infinite if it
    dead-stalled."""
    if sim.run_state.end_reason == "dead_stall":
        return float("inf")
    return sim.metrics()[check_objective(objective)]
