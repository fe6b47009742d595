"""Max-min fairness over time (Gavel's "LAS"): ``max_min_fairness`` and ``max_min_fairness_perf``.

Source: Gavel (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
Workloads", OSDI 2020, §4.1 "Least Attained Service"); ``stanford-futuredata/gavel``,
``scheduler/policies/max_min_fairness.py`` (``MaxMinFairnessPolicy``,
``MaxMinFairnessPolicyWithPerf``). Read, not copied.

**Program (``_perf``).** Variables ``x[i, j]`` (fraction of time job ``i`` runs on type ``j``, on
the entries where it fits and runs) and ``t`` (no unit). Maximise ``t`` subject to the base
constraints (:mod:`~gpusched.policies.rounds.lp`) and, for each job::

    sum_j  x[i, j] * throughput[i, j] * scale_factor[i] / (weight[i] * isolated[i])  >=  t

``isolated[i] = sum_j throughput[i, j] * x_iso[i, j]`` is the job's throughput (work units/s) under
the agnostic allocation ``x_iso`` below: each job's throughput is measured against what an equal
share would give it, so ``t`` is the least normalised share, and the scale factor makes a job on
``g`` GPUs count ``g`` times (Gavel's comment: a 1-GPU job should receive ``g`` times the time of a
``g``-GPU job). Weights, as Gavel applies them: the value is divided by the weight, and
``isolated`` already comes from the weighted agnostic allocation, so the weight counts twice (on one
GPU, weights 1 and 3 give time shares 1:9, where the agnostic policy gives 1:3). A second program
keeps every job at ``t`` and maximises the sum of the normalised values
(:func:`~gpusched.policies.rounds.lp.maximise_values`).

**Program (agnostic, ``max_min_fairness``).** The same with every throughput equal: maximise the
least ``scale_factor[i] * r_i / weight[i]``, ``r_i`` the job's total time. Solved in closed form on
the pooled cluster by water-filling (:func:`~gpusched.policies.rounds.agnostic.water_fill`), then
split evenly over the types (:mod:`~gpusched.policies.rounds.agnostic`).

Jobs that run on no type (zero throughput everywhere, or a gang larger than every type) get no time
and are left out of the minimum.
"""

from __future__ import annotations

import numpy as np

from gpusched.core.rounds.problem import Allocation, RoundProblem
from gpusched.policies.rounds import agnostic, lp
from gpusched.policies.rounds.base import RoundPolicy


def agnostic_shares(problem: RoundProblem, policy: str) -> tuple[np.ndarray, int]:
    """``(n, k)`` the agnostic max-min allocation and the number of programs it took."""
    fits = (problem.fits & (problem.capacity[None, :] > 0)).any(axis=1)
    if agnostic.can_pool(problem):
        total = np.zeros(problem.n_jobs)
        total[fits] = agnostic.water_fill(problem.scale_factor[fits], problem.weight[fits],
                                          float(problem.capacity.sum()))
        return agnostic.even_split(problem, total, policy), 0
    value = problem.fits * (problem.scale_factor / problem.weight)[:, None]
    share, _, programs = lp.fair_max_min(problem, value, problem.fits, policy)
    return agnostic.even_split(problem, share.sum(axis=1), policy), programs + 1


class MaxMinFairness(RoundPolicy):
    """Gavel's ``max_min_fairness``: max-min fair time shares, every type treated as equal."""

    name = "max_min_fairness"
    label = "Max-min fairness (Gavel's LAS)"
    agnostic = True
    weighted = True

    def solve(self, problem: RoundProblem) -> Allocation:
        share, programs = agnostic_shares(problem, self.name)
        return Allocation(share=share, programs=programs)


def isolated_throughput(problem: RoundProblem, policy: str) -> tuple[np.ndarray, int]:
    """``(n,)`` each job's throughput (work units/s) under the agnostic max-min allocation (its
    equal share); where that is 0, its best throughput (so that its values stay finite)."""
    share, programs = agnostic_shares(problem, policy)
    isolated = (problem.throughput * share).sum(axis=1)
    best = np.where(problem.runnable, problem.throughput, 0.0).max(axis=1)
    return np.where(isolated > 0, isolated, best), programs


class MaxMinFairnessPerf(RoundPolicy):
    """Gavel's ``max_min_fairness_perf``: max-min fair normalised throughputs."""

    name = "max_min_fairness_perf"
    label = "Max-min fairness (Gavel's LAS, per-type speeds)"
    weighted = True

    def solve(self, problem: RoundProblem) -> Allocation:
        isolated, programs = isolated_throughput(problem, self.name)
        with np.errstate(divide="ignore", invalid="ignore"):
            norm = np.where(isolated > 0, problem.scale_factor / (problem.weight * isolated), 0.0)
        share, _, more = lp.fair_max_min(problem, problem.throughput * norm[:, None], problem.runnable,
                                      self.name)
        return Allocation(share=share, programs=programs + more)
