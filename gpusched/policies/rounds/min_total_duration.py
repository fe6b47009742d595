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

**Shockwave's reading** (``min_total_duration_shockwave``, :class:`MinTotalDurationShockwave`):
the file that drove Shockwave's real cluster (``uw-mad-dash/shockwave``,
``scheduler/policies/min_total_duration.py``) is Gavel's earlier one. It searches the makespan
``T`` by bisection, from 100 s to 10^6 s (ten times further while nothing is feasible), until the
bounds are within 5 % of each other, and keeps the answer of the last feasible ``T``: a
feasibility program (its objective a constant) solved by ECOS, whose interior point leaves every
job some slack. Here the smallest makespan is solved exactly, the same bisection is run on it
(:func:`shockwave_makespan_s`: a ``T`` is feasible when it is at least that makespan), and the rest
of the cluster, once every job has the throughput that finishes it within ``T``, is spread evenly
over the jobs (:func:`~gpusched.policies.rounds.finish_time_fairness.spread_shares`, the reading of
that interior point that ``finish_time_fairness_shockwave`` uses). A job that changes its batch
size is read by its steps left at its current batch size (``RoundProblem.reported_remaining``), as
Shockwave's scheduler reads it.
"""

from __future__ import annotations

import math

import numpy as np

from gpusched.core.rounds.problem import Allocation, RoundProblem
from gpusched.policies.rounds import agnostic, lp
from gpusched.policies.rounds.base import RoundPolicy
from gpusched.policies.rounds.finish_time_fairness import spread_shares


def makespan_program(problem: RoundProblem) -> tuple[lp.Entries, np.ndarray, np.ndarray] | None:
    """The makespan program's entries, each job's value per entry (its throughput ÷ its work left,
    ``(n, k)``) and the jobs counted (work left); ``None`` when there is nothing to allocate."""
    counted = problem.remaining > 0
    per_work = 1.0 / np.where(counted, problem.remaining, 1.0)
    value = np.where(counted[:, None], problem.throughput * per_work[:, None], 0.0)
    entries = lp.Entries.of(problem.runnable & (problem.capacity[None, :] > 0))
    if len(entries) == 0 or not counted.any():
        return None
    return entries, value, counted


def makespan_shares(problem: RoundProblem, policy: str) -> tuple[np.ndarray, int]:
    """``(n, k)`` the min-makespan allocation and the programs solved."""
    program = makespan_program(problem)
    if program is None:
        return np.zeros((problem.n_jobs, problem.n_types)), 0
    entries, value, counted = program
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


SHOCKWAVE_SEARCH_S = (100.0, 1_000_000.0)
"""The makespans (s) Shockwave's file starts its bisection between."""

SHOCKWAVE_SEARCH_RATIO = 1.05
"""Its bisection stops when the upper bound is within this factor of the lower one."""


def shockwave_makespan_s(optimum_s: float) -> float:
    """The makespan ``T`` (s) at which Shockwave's file keeps its answer, for a program whose
    smallest makespan is ``optimum_s``: its bisection (the module docstring), each ``T`` feasible
    when ``T >= optimum_s``; the last feasible one.

    :raises ValueError: if ``optimum_s`` is not a positive finite number (the search never ends).
    """
    if not (math.isfinite(optimum_s) and optimum_s > 0):
        raise ValueError(f"no finite makespan to search for (got {optimum_s!r})")
    low, high = SHOCKWAVE_SEARCH_S
    ceiling, found = high, None
    while found is None:
        while SHOCKWAVE_SEARCH_RATIO * low < high:
            t = (low + high) / 2.0
            if t >= optimum_s:
                found = high = t
            else:
                low = t
        low, high, ceiling = ceiling, ceiling * 10.0, ceiling * 10.0
    return found


class MinTotalDurationShockwave(RoundPolicy):
    """Shockwave's ``min_total_duration``: the makespan its bisection settles on, the rest of the
    cluster spread evenly (see the module docstring). Shockwave's heterogeneity-agnostic class reads
    every type's throughput as the V100's; on its cluster of V100s only that is this program, so the
    name stands for both."""

    name = "min_total_duration_shockwave"
    label = "Minimum makespan (Shockwave's)"
    run_times = True

    def solve(self, problem: RoundProblem) -> Allocation:
        problem = problem.as_reported()
        program = makespan_program(problem)
        if program is None:
            return Allocation(share=np.zeros((problem.n_jobs, problem.n_types)))
        entries, value, counted = program
        _, z = lp.max_min(problem, entries, value, self.name, counted=counted)
        if not z > 0:  # some job can run nowhere: no makespan
            return Allocation(share=np.zeros((problem.n_jobs, problem.n_types)), programs=1)
        makespan = shockwave_makespan_s(1.0 / z)
        need = np.where(counted, problem.remaining / makespan, 0.0)
        unit = np.where(problem.runnable, problem.throughput, 0.0).max(axis=1)  # a time share's worth
        share, fills = spread_shares(problem, entries, need, unit, self.name)
        return Allocation(share=share, programs=1 + fills)
