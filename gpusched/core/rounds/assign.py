"""Gavel's round mechanism, as pure functions: which jobs run in the next round, on which GPUs,
and when the allocation is recomputed.

Source: Gavel (Narayanan et al., OSDI 2020), ``stanford-futuredata/gavel`` at c4fa400,
``scheduler/scheduler.py``: ``_update_priorities``, ``_schedule_jobs_on_workers_helper``,
``_schedule_jobs_on_workers``, ``_assign_workers_to_job`` and ``_reset_time_run_so_far``. Read,
not copied; the rules are restated here.

**Priority** (:func:`round_priorities`). Since the last reset, job ``i`` has run
``time_s[i, j]`` seconds on type ``j`` and all jobs together ``type_time_s[j]`` seconds (Gavel's
``_job_time_so_far`` and ``_worker_time_so_far``; a reset starts every job at half a round,
:func:`reset_time_received`). Its share of the type's rounds is ``f = time_s / type_time_s`` and its
priority ``X[i, j] / f``: the allocation over the share received so far. A job that has received
nothing there (``f = 0``) gets ``X * 1e9``, so that new jobs start in allocation order; a job with no
allocation or no throughput on the type gets 0.

**Placement** (:func:`assign_round`). For each type in ``type_order`` (Gavel: V100, P100, K80; the
heterogeneity-agnostic policies shuffle it every round, :func:`shuffled_type_order`), the jobs are
taken in decreasing (priority, deficit, allocation), ties by row order (Gavel's stable sort over
arrival order), and a job is placed if it is not placed yet, has throughput there, fits the GPUs
left, and (for FIFO) has a priority above 0. The type lists are walked one after the other (Gavel's
per-type queue, ``enable_global_queue=False``).

**GPUs and leases.** Within a type, gangs are placed from the largest to the smallest; for each
size, a job that stays on its type and whose previous GPUs are all still free keeps them (its lease
is renewed: no restore), then the others take the lowest-numbered free GPUs in order (Gavel's
strided walk over servers, which never goes back). GPUs are numbered 0 to ``capacity[j] - 1``
within their type; the mechanism maps them onto the cluster.

**Recomputing the allocation** (:func:`needs_reallocation`). In Gavel's simulator the allocation
is recomputed, and the time received reset, only when a job has arrived or finished since the last
computation *and* at least ``reset_s`` (``minimum_time_between_allocation_resets``, 1,920 s by
default) has passed since the last reset, or no reset has happened yet (Gavel also forces one when
nothing is running and no job is left to arrive). Jobs that arrive in between wait, with no
allocation and priority 0, until the next reset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

NEW_JOB_PRIORITY = 1e9
"""Gavel's priority multiplier for a job that has received no time on a type yet (not infinity,
so that twice a priority stays larger)."""


def round_priorities(share: np.ndarray, time_s: np.ndarray, type_time_s: np.ndarray,
                     throughput: np.ndarray) -> np.ndarray:
    """``(n, k)`` Gavel's priorities: allocation ÷ share of the type's time received since the
    last reset.

    :param share: ``(n, k)`` the allocation (fractions of time).
    :param time_s: ``(n, k)`` seconds each job has run on each type since the last reset (Gavel
        counts a job's wall time, once per gang).
    :param type_time_s: ``(k,)`` seconds all jobs have run on each type since the last reset
        (departed jobs' time included, as in Gavel).
    :param throughput: ``(n, k)`` 0 where a job cannot run on a type.
    """
    share = np.asarray(share, dtype=float)
    time_s = np.asarray(time_s, dtype=float)
    type_time_s = np.asarray(type_time_s, dtype=float)
    # divisions only where the divisor is positive (no warning state to enter per round)
    fraction = np.divide(time_s, type_time_s[None, :], out=np.zeros(time_s.shape),
                         where=type_time_s[None, :] > 0)
    priority = np.divide(share, fraction, out=share * NEW_JOB_PRIORITY, where=fraction > 0)
    priority[(share == 0) | (np.asarray(throughput) <= 0)] = 0.0
    return priority


@dataclass(frozen=True)
class RoundAssignment:
    """Who runs in the next round, where.

    :param gpu_type: ``(n,)`` the type each job runs on, or -1 when it waits this round.
    :param gpus: per job, the GPUs it holds (indices within its type, ascending), ``()`` if none.
    :param renewed: ``(n,)`` the job keeps exactly the GPUs it held in the previous round (lease
        renewed: no restore is due).
    """

    gpu_type: np.ndarray
    gpus: tuple[tuple[int, ...], ...]
    renewed: np.ndarray

    @property
    def running(self) -> np.ndarray:
        """``(n,)`` bool: the job runs this round."""
        return self.gpu_type >= 0


def _placement_order(priority: np.ndarray, deficit: np.ndarray, share: np.ndarray) -> np.ndarray:
    """Rows by decreasing (priority, deficit, allocation), ties by increasing row index."""
    rows = np.arange(len(priority))
    return np.lexsort((rows, -share, -deficit, -priority))


def assign_round(share: np.ndarray, priority: np.ndarray, scale_factor: np.ndarray,
                 capacity: np.ndarray, throughput: np.ndarray, type_order: Sequence[int],
                 *, deficit: np.ndarray | None = None,
                 previous_type: np.ndarray | None = None,
                 previous_gpus: Sequence[Sequence[int]] | None = None,
                 fifo: bool = False, allocated: np.ndarray | None = None) -> RoundAssignment:
    """Place the next round's jobs greedily in priority order, renewing leases (Gavel's rules, see
    the module docstring).

    :param share: ``(n, k)`` the allocation.
    :param priority: ``(n, k)`` from :func:`round_priorities`.
    :param scale_factor: ``(n,)`` GPUs each job needs.
    :param capacity: ``(k,)`` GPUs of each type.
    :param throughput: ``(n, k)`` a job is never placed where it is 0.
    :param type_order: the types' indices in the order their queues are walked.
    :param deficit: ``(n, k)`` Gavel's deficits (time owed, seconds), the first tie-break; 0 if
        ``None``.
    :param previous_type: ``(n,)`` each job's type in the round that ends, -1 if it did not run.
    :param previous_gpus: per job, the GPUs (indices within that type) it held then.
    :param fifo: skip jobs of priority 0 (Gavel does this for its FIFO policies).
    :param allocated: ``(n,)`` bool, the job is in the allocation in force (``None``: all are). A
        job that is not (it arrived after the last reset) can still be picked by the greedy pass,
        where it takes GPUs off the count, but is given none: Gavel's worker assignment skips jobs
        missing from the allocation, so those GPUs idle for the round. Kept, to run as Gavel runs.
    """
    share = np.asarray(share, dtype=float)
    priority = np.asarray(priority, dtype=float)
    n, k = share.shape
    scale = np.asarray(scale_factor, dtype=np.int64)
    capacity = np.asarray(capacity, dtype=np.int64)
    throughput = np.asarray(throughput, dtype=float)
    deficit = np.zeros((n, k)) if deficit is None else np.asarray(deficit, dtype=float)
    prev_type = [-1] * n if previous_type is None else np.asarray(previous_type, dtype=np.int64).tolist()
    prev_gpus = [()] * n if previous_gpus is None else [tuple(g) for g in previous_gpus]

    in_allocation = [True] * n if allocated is None else np.asarray(allocated, dtype=bool).tolist()
    placed_on = [-1] * n
    picked = [False] * n
    sizes = scale.tolist()
    left = capacity.tolist()
    chosen: dict[int, list[int]] = {int(j): [] for j in type_order}
    for j in type_order:
        j = int(j)
        room = left[j]
        if room == 0:
            continue
        runs = (throughput[:, j] > 0).tolist()
        positive = (priority[:, j] > 0).tolist() if fifo else None
        mine = chosen[j]
        for i in _placement_order(priority[:, j], deficit[:, j], share[:, j]).tolist():
            if picked[i] or not runs[i] or (fifo and not positive[i]):
                continue
            size = sizes[i]
            if size > room:
                continue
            room -= size
            picked[i] = True
            if in_allocation[i]:
                placed_on[i] = j
                mine.append(i)
            if room == 0:
                break
        left[j] = room

    gpus, renewed = number_gpus(chosen, sizes, capacity, prev_type, prev_gpus)
    return RoundAssignment(gpu_type=np.array(placed_on, dtype=np.int64), gpus=tuple(gpus),
                           renewed=np.array(renewed, dtype=bool))


def order_free(share: np.ndarray, scale_factor: np.ndarray, capacity: np.ndarray,
               throughput: np.ndarray, *, fifo: bool = False,
               type_order: Sequence[int] | None = None, deficit: np.ndarray | None = None) -> bool:
    """Whether :func:`assign_round` picks the same jobs whatever the time received (and, with
    ``type_order`` ``None``, whatever the deficits and the type order).

    A job can be picked on a type where its throughput is above 0 (for FIFO, its allocation
    there too, which is exactly a priority above 0). With no type order given, the picks are free
    when every job could be picked on one type at most and on each type those jobs fit the GPUs
    together. With the order given (the ``_perf`` policies walk the types in one order every
    round), the walk is followed type by type over the jobs not picked on an earlier one. The jobs
    with an allocation on the type come first (their priorities are above 0, the others' are 0):
    they must all fit the GPUs together, so that the greedy pass takes all of them in whatever
    order the time received puts them. The jobs without one come next in a fixed order
    (decreasing deficit, then row; neither moves between two resets), and the greedy pass is
    followed over them. A type with no GPU up takes no job.

    Then the placement is a fixed point of the priority rule: the next round picks the same jobs,
    each renews its lease (its GPUs are free, since the gangs of a placement are disjoint), and
    so does every round after it while the allocation, the deficits, the active jobs and the GPUs
    that are up stay the same (the time received moves the priorities, never the picks).

    :param share: ``(n, k)`` the allocation.
    :param scale_factor: ``(n,)`` GPUs each job needs.
    :param capacity: ``(k,)`` GPUs of each type.
    :param throughput: ``(n, k)``.
    :param fifo: Gavel's FIFO rule (jobs of priority 0 are skipped).
    :param type_order: the order the types are walked in every round, or ``None`` (any order).
    :param deficit: ``(n, k)`` Gavel's deficits (the tie-break among jobs without an allocation on
        a type); 0 if ``None``. Read only with ``type_order``.
    """
    share = np.asarray(share, dtype=float)
    eligible = np.asarray(throughput) > 0
    if fifo:
        eligible &= share > 0
    scale = np.asarray(scale_factor, dtype=np.int64)
    capacity = np.asarray(capacity)
    if type_order is None:
        if (eligible.sum(axis=1) > 1).any():
            return False
        return bool((scale @ eligible <= capacity).all())
    if share[share > 0].min(initial=1.0) < 1e-300:  # a priority share ÷ received could be 0
        return False
    n = len(scale)
    deficit = np.zeros(share.shape) if deficit is None else np.asarray(deficit, dtype=float)
    left = np.ones(n, dtype=bool)
    sizes = scale.tolist()
    for j in type_order:
        room = int(capacity[j])
        if room == 0:
            continue
        here = left & eligible[:, j]
        allocated = here & (share[:, j] > 0)
        need = int(scale[allocated].sum())
        if need > room:
            return False
        room -= need
        left &= ~allocated
        rest = np.flatnonzero(here & ~allocated)
        for i in rest[np.lexsort((rest, -deficit[rest, j]))].tolist():
            if room == 0:
                break
            if sizes[i] <= room:
                room -= sizes[i]
                left[i] = False
    return True


def shuffled_type_order(order: Sequence[int], rng: np.random.Generator) -> list[int]:
    """``order`` shuffled by ``rng``: the heterogeneity-agnostic policies' type order each round
    (Gavel shuffles it for every policy whose name has neither ``Perf`` nor ``Packing``)."""
    order = list(order)
    return [order[i] for i in rng.permutation(len(order))]


def needs_reallocation(now_s: float, last_reset_s: float | None, reset_s: float,
                       jobs_changed: bool) -> bool:
    """Gavel's simulator recomputes the allocation (and resets the time received) when a job has
    arrived or finished since the last computation and either no reset has happened yet
    (``last_reset_s`` is ``None``) or at least ``reset_s`` seconds have passed since it.

    A reset at time 0 counts as none: Gavel's ``_update_priorities`` (``scheduler/scheduler.py``
    of ``stanford-futuredata/gavel``, and of ``uw-mad-dash/shockwave``, which drove Shockwave's
    cluster with it) tests ``_last_reset_time == 0`` for "no reset yet", and a trace whose first
    job arrives at time 0 has its first reset there; so the next change resets again, whatever
    ``reset_s`` (on Shockwave's trace the jobs that arrive in the first round start at the second
    instead of waiting ``reset_s``).

    :param now_s: the round's start (s).
    :param last_reset_s: the last reset's time (s), ``None`` before the first (0: as ``None``).
    :param reset_s: the minimum time between resets (s); 0 recomputes at every change.
    :param jobs_changed: a job arrived or finished since the allocation was last computed.
    """
    if not jobs_changed:
        return False
    return last_reset_s is None or last_reset_s == 0.0 or now_s - last_reset_s >= reset_s


def reset_time_received(time_s: np.ndarray, share: np.ndarray, elapsed_s: float,
                        deficit: np.ndarray, round_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gavel's reset of the time received (``_reset_time_run_so_far``).

    Each job's deficit grows by the time it should have received since the last reset
    (``share * elapsed_s``) minus the time it did receive (``time_s`` less the half round it started
    with); then every job starts again at half a round on every type.

    :param time_s: ``(n, k)`` seconds received per type since the last reset (with the initial half
        round).
    :param share: ``(n, k)`` the allocation in force since the last reset (0 rows for new jobs).
    :param elapsed_s: seconds since the last reset.
    :param deficit: ``(n, k)`` the deficits so far (s).
    :param round_s: the round length (s).
    :returns: the new ``time_s`` (all ``round_s / 2``), the new ``type_time_s`` (its column sums)
        and the new deficits.
    """
    time_s = np.asarray(time_s, dtype=float)
    received = time_s - round_s / 2.0
    new_deficit = np.asarray(deficit, dtype=float) + np.asarray(share, dtype=float) * elapsed_s - received
    fresh = np.full_like(time_s, round_s / 2.0)
    return fresh, fresh.sum(axis=0), new_deficit



