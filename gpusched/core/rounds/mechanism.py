"""Round-based time-slicing inside the simulator: Gavel's round loop as one event kind.

Source: Gavel (Narayanan et al., OSDI 2020), ``stanford-futuredata/gavel`` at c4fa400,
``scheduler/scheduler.py`` (``simulate``, ``_done_callback``, ``_schedule_jobs_on_workers``,
``_update_priorities``); read, not copied. The placement rules themselves are the pure functions of
:mod:`gpusched.core.rounds.assign`; this module runs them in the simulator.

**A round.** A round starts at a decision: the round scheduler
(:mod:`gpusched.policies.rounds.scheduler`) reads the view, asks its round policy for an
allocation when one is due (:meth:`RoundsRun.needs_allocation`), and answers with the
:class:`RoundPlan` of :func:`plan_round`: one batched action (:class:`~gpusched.core.actions.Batch`)
that stops the running jobs not placed this round, moves those placed on other GPUs, and starts
the queued ones placed, at one instant. A job placed on exactly the GPUs it holds keeps running:
its lease is renewed and it pays no restore; a job that changes GPUs pays the restore model's cost
(:mod:`gpusched.core.restore`) before it progresses again. After the batch,
:meth:`RoundMechanism.begin` records the round and pushes the round's end, a ``round`` event, at
the latest of ``start + min(length, restore + remaining work ÷ speed)`` over the placed jobs
(Gavel: a round ends when its last job ends its steps, so a round whose jobs all finish early is
short). A job that finishes during a round leaves its GPUs idle until the round ends.

**The round's end** (:meth:`RoundMechanism.on_round`, ranked after completions and before
wakeups at one instant): each placed job's minutes on GPUs of its type (its *service*,
:attr:`RoundsRun.service_min`) and its progress there (reference-speed minutes,
:attr:`RoundsRun.work_min`, which sums to the job's work once it has finished) are counted, with
Gavel's time received since the last reset (counted from the previous round's end, an idle gap
included, as Gavel does); a job that finished marks the allocation for recomputation. The next
decision starts the next round.

**Arrivals** join at the next round boundary: a job queued between two rounds waits for the next
one; with nothing running and no round pending, an arrival starts a round at once. A job that
joins starts at half a round received on every type. The allocation is recomputed, and the time
received reset, by Gavel's rule (:func:`~gpusched.core.rounds.assign.needs_reallocation`), with
Gavel's forced reset once every job has arrived and a round placed nothing. With
``recompute: on_change`` (Gavel's physical scheduler: its ``_allocation_thread`` recomputes at
every arrival and completion, its ``_update_priorities`` holds the reset) the allocation is
recomputed at every change and the reset waits for the same rule, checked each round once an
allocation has been computed since the last reset (:attr:`RoundsRun.allocated_since_reset`); a
pair an allocation keeps keeps its time received until that reset.

**GPU types** are the cluster's GPU models, in the order they first appear among its GPUs (the
``_perf`` policies walk them in that order; the agnostic ones shuffle it every round with a
Generator seeded by the run's seed and the round's number). Within a type, Gavel's GPU indices
are the type's GPUs that are up, in index order; a gang that the cluster's gang rule refuses
there waits for the round.

**Fixed points.** A placement whose picks depend neither on the priorities nor, for the agnostic
policies, on the type order (:func:`~gpusched.core.rounds.assign.order_free`: FIFO's allocated
jobs all fit their types, say; or, walked in the ``_perf`` policies' one order, each type holds
every job left that can run there) is the next round's too, and every later round's while the
allocation, the active jobs and the GPUs that are up stay the same: each job renews its lease on
the same GPUs. The round then reuses it instead of computing the priorities and the greedy pass
again; everything else of the round (its end, the service and time received it counts) runs as
before, so the run is the same. The rounds that follow such a round with nothing to change, up to
the run's next event, are run in place without a decision between them
(:meth:`RoundMechanism._skip_quiet_rounds`).

**Co-located pairs** (``max_min_fairness_packed``): when the allocation in force gives time to
pairs of jobs (``RoundsRun.pair_jobs``), the round is placed over singles and pairs together and a
pair runs as one unit on one gang, each member at its measured co-located speed, with the pair's
own time received, deficit and lease (:mod:`gpusched.core.rounds.pairs` states Gavel's rules and
the choices made here). Without pairs every line below is the placement of single jobs, unchanged.

Node failures stop jobs as usual; a job a failure stops has its round's service counted to the
round's end.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from gpusched.core.actions import Batch, Migrate
from gpusched.core.metrics import ROUND_METRIC_KEYS
from gpusched.core.numbers import Number
from gpusched.core.rounds.assign import (
    assign_round,
    needs_reallocation,
    order_free,
    reset_time_received,
    round_priorities,
    shuffled_type_order,
)
from gpusched.core.rounds.pairs import Colocated, CoLocation, assign_units
from gpusched.limits import MAX_ROUND_LENGTH_MIN

ROUND = "round"
"""The round's end, a kind of event (:mod:`gpusched.core.events`)."""

ROUND_RANK = 0.5
"""Its rank at one instant: after completions (a job that ends with the round is done), before
wakeups, node events and arrivals."""

ROUND_GUARD_MIN = 1e-6
"""The preemption guard under rounds (minutes): a round stops and moves jobs whatever they ran."""

DEFAULT_LENGTH_MIN = 6.0
"""Gavel's default round, 360 s."""

DEFAULT_RESET_MIN = 32.0
"""Gavel's ``minimum_time_between_allocation_resets``, 1,920 s."""


