"""The urgency terms of a training reward, integrated from a run's record
(:class:`~gpusched.core.reward.TrainingRewardSpec`: weighted JCT, lateness, missed deadlines).

They are functions of the clock and of what the record holds (arrivals, ends, weights and
deadlines), not integrals kept at every jump of the simulator's clock: at time ``t``, a job that
arrived at ``a`` and ended at ``e`` (``t`` while it is still in the system) has spent
``max(min(e, t) - a, 0)`` minutes in the system and ``max(min(e, t) - (a + d), 0)`` past its
deadline ``d``. Their sums over the jobs are the integrals the terms charge, so the reward of a
stretch from ``t0`` to ``t1`` is their change, and an episode's total is exact however the clock
jumped. The simulator's hot path pays nothing for them.

Weighted completion time is the objective of weighted scheduling since Smith's rule (W. E. Smith,
"Various optimizers for single-stage production", Naval Research Logistics Quarterly, 1956);
Gavel's generator draws the weights and deadlines (:mod:`gpusched.workload.gavel`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gpusched.core.jobs import Job


class UrgencyTotals:
    """The running totals behind the urgency terms, for one run's jobs (in arrival order).

    :param jobs: the run's jobs.
    """

    def __init__(self, jobs: Sequence[Job]):
        self.arrival = np.array([j.arrival_min for j in jobs], dtype=float)
        self.weight = np.array([j.weight for j in jobs], dtype=float)
        self.due = self.arrival + np.array([np.inf if j.deadline_min is None else j.deadline_min
                                            for j in jobs], dtype=float)
        self._deadlines = bool(np.isfinite(self.due).any())

    def at(self, t_min: float, end_min: np.ndarray) -> tuple[float, float, int]:
        """The totals at time ``t_min``: weighted job-minutes in the system, job-minutes past a
        deadline, and jobs past their deadline (unfinished at it).

        :param end_min: each job's end (NaN while unfinished), by arrival index.
        """
        until = np.fmin(end_min, t_min)  # NaN (still in the system) reads t
        weighted = float(np.dot(self.weight, np.maximum(until - self.arrival, 0.0)))
        past = until - self.due
        late = float(np.maximum(past, 0.0).sum()) if self._deadlines else 0.0
        return weighted, late, int((past > 0.0).sum())
