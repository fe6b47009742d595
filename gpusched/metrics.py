"""Metric helpers: the Gini coefficient and the per-run metric keys."""

from __future__ import annotations

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
    "total_reward",
)
"""The exact metric keys of every run, in display order."""

LOWER_IS_BETTER: frozenset[str] = frozenset(
    {"avg_wait_min", "p95_wait_min", "max_wait_min", "gini", "makespan_min", "stall_min",
     "jobs_unfinished"})


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