def number_gpus(chosen: dict[int, list[int]], sizes: Sequence[int], capacity: np.ndarray,
                prev_type: Sequence[int], prev_gpus: Sequence[Sequence[int]],
                ) -> tuple[list[tuple[int, ...]], list[bool]]:
    """The GPUs (indices within their type) of each placed unit, and whether it renewed its lease
    (see **GPUs and leases** above): per type, gangs from the largest to the smallest; for each
    size, a unit that stays on its type and whose previous GPUs are all still free keeps them,
    then the others take the lowest-numbered free GPUs (Gavel's strided walk, which never goes
    back).

    :param chosen: per type, the units placed there, in placement order.
    :param sizes: per unit, its GPU count.
    :param capacity: ``(k,)`` GPUs of each type.
    :param prev_type: per unit, the type it ran on in the previous round (-1: none).
    :param prev_gpus: per unit, the GPUs it held then.
    """
    gpus: list[tuple[int, ...]] = [()] * len(sizes)
    renewed = [False] * len(sizes)
    for j, units in chosen.items():
        if not units:
            continue
        taken = [False] * int(capacity[j])
        cursor = 0
        for size in sorted({sizes[i] for i in units}, reverse=True):
            same_size = [i for i in units if sizes[i] == size]
            for i in same_size:
                held = tuple(prev_gpus[i])
                if prev_type[i] != j or len(held) != size or any(map(taken.__getitem__, held)):
                    continue
                for g in held:
                    taken[g] = True
                gpus[i] = tuple(sorted(held))
                renewed[i] = True
            for i in same_size:
                if renewed[i]:
                    continue
                mine = []
                while len(mine) < size:
                    if not taken[cursor]:
                        taken[cursor] = True
                        mine.append(cursor)
                    cursor += 1
                gpus[i] = tuple(mine)
    return gpus, renewed
