"""Maximum total throughput: ``max_sum_throughput_perf`` and
``max_sum_throughput_normalized_by_cost_perf`` (with SLOs where jobs carry deadlines).

Source: Gavel (Narayanan et al., OSDI 2020, §4.1 "Maximize total throughput" and §4.2 "Minimize
cost, with SLOs"); ``stanford-futuredata/gavel``, ``scheduler/policies/max_sum_throughput.py``
(``ThroughputSumWithPerf``, ``ThroughputNormalizedByCostSumWithPerf``,
``ThroughputNormalizedByCostSumWithPerfSLOs``). Read, not copied.

**Program.** Variables ``x[i, j]`` (fraction of time). Maximise
``sum_i sum_j throughput[i, j] * x[i, j] / cost[j]`` (work units per second per unit of price per
GPU-hour; ``cost`` all 1 for ``max_sum_throughput_perf``) subject to the base constraints. The
throughputs are summed as given, as in Gavel's file (which computes a per-job normalisation and
leaves it unused): in Gavel's steps/s a fast-stepping model weighs more; in gpusched's speed unit
(reference-GPU seconds per second) every job's throughput is already on one scale.

**SLOs** (the cost policy only). A job with a deadline ``deadline_s[i]`` seconds away must keep
``sum_j throughput[i, j] x[i, j] >= remaining[i] / deadline_s[i]``. If no allocation meets every
SLO, Gavel solves again without them; so does this policy, and says so in ``Allocation.note``.

Weights: none (Gavel's program has none).

**Shockwave's reading** (``max_sum_throughput_shockwave``, :class:`MaxSumThroughputShockwave`): the
scheduler that drove Shockwave's real cluster (``uw-mad-dash/shockwave``,
``scheduler/policies/max_sum_throughput.py``, the same program) hands the file each job's measured
steps per second, so the sum weighs a job by its steps: a model that takes many small steps weighs
more than one that takes few large ones. A job whose steps are known (a job of phases,
``RoundProblem.steps_per_unit``: its current phase's steps per unit of work) is read so; where
jobs tie, HiGHS's vertex is kept where the file's ECOS returns a point inside the optimal face.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy import sparse

from gpusched.core.rounds.problem import Allocation, RoundProblem, RoundSolveError
from gpusched.policies.rounds import highs, lp
from gpusched.policies.rounds.base import RoundPolicy


def throughput_shares(problem: RoundProblem, policy: str, by_cost: bool, slos: bool
                      ) -> tuple[np.ndarray, str]:
    """``(n, k)`` the allocation of largest total (cost-normalised) throughput, and a note."""
    entries = lp.Entries.of(problem.runnable & (problem.capacity[None, :] > 0))
    if len(entries) == 0:
        return np.zeros((problem.n_jobs, problem.n_types)), ""
    gain = problem.throughput / (problem.cost[None, :] if by_cost else 1.0)
    c = -gain[entries.rows, entries.cols]
    with_slo = slos & np.isfinite(problem.deadline_s) & (problem.remaining > 0)
    if with_slo.any():
        a_ub, b_ub = lp.base_constraints(problem, entries)
        bounds = [(0, None)] * len(entries)
        per_job = entries.per_job(problem.throughput)[with_slo]
        need = problem.remaining[with_slo] / problem.deadline_s[with_slo]
        try:
            x = lp.solve(c, sparse.vstack([a_ub, -per_job], format="csr"),
                         np.concatenate([b_ub, -need]), bounds, policy, "program with SLOs")
            return entries.unflatten(x), ""
        except RoundSolveError:
            note = f"SLOs dropped this round: no allocation meets all {int(with_slo.sum())}"
    else:
        note = ""
    rows, cols, data, b_base = lp.base_triplets(problem, entries)
    matrix = highs.Csc.of_triplets(rows, cols, data, (problem.n_jobs + problem.n_types, len(entries)))
    x = lp.solve_csc(c, matrix, b_base, np.zeros(len(entries)), np.full(len(entries), np.inf), policy,
                     "throughput program")
    return entries.unflatten(x), note


class MaxSumThroughputPerf(RoundPolicy):
    """Gavel's ``max_sum_throughput_perf``: the largest total throughput."""

    name = "max_sum_throughput_perf"
    label = "Maximum total throughput (Gavel)"

    def solve(self, problem: RoundProblem) -> Allocation:
        share, note = throughput_shares(problem, self.name, by_cost=False, slos=False)
        return Allocation(share=share, programs=1, note=note)


class MaxSumThroughputNormalizedByCostPerf(RoundPolicy):
    """Gavel's ``max_sum_throughput_normalized_by_cost_perf``: the largest throughput per unit of
    price, with SLOs for jobs that carry deadlines."""

    name = "max_sum_throughput_normalized_by_cost_perf"
    label = "Maximum throughput per dollar (Gavel)"

    def solve(self, problem: RoundProblem) -> Allocation:
        share, note = throughput_shares(problem, self.name, by_cost=True, slos=True)
        return Allocation(share=share, programs=1 + bool(note), note=note)


class MaxSumThroughputShockwave(RoundPolicy):
    """Shockwave's ``max_sum_throughput_perf``: the largest total of steps per second (see the
    module docstring)."""

    name = "max_sum_throughput_shockwave"
    label = "Maximum total throughput (Shockwave's)"

    def solve(self, problem: RoundProblem) -> Allocation:
        in_steps = replace(problem, throughput=problem.throughput * problem.steps_per_unit[:, None])
        share, note = throughput_shares(in_steps, self.name, by_cost=False, slos=False)
        return Allocation(share=share, programs=1, note=note)
