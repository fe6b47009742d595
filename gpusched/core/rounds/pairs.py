"""Co-located pairs in rounds: two jobs that share one gang of GPUs for a round, each at its
measured co-located speed (Gavel's space sharing, ``max_min_fairness_packed``).

Source: Gavel (Narayanan et al., OSDI 2020, §3.2 "space sharing"), ``stanford-futuredata/gavel``
at c4fa400, ``scheduler/scheduler.py``: ``_populate_job_combination_metadata``,
``_update_priorities``, ``_schedule_jobs_on_workers_helper``, ``_assign_workers_to_job``,
``_get_num_steps``, ``_done_callback`` and ``_reset_time_run_so_far``. Read, not copied; the rules
are restated here.

**What Gavel does.** With a packing policy every pair of active jobs of one scale factor is a
*combination* with its own entry beside the single jobs: its own allocation, time received since
the last reset, deficit and priority on each GPU type (``allocation / (time received ÷ the type's
time)``, as for a single job). The greedy pass of a round walks singles and pairs together in
priority order; a pair is skipped when either member is already placed or either member's pair
throughput on the type is 0, and placed as one unit on ``scale_factor`` GPUs. Both members run the
round at their measured pair throughputs (``simulation_throughputs.json``); a member that finishes
early leaves its partner running at the pair throughput until the round ends. At the round's end
the *pair's* time received grows by the longer of the two members' run times, counted once in the
type's time; the members' own entries receive nothing for that round. A pair whose member leaves is
dropped (its time stays in the type's time until the next reset). At a reset every entry, pairs
included, starts again at half a round (so the pairs count in each type's time), and a pair made
since the last reset enters its deficit with half a round (it was created with no time received).
Leases are per combination: a pair placed on the same workers as in the last round keeps them; a
job that changes partner, or that runs alone after a pair, is a new dispatch.

**What gpusched does.** The same, with these choices:

- *Candidates* are the pairs the round scheduler lists (:mod:`gpusched.policies.rounds.scheduler`:
  active jobs of one GPU count whose models Gavel measured together), with each member's speed
  factor per type (:func:`gpusched.core.gavel_speeds.colocation_factors`: its pair throughput ÷
  its throughput alone there). A member's speed in a pair is its own speed there times its factor,
  so under ``speed: gavel`` it is its measured pair throughput ÷ its V100 throughput alone.
- *Placement* (:func:`assign_units`): :func:`~gpusched.core.rounds.assign.assign_round`'s rules over
  units (the singles in row order, then the pairs in list order; ties in that order, where Gavel's
  follow its dictionaries' insertion order). As in Gavel, every listed pair is a unit, those the
  allocation gives no time included: their priority is 0, and like a single job of priority 0
  they are placed on GPUs left over once the units with a priority have been considered, a pair's
  deficit of half a round putting it ahead of single jobs of priority 0 whose deficit is lower.
- *In the simulator* (:class:`CoLocation`, the lifecycle's ``colocation`` hook): a pair starts as
  one unit on one gang. Its first member (the lower arrival index) holds the GPUs in the cluster
  state; the second *rides* on them (it holds no compute or VRAM of its own: the GPUs are busy
  once). Each member's run goes at its own speed times its factor, fixed from its start to its
  stop. When the holder ends first (it finishes, or a failure stops it), the rider takes the GPUs
  over at that instant. A job whose combination changes (a new partner, or alone after a pair) is
  stopped and started again, paying its restore, as Gavel's new dispatch; a pair placed on the
  gang it holds keeps running.
- *Accounting*: each member's service (minutes holding GPUs of the type) and progress are its own,
  as for a single job; the time received that sets priorities is the pair's, as in Gavel.

Not modelled: a member's VRAM beside its partner's (Gavel's measured pairs ran together); pairs of
jobs whose speed changes as they run (phases) are never listed; a job finishing inside a pair ends
at its own end, where Gavel's log gives both members the pair's end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpusched.core.rounds.assign import number_gpus


@dataclass
class Colocated:
    """The pairs running now, by arrival index (held by the round state, copied with it)."""

    factor: dict[int, float] = field(default_factory=dict)
    """The speed factor of each pair member's current run (no unit); absent: it runs alone."""
    partner: dict[int, int] = field(default_factory=dict)
    """Each pair member's partner in its current run."""
    rider: dict[int, int] = field(default_factory=dict)
    """Each member that rides on its partner's GPUs -> that partner (the holder)."""
    rides: list[tuple[int, tuple[int, ...], float, float]] = field(default_factory=list)
    """``(job, GPUs, start, end)`` of each ride that has ended (minutes): the times a member's GPUs
    were counted once, under its partner (the timeline counts its compute there once)."""

    def copy(self) -> Colocated:
        return Colocated(dict(self.factor), dict(self.partner), dict(self.rider), list(self.rides))

    def all_rides(self, run: Any) -> list[tuple[int, tuple[int, ...], float, float]]:
        """:attr:`rides`, with the rides still under way ending at ``inf``."""
        rec = run.record
        return self.rides + [(i, tuple(rec.job_gpus[i]), float(rec.start_min[i]), float("inf"))
                             for i in self.rider if i in run.running]


