"""Policies that gave identical results: the same numbers on every seed of a comparison.

Two policies can agree for a reason (a rollout search that never finds a better action than the
agent's own, a queue order that has nothing to reorder with a window of one job); a page then
says so instead of leaving two equal rows unexplained. The groups come from the measured runs,
never from a list written in advance.
"""

from __future__ import annotations

import numpy as np

from gpusched.experiment.runner import Comparison

SAME_NUMBERS_KEYS: tuple[str, ...] = ("avg_jct_min", "avg_wait_min", "p99_wait_min", "makespan_min",
                                      "jobs_completed")
"""The metrics two runs must share to count as the same schedule."""


def identical_groups(comparison: Comparison,
                     keys: tuple[str, ...] = SAME_NUMBERS_KEYS) -> list[tuple[str, ...]]:
    """Groups of two or more policies whose runs have equal ``keys`` on every seed, in the order
    the policies were given."""
    runs = comparison.runs
    policies = list(dict.fromkeys(runs["policy"]))
    table = {p: runs[runs["policy"] == p].sort_values("seed") for p in policies}
    groups: list[list[str]] = []
    for p in policies:
        values = table[p][list(keys)].to_numpy(float)
        seeds = table[p]["seed"].tolist()
        for group in groups:
            first = table[group[0]]
            if first["seed"].tolist() == seeds and np.allclose(first[list(keys)].to_numpy(float), values,
                                                               rtol=1e-9, atol=1e-9, equal_nan=True):
                group.append(p)
                break
        else:
            groups.append([p])
    return [tuple(g) for g in groups if len(g) > 1]
