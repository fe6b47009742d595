"""What a policy is.

A policy looks at the cluster state and the job at the head of the queue and answers with a GPU
index, a tuple of GPU indices (the whole gang), or :data:`HOLD`. It must not change the state.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from gpusched.core.cluster import ClusterState
from gpusched.core.jobs import Job
from gpusched.core.simulator import HOLD, Action


class Policy(Protocol):
    """A scheduling policy. ``name`` is its registry name."""

    name: str

    def select(self, state: ClusterState, job: Job) -> Action:
        """The placement for ``job`` (a GPU index, a gang, or :data:`HOLD`)."""
        ...


def first_true(mask: np.ndarray) -> int:
    """Index of the first ``True`` in ``mask``, or :data:`HOLD` when there is none."""
    idx = int(mask.argmax())
    return idx if mask[idx] else HOLD


def argmin_masked(score: np.ndarray, mask: np.ndarray) -> int:
    """Index of the smallest ``score`` where ``mask`` is true (lowest index on ties), or HOLD."""
    if not mask.any():
        return HOLD
    return int(np.where(mask, score, np.inf).argmin())
