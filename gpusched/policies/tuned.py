"""The tuned rule: a linear priority score over what the view shows of each window job.

The score of a waiting job ``i`` is ``w . f(i)`` over the features :data:`TUNED_FEATURES`, each in
the unit its scale gives (lower scores start first, the earliest arrival on ties); the job is
placed by a registered placement (``fastest_fit`` by default). It is an order like any other
(:class:`~gpusched.policies.order_spec.OrderSpec`), composed with its placement as every
``ORDER+PLACEMENT`` pair is, so with ``fastest_fit`` it runs through the same
:class:`~gpusched.policies.queue.QueuePolicy` as ``sjf+fastest_fit``: with all its weight on
``left_best`` it ranks exactly as ``sjf`` does on a run without preemption (a waiting job that
never ran has its whole declared run time left).

A score that is a weighted sum of job features, with weights learned from simulated runs, is
RLScheduler's idea (Zhang, Dai, Bao, Tiwari, Aiken, "RLScheduler: An Automated HPC Batch Job
Scheduler Using Reinforcement Learning", SC '20; its per-job kernel network scores each waiting
job from its features, repository ``DIR-LAB/deep-batch-scheduler``, ``HPCSimPickJobs.py``). Here
the kernel is linear and its weights are found by a black-box search over training seeds
(:mod:`gpusched.agent.tune`). The weights come from a model file loaded safely
(:mod:`gpusched.agent.rule_models`); this module only scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from gpusched.core.view import SchedulerView
from gpusched.policies.base import Policy
from gpusched.policies.order_spec import OrderSpec
from gpusched.policies.registry import order_with_placement

TUNED_FEATURES: tuple[str, ...] = ("wait", "left_best", "gpus", "attained", "slack", "weight",
                                   "speed_ratio", "cost")
"""The features of the score, in the order of a weight vector:

- ``wait``: minutes since arrival / 60 (hours);
- ``left_best``: declared remaining run time on the best GPU it could get / 60 (hours;
  :meth:`~gpusched.core.view.SchedulerView.left_best_min`);
- ``gpus``: GPUs requested;
- ``attained``: attained service / 60 (GPU-hours);
- ``slack``: deadline less now less ``left_best``, / 60 (hours; 24 without a deadline);
- ``weight``: the job's priority weight (Gavel's 1 or 5);
- ``speed_ratio``: the speed of the fastest free gang it fits now against its best speed (0-1; 0
  where it fits nowhere);
- ``cost``: USD per hour of that gang at the cheapest GPU it fits now (0 without prices).
"""

NO_DEADLINE_SLACK_H = 24.0
"""The slack feature of a job without a deadline (hours)."""


def job_features(view: SchedulerView, indices: Sequence[int]) -> np.ndarray:
    """The features :data:`TUNED_FEATURES` of the waiting jobs ``indices`` (arrival indices), one
    row each, read from the view alone.

    :param view: the scheduler's view.
    :param indices: arrival indices of waiting jobs.
    :return: float64 array of shape ``(len(indices), len(TUNED_FEATURES))``.
    """
    jobs, now, state = view.jobs, view.time_min, view.state
    prices, speed_model = view.prices, view.speed_model
    attained = view.attained_service_gpu_min(indices) if len(indices) else np.zeros(0)
    out = np.zeros((len(indices), len(TUNED_FEATURES)))
    for r, i in enumerate(indices):
        job = jobs[i]
        left = view.left_best_min(i)
        slack = (NO_DEADLINE_SLACK_H if job.deadline_min is None
                 else (job.arrival_min + job.deadline_min - now - left) / 60.0)
        fits = state.fit_mask(job)
        ratio = cost = 0.0
        if fits.any():
            row = speed_model.row(job)
            ratio = 1.0 if row is None else float(row[fits].max()) / float(view.best_speed[i])
            if prices is not None:
                priced = np.where(fits, prices, np.nan)
                if not np.isnan(priced).all():
                    cost = float(np.nanmin(priced)) * job.gpus
        out[r] = (max(now - job.arrival_min, 0.0) / 60.0, left / 60.0, job.gpus,
                  float(attained[r]) / 60.0, slack, job.weight, ratio, cost)
    return out


def tuned_key(weights: np.ndarray) -> Callable[[SchedulerView], Callable[[int], float]]:
    """The order key of the score ``weights . features`` (lower first).

    :param weights: one finite weight per feature of :data:`TUNED_FEATURES`.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (len(TUNED_FEATURES),) or not np.isfinite(w).all():
        raise ValueError(f"a tuned score takes {len(TUNED_FEATURES)} finite weights, got {w.tolist()}")
    used = np.flatnonzero(w)

    def key(view: SchedulerView) -> Callable[[int], float]:
        window = view.window_indices()
        if not window:
            return lambda i: math.inf
        feats = job_features(view, window)
        scores = dict(zip(window, (feats[:, used] @ w[used]).tolist(), strict=True))
        return scores.__getitem__

    return key


def tuned_scores(weights: np.ndarray) -> Callable[[SchedulerView, np.ndarray], np.ndarray]:
    """The score ``weights . features`` of any active jobs, waiting or running (lower first): what
    a round policy's per-job weights are read from (:mod:`gpusched.policies.rounds.weights`).

    A waiting job's features are :func:`job_features`'. A running job's remaining work is what is
    left of its declared run now (:meth:`~gpusched.core.view.SchedulerView.running_left_best_min`,
    hours), and its slack follows from it; its ``speed_ratio`` and ``cost`` read the GPUs free now,
    as a waiting job's do.

    :param weights: one finite weight per feature of :data:`TUNED_FEATURES`.
    :return: ``score(view, active)`` -> ``(m,)`` float64 scores of the arrival indices ``active``.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (len(TUNED_FEATURES),) or not np.isfinite(w).all():
        raise ValueError(f"a tuned score takes {len(TUNED_FEATURES)} finite weights, got {w.tolist()}")
    left_col, slack_col = TUNED_FEATURES.index("left_best"), TUNED_FEATURES.index("slack")

    def score(view: SchedulerView, active: np.ndarray) -> np.ndarray:
        indices = [int(i) for i in active]
        feats = job_features(view, indices)
        running = set(view.running_indices())
        rows = [r for r, i in enumerate(indices) if i in running]
        if rows:
            left_h = view.running_left_best_min(np.array([indices[r] for r in rows])) / 60.0
            for r, left in zip(rows, left_h.tolist(), strict=True):
                if view.jobs[indices[r]].deadline_min is not None:
                    feats[r, slack_col] += feats[r, left_col] - left
                feats[r, left_col] = left
        return feats @ w

    return score


def tuned_rule(weights: np.ndarray, placement: str, name: str, seed: int = 0) -> Policy:
    """The tuned rule: the order of :func:`tuned_key` over the window's jobs, with a registered
    placement composed as every ``ORDER+PLACEMENT`` pair is
    (:func:`~gpusched.policies.registry.order_with_placement`): a FIFO placement places the job the
    score picks among those that fit now; ``eft`` starts the best-scored job whose earliest finish
    is now and gives the others reservations; ``fastest_move`` also moves running jobs to faster
    GPUs.

    :param weights: one finite weight per feature of :data:`TUNED_FEATURES`.
    :param placement: a registered placement's name (``fastest_fit``, ``eft``, ...).
    :param name: the registry name reported in results (``tuned:NAME``).
    :param seed: the placement's seed.
    """
    spec = OrderSpec("tuned", "Learned-weight score", tuned_key(weights), run_times=True)
    return order_with_placement(spec, placement, name, seed)
