"""What a search scores a finished run by: the planners' and the agent's rollouts' objective.

A fork of the simulator played to its end is scored by the mean of one metric over its jobs,
lower being better:

- ``wait``: the average wait (minutes);
- ``jct``: the average job completion time (minutes), the time to result. With GPU speeds it
  weighs a slow GPU as much as a wait; without them it ranks runs as the wait does (JCT = wait +
  duration, the same durations in every fork).

A fork that dead-stalled (a HOLD with nothing running and nothing left to arrive, in a fork that
forgot the future) scores infinity.
"""

from __future__ import annotations

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


def finished_score(sim: Simulator, objective: str = "wait") -> float:
    """The score of a fork played to its end: its mean wait or JCT (minutes), or infinite if it
    dead-stalled."""
    if sim.end_reason == "dead_stall":
        return float("inf")
    return sim.metrics()[check_objective(objective)]
