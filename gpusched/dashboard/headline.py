"""Home's headline: FCFS First-Fit, the best queue-aware heuristic (measured, never named in
advance) and the agent, on the fleet."""

from __future__ import annotations

from gpusched.experiment.runner import Comparison
from gpusched.policies import queue_policy_names

HEADLINE_SCENARIO = "fleet-16gpu"
"""The preset of Home's headline: a heterogeneous fleet with a queue window and GPU speeds."""

HEADLINE_SEEDS: tuple[int, ...] = (0, 1, 2)
"""Workload seeds of the headline numbers."""

HEADLINE_BASELINE = "fcfs+first_fit"
"""The first card: the queue and placement every cluster starts with."""

HEADLINE_METRICS: tuple[str, ...] = ("avg_jct_min", "avg_wait_min", "p99_wait_min", "avg_slowdown")
"""The headline's cards and chart panels, in order (names from
:data:`gpusched.core.metric_names.METRIC_NAMES`)."""


def headline_heuristics() -> tuple[str, ...]:
    """Every ``ORDER+PLACEMENT`` pair the headline measures to find the best one."""
    return tuple(queue_policy_names())


BEST_BY = "avg_jct_min"
"""What makes a heuristic the best one everywhere it is named (Home, the docs, the agent's
tables): the lowest mean job completion time, the time to result."""


def best_heuristic(comparison: Comparison, candidates: tuple[str, ...] | None = None) -> str:
    """The pair with the lowest mean job completion time over the comparison's seeds (ties: the
    first in ``candidates``, by default every shipped ``ORDER+PLACEMENT`` pair)."""
    mean = comparison.summary().loc[list(candidates or headline_heuristics()), BEST_BY]
    return str(mean.idxmin())