class CoLocation:
    """The lifecycle's co-location hook (``Lifecycle.colocation``): the speed factor of a pair
    member's run and who holds a shared gang in the cluster state (see the module docstring). It
    reads and writes the run's :class:`Colocated` (``run.rounds.colocated``); with no pair running
    every answer is the one of a job alone."""

    def __init__(self) -> None:
        self._pending: dict[int, tuple[float, int, int]] = {}
        """Inside one batch: the pair members it starts -> (factor, partner, holder or -1)."""

    def batch(self, run: Any, batch: Any) -> None:
        """Before a batch is applied: remember the pairs it starts (``RoundPlan.pairs``)."""
        self._pending = {}
        for a, b, fa, fb in getattr(batch, "pairs", ()):
            self._pending[int(a)] = (float(fa), int(b), -1)
            self._pending[int(b)] = (float(fb), int(a), int(a))

    def rides(self, run: Any, job_idx: int, gang: Sequence[int]) -> bool:
        """Whether the job starts now riding on its partner's gang ``gang`` (its partner runs on
        exactly those GPUs)."""
        entry = self._pending.get(job_idx)
        if entry is None or entry[2] < 0:
            return False
        holder = entry[2]
        return holder in run.running and sorted(run.record.job_gpus[holder]) == sorted(gang)

    def starting(self, run: Any, job_idx: int) -> tuple[float, bool]:
        """The job starts: its run's speed factor and whether it rides (holds nothing in the
        cluster state)."""
        entry = self._pending.pop(job_idx, None) if self._pending else None
        if entry is None:
            return 1.0, False
        live = run.rounds.colocated
        factor, partner, holder = entry
        live.factor[job_idx] = factor
        live.partner[job_idx] = partner
        if holder >= 0:
            live.rider[job_idx] = holder
        return factor, holder >= 0

    @staticmethod
    def factor(run: Any, job_idx: int) -> float:
        """The speed factor of the job's current run (1.0 alone)."""
        return run.rounds.colocated.factor.get(job_idx, 1.0)

    @staticmethod
    def ending(run: Any, job_idx: int) -> tuple[bool, int]:
        """The job's run ends (it finishes or stops): whether it releases its GPUs in the cluster
        state (a rider holds none), and the rider that must take them over now (-1 if none). Its
        co-location entries are dropped."""
        live = run.rounds.colocated
        if not (live.factor or live.partner or live.rider):  # nothing shares a GPU in this run now
            return True, -1
        rec, now = run.record, run.time_min
        live.factor.pop(job_idx, None)
        live.partner.pop(job_idx, None)
        if live.rider.pop(job_idx, None) is not None:
            live.rides.append((job_idx, tuple(rec.job_gpus[job_idx]), float(rec.start_min[job_idx]), now))
            return False, -1
        for rider, holder in live.rider.items():
            if holder == job_idx:
                del live.rider[rider]
                if rider not in run.running:
                    return True, -1
                live.rides.append((rider, tuple(rec.job_gpus[rider]), float(rec.start_min[rider]), now))
                return True, rider
        return True, -1


@dataclass(frozen=True)
class UnitAssignment:
    """Who runs in the next round, where, by unit (singles then pairs, see :func:`assign_units`).

    :param gpu_type: ``(u,)`` the type each unit runs on, or -1.
    :param gpus: per unit, its GPUs (indices within its type, ascending), ``()`` if none.
    """

    gpu_type: np.ndarray
    gpus: tuple[tuple[int, ...], ...]


def assign_units(members: Sequence[tuple[int, ...]], share: np.ndarray, priority: np.ndarray,
                 deficit: np.ndarray, scale: np.ndarray, runs: np.ndarray, capacity: np.ndarray,
                 type_order: Sequence[int], previous_type: np.ndarray,
                 previous_gpus: Sequence[tuple[int, ...]], allocated: np.ndarray, *,
                 fifo: bool = False) -> UnitAssignment:
    """Gavel's greedy pass and worker assignment over singles and pairs
    (:func:`~gpusched.core.rounds.assign.assign_round`'s rules, with a unit skipped when any of its
    members is placed already).

    :param members: per unit, its jobs' rows (one for a single, two for a pair).
    :param share: ``(u, k)`` each unit's allocation.
    :param priority: ``(u, k)`` its priorities (:func:`~gpusched.core.rounds.assign.round_priorities`).
    :param deficit: ``(u, k)`` its deficits (minutes), the first tie-break.
    :param scale: ``(u,)`` GPUs it takes.
    :param runs: ``(u, k)`` bool, every member runs on the type (throughput > 0).
    :param capacity: ``(k,)`` GPUs of each type.
    :param type_order: the types' order.
    :param previous_type: ``(u,)`` the type the unit held as this same unit in the last round, or -1.
    :param previous_gpus: per unit, the GPUs (within that type) it held then.
    :param allocated: ``(u,)`` bool, in the allocation in force (else picked but given no GPUs, as
        :func:`~gpusched.core.rounds.assign.assign_round` does).
    :param fifo: skip units of priority 0 (Gavel's FIFO policies).
    """
    u = len(members)
    rows = np.arange(u)
    sizes = np.asarray(scale, dtype=np.int64).tolist()
    left = np.asarray(capacity, dtype=np.int64).tolist()
    n_rows = 1 + max((max(m) for m in members), default=-1)
    taken_job = [False] * n_rows
    placed_on = [-1] * u
    chosen: dict[int, list[int]] = {int(j): [] for j in type_order}
    for j in type_order:
        j = int(j)
        room = left[j]
        if room == 0:
            continue
        ok = (runs[:, j] & (priority[:, j] > 0)).tolist() if fifo else runs[:, j].tolist()
        for i in np.lexsort((rows, -share[:, j], -deficit[:, j], -priority[:, j])).tolist():
            if not ok[i] or any(taken_job[x] for x in members[i]) or sizes[i] > room:
                continue
            room -= sizes[i]
            for x in members[i]:
                taken_job[x] = True
            if allocated[i]:
                placed_on[i] = j
                chosen[j].append(i)
            if room == 0:
                break
        left[j] = room
    gpus, _ = number_gpus(chosen, sizes, capacity, np.asarray(previous_type).tolist(), previous_gpus)
    return UnitAssignment(gpu_type=np.array(placed_on, dtype=np.int64), gpus=tuple(gpus))
