"""Max-min fairness with co-location: ``max_min_fairness_packed``.

Source: Gavel (Narayanan et al., OSDI 2020, §3.2 "space sharing" and §4.1);
``stanford-futuredata/gavel``, ``scheduler/policies/max_min_fairness.py``
(``MaxMinFairnessPolicyWithPacking``) and ``scheduler/policies/policy.py`` (``PolicyWithPacking``).
Read, not copied. Pair throughputs: Gavel's measured ones (``assets/gavel/simulation_throughputs.json``,
every key beside ``"null"``), which the caller puts in ``RoundProblem.pair_throughput``; in rounds
the round scheduler lists the pairs (:func:`gpusched.policies.rounds.scheduler.candidate_pairs`)
and the round mechanism runs the pairs allocated (:mod:`gpusched.core.rounds.pairs`).

**Program.** Variables ``x[i, j]`` (job ``i`` alone on type ``j``) and ``y[p, j]`` (pair ``p`` of
jobs ``a, b`` sharing ``scale_factor`` GPUs of type ``j``; only pairs of equal gang size whose two
members both progress there), fractions of time, and ``t``. Each job's value is
``sum_j x[i, j] thr[i, j] s_i / (w_i N_i) + sum_{p ∋ i} sum_j y[p, j] pair_thr[p, j, i] s_i / (w_i N_i)``,
with ``N_i = sum_j thr[i, j]`` (Gavel's normalising factor for packing: the job's alone throughputs
summed over the types) and ``w_i`` its priority weight. Maximise ``t`` subject to: every value
``>= t``; each job's time, alone and in all its pairs, ``<= 1``; each type's GPUs,
``sum_i s_i x[i, j] + sum_p s_p y[p, j] <= capacity[j]`` (a pair uses its GPUs once). A second
program keeps every job at ``t`` and maximises the sum of the values.

Gavel states the same program per job *type* (with constraints that make the jobs of a type share
alike) so that it stays small; here it is stated per pair over the candidate pairs the caller lists,
which is the program Gavel's grouping stands for. Listing every pair of ``n`` jobs gives ``O(n^2)``
variables: list the pairs worth considering (e.g. those Gavel measured).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from gpusched.core.rounds.problem import Allocation, RoundProblem
from gpusched.policies.rounds import lp
from gpusched.policies.rounds.base import RoundPolicy


class MaxMinFairnessPacked(RoundPolicy):
    """Gavel's ``max_min_fairness_packed``: max-min fairness where two jobs may share a GPU."""

    name = "max_min_fairness_packed"
    label = "Max-min fairness, co-located pairs (Gavel)"
    packs = True
    weighted = True

    def solve(self, problem: RoundProblem) -> Allocation:
        n, k = problem.n_jobs, problem.n_types
        pairs = np.zeros((0, 2), dtype=np.int64) if problem.pair_jobs is None else problem.pair_jobs
        pair_thr = np.zeros((0, k, 2)) if problem.pair_throughput is None else problem.pair_throughput
        norm_sum = np.where(problem.runnable, problem.throughput, 0.0).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(norm_sum > 0, problem.scale_factor / (problem.weight * norm_sum), 0.0)
        single = lp.Entries.of(problem.runnable & (problem.capacity[None, :] > 0))
        a, b = pairs[:, 0], pairs[:, 1]
        ok = ((problem.scale_factor[a] == problem.scale_factor[b])[:, None]
              & (pair_thr > 0).all(axis=2) & problem.fits[a] & (problem.capacity[None, :] > 0))
        p_rows, p_cols = np.nonzero(ok)
        ns, npair = len(single), len(p_rows)
        nv = ns + npair + 1
        # job values: singles, then each pair entry counts for both members
        val_rows = np.concatenate([single.rows, a[p_rows], b[p_rows]])
        val_cols = np.concatenate([np.arange(ns), ns + np.arange(npair), ns + np.arange(npair)])
        val = np.concatenate([
            problem.throughput[single.rows, single.cols] * scale[single.rows],
            pair_thr[p_rows, p_cols, 0] * scale[a[p_rows]],
            pair_thr[p_rows, p_cols, 1] * scale[b[p_rows]]])
        values = sparse.csr_matrix((val, (val_rows, val_cols)), shape=(n, nv))
        time_rows = sparse.csr_matrix((np.ones(len(val_rows)), (val_rows, val_cols)), shape=(n, nv))
        gpu_use = sparse.csr_matrix((np.concatenate([problem.scale_factor[single.rows],
                                                     problem.scale_factor[a[p_rows]]]).astype(float),
                                     (np.concatenate([single.cols, p_cols]), np.arange(ns + npair))),
                                    shape=(k, nv))
        counted = np.asarray(time_rows.sum(axis=1)).ravel() > 0
        if not counted.any():
            return Allocation(share=np.zeros((n, k)), pair_share=np.zeros((len(pairs), k)))
        t_col = sparse.csr_matrix((np.ones(int(counted.sum())), (np.arange(int(counted.sum())),
                                   np.full(int(counted.sum()), nv - 1))), shape=(int(counted.sum()), nv))
        a_ub = sparse.vstack([time_rows, gpu_use, -values[counted] + t_col], format="csr")
        b_ub = np.concatenate([np.ones(n), problem.capacity.astype(float), np.zeros(int(counted.sum()))])
        c = np.zeros(nv)
        c[-1] = -1.0
        x = lp.solve(c, a_ub, b_ub, [(0, None)] * nv, self.name, "packed max-min program")
        t = x[-1]
        if t > 0:
            floor = sparse.diags(1.0 / np.full(int(counted.sum()), t)) @ values[counted]
            a2 = sparse.vstack([time_rows, gpu_use, -floor], format="csr")[:, : nv - 1]
            b2 = np.concatenate([np.ones(n), problem.capacity.astype(float),
                                 np.full(int(counted.sum()), -(1.0 - lp.STAGE_TWO_SLACK))])
            gain = -np.asarray(values[:, : nv - 1].sum(axis=0)).ravel()
            x = lp.solve(gain, a2, b2, [(0, None)] * (nv - 1), self.name, "packed second-stage program")
        share = single.unflatten(x[:ns])
        pair_share = np.zeros((len(pairs), k))
        pair_share[p_rows, p_cols] = np.clip(x[ns: ns + npair], 0.0, 1.0)
        return Allocation(share=share, pair_share=pair_share, programs=1 + (t > 0))
