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

**Shockwave's reading** (``allox_shockwave``, :class:`AlloXShockwave`; ``uw-mad-dash/shockwave``,
``scheduler/policies/allox.py``, ``AlloXPolicy.get_allocation``, the file that drove its real
cluster, built by its ``scheduler/utils.py``, ``get_policy``, with ``alpha = 0.2`` where Gavel's
builds it with 1): only the oldest ``max(0.2 * new jobs, free GPUs)`` of the jobs to match are
matched; a job seen before keeps its allocation only when it sums to exactly 1 (a single-GPU job
given a whole type); every other one, a job given nothing as well as a gang, is matched again at
each computation. Its allocation starts from the earlier one, which the new matches overwrite: the
file copies the earlier allocations before it writes the matches, so a gang once given ``1/s``
keeps it while it is not matched again. Such stale shares may ask for more GPUs than there are;
the round mechanism's priorities then choose (the policy :attr:`~RoundPolicy.oversubscribes`).

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


SHOCKWAVE_ALPHA = 0.2
"""The share of the jobs to match that Shockwave's scheduler gives its ``allox`` (its
``scheduler/utils.py``, ``get_policy``); Gavel's ``get_policy`` gives 1."""


class AlloX(RoundPolicy):
    """Gavel's ``allox`` (alpha = 1)."""

    name = "allox"
    label = "AlloX"
    run_times = True

    def __init__(self, seed: int = 0, alpha: float = 1.0) -> None:
        del seed  # no random draws
        self.alpha = alpha
        self._previous: dict[int, np.ndarray] = {}  # job id -> its last allocation row

    def solve(self, problem: RoundProblem) -> Allocation:
        ids = [int(v) for v in problem.job_ids]
        share = np.zeros((problem.n_jobs, problem.n_types))
        free = problem.capacity.copy()
        new = []
        for i, job in enumerate(ids):
            kept = self._kept(job, int(problem.scale_factor[i]))
            if kept is None:
                new.append(i)
                share[i] = self._stale(job, problem.n_types)
            else:
                share[i] = kept
                free -= (kept == 1.0).astype(free.dtype)
        free = np.maximum(free, 0)
        gpu_type = np.repeat(np.arange(problem.n_types), free)
        if new and len(gpu_type):
            for i, j in self._match(problem, new, gpu_type):
                share[i, j] = 1.0 / float(problem.scale_factor[i])
        self._previous = {job: share[i].copy() for i, job in enumerate(ids)}
        return Allocation(share=share)

    def _kept(self, job: int, scale_factor: int) -> np.ndarray | None:
        """The allocation a job seen before keeps without being matched again (Gavel's rule: a
        single-GPU job keeps whatever it got, a whole type or nothing), or ``None``: match it."""
        previous = self._previous.get(job)
        if previous is None or scale_factor != 1:
            return None
        return previous

    def _stale(self, job: int, n_types: int) -> np.ndarray:
        """The allocation a job to be matched again starts from (Gavel's rule: nothing)."""
        del job
        return np.zeros(n_types)

    def _remaining(self, problem: RoundProblem) -> np.ndarray:
        """``(n,)`` the work left the matching reads (Gavel's: the job's work left)."""
        return problem.remaining

    def _match(self, problem: RoundProblem, new: list[int], gpu_type: np.ndarray) -> list[tuple[int, int]]:
        """AlloX's matching of the jobs ``new`` (rows) to the free GPUs ``gpu_type`` (each one's
        type index): ``(row, type)`` of each GPU's first job."""
        new = sorted(new, key=lambda i: -problem.age_s[i])
        m = min(len(new), max(len(gpu_type), int(self.alpha * len(new))))
        chosen = np.array(new[:m])
        if m * m * len(gpu_type) > MAX_COST_ENTRIES:
            raise RoundProblemError(
                f"round policy {self.name}: {m:,} new jobs on {len(gpu_type):,} free GPUs make a cost "
                f"table of {m * m * len(gpu_type):,} entries, over the limit of {MAX_COST_ENTRIES:,}")
        with np.errstate(divide="ignore"):
            alone = np.where(problem.throughput[chosen][:, gpu_type] > 0,
                             self._remaining(problem)[chosen, None] / problem.throughput[chosen][:, gpu_type],
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
        return [(i, int(gpu_type[gpu])) for gpu, (i, _) in first.items()]


class AlloXShockwave(AlloX):
    """Shockwave's ``allox``: the AlloX that drove Shockwave's real cluster (see the module
    docstring)."""

    name = "allox_shockwave"
    label = "AlloX (Shockwave's)"
    oversubscribes = True

    def __init__(self, seed: int = 0, alpha: float = SHOCKWAVE_ALPHA) -> None:
        super().__init__(seed, alpha)

    def _kept(self, job: int, scale_factor: int) -> np.ndarray | None:
        """Kept only when the earlier allocation sums to exactly 1 (a single-GPU job given a
        whole type); a job given nothing, or a gang given ``1/s``, is matched again."""
        del scale_factor
        previous = self._previous.get(job)
        if previous is None or previous.sum() != 1.0:
            return None
        return previous

    def _stale(self, job: int, n_types: int) -> np.ndarray:
        """A job matched again starts from its earlier allocation (a gang keeps ``1/s`` of the
        type it was given until a new match overwrites that entry)."""
        previous = self._previous.get(job)
        return np.zeros(n_types) if previous is None else previous.copy()

    def _remaining(self, problem: RoundProblem) -> np.ndarray:
        """A job that changes its batch size is read by its steps left at its current batch size
        (``RoundProblem.reported_remaining``), as Shockwave's scheduler reads it."""
        return problem.reported_remaining
