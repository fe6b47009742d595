"""Minimum makespan: ``min_total_duration`` and ``min_total_duration_perf``.

Source: Gavel (Narayanan et al., OSDI 2020, §4.1 "Minimize makespan");
``stanford-futuredata/gavel``, ``scheduler/policies/min_total_duration.py``
(``MinTotalDurationPolicy``, ``MinTotalDurationPolicyWithPerf``). Read, not copied.

**Program (``_perf``).** Variables ``x[i, j]`` (fraction of time) and ``z`` (1/s: the inverse of
the makespan ``M``). Maximise ``z`` subject to the base constraints and, for each job with work
left, ``sum_j throughput[i, j] x[i, j] >= remaining[i] * z``: every job finishes within
``M = 1 / z`` seconds at its throughput (work units/s). Gavel's later file solves this one program
(its earlier one searched ``M`` by bisection). Only the slowest jobs' constraints bind, so a second
program keeps every job within that makespan and maximises the jobs' total time share
``sum_ij x[i, j]``, so that no GPU idles while a job could use it, without favouring any job.
Favouring the jobs with little work left (maximising ``sum_i T_i / remaining[i]`` instead) gave an
average JCT 6.4 % below Gavel's on Gavel's 100-job run, in a replay of Gavel's round loop:
Gavel's interior-point answer favours no job, and neither does this one (0.7 % below Gavel's on
that run through the simulator's rounds, ``benchmarks/gavel_rounds.py``).

**Program (agnostic).** The same with each job's throughput on every type set to its reference
type's (Gavel: its V100 throughput; ``RoundProblem.reference_type``, else its fastest type), solved
on the pooled cluster and split evenly over the types (:mod:`~gpusched.policies.rounds.agnostic`).

Weights: none (Gavel's program has none).
"""

from __future__ import annotations

import numpy as np

from gpusched.core.rounds.problem import Allocation, RoundProblem
from gpusched.policies.rounds import agnostic, lp
from gpusched.policies.rounds.base import RoundPolicy


def makespan_shares(problem: RoundProblem, policy: str) -> tuple[np.ndarray, int]:
    """``(n, k)`` the min-makespan allocation and the programs solved."""
    counted = problem.remaining > 0
    per_work = 1.0 / np.where(counted, problem.remaining, 1.0)
    value = np.where(counted[:, None], problem.throughput * per_work[:, None], 0.0)
    entries = lp.Entries.of(problem.runnable & (problem.capacity[None, :] > 0))
    if len(entries) == 0 or not counted.any():
        return np.zeros((problem.n_jobs, problem.n_types)), 0
    x, z = lp.max_min(problem, entries, value, policy, counted=counted)
    x = lp.maximise_values(problem, entries, value, np.full(problem.n_jobs, z), policy, counted=counted,
                           gain=np.ones_like(value))
    return entries.unflatten(x), 2


def reference_throughput(problem: RoundProblem) -> np.ndarray:
    """``(n,)`` each job's throughput on the reference type (its fastest type without one)."""
    if problem.reference_type is not None:
        return problem.throughput[:, problem.reference_type]
    return np.where(problem.runnable, problem.throughput, 0.0).max(axis=1)


class MinTotalDurationPerf(RoundPolicy):
    """Gavel's ``min_total_duration_perf``: the smallest makespan, heterogeneity-aware."""

    name = "min_total_duration_perf"
    label = "Minimum makespan (Gavel, per-type speeds)"
    run_times = True

    def solve(self, problem: RoundProblem) -> Allocation:
        share, programs = makespan_shares(problem, self.name)
        return Allocation(share=share, programs=programs)


class MinTotalDuration(RoundPolicy):
    """Gavel's ``min_total_duration``: the smallest makespan, every type treated as equal."""

    name = "min_total_duration"
    label = "Minimum makespan (Gavel)"
    run_times = True
    agnostic = True

    def solve(self, problem: RoundProblem) -> Allocation:
        reference = reference_throughput(problem)
        if agnostic.can_pool(problem):
            share, programs = makespan_shares(agnostic.pooled(problem, reference), self.name)
        else:
            equal = RoundProblem(
                throughput=problem.fits * reference[:, None], scale_factor=problem.scale_factor,
                capacity=problem.capacity, remaining=problem.remaining, job_ids=problem.job_ids)
            share, programs = makespan_shares(equal, self.name)
            programs += 1
        return Allocation(share=agnostic.even_split(problem, share.sum(axis=1), self.name),
                          programs=programs)
