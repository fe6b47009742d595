"""What a policy is: the protocols of :mod:`gpusched.core.view`.

A FIFO placement (:class:`~gpusched.core.view.Placement`, here :class:`Policy`) looks at the
cluster state and a job and answers with a GPU index, a tuple of GPU indices (the whole gang), or
:data:`HOLD`; it must not change the state. A queue-aware policy is a
:class:`~gpusched.core.view.Scheduler`: ``bind(view)`` once per run, then ``decide(view)``. Both
see the run through its read-only :class:`~gpusched.core.view.SchedulerView`.
"""

from __future__ import annotations

import numpy as np

from gpusched.core.simulator import HOLD
from gpusched.core.view import Placement, Scheduler

Policy = Placement
"""A FIFO placement policy (:class:`gpusched.core.view.Placement`). ``name`` is its registry name."""

__all__ = ["Placement", "Policy", "Scheduler", "argmin_masked", "first_true"]


def first_true(mask: np.ndarray) -> int:
    """Index of the first ``True`` in ``mask``, or :data:`HOLD` when there is none."""
    idx = int(mask.argmax())
    return idx if mask[idx] else HOLD


def argmin_masked(score: np.ndarray, mask: np.ndarray) -> int:
    """Index of the smallest ``score`` where ``mask`` is true (lowest index on ties), or HOLD."""
    if not mask.any():
        return HOLD
    return int(np.where(mask, score, np.inf).argmin())
