"""Metric helpers: the Gini coefficient and the per-run metric keys."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right

import numpy as np

METRIC_KEYS: tuple[str, ...] = (
    "jobs_submitted",
    "jobs_completed",
    "jobs_unfinished",
    "avg_wait_min",
    "p95_wait_min",
    "max_wait_min",
    "avg_util",
    "util_in_band_frac",
    "gini",
    "makespan_min",
    "stall_min",
    "misroutes",
    "misroutes_capacity",
    "misroutes_occupied",
    "misroutes_gang",
    "idle_gpu_min_queued",
    "idle_gpu_min_stalled",
    "idle_gpu_min_blocked",
    "avg_jct_min",
    "avg_slowdown",
    "avg_bsld",
    "speed_loss_min",
    "weighted_wait_min",
    "p99_wait_min",
    "backfilled_jobs",
    "gpu_hours",
    "node_failures",
    "jobs_interrupted",
    "preemptions",
    "migrations",
    "migration_restore_gpu_hours",
    "lost_gpu_hours",
    "restore_gpu_hours",
    "goodput",
    "slo_attainment",
    "deadline_miss_min",
    "weighted_jct_min",
    "cost_usd",
    "cost_per_met_job_usd",
    "prediction_error_log",
    "total_reward",
)
"""The exact metric keys of every run, in display order."""

FAIRNESS_METRIC_KEYS: tuple[str, ...] = (
    "rho_mean",
    "rho_max",
    "rho_over_1_share",
    "jain_index",
    "type_changes_per_job",
)
"""The fairness metrics every run's result carries (:mod:`gpusched.core.run_fairness`), in display
order; kept beside :data:`METRIC_KEYS` so that the stored tables of those keys (sweeps, shipped
results, the golden file) stay as they are."""

ROUND_METRIC_KEYS: tuple[str, ...] = (
    "rounds",
    "round_solves",
    "round_solve_median_s",
    "round_solve_p99_s",
    "round_solve_total_s",
)
"""The metric keys a run in rounds adds (:func:`gpusched.core.rounds.mechanism.round_metrics`), in
display order; a run without rounds has none of them, so that :data:`METRIC_KEYS` stays every
run's exact keys."""

COUNT_KEYS: frozenset[str] = frozenset({"jobs_submitted", "jobs_completed", "jobs_unfinished", "misroutes",
                                        "misroutes_capacity", "misroutes_occupied", "misroutes_gang",
                                        "backfilled_jobs", "node_failures", "jobs_interrupted",
                                        "preemptions", "migrations", "rounds", "round_solves"})
"""The metrics that count things (whole numbers in tables and JSON)."""


def gini(values: np.ndarray) -> float:
    """Gini coefficient of non-negative loads: 0 for equal loads, (n-1)/n for one busy of n.

    ``G = sum_i sum_j |x_i - x_j| / (2 n sum_i x_i)``, and 0 when every load is 0.
    """
    x = np.sort(np.asarray(values, dtype=float))
    total = x.sum()
    if total <= 0:
        return 0.0
    n = x.size
    return max(0.0, float(pairwise_abs_diff_sum(x, presorted=True) / (n * total)))


def pairwise_abs_diff_sum(values: np.ndarray, presorted: bool = False) -> float:
    """``sum_{i<j} |x_i - x_j|`` in O(n log n)."""
    x = np.asarray(values, dtype=float) if presorted else np.sort(np.asarray(values, dtype=float))
    n = x.size
    return float(np.dot(2 * np.arange(1, n + 1) - n - 1, x))


class RunningGini:
    """The Gini coefficient of per-GPU loads, kept up to date as single loads change.

    Keeps the loads sorted; ``S = sum_i (2i - n + 1) x_(i)`` (0-indexed, ascending) equals
    ``sum_{i<j} |x_i - x_j|``, and ``G = S / (n sum x)``. Moving one load from ``old`` to ``new``
    shifts the loads in between by one place, so an update costs two binary searches and one
    exactly rounded sum (:func:`math.fsum`) of the loads in between. The sorted loads are a plain
    list: for the few dozen GPUs of a typical cluster, list operations cost a fraction of numpy's
    per-call overhead, and a list move is still a ``memmove`` on a large one.
    """

    def __init__(self, loads: np.ndarray):
        self.resync(loads)

    def resync(self, loads: np.ndarray) -> None:
        """Recompute from scratch (clears accumulated rounding)."""
        ordered = np.sort(np.asarray(loads, dtype=float))
        self.sorted: list[float] = ordered.tolist()
        self.n = len(self.sorted)
        self.total = math.fsum(self.sorted)
        self.pair_diff = pairwise_abs_diff_sum(ordered, presorted=True)

    def copy(self) -> RunningGini:
        """An independent copy."""
        twin = object.__new__(RunningGini)
        twin.__dict__.update(self.__dict__)
        twin.sorted = list(self.sorted)
        return twin

    def update(self, old: float, new: float) -> None:
        """One load changed from ``old`` to ``new`` (``old`` must be a current load)."""
        if new == old:
            return
        su, n = self.sorted, self.n
        # The idle GPUs' zeros lead the sorted loads and add nothing to an exact sum: a slice that
        # starts among them is summed from the first load above zero (the same fsum, bit for bit).
        if new > old:
            p = bisect_left(su, old)
            q = bisect_right(su, new) - 1
            lo = bisect_right(su, 0.0, p + 1) if old == 0.0 else p + 1
            self.pair_diff -= 2.0 * math.fsum(su[lo:q + 1])
        else:
            p = bisect_right(su, old) - 1
            q = bisect_left(su, new)
            lo = bisect_right(su, 0.0) if new == 0.0 else q
            self.pair_diff += 2.0 * math.fsum(su[lo:p])
        del su[p]
        su.insert(q, new)
        self.pair_diff += (2 * q - n + 1) * new - (2 * p - n + 1) * old
        self.total += new - old

    def value(self) -> float:
        """The current Gini coefficient (0 when every load is 0)."""
        if self.total <= 1e-12:
            return 0.0
        return max(0.0, self.pair_diff / (self.n * self.total))