class RoundSpec(BaseModel):
    """The scenario's ``rounds:`` block."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    length_min: Number = Field(DEFAULT_LENGTH_MIN, gt=0, le=MAX_ROUND_LENGTH_MIN, description=(
        "minutes of one round (Gavel's time_per_iteration, 360 s)"))
    reset_min: Number = Field(DEFAULT_RESET_MIN, ge=0, le=MAX_ROUND_LENGTH_MIN, description=(
        "least minutes between two recomputations of the allocation (Gavel's "
        "minimum_time_between_allocation_resets, 1,920 s); 0 recomputes whenever jobs change"))
    recompute: Literal["held", "on_change"] = Field("held", description=(
        "held: the allocation is recomputed, and the time received reset, at a change of the jobs "
        "at least reset_min after the last reset (Gavel's simulator); on_change: the allocation is "
        "recomputed at every arrival and completion, and only the reset of the time received waits "
        "reset_min (Gavel's physical scheduler, which drove Shockwave's real cluster)"))


def estimated_rounds(spec: RoundSpec, arrival_min: list[float], gpu_min: float, n_gpus: int,
                     horizon_min: float | None) -> float:
    """Rounds a run is expected to take (:data:`gpusched.limits.MAX_ROUNDS` bounds it): its span
    (``horizon_min``, else the arrivals' span plus the jobs' GPU-minutes at speed 1 ÷ the GPUs) ÷
    the round length."""
    if horizon_min is not None:
        span = horizon_min
    else:
        span = (max(arrival_min) - min(arrival_min) if arrival_min else 0.0) + gpu_min / max(n_gpus, 1)
    return span / spec.length_min


_COPIED = ("gpu_type", "time_min", "type_time_min", "deficit_min", "share", "in_allocation", "joined",
           "last_type", "type_changes", "service_min", "work_min", "prev_gpus", "placed", "last_placed",
           "solve_s", "pair_jobs", "pair_share", "pair_factor", "pair_time", "pair_deficit", "prev_partner",
           "colocated", "placed_pairs")
"""The :class:`RoundsRun` fields a copy does not share (arrays and lists)."""


@dataclass
class RoundsRun:
    """The round mechanism's part of one run (held by the run state, copied with it).

    Arrays are by arrival index (``n`` jobs) and GPU type (``k``); times in minutes.
    """

    length_min: float
    reset_min: float
    seed: int
    types: tuple[str, ...]
    gpu_type: np.ndarray
    """``(n_gpus,)`` each GPU's type index."""
    time_min: np.ndarray
    """``(n, k)`` Gavel's time received per type since the last reset (minutes)."""
    type_time_min: np.ndarray
    deficit_min: np.ndarray
    share: np.ndarray
    """``(n, k)`` the allocation in force."""
    in_allocation: np.ndarray
    joined: np.ndarray
    last_type: np.ndarray
    """``(n,)`` the type of each job's last round, -1 before its first."""
    type_changes: np.ndarray
    """``(n,)`` rounds a job ran on another type than in its last one."""
    service_min: np.ndarray
    """``(n, k)`` minutes each job has held GPUs of each type in rounds (its service)."""
    work_min: np.ndarray
    """``(n, k)`` reference-speed minutes of progress each job made on each type."""
    prev_gpus: list[tuple[int, ...]]
    """Each job's GPUs (cluster indices) in the last round it ran, ``()`` if none."""
    last_reset_min: float | None = None
    changed: bool = False
    on_change: bool = False
    """The allocation is recomputed at every change, the reset of the time received held apart
    (``RoundSpec.recompute``: ``on_change``)."""
    allocated_since_reset: bool = False
    """Under ``on_change``: an allocation was computed since the last reset of the time received
    (Gavel's ``_allocation_changed_since_last_time_reset``)."""
    pending: bool = False
    """A round is under way (its end is in the event heap)."""
    idle_arrivals_left: int = -1
    """Arrivals left when a round placed nothing (the next round waits for an arrival), or -1."""
    gavel_round_end_min: float | None = None
    gavel_round_start_min: float = 0.0
    round_start_min: float = 0.0
    placed: list[tuple[int, int, float]] = field(default_factory=list)
    """``(job, type, progress at the round's start)`` of the jobs of the round under way."""
    last_placed: list[tuple[int, int, float]] = field(default_factory=list)
    """The jobs of the last round that started (their GPUs are the leases to renew)."""
    rounds: int = 0
    solve_s: list[float] = field(default_factory=list)
    """Wall-clock seconds of each allocation the policy computed."""
    reset_just_failed: bool = False
    pair_jobs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    """``(p, 2)`` the pairs of the allocation in force (arrival indices, ascending in each pair)."""
    pair_share: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    """``(p, k)`` each pair's allocation."""
    pair_factor: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 2)))
    """``(p, k, 2)`` each member's speed factor in the pair on each type (no unit)."""
    pair_time: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    """``(p, k)`` each pair's time received per type since the last reset (minutes)."""
    pair_deficit: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    """``(p, k)`` each pair's deficit (minutes)."""
    prev_partner: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """``(n,)`` each job's partner in the last round it ran, -1 when it ran alone."""
    colocated: Colocated = field(default_factory=Colocated)
    """The pairs running now (the lifecycle's co-location hook reads and writes it)."""
    placed_pairs: list[tuple[int, int, int, int]] = field(default_factory=list)
    """``(pair, type, a, b)`` of the pairs of the round under way."""
    _fixed: tuple | None = field(default=None, repr=False, compare=False)
    """The last placement when it is a fixed point of the priority rule: ``((agnostic, fifo),
    active rows, down mask bytes, ((job, gang), ...))``, or ``None`` (see :func:`plan_round`)."""
    _layout: tuple | None = field(default=None, repr=False, compare=False)
    """``(down mask bytes, up GPUs per type, capacity, position within type, the same as a list)``:
    see :meth:`layout`."""
    _gpu_type_list: list[int] = field(default_factory=list, repr=False, compare=False)
    """:attr:`gpu_type` as a list (read in Python loops)."""
    _order_free: tuple | None = field(default=None, repr=False, compare=False)
    """``(allocation array, throughput array, (rows, capacity, fifo, agnostic), result, deficit
    array)`` of the last :func:`_order_free`."""
    _ended: dict = field(default_factory=dict, repr=False, compare=False)
    """At the last round's end, each job still running: ``(its run's start, its GPUs (the
    record's tuple), its saved progress, its progress then)``, so that a round starting at that
    instant reads the progress of a job that kept its run instead of computing it again."""
    _ended_at: float = math.nan
    """The time of :attr:`_ended` (minutes)."""
    _source: Any = field(default=None, repr=False, compare=False)
    """The state this one was forked from (:meth:`fork`), ``None`` for an independent copy."""

    @classmethod
    def start(cls, spec: RoundSpec, gpu_model: list[str], n_jobs: int, seed: int,
              start_min: float) -> RoundsRun:
        """The state at a run's start."""
        types = tuple(dict.fromkeys(gpu_model))
        index = {name: j for j, name in enumerate(types)}
        n, k = n_jobs, len(types)
        return cls(length_min=float(spec.length_min), reset_min=float(spec.reset_min), seed=int(seed),
                   on_change=spec.recompute == "on_change",
                   types=types, gpu_type=np.array([index[m] for m in gpu_model], dtype=np.int64),
                   time_min=np.zeros((n, k)), type_time_min=np.zeros(k), deficit_min=np.zeros((n, k)),
                   share=np.zeros((n, k)), in_allocation=np.zeros(n, dtype=bool),
                   joined=np.zeros(n, dtype=bool), last_type=np.full(n, -1, dtype=np.int64),
                   type_changes=np.zeros(n, dtype=np.int64), service_min=np.zeros((n, k)),
                   work_min=np.zeros((n, k)), prev_gpus=[()] * n, gavel_round_start_min=start_min,
                   _gpu_type_list=[index[m] for m in gpu_model], pair_share=np.zeros((0, k)),
                   pair_factor=np.zeros((0, k, 2)), pair_time=np.zeros((0, k)),
                   pair_deficit=np.zeros((0, k)), prev_partner=np.full(n, -1, dtype=np.int64))

    def copy(self) -> RoundsRun:
        """An independent copy (arrays and lists copied; the GPU layout cache is immutable and
        shared)."""
        twin = object.__new__(RoundsRun)
        twin.__dict__.update(self.__dict__)
        for name in _COPIED:
            setattr(twin, name, getattr(self, name).copy())
        twin._source = None
        return twin

    def fork(self) -> RoundsRun:
        """A copy that shares its arrays and lists with this state (copy on write): a round's plan
        starts from one, copies each array before it changes it, and is installed
        (:meth:`RoundMechanism.begin`) on the state it was forked from, which it then replaces;
        installed anywhere else, it is copied first. Copying every array of every round instead
        cost the 300-job Gavel run about an eighth of its calls (``benchmarks/bench_rounds.py``),
        and copying :attr:`solve_s` every round grew with the run."""
        twin = object.__new__(RoundsRun)
        twin.__dict__.update(self.__dict__)
        twin._source = self
        return twin

    def own(self, *names: str) -> None:
        """Copy each named array or list that this fork still shares with the state it was forked
        from (copy on write: call before changing it in place)."""
        source = self._source
        for name in names:
            value = getattr(self, name)
            if source is not None and value is getattr(source, name):
                setattr(self, name, value.copy())

    def layout(self, down: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        """The up GPUs of each type (cluster indices, ascending), their count per type, and each
        GPU's index within its type's up GPUs (-1 when down); computed once per ``down`` mask."""
        key = down.tobytes()
        cached = self._layout
        if cached is not None and cached[0] == key:
            return cached[1], cached[2], cached[3]
        k = len(self.types)
        up = [np.flatnonzero((self.gpu_type == j) & ~down) for j in range(k)]
        capacity = np.array([len(g) for g in up], dtype=np.int64)
        position = np.full(len(self.gpu_type), -1, dtype=np.int64)
        for gpus in up:
            position[gpus] = np.arange(len(gpus))
        self._layout = (key, up, capacity, position, position.tolist())
        return up, capacity, position

    @property
    def gavel_start_min(self) -> float:
        """Where the time received in the round under way starts (Gavel's: the last round's end,
        or the run's start before the first round has ended)."""
        return self.gavel_round_start_min if self.gavel_round_end_min is None else self.gavel_round_end_min

    # ------------------------------------------------------------ reads for the scheduler
    def due(self, active: int, arrivals_left: int) -> bool:
        """Whether a round starts at this decision: none is under way, jobs are active, and
        (after a round that placed nothing) a job has arrived since."""
        if self.pending or active == 0:
            return False
        return self.idle_arrivals_left < 0 or arrivals_left < self.idle_arrivals_left

    def jobs_changed(self, active: np.ndarray) -> bool:
        """Whether a job has arrived or finished since the allocation was last computed (the jobs
        ``active`` include one that has not joined the rounds yet)."""
        return self.changed or not bool(self.joined[active].all())

    def needs_allocation(self, now_min: float, active: np.ndarray, changed: bool | None = None) -> bool:
        """Whether the round starting now recomputes the allocation (Gavel's rule).

        :param changed: :meth:`jobs_changed` when known already (``None``: read it now)."""
        changed = self.jobs_changed(active) if changed is None else changed
        if self.on_change:
            return changed
        return needs_reallocation(now_min, self.last_reset_min, self.reset_min, changed)

    def capacity(self, down: np.ndarray) -> np.ndarray:
        """``(k,)`` GPUs of each type that are up."""
        return np.bincount(self.gpu_type[~down], minlength=len(self.types))


@dataclass(frozen=True, slots=True)
class RoundPlan(Batch):
    """A round's batched action: :class:`~gpusched.core.actions.Batch`'s stops, moves and starts,
    with the round bookkeeping the mechanism installs once they are applied."""

    rounds: Any = None
    """The :class:`RoundsRun` after this round's placement."""
    allocated: bool = False
    """The policy computed a new allocation for this round."""
    pairs: tuple[tuple[int, int, float, float], ...] = ()
    """``(a, b, factor a, factor b)`` of each pair this plan starts (its two members are the last
    entries of ``start``, ``a`` first): read by the lifecycle's co-location hook."""


def _place(r: RoundsRun, rows: np.ndarray, up: list[np.ndarray], position: np.ndarray,
           scale: np.ndarray, throughput: np.ndarray, capacity: np.ndarray, can_place: Any, *,
           agnostic: bool, fifo: bool) -> dict[int, tuple[int, ...]]:
    """The GPUs (cluster indices) of each job placed next round, by arrival index, in row order
    (Gavel's priorities and greedy pass, :mod:`gpusched.core.rounds.assign`). Remembers the
    placement in ``r`` when it is a fixed point of the priority rule
    (:func:`~gpusched.core.rounds.assign.order_free`), so that the rounds after it reuse it."""
    k = len(r.types)
    up_lists = [gpus.tolist() for gpus in up]
    order = (shuffled_type_order(range(k), np.random.default_rng([r.seed, r.rounds])) if agnostic
             else list(range(k)))
    m = len(rows)
    prev_type = np.full(m, -1, dtype=np.int64)
    prev_within: list[tuple[int, ...]] = [()] * m
    if r.last_placed:  # only the jobs of the last round hold a lease to renew
        last = np.fromiter(map(itemgetter(0), r.last_placed), dtype=np.int64, count=len(r.last_placed))
        at = np.searchsorted(rows, last)
        gpu_type, prev_gpus, last_type, where = r._gpu_type_list, r.prev_gpus, r.last_type, r._layout[4]
        listed = rows.tolist()
        for i, row in zip(last.tolist(), at.tolist(), strict=True):
            if row >= m or listed[row] != i:
                continue
            held = prev_gpus[i]
            j = int(last_type[i])
            if not held or j < 0:
                continue
            for g in held:  # every GPU it held is up and of its last type
                if where[g] < 0 or gpu_type[g] != j:
                    break
            else:
                prev_type[row] = j
                prev_within[row] = tuple(map(where.__getitem__, held))
    share_rows = r.share[rows]
    priority = round_priorities(share_rows, r.time_min[rows], r.type_time_min, throughput)
    placed = assign_round(share_rows, priority, scale, capacity, throughput, order,
                          deficit=r.deficit_min[rows], previous_type=prev_type,
                          previous_gpus=prev_within, fifo=fifo, allocated=r.in_allocation[rows])
    target: dict[int, tuple[int, ...]] = {}
    arrival = rows.tolist()
    for row, j in enumerate(placed.gpu_type.tolist()):
        if j < 0:
            continue
        gang = tuple(map(up_lists[j].__getitem__, placed.gpus[row]))
        if can_place(row, gang):
            target[arrival[row]] = gang
    r._fixed = None
    if len(target) == int((placed.gpu_type >= 0).sum()) and _order_free(r, rows, share_rows, scale,
                                                                       capacity, throughput, fifo,
                                                                       agnostic):
        r._fixed = ((agnostic, fifo), rows.copy(), r._layout[0], tuple(target.items()))
    return target


def _order_free(r: RoundsRun, rows: np.ndarray, share_rows: np.ndarray, scale: np.ndarray,
                capacity: np.ndarray, throughput: np.ndarray, fifo: bool, agnostic: bool) -> bool:
    """:func:`~gpusched.core.rounds.assign.order_free` of the round, computed again only when the
    allocation in force, the deficits, the active jobs, their throughputs or the GPUs up have
    changed (it depends on nothing else; the deficits change only at a reset, which replaces
    their array). Kept only for a read-only ``throughput`` (the round scheduler's),
    which no caller can change in place between two rounds; the allocation array is replaced,
    never changed in place, when a new one is installed."""
    key = (rows.tobytes(), capacity.tobytes(), fifo, agnostic)
    cached = r._order_free
    if (cached is not None and cached[0] is r.share and cached[1] is throughput and cached[2] == key
            and cached[4] is r.deficit_min):
        return cached[3]
    free = order_free(share_rows, scale, capacity, throughput, fifo=fifo,
                      type_order=None if agnostic else range(len(capacity)), deficit=r.deficit_min[rows])
    r._order_free = (None if throughput.flags.writeable else
                     (r.share, throughput, key, free, r.deficit_min))
    return free


def plan_round(rounds: RoundsRun, now_min: float, active: np.ndarray, running: set[int],
               job_gpus: Any, scale: np.ndarray, throughput: np.ndarray, down: np.ndarray,
               can_place: Any, share: np.ndarray | None, *, agnostic: bool, fifo: bool,
               solve_s: float = 0.0, pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
               ) -> RoundPlan:
    """The next round, as a batched action (Gavel's placement; see the module docstring).

    :param rounds: the run's round state (not changed: the plan holds a changed copy).
    :param now_min: the round's start.
    :param active: ``(m,)`` arrival indices of the active jobs (queued or running), ascending.
    :param running: the running jobs' arrival indices.
    :param job_gpus: per arrival index, the GPUs a running job holds.
    :param scale: ``(m,)`` GPUs each active job needs.
    :param throughput: ``(m, k)`` the active jobs' throughputs (0 where one cannot run).
    :param down: ``(n_gpus,)`` GPUs whose node is down.
    :param can_place: ``can_place(row, gang)``: whether the gang rule accepts the job's gang on
        free GPUs.
    :param share: ``(m, k)`` a new allocation, or ``None`` to keep the one in force.
    :param agnostic: shuffle the type order (Gavel's agnostic policies).
    :param fifo: skip jobs of priority 0 (Gavel's FIFO).
    :param solve_s: the policy's seconds for ``share``.
    :param pairs: with a new allocation of a policy that pairs jobs: ``(pair jobs (p, 2) arrival
        indices, pair shares (p, k), speed factors (p, k, 2))`` (see
        :mod:`gpusched.core.rounds.pairs`); ``None`` for a policy without pairs.
    """
    r = rounds.fork()  # copy on write: every array changed below is copied first
    rows = np.asarray(active, dtype=np.int64)
    half = r.length_min / 2.0
    new = rows[~r.joined[rows]]
    if len(new):
        r.own("time_min", "joined")
        r.time_min[new] = half
        r.joined[new] = True
        r.changed = True
    elapsed, reset = 0.0, False
    if share is not None or r.allocated_since_reset:  # held: a new allocation always resets
        if not r.on_change or needs_reallocation(now_min, r.last_reset_min, r.reset_min, True):
            elapsed = now_min - (r.last_reset_min if r.last_reset_min is not None else now_min)
            fresh, type_time, deficit = reset_time_received(r.time_min[rows], r.share[rows], elapsed,
                                                            r.deficit_min[rows], r.length_min)
            r.own("time_min", "deficit_min")
            r.time_min[rows], r.deficit_min[rows], r.type_time_min = fresh, deficit, type_time
            r.last_reset_min = now_min
            r.allocated_since_reset, reset = False, True
        elif share is not None:
            r.allocated_since_reset = True
    if share is not None:
        r.share = np.zeros_like(r.share)
        r.in_allocation = np.zeros_like(r.in_allocation)
        r.share[rows] = share
        r.in_allocation[rows] = True
        r.changed = False
        r.solve_s = [*r.solve_s, float(solve_s)]
        if pairs is not None or len(r.pair_jobs):
            if reset:
                _reset_pairs(r, rows, scale, elapsed, pairs)
            else:
                _install_pairs(r, pairs)
    elif reset and len(r.pair_jobs):  # on_change: a reset between allocations keeps the pairs
        _reset_pairs(r, rows, scale, elapsed, (r.pair_jobs, r.pair_share, r.pair_factor))
    up, capacity, position = r.layout(down)
    if len(r.pair_jobs) or r.colocated.partner:
        return _plan_packed(r, rows, up, scale, throughput, capacity, can_place, running, job_gpus,
                            allocated=share is not None, agnostic=agnostic, fifo=fifo)
    fixed = r._fixed
    # a fixed point of the priority rule (see order_free), unless a reset moved the deficits
    if (share is None and not len(new) and not reset and fixed is not None
            and fixed[0] == (agnostic, fifo) and np.array_equal(fixed[1], rows)
            and fixed[2] == down.tobytes()):
        target = dict(fixed[3])
    else:
        target = _place(r, rows, up, position, scale, throughput, capacity, can_place,
                        agnostic=agnostic, fifo=fifo)
    stop = [i for i in sorted(running) if i not in target]
    moving = {i: g for i, g in target.items() if i in running and tuple(sorted(job_gpus[i])) != g}
    held_by = {g: i for i in running if i not in stop for g in job_gpus[i]}
    moves = ordered_moves(moving, held_by, job_gpus)
    stop.extend(sorted(moving))
    start = tuple([(i, g) for i, g in sorted(target.items())
                   if i not in running or i in moving])
    return RoundPlan(stop=tuple(stop), move=tuple(moves), start=start, rounds=r,
                     allocated=share is not None)


def _reset_pairs(r: RoundsRun, rows: np.ndarray, scale: np.ndarray, elapsed: float,
                 pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> None:
    """A reset with pairs (Gavel's ``_reset_time_run_so_far`` over combinations, see
    :mod:`gpusched.core.rounds.pairs`): each pair still active adds to its deficit what it should
    have received less what it did; the new allocation's pairs start at half a round, a pair made
    since the last reset with a deficit of half a round; every pair of active jobs of one GPU
    count adds half a round to each type's time, as Gavel keeps an entry for each."""
    half = r.length_min / 2.0
    k = len(r.types)
    active = set(rows.tolist())
    carried: dict[tuple[int, int], np.ndarray] = {}
    for q, (a, b) in enumerate(r.pair_jobs.tolist()):
        if a in active and b in active:
            carried[(a, b)] = r.pair_deficit[q] + r.pair_share[q] * elapsed - (r.pair_time[q] - half)
    _set_pairs(r, pairs)
    r.pair_time = np.full((len(r.pair_jobs), k), half)
    r.pair_deficit = np.array([carried.get((a, b), np.full(k, half)) for a, b in r.pair_jobs.tolist()]
                              ).reshape(-1, k)
    if pairs is not None:
        sizes = np.bincount(np.asarray(scale, dtype=np.int64))
        r.type_time_min = r.type_time_min + half * float((sizes * (sizes - 1) // 2).sum())


def _install_pairs(r: RoundsRun, pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> None:
    """A new allocation with pairs and no reset (``recompute: on_change``): the pairs it keeps
    keep their time received and deficit, a new pair starts at half a round of each (as at a
    reset), and a pair it drops is forgotten."""
    half = r.length_min / 2.0
    k = len(r.types)
    kept = {(a, b): q for q, (a, b) in enumerate(r.pair_jobs.tolist())}
    time, deficit = r.pair_time, r.pair_deficit
    _set_pairs(r, pairs)
    rows = [kept.get((a, b)) for a, b in r.pair_jobs.tolist()]
    r.pair_time = np.array([np.full(k, half) if q is None else time[q] for q in rows]).reshape(-1, k)
    r.pair_deficit = np.array([np.full(k, half) if q is None else deficit[q] for q in rows]).reshape(-1, k)


def _set_pairs(r: RoundsRun, pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> None:
    """Install an allocation's pairs (arrival indices ``(p, 2)``, shares ``(p, k)``, speed factors
    ``(p, k, 2)``; ``None``: none)."""
    k = len(r.types)
    jobs, share, factor = ((np.zeros((0, 2), dtype=np.int64), np.zeros((0, k)), np.zeros((0, k, 2)))
                           if pairs is None else pairs)
    r.pair_jobs = np.asarray(jobs, dtype=np.int64).reshape(-1, 2)
    r.pair_share = np.asarray(share, dtype=float).reshape(-1, k)
    r.pair_factor = np.asarray(factor, dtype=float).reshape(-1, k, 2)


def _previous(r: RoundsRun, rows: np.ndarray) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Per row, the type and GPUs (within the type's up GPUs) the job held in the last round,
    where all of them are still up and of that type; -1 and ``()`` otherwise."""
    m = len(rows)
    prev_type = np.full(m, -1, dtype=np.int64)
    prev_within: list[tuple[int, ...]] = [()] * m
    where = r._layout[4]
    index = {int(i): row for row, i in enumerate(rows.tolist())}
    for i, _, _ in r.last_placed:
        row = index.get(i)
        held, j = r.prev_gpus[i], int(r.last_type[i])
        if row is None or not held or j < 0:
            continue
        if all(where[g] >= 0 and r._gpu_type_list[g] == j for g in held):
            prev_type[row] = j
            prev_within[row] = tuple(where[g] for g in held)
    return prev_type, prev_within


def _plan_packed(r: RoundsRun, rows: np.ndarray, up: list[np.ndarray], scale: np.ndarray,
                 throughput: np.ndarray, capacity: np.ndarray, can_place: Any, running: set[int],
                 job_gpus: Any, *, allocated: bool, agnostic: bool, fifo: bool) -> RoundPlan:
    """:func:`plan_round` with pairs: Gavel's placement over singles and the allocation's pairs
    (:func:`~gpusched.core.rounds.pairs.assign_units`), and the batch that runs it. A job keeps
    running when it is placed on the GPUs it holds in the same combination (alone, or with the
    same partner); a single that ran alone and changes GPUs moves; any other change stops the job
    and starts it again (a pair starts as its two members, the first holding the gang)."""
    k = len(r.types)
    r._fixed = None
    up_lists = [gpus.tolist() for gpus in up]
    order = (shuffled_type_order(range(k), np.random.default_rng([r.seed, r.rounds])) if agnostic
             else list(range(k)))
    m = len(rows)
    row_of = {int(i): row for row, i in enumerate(rows.tolist())}
    live = [q for q, (a, b) in enumerate(r.pair_jobs.tolist()) if a in row_of and b in row_of]
    pair_rows = np.array([[row_of[int(a)], row_of[int(b)]] for a, b in r.pair_jobs[live]],
                         dtype=np.int64).reshape(-1, 2)
    factor = r.pair_factor[live]
    pair_speed = np.minimum(throughput[pair_rows[:, 0]] * factor[:, :, 0],
                            throughput[pair_rows[:, 1]] * factor[:, :, 1]) if live else np.zeros((0, k))
    members = [(row,) for row in range(m)] + [tuple(p) for p in pair_rows.tolist()]
    single_priority = round_priorities(r.share[rows], r.time_min[rows], r.type_time_min, throughput)
    pair_priority = round_priorities(r.pair_share[live], r.pair_time[live], r.type_time_min, pair_speed)
    prev_type, prev_within = _previous(r, rows)
    partner_before = r.prev_partner[rows]
    unit_prev_type = np.concatenate([np.where(partner_before == -1, prev_type, -1),
                                     [prev_type[a] if partner_before[a] == rows[b] else -1
                                      for a, b in pair_rows.tolist()]]).astype(np.int64)
    unit_prev_gpus = [prev_within[row] for row in range(m)] + [prev_within[a] for a, _ in pair_rows.tolist()]
    placed = assign_units(
        members, np.concatenate([r.share[rows], r.pair_share[live]]),
        np.concatenate([single_priority, pair_priority]),
        np.concatenate([r.deficit_min[rows], r.pair_deficit[live]]),
        np.concatenate([scale, scale[pair_rows[:, 0]]]),
        np.concatenate([throughput > 0, pair_speed > 0]), capacity, order, unit_prev_type,
        unit_prev_gpus, np.concatenate([r.in_allocation[rows], np.ones(len(live), dtype=bool)]), fifo=fifo)
    arrival = rows.tolist()
    single: dict[int, tuple[int, ...]] = {}
    paired: dict[int, tuple[int, tuple[int, ...], int, int]] = {}
    pair_units: list[tuple[int, int, int, int, tuple[int, ...]]] = []
    for unit, j in enumerate(placed.gpu_type.tolist()):
        if j < 0:
            continue
        gang = tuple(map(up_lists[j].__getitem__, placed.gpus[unit]))
        if unit < m:
            if can_place(unit, gang):
                single[arrival[unit]] = gang
            continue
        ra, rb = members[unit]
        if can_place(ra, gang) and can_place(rb, gang):
            q = live[unit - m]
            a, b = arrival[ra], arrival[rb]
            paired[a] = (b, gang, q, j)
            paired[b] = (a, gang, q, j)
            pair_units.append((a, b, q, j, gang))
    partner_now = r.colocated.partner
    keep, moving = set(), {}
    for i in running:
        held = tuple(sorted(job_gpus[i]))
        if i in single and i not in partner_now:
            if single[i] == held:
                keep.add(i)
            else:
                moving[i] = single[i]
        elif i in paired and partner_now.get(i) == paired[i][0] and paired[i][1] == held:
            keep.add(i)
    stop = [i for i in sorted(running) if i not in keep and i not in moving]
    held_by = {g: i for i in sorted(keep | set(moving)) for g in job_gpus[i]}
    moves = ordered_moves(moving, held_by, job_gpus)  # as in plan_round
    stop.extend(sorted(moving))
    moved = {mv.job for mv in moves}
    start = [(i, g) for i, g in sorted(single.items()) if i not in keep and i not in moved]
    started = []
    for a, b, q, j, gang in sorted(pair_units):
        if a in keep:
            continue
        start += [(a, gang), (b, gang)]
        started.append((a, b, float(r.pair_factor[q, j, 0]), float(r.pair_factor[q, j, 1])))
    return RoundPlan(stop=tuple(sorted(stop)), move=tuple(moves), start=tuple(start), rounds=r,
                     allocated=allocated, pairs=tuple(started))


class RoundMechanism:
    """Rounds in one simulator: the ``round`` event's handler and the installation of a round's
    plan (see the module docstring). A mechanism of the run's setup
    (:attr:`RunSetup.mechanisms <gpusched.core.run_setup.RunSetup>`): the simulator calls
    :meth:`install` once, :meth:`start` at each new run and :meth:`applied` after each batched
    action.

    :param spec: the scenario's ``rounds:`` block.
    :param seed: the seed of the rounds' type order (agnostic policies).
    """

    def __init__(self, spec: RoundSpec, seed: int = 0):
        self.spec = spec
        self.seed = int(seed)
        self.lifecycle: Any = None
        """The simulator's transitions (for a job's progress), given at :meth:`install`."""

    def install(self, kinds: Any, lifecycle: Any) -> None:
        """Register the ``round`` event kind (a handler and a rank) on the simulator's kinds."""
        self.lifecycle = lifecycle
        lifecycle.colocation = CoLocation()
        kinds.register(ROUND, ROUND_RANK, self.on_round)

    def start(self, run: Any) -> None:
        """Give a new run its round state."""
        run.rounds = RoundsRun.start(self.spec, run.cluster.gpu_model, len(run.jobs), self.seed,
                                     run.start_time_min)

    def applied(self, run: Any, action: Any) -> None:
        """After a batched action: install it if it is a round's plan."""
        if isinstance(action, RoundPlan):
            self.begin(run, action)

    def begin(self, run: Any, plan: RoundPlan) -> None:
        """Install an applied round's plan: record who runs where and push the round's end (after
        the quiet rounds that follow it, :meth:`_skip_quiet_rounds`)."""
        r: RoundsRun = plan.rounds
        if r._source is not run.rounds:  # not forked from this run's state: made independent
            r = r.copy()
        r._source = None  # the state it was forked from is replaced: what they share is r's
        r.colocated = run.rounds.colocated  # the live pairs, as the batch left them
        run.rounds = r
        end = self._open_round(run, r, run.time_min)
        if r.placed:
            end = self._skip_quiet_rounds(run, r, end)
            r.pending = True
            r.idle_arrivals_left = -1
            r.reset_just_failed = False
            run.events.push(end, ROUND, r.rounds)
            run.events.push_wakeup(end, run.time_min)  # a decision then, even if a failure stops every job
            return
        if run.arrivals_left:
            r.idle_arrivals_left = run.arrivals_left
        elif plan.allocated and r.reset_just_failed:
            run.finish("dead_stall")
        else:
            r.last_reset_min = None  # Gavel's forced reset: every job has arrived, none runs
            r.changed = True
            r.reset_just_failed = plan.allocated or r.reset_just_failed
            r.idle_arrivals_left = -1

    def _open_round(self, run: Any, r: RoundsRun, now: float) -> float:
        """A round starts now with the running jobs: record who runs where, with the progress each
        has now, and count the round; its end (minutes, -inf when nothing runs)."""
        rec, life = run.record, self.lifecycle
        r.placed = []
        end = -math.inf
        partner = r.colocated.partner
        ended = r._ended if r._ended_at == now and not partner else {}
        lives = rec.lives
        job_gpus, start_min, run_min = rec.job_gpus, rec.start_min, rec.run_min
        gpu_type, last_type, prev_gpus, placed = r._gpu_type_list, r.last_type, r.prev_gpus, r.placed
        round_end = now + r.length_min
        for i in run.running:
            gpus = job_gpus[i]
            j = gpu_type[gpus[0]]
            last = last_type[i]
            if last >= 0 and last != j:
                r.type_changes[i] += 1
            last_type[i] = j
            prev_gpus[i] = tuple(sorted(gpus))
            start = float(start_min[i])
            kept = ended.get(i)
            if (kept is not None and kept[0] == start and kept[1] is gpus
                    and (lives is None or kept[2] == float(lives.saved_min[i]))):
                progress = kept[3]  # the same run at the same instant: its progress at the round's end
            else:
                progress = life.progress_min(run, i)
            placed.append((i, j, progress))
            end = max(end, min(round_end, start + float(run_min[i])))
        if partner or len(r.pair_jobs) or r.prev_partner.max(initial=-1) >= 0:
            self._place_pairs(run, r)
        running = run.running
        for i, _, _ in r.last_placed:
            if i not in running:
                r.prev_gpus[i] = ()
        r.last_placed = list(r.placed)
        r.rounds += 1
        r.round_start_min = now
        return end

    def _skip_quiet_rounds(self, run: Any, r: RoundsRun, end: float) -> float:
        """Run the quiet rounds that follow this one in place, without a decision between them;
        the end of the last one (minutes), for its ``round`` event.

        A round is quiet when nothing can change at its start: this round's placement is a fixed
        point of the priority rule (:attr:`RoundsRun._fixed`: the next plan places the same jobs on
        the GPUs they now hold, so it stops, moves and starts nothing, whatever this round's plan
        changed), every active job runs (no queue to hold), no pair is placed, no reset of the
        time received is waiting (``recompute: on_change`` after an allocation), no allocation is due
        (:meth:`RoundsRun.needs_allocation`), and the round ends before the next event of the run
        (an arrival, a completion, a phase's end, a node event, a wakeup) and before its horizon.
        Each such round is closed and the next opened exactly as the ``round`` event and the
        decision at its end would: the clock moves to its end with the same integrals
        (:meth:`~gpusched.core.run_state.RunState.advance_clock`), the same service, time received
        and progress are counted, and the decision is counted; so the run is the same."""
        if (run.queue or r._fixed is None or len(r.pair_jobs)
                or r.colocated.partner or (r.on_change and r.allocated_since_reset)):
            return end
        upcoming = run.events.next_min()
        limit = math.inf if upcoming is None else upcoming
        if run.horizon_min is not None:
            limit = min(limit, run.horizon_min)
        active = np.fromiter(sorted(run.running), dtype=np.int64, count=len(run.running))
        changed = r.jobs_changed(active)  # no job arrives, finishes or joins in these rounds
        jobs = np.fromiter((i for i, _, _ in r.placed), dtype=np.int64, count=len(r.placed))
        if r.prev_partner.max(initial=-1) >= 0 or not self.lifecycle.fixed_speeds(run, jobs):
            while end < limit and not r.needs_allocation(end, active, changed):  # one round at a time
                run.advance_clock(end)
                self._close_round(run, r, end)
                run.decisions += 1  # the plan that would have opened the next round
                end = self._open_round(run, r, end)
            return end
        rec = run.record
        reach = max(float(rec.start_min[i]) + float(rec.run_min[i]) for i in jobs.tolist())
        ends = []
        while end < limit and not r.needs_allocation(end, active, changed):
            run.advance_clock(end)
            run.decisions += 1  # the plan that would have opened the next round
            ends.append(end)
            end = min(end + r.length_min, reach)  # _open_round's end: the latest run's end caps it
        if ends:
            self._close_and_open(run, r, jobs, ends)
        return end

    def _close_and_open(self, run: Any, r: RoundsRun, jobs: np.ndarray, ends: list[float]) -> None:
        """Close the round under way at ``ends[0]`` and each quiet round after it at the next end,
        opening the next one each time (:meth:`_close_round` then :meth:`_open_round`, for rounds
        in which no job starts, stops, finishes or changes speed, and no pair is placed): the same
        sums, in the same order, as arrays over the placed jobs ``jobs`` and the rounds. Each job's
        service, time received and progress on its type are summed round after round
        (``np.add.accumulate`` adds row after row), and the types' time received job after job
        and round after round (``np.add.at`` adds in the order given)."""
        rec, k, m = run.record, len(ends), len(jobs)
        types = np.fromiter((j for _, j, _ in r.placed), dtype=np.int64, count=m)
        first = np.array([p for _, _, p in r.placed])
        times = np.array(ends)
        gavel_start = r.gavel_start_min
        service = times - np.array([r.round_start_min, *ends[:-1]])  # each round's length
        received = times - np.array([gavel_start, *ends[:-1]])

        def summed(start: np.ndarray, step: np.ndarray) -> np.ndarray:
            return np.add.accumulate(np.vstack([start, step]), axis=0)[-1]

        at = (jobs, types)
        r.service_min[at] = summed(r.service_min[at], np.repeat(service[:, None], m, axis=1))
        r.time_min[at] = summed(r.time_min[at], np.repeat(received[:, None], m, axis=1))
        np.add.at(r.type_time_min, np.tile(types, k), np.repeat(received, m))
        progress = self.lifecycle.progress_at(run, jobs, times)
        r.work_min[at] = summed(r.work_min[at], np.diff(np.vstack([first, progress]), axis=0))
        lives = rec.lives
        now = progress[-1].tolist()
        r._ended = {i: (float(rec.start_min[i]), rec.job_gpus[i],
                        None if lives is None else float(lives.saved_min[i]), p)
                    for i, p in zip(jobs.tolist(), now, strict=True)}
        r._ended_at = ends[-1]
        r.gavel_round_start_min = gavel_start if k == 1 else ends[-2]
        r.gavel_round_end_min = ends[-1]
        r.placed = [(i, j, p) for (i, j, _), p in zip(r.placed, now, strict=True)]
        r.placed_pairs = []
        r.pending = False
        r.last_placed = list(r.placed)
        r.rounds += k
        r.round_start_min = ends[-1]

    @staticmethod
    def _place_pairs(run: Any, r: RoundsRun) -> None:
        """The round's pairs (:attr:`RoundsRun.placed_pairs`) and each job's partner in it."""
        partner = r.colocated.partner
        index = {(a, b): q for q, (a, b) in enumerate(r.pair_jobs.tolist())}
        r.placed_pairs = []
        for i, j, _ in r.placed:
            other = partner.get(i, -1)
            r.prev_partner[i] = other
            if other > i and other in run.running:
                q = index.get((i, other))
                if q is not None:
                    r.placed_pairs.append((q, j, i, other))

    def on_round(self, run: Any, t: float, _: list) -> None:
        """The round ends: count each placed job's service and progress on its type."""
        self._close_round(run, run.rounds, t)

    def _close_round(self, run: Any, r: RoundsRun, t: float) -> None:
        """The round under way ends at ``t`` (the clock): count each placed job's service, time
        received and progress on its type."""
        rec, life = run.record, self.lifecycle
        gavel_start = r.gavel_start_min
        r.gavel_round_start_min, r.gavel_round_end_min = gavel_start, t
        paired = {x for _, _, a, b in r.placed_pairs for x in (a, b)} if r.placed_pairs else ()
        finishes = {}
        ended = {}
        lives = rec.lives
        running, end_min, round_start = run.running, rec.end_min, r.round_start_min
        service, received_min, type_time, work = r.service_min, r.time_min, r.type_time_min, r.work_min
        progress_min = life.progress_min
        for i, j, progress in r.placed:
            end = end_min[i]
            finished = not math.isnan(end) and i not in running
            finish = finishes[i] = float(end) if finished else t
            service[i, j] += finish - round_start
            if i not in paired:  # a pair member's time received is its pair's (below)
                received = finish - gavel_start
                received_min[i, j] += received
                type_time[j] += received
            now_progress = progress_min(run, i)
            work[i, j] += now_progress - progress
            if finished:
                r.changed = True
            elif i in running:
                ended[i] = (float(rec.start_min[i]), rec.job_gpus[i],
                            None if lives is None else float(lives.saved_min[i]), now_progress)
        r._ended, r._ended_at = ended, t
        for q, j, a, b in r.placed_pairs:  # Gavel: the longer member's time, once per pair
            received = max(finishes[a], finishes[b]) - gavel_start
            r.pair_time[q, j] += received
            r.type_time_min[j] += received
        r.placed = []
        r.placed_pairs = []
        r.pending = False


def round_metrics(rounds: RoundsRun | None) -> dict[str, float]:
    """The round metrics of a run (:data:`gpusched.core.metrics.ROUND_METRIC_KEYS`): rounds,
    allocations computed and the policy's solve time per allocation (median, p99 and total,
    seconds); empty without rounds. (GPU-type changes are every run's, in
    :mod:`gpusched.core.run_fairness`.)"""
    if rounds is None:
        return {}
    solve = np.asarray(rounds.solve_s, dtype=float)
    some = len(solve) > 0
    values = (float(rounds.rounds), float(len(solve)), float(np.median(solve)) if some else 0.0,
              float(np.percentile(solve, 99)) if some else 0.0, float(solve.sum()))
    return dict(zip(ROUND_METRIC_KEYS, values, strict=True))


def ordered_moves(moving: dict[int, tuple[int, ...]], held_by: dict[int, int],
                  job_gpus: Sequence[Sequence[int]]) -> list[Migrate]:
    """The moves of ``moving`` (job -> its new GPUs) in an order that can be applied one by one:
    a move whose new GPUs are free, or held by the job itself, goes first. A job left in
    ``moving`` (a cycle of moves) is for the caller to stop and restart; ``held_by`` (GPU -> the
    job on it) is updated as the moves are taken."""
    moves: list[Migrate] = []
    while moving:
        ready = []
        for i, gang in moving.items():
            for x in gang:
                if held_by.get(x, i) != i:  # held by another job
                    break
            else:
                ready.append(i)
        if not ready:
            break
        for i in ready:
            gang = moving.pop(i)
            for x in job_gpus[i]:
                held_by.pop(x, None)
            for x in gang:
                held_by[x] = i
            moves.append(Migrate(i, gang))
    return moves
