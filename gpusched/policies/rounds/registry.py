"""The round policies by name: Gavel's names, so that a Gavel user finds them.

One table (:data:`ROUND_POLICIES`) maps each name to its class; :func:`get_round_policy` builds a
fresh policy for a run from a seed (AlloX and Gandiva remember jobs across rounds; Gandiva draws
random pairs). Gavel's own list: ``stanford-futuredata/gavel``, ``scheduler/utils.py``
(``get_available_policies``, ``get_policy``).
"""

from __future__ import annotations

from gpusched.errors import UnknownPolicyError, shorten
from gpusched.policies.rounds.allox import AlloX, AlloXShockwave
from gpusched.policies.rounds.base import RoundPolicy
from gpusched.policies.rounds.fifo import FifoPerf
from gpusched.policies.rounds.finish_time_fairness import (
    FinishTimeFairness,
    FinishTimeFairnessPerf,
    FinishTimeFairnessShockwave,
)
from gpusched.policies.rounds.gandiva import Gandiva
from gpusched.policies.rounds.max_min_fairness import MaxMinFairness, MaxMinFairnessPerf
from gpusched.policies.rounds.max_min_fairness_packed import MaxMinFairnessPacked
from gpusched.policies.rounds.max_sum_throughput import (
    MaxSumThroughputNormalizedByCostPerf,
    MaxSumThroughputPerf,
    MaxSumThroughputShockwave,
)
from gpusched.policies.rounds.min_total_duration import (
    MinTotalDuration,
    MinTotalDurationPerf,
    MinTotalDurationShockwave,
)

ROUND_POLICIES: dict[str, type[RoundPolicy]] = {
    cls.name: cls for cls in (
        FifoPerf,
        MaxMinFairness, MaxMinFairnessPerf, MaxMinFairnessPacked,
        FinishTimeFairness, FinishTimeFairnessPerf, FinishTimeFairnessShockwave,
        MinTotalDuration, MinTotalDurationPerf, MinTotalDurationShockwave,
        MaxSumThroughputPerf, MaxSumThroughputNormalizedByCostPerf, MaxSumThroughputShockwave,
        Gandiva, AlloX, AlloXShockwave,
    )
}
"""Every round policy, by Gavel's name."""

SEEDED = frozenset({"gandiva", "allox", "allox_shockwave"})
"""The policies built from a seed (the others take no arguments)."""


def round_policy_names() -> list[str]:
    """The round policies' names, in registry order."""
    return list(ROUND_POLICIES)


def get_round_policy(name: str, seed: int = 0) -> RoundPolicy:
    """A fresh round policy for one run.

    :param name: Gavel's name (``max_min_fairness_perf``, ...).
    :param seed: the seed of its random draws (Gandiva's pairs), ignored by the others.
    """
    cls = ROUND_POLICIES.get(name)
    if cls is None:
        raise UnknownPolicyError(
            f"unknown round policy {shorten(name)!r}; known: {', '.join(ROUND_POLICIES)}")
    return cls(seed) if name in SEEDED else cls()


def agnostic_twins(names: list[str] | tuple[str, ...]) -> list[tuple[str, str]]:
    """``(agnostic, _perf)`` pairs among ``names``: each heterogeneity-agnostic round policy
    (Gavel's ``X``) whose ``X_perf`` twin is there too, in the order of ``names``."""
    return [(n, f"{n}_perf") for n in names
            if n in ROUND_POLICIES and ROUND_POLICIES[n].agnostic and f"{n}_perf" in names]
