"""Gandiva's time-slicing and packing in rounds: ``gandiva``.

Source: Gandiva (Xiao et al., "Gandiva: Introspective Cluster Scheduling for Deep Learning",
OSDI 2018) as Gavel implements it; ``stanford-futuredata/gavel``, ``scheduler/policies/gandiva.py``
(``GandivaPolicy``). Read, not copied.

**Rule** (no program). If the jobs' GPUs fit the cluster (``sum scale_factor <= sum capacity``),
every job gets an equal share of every type: ``x[i, j] = capacity[j] / n / scale_factor[i]``, each
row scaled down to sum to at most 1. Otherwise Gandiva packs: jobs not yet paired are drawn two at
a time at random (``n`` draws; a draw of two gang sizes that differ, or of a pair the problem lists
no pair throughput for, is skipped), and the pairs and the single jobs left share the cluster
equally the same way (a pair counts once). Pairs are kept from round to round while both jobs
remain and the pair is worth it: its normalised throughput, summed over both jobs and every type
(``pair / alone`` per job and type, as Gavel's file sums it), is at least 1; a pair with a member
that makes no progress on some type is dropped.

Without ``RoundProblem.pair_jobs`` no pair can form, and an overloaded cluster is shared equally
among the single jobs. Random draws come from the policy's seeded numpy Generator.
"""

from __future__ import annotations

import numpy as np

from gpusched.core.rounds.problem import Allocation, RoundProblem
from gpusched.policies.rounds.base import RoundPolicy


def equal_shares(scale: np.ndarray, capacity: np.ndarray, members: int) -> np.ndarray:
    """``(m, k)`` Gavel's equal split of every type over ``members`` combinations of gang sizes
    ``scale``, each row scaled down to sum to at most 1."""
    x = capacity[None, :].astype(float) / members / scale[:, None].astype(float)
    return x / np.maximum(x.sum(axis=1, keepdims=True), 1.0)


class Gandiva(RoundPolicy):
    """Gavel's ``gandiva``: equal time slices, with random pairs when the cluster is overloaded."""

    name = "gandiva"
    label = "Gandiva"

    def __init__(self, seed: int = 0) -> None:
        self._rng = np.random.default_rng(seed)
        self._partner: dict[int, int | None] = {}

    def _pair_worth(self, problem: RoundProblem, p: int, a: int, b: int) -> float:
        pair = problem.pair_throughput[p]
        if (pair <= 0).any():
            return 0.0
        alone = problem.throughput[[a, b]].T
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.where(alone > 0, pair / alone, 0.0).sum())

    def solve(self, problem: RoundProblem) -> Allocation:
        ids = [int(v) for v in problem.job_ids]
        row = {job: i for i, job in enumerate(ids)}
        pairs = {} if problem.pair_jobs is None else {
            (min(ids[a], ids[b]), max(ids[a], ids[b])): p for p, (a, b) in enumerate(problem.pair_jobs)}
        for job, other in list(self._partner.items()):
            keep = job in row and (other is None or other in row)
            if keep and other is not None:
                p = pairs.get((min(job, other), max(job, other)))
                keep = p is not None and self._pair_worth(problem, p, row[job], row[other]) >= 1.0
            if not keep:
                self._partner.pop(job, None)
                if other is not None:
                    self._partner.pop(other, None)
        share = np.zeros((problem.n_jobs, problem.n_types))
        pair_share = (None if problem.pair_jobs is None
                      else np.zeros((len(problem.pair_jobs), problem.n_types)))
        if problem.scale_factor.sum() <= problem.capacity.sum() or problem.pair_jobs is None:
            return Allocation(share=equal_shares(problem.scale_factor, problem.capacity, problem.n_jobs),
                              pair_share=pair_share)
        loose = [job for job in ids if job not in self._partner]
        for _ in range(len(loose)):
            if len(loose) < 2:
                break
            a, b = (loose[int(v)] for v in self._rng.choice(len(loose), size=2, replace=False))
            key = (min(a, b), max(a, b))
            if problem.scale_factor[row[a]] != problem.scale_factor[row[b]] or key not in pairs:
                continue
            loose.remove(a)
            loose.remove(b)
            self._partner[a], self._partner[b] = b, a
        for job in loose:
            self._partner[job] = None
        singles = [row[job] for job in ids if self._partner[job] is None]
        paired = sorted({pairs[(min(job, o), max(job, o))] for job, o in self._partner.items()
                         if o is not None})
        members = len(singles) + len(paired)
        if singles:
            share[singles] = equal_shares(problem.scale_factor[singles], problem.capacity, members)
        if paired:
            gangs = problem.scale_factor[problem.pair_jobs[paired, 0]]
            pair_share[paired] = equal_shares(gangs, problem.capacity, members)
        return Allocation(share=share, pair_share=pair_share)
