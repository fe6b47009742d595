"""The heterogeneity-agnostic twins: every GPU type is treated as equal, and a job's time is
split evenly over the types.

**Gavel's behaviour.** Gavel's agnostic policies (``max_min_fairness``, ``finish_time_fairness``,
``min_total_duration``; ``stanford-futuredata/gavel``, ``scheduler/policies/*.py``) solve the
``_perf`` program with every throughput replaced by one value per job (1, or the job's V100
throughput for ``min_total_duration``). The program then fixes only each job's total time
``r_i = sum_j x[i, j]``: any split over the types with the same column use is optimal. ECOS, an
interior-point solver, returns the centre of that face, which on a cluster whose types are
interchangeable is the even split, so jobs rotate over V100, P100 and K80 round after round.

**Here, deliberately:** the program is solved on the pooled cluster (one type of
``sum_j capacity[j]`` GPUs), which gives the ``r_i``, and each job's time is then split in
proportion to the types' GPU counts, ``x[i, j] = r_i * capacity[j] / sum(capacity)``
(:func:`even_split`). That split uses exactly ``sum_i s_i r_i * capacity[j] / C <= capacity[j]`` of
each type, so it is feasible whenever the pooled answer is, and on a cluster with equal counts per
type it is the centre ECOS returns. When some job's gang does not fit some type, pooling is not
exact: the program is solved per type with equal throughputs instead, and a second program picks,
among splits with the same ``r_i``, the one closest to proportional (it maximises the least ratio
``x[i, j] / (r_i * capacity[j] / C_i)``, ``C_i`` the GPUs of the types job ``i`` fits).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from gpusched.core.rounds.problem import RoundProblem
from gpusched.policies.rounds import lp


def pooled(problem: RoundProblem, per_job_throughput: np.ndarray) -> RoundProblem:
    """``problem`` on one pooled GPU type of all the cluster's GPUs, each job at
    ``per_job_throughput`` (the agnostic view)."""
    return RoundProblem(
        throughput=np.asarray(per_job_throughput, dtype=float)[:, None],
        scale_factor=problem.scale_factor, capacity=[int(problem.capacity.sum())],
        weight=problem.weight, remaining=problem.remaining, age_s=problem.age_s,
        service_s=problem.service_s.sum(axis=1, keepdims=True), deadline_s=problem.deadline_s,
        type_names=("pooled",), job_ids=problem.job_ids)


def can_pool(problem: RoundProblem) -> bool:
    """Every job's gang fits every type with GPUs (or no type): pooling is then exact."""
    fits = problem.fits[:, problem.capacity > 0]
    return bool((fits.all(axis=1) | ~fits.any(axis=1)).all())


def even_split(problem: RoundProblem, total: np.ndarray, policy: str) -> np.ndarray:
    """``(n, k)``: each job's total time ``total[i]`` split over the types it fits in proportion to
    their GPU counts (closed form when :func:`can_pool`, else the second program of the module
    docstring)."""
    total = np.clip(np.asarray(total, dtype=float), 0.0, 1.0)
    fits = problem.fits & (problem.capacity[None, :] > 0)
    weights = fits * problem.capacity[None, :].astype(float)
    per_job = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        target = np.where(per_job[:, None] > 0, total[:, None] * weights / per_job[:, None], 0.0)
    if can_pool(problem):
        return target
    entries = lp.Entries.of(fits & (target > 0))
    m = len(entries)
    if m == 0:
        return np.zeros_like(target)
    a_cap = lp.base_constraints(problem, entries, extra=1)[0][problem.n_jobs:]
    rows = entries.per_job(np.ones_like(target), extra=1)
    keep = np.bincount(entries.rows, minlength=problem.n_jobs) > 0
    goal = target[entries.rows, entries.cols]
    a_even = sparse.hstack([-sparse.identity(m, format="csr"), sparse.csr_matrix(goal[:, None])],
                           format="csr")
    a_ub = sparse.vstack([a_cap, a_even], format="csr")
    b_ub = np.concatenate([problem.capacity.astype(float), np.zeros(m)])
    c = np.zeros(m + 1)
    c[-1] = -1.0
    x = lp.linprog_eq(c, a_ub, b_ub, rows[keep], total[keep], [(0, None)] * m + [(0, 1)], policy,
                      "even-split program")
    return entries.unflatten(x)


def water_fill(scale_factor: np.ndarray, weight: np.ndarray, gpus: float) -> np.ndarray:
    """``(n,)`` the max-min fair total time on a pooled cluster of ``gpus`` GPUs, Gavel's agnostic
    max-min value ``s_i r_i / w_i`` equalised at the largest level ``t`` the GPUs allow, each
    ``r_i = min(1, t w_i / s_i)`` (water-filling: optimal for the minimum, and no GPU idles while a
    job could use it)."""
    s = np.asarray(scale_factor, dtype=float)
    w = np.asarray(weight, dtype=float)
    if len(s) == 0:
        return np.zeros(0)
    if s.sum() <= gpus:
        return np.ones_like(s)
    caps = s / w  # level at which each job reaches r = 1
    order = np.argsort(caps)
    caps_sorted, s_sorted, w_sorted = caps[order], s[order], w[order]
    full_gpus = np.concatenate([[0.0], np.cumsum(s_sorted)])       # GPUs of jobs already at r = 1
    free_weight = np.concatenate([np.cumsum(w_sorted[::-1])[::-1], [0.0]])  # weight still rising
    level = 0.0
    for m in range(len(s) + 1):
        if free_weight[m] <= 0:
            break
        level = (gpus - full_gpus[m]) / free_weight[m]
        upper = caps_sorted[m] if m < len(s) else np.inf
        if level <= upper:
            break
    return np.minimum(1.0, level * w / s)
