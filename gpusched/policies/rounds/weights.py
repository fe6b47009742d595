"""Per-job weights from a score: how a priority score (the tuned rule's, :mod:`gpusched.policies.tuned`)
steers a round policy that honours weights (``RoundPolicy.weighted``: the max-min fairness family).

A score orders jobs (lower first, as every order of :mod:`gpusched.policies.orders`); a round policy
shares time by weight. The map between them is rank-based, so that it does not depend on the score's
scale (a tuned score's weights are found by a black-box search and have no unit):

    multiplier[i] = spread ** (above[i] / (n - 1))

where ``n`` is the number of active jobs and ``above[i]`` the number of them whose score is strictly
higher (worse) than job ``i``'s. The job with the lowest score gets ``spread``, the highest 1, and
jobs between a power of ``spread`` geometric in their rank; tied jobs get the same multiplier; with
one job, or every score equal, every multiplier is exactly 1. The map is monotone: a lower score
never gives a smaller multiplier. The job's weight in the round problem is its own priority weight
(Gavel's 1 or 5) times its multiplier, so where the score sets every multiplier to 1 the round
policy sees exactly the weights it sees alone, and runs exactly as it does alone.

Scores are read from the scheduler's view only (declared run times, waits, attained service: never
true durations), when the round mechanism asks for a new allocation
(:meth:`gpusched.core.rounds.mechanism.RoundsRun.needs_allocation`: the active jobs changed or the
reset interval passed); between two allocations the weights stay as they were.

Weights enter the max-min program as Gavel's ``priority_weights`` do (``stanford-futuredata/gavel``,
``scheduler/policies/max_min_fairness.py``): ``max_min_fairness_perf`` divides each job's normalised
throughput by its weight after normalising by the weighted equal share, so on one GPU type two jobs
of multipliers ``m`` and 1 get time in the ratio ``m**2 : 1``
(:mod:`gpusched.policies.rounds.max_min_fairness`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpusched.core.view import SchedulerView

RANK_SPREAD = 5.0
"""The default ratio between the weight multipliers of the best-scored and the worst-scored active
job: Gavel's own spread of priority weights (1 or 5). Fixed before any measurement, not tuned."""

JobScore = Callable[[SchedulerView, np.ndarray], np.ndarray]
"""A score of the active jobs (arrival indices, ``(m,)`` int) read from the view: ``(m,)`` floats,
lower first."""


def rank_multipliers(scores: np.ndarray, spread: float = RANK_SPREAD) -> np.ndarray:
    """The weight multiplier of each job from its score (see the module docstring).

    :param scores: ``(n,)`` finite scores, lower first (no unit).
    :param spread: the multiplier of the best-scored job, >= 1 (the worst-scored one gets 1).
    :return: ``(n,)`` float64 multipliers in ``[1, spread]``.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1 or not np.isfinite(s).all():
        raise ValueError(f"scores must be a finite vector, got {s.tolist()}")
    if not (np.isfinite(spread) and spread >= 1.0):
        raise ValueError(f"spread must be a finite number >= 1 (got {spread})")
    n = s.size
    if n < 2:
        return np.ones(n)
    above = (s[None, :] > s[:, None]).sum(axis=1)
    return np.power(float(spread), above / (n - 1.0))


def score_weights(score: JobScore, spread: float = RANK_SPREAD
                  ) -> Callable[[SchedulerView, np.ndarray], np.ndarray]:
    """The multipliers :func:`rank_multipliers` of ``score`` over the active jobs, as the round
    scheduler asks for them (:class:`~gpusched.policies.rounds.scheduler.RoundScheduler`'s
    ``weights``).

    :param score: the active jobs' scores from the view (:data:`JobScore`).
    :param spread: see :func:`rank_multipliers`.
    """
    if not (np.isfinite(spread) and spread >= 1.0):
        raise ValueError(f"spread must be a finite number >= 1 (got {spread})")

    def weights(view: SchedulerView, active: np.ndarray) -> np.ndarray:
        return rank_multipliers(score(view, active), spread)

    return weights
