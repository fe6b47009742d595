"""AlloX in rounds: ``allox``.

Source: AlloX (Le et al., "AlloX: Compute Allocation in Hybrid Clusters", EuroSys 2020) as Gavel
implements it; ``stanford-futuredata/gavel``, ``scheduler/policies/allox.py`` (``AlloXPolicy``,
``alpha = 1`` for the name ``allox``). Read, not copied.

**Rule** (an assignment problem, solved by ``scipy.optimize.linear_sum_assignment``). Jobs seen in
an earlier call keep the allocation they got then (``x = 1`` on one type, or nothing); their GPUs
are taken off the free ones. The new jobs, oldest first (``age_s`` descending), at most
``max(free GPUs, alpha * new jobs)`` of them, are matched to (free GPU, position) slots at cost
``position * remaining[i] / throughput[i, type] + age_s[i]``: position ``p`` (1, 2, ...) on a GPU
means ``p - 1`` jobs run after this one there, so the sum is AlloX's total completion time. Each
GPU's first job (the highest position assigned to it) gets ``x = 1`` on that GPU's type. A job that
cannot run on a type costs :data:`NO_RUN_COST` there and is never given it.

As in Gavel's file, every job of a call is remembered, including the ones given nothing: they keep
no allocation afterwards and run only on GPUs the round mechanism finds left over.

**Gangs** (Shockwave's fork of the file, ``uw-mad-dash/shockwave``, ``scheduler/policies/allox.py``,
which ran the 120-job trace of multi-GPU jobs on the real cluster): a job of ``s > 1`` GPUs is
matched like any other, to one GPU slot, and given ``x = 1 / s`` on its type; since its allocation
does not sum to 1 it is not kept from one call to the next (it is matched again as a new job) and
takes no GPU off the free ones. Gavel's file accepts single-GPU jobs only; a single-GPU job's
allocation is the same under both.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from gpusched.core.rounds.problem import Allocation, RoundProblem, RoundProblemError
from gpusched.policies.rounds.base import RoundPolicy

NO_RUN_COST = 1e18
"""The cost of a slot on a type the job cannot run on (seconds; never chosen when any other is)."""

MAX_COST_ENTRIES = 20_000_000
"""The largest cost table (new jobs × free GPUs × positions) solved; a larger one is refused
(it would take over 160 MB)."""


class AlloX(RoundPolicy):
    """Gavel's ``allox`` (alpha = 1)."""

    name = "allox"
    label = "AlloX"
    run_times = True

    def __init__(self, seed: int = 0, alpha: float = 1.0) -> None:
        del seed  # no random draws
        self.alpha = alpha
        self._previous: dict[int, int] = {}  # job id -> type index, -1 for none

    def solve(self, problem: RoundProblem) -> Allocation:
        ids = [int(v) for v in problem.job_ids]
        share = np.zeros((problem.n_jobs, problem.n_types))
        free = problem.capacity.copy()
        new = []
        for i, job in enumerate(ids):
            if job in self._previous and problem.scale_factor[i] == 1:
                j = self._previous[job]
                if j >= 0:
                    share[i, j] = 1.0
                    free[j] -= 1
            else:
                new.append(i)
        free = np.maximum(free, 0)
        gpu_type = np.repeat(np.arange(problem.n_types), free)
        if new and len(gpu_type):
            new.sort(key=lambda i: -problem.age_s[i])
            m = min(len(new), max(len(gpu_type), int(self.alpha * len(new))))
            chosen = np.array(new[:m])
            if m * m * len(gpu_type) > MAX_COST_ENTRIES:
                raise RoundProblemError(
                    f"round policy allox: {m:,} new jobs on {len(gpu_type):,} free GPUs make a cost table of "
                    f"{m * m * len(gpu_type):,} entries, over the limit of {MAX_COST_ENTRIES:,}")
            with np.errstate(divide="ignore"):
                alone = np.where(problem.throughput[chosen][:, gpu_type] > 0,
                                 problem.remaining[chosen, None] / problem.throughput[chosen][:, gpu_type],
                                 NO_RUN_COST)
            cost = np.concatenate([p * alone for p in range(1, m + 1)], axis=1)
            cost = cost + problem.age_s[chosen, None]
            rows, cols = linear_sum_assignment(np.minimum(cost, NO_RUN_COST))
            gpus = len(gpu_type)
            first: dict[int, tuple[int, int]] = {}
            for r, c in zip(rows, cols, strict=True):
                gpu, position = int(c % gpus), int(c // gpus)
                if cost[r, c] < NO_RUN_COST and (gpu not in first or position > first[gpu][1]):
                    first[gpu] = (int(chosen[r]), position)
            for gpu, (i, _) in first.items():
                share[i, gpu_type[gpu]] = 1.0 / float(problem.scale_factor[i])
        placed = share.argmax(axis=1)
        self._previous = {job: int(placed[i]) if share[i].any() else -1 for i, job in enumerate(ids)}
        return Allocation(share=share)
