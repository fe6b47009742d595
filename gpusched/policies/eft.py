"""Earliest finish time (EFT): the placement that knows when a faster GPU is worth the wait.

**Rule.** For a job, estimate for each gang that could hold it its finish time::

    finish = max(now, when the gang can take the job) + declared run time / the gang's speed

where "when the gang can take the job" releases the running jobs at their declared ends, soonest
first, until the job fits on the gang. Pick the earliest finish (ties: the earlier start, then
Best-Fit's choice among the gangs that can start now, then the lowest node). If that gang can take
the job now, the job starts; otherwise it waits for it and holds a *reservation* on those GPUs
(their whole node when nodes have CPU or memory limits), as EASY does.

This is the minimum-completion-time rule of Braun et al., "A comparison of eleven static
heuristics for mapping a class of independent tasks onto heterogeneous distributed computing
systems", JPDC 61(6), 2001, and the earliest-finish-time placement of HEFT (Topcuoglu, Hariri and
Wu, "Performance-effective and low-complexity task scheduling for heterogeneous computing", IEEE
TPDS 13(3), 2002), with EASY's reservations (Lifka, JSSPP 1995) so that no job waits forever.

**With an order** (``ORDER+eft``, :func:`gpusched.policies.registry.queue_policy`): the order ranks
the window's jobs (:meth:`gpusched.policies.order_spec.OrderSpec.ranked`); the first whose earliest finish
starts now starts. When the order's choice waits, the order goes on to its next job:

- ``fcfs+eft`` looks at the head job alone: it starts or the queue holds;
- ``easy+eft`` gives the head job a reservation, and later jobs start only where they do not
  delay it (a job whose earliest finish waits, other than the head, holds no reservation);
- every other order gives each job that waits a reservation (conservative backfilling).

A job may start now on reserved GPUs only if its declared end comes before the reservation's
start; and a reservation is planned around the ones held before it. A reservation is kept until
its job starts; a job that can start now and finish no later than its reservation says starts
at once. A reservation whose start has passed without the job starting (a running job outlived
its declared run time) is planned again.

A node that is down (failed, not yet repaired) is left out of every plan, as its repair time is
not known; every reservation is planned again after a node failure, a repair or a preemption; a
job whose every possible node is down holds no reservation until one is repaired. A job that
stopped before is planned with its restore and its declared remaining work.

Without a speed table every gang finishes a job at the same time once it starts, so EFT starts the
job now wherever it fits, by Best-Fit's choice, and ``fcfs+eft`` is ``fcfs+best_fit`` exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gpusched.core.cluster import EPS
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.jobs import fit_shape
from gpusched.core.releases import ReleaseTimeline
from gpusched.core.simulator import HOLD, Action
from gpusched.core.view import SchedulerView
from gpusched.policies.order_spec import OrderSpec


@dataclass(frozen=True)
class Plan:
    """Where and when a job would run by its earliest finish.

    :param start_min: when it starts (minutes; the current time for a start now).
    :param finish_min: its declared end there (minutes).
    :param gpus: its gang.
    :param held: the GPUs a reservation of this plan holds (the gang, or its whole node when
        nodes have CPU or memory limits); a boolean mask over the cluster's GPUs, set when the
        plan becomes a reservation (:meth:`reserved`).
    """

    start_min: float
    finish_min: float
    gpus: tuple[int, ...]
    held: np.ndarray | None = None

    def reserved(self, view: SchedulerView) -> Plan:
        """This plan as a reservation on ``view``'s cluster (with its held GPUs)."""
        return Plan(self.start_min, self.finish_min, self.gpus, _held_mask(view, self.gpus))


def _held_mask(view: SchedulerView, gpus: tuple[int, ...]) -> np.ndarray:
    cluster = view.cluster
    mask = np.zeros(cluster.n_gpus, dtype=bool)
    if cluster.has_node_limits:  # every node of the gang (one, unless it is spread)
        mask[np.isin(cluster.gpu_node, cluster.gpu_node[list(gpus)])] = True
    else:
        mask[list(gpus)] = True
    return mask


def _declared(view: SchedulerView, idx: int) -> tuple[float, float]:
    """(restore minutes, declared remaining work in reference-speed minutes) of a job's next run:
    its declared run time on a gang of speed ``s`` is ``restore + work / s``."""
    return view.resume_cost_min(idx), view.declared_left_min(idx)


NO_PLAN = Plan(float("inf"), float("inf"), ())
"""The plan of a job whose every possible node is down: none until one is repaired."""


def _blocked_now(held: Sequence[Plan], now: float, run: np.ndarray | float) -> np.ndarray | None:
    """GPUs a job starting now for ``run`` minutes (per GPU, or the same everywhere) cannot take:
    reserved by a plan whose time it would overlap (``None`` when none is)."""
    blocked = None
    for plan in held:
        if plan.finish_min > now + EPS:
            hit = plan.held & (now + run > plan.start_min + EPS)
            blocked = hit if blocked is None else blocked | hit
    return blocked


def start_now(view: SchedulerView, idx: int, held: Sequence[Plan] = ()) -> Plan | None:
    """The earliest-finishing gang on which the job with arrival index ``idx`` can start now
    without delaying a reservation in ``held`` (``None`` if there is none). Ties: Best-Fit's
    choice (least VRAM left, lowest index)."""
    state, cluster, job, now = view.state, view.cluster, view.jobs[idx], view.time_min
    single = state.single_gpu_fit(job)
    if not state.fits_somewhere(job):
        return None
    restore, declared = _declared(view, idx)
    row = view.speed_model.row(job)
    if held:
        blocked = _blocked_now(held, now, restore + (declared if row is None else declared / row))
        if blocked is not None:
            single = single & ~blocked
    gang = cluster.gang_mask(single, job.gpus) if job.gpus > 1 else single
    candidates = np.flatnonzero(gang)
    if not candidates.size:
        return None
    if job.gpus > 1 and cluster.gang_placement == "spread":  # a gang over nodes has its own speed
        row = view.speed_model.fit_row(job, single)
    if row is not None:  # only the fastest candidates finish first
        speed = row[candidates]
        fastest = float(speed.max())
        candidates = candidates[speed >= fastest - 1e-12]
        best = now + restore + declared / fastest
    else:
        best = now + restore + declared
    left = state.vram_free_gb[candidates] - (state.vram_need_gb(job) if not job.vram_frac
                                             else state.vram_need_gb(job)[candidates])
    g = int(candidates[int(np.argmin(left))])
    gpus = (g,) if job.gpus == 1 else cluster.gang_at(single, g, job.gpus)
    return Plan(now, best, gpus)


class NodeReleases:
    """The running jobs of every node by declared end, soonest first, and each node's first
    declared end (``inf`` for a node that runs nothing): computed once per cluster state.

    A node that cannot take a job now can take it no earlier than its first release, which lets
    :func:`earliest_finish` pass over most nodes without scanning them.
    """

    def __init__(self) -> None:
        self._key: tuple[int, int] | None = None
        self.by_node: dict[int, list[tuple[float, int]]] = {}
        self.timeline: ReleaseTimeline | None = None
        self.first_release = np.empty(0)

    def update(self, view: SchedulerView) -> NodeReleases:
        """Recompute for ``view``'s current state if it changed; returns itself."""
        key = (id(view.state), view.state.version)
        if key == self._key:
            return self
        self._key = key
        self.timeline = view.release_timeline()
        by_node = self.timeline.by_node()
        first = np.full(view.cluster.n_nodes, np.inf)
        for node, releases in by_node.items():
            first[node] = releases[0][0]
        self.by_node, self.first_release = by_node, first
        return self


def node_speeds(view: SchedulerView, job: DeclaredJob) -> tuple[np.ndarray, np.ndarray]:
    """(nodes, their speed for the job) of every node that could ever hold the job."""
    cluster = view.cluster
    nodes = np.flatnonzero(np.bincount(cluster.gpu_node[cluster.empty_fit_mask(job)],
                                       minlength=cluster.n_nodes))
    row = view.speed_model.row(job)
    if row is None:
        return nodes, np.ones(nodes.size)
    return nodes, row[cluster.node_first_gpu[nodes]]


def _start_on_node(view: SchedulerView, job: DeclaredJob, node: int, run: float,
                   releases: list[tuple[float, int]], held: Sequence[Plan], latest: float,
                   timeline: ReleaseTimeline) -> tuple[float, tuple[int, ...]] | None:
    """The earliest time (minutes, before ``latest``) at which ``node`` can take the job for
    ``run`` minutes without overlapping a reservation, and the gang: its running jobs release
    their resources at their declared ends (``timeline``) and reservations their GPUs at theirs."""
    state, cluster, now = view.state, view.cluster, view.time_min
    first = int(cluster.node_first_gpu[node])
    gpus = range(first, first + int(cluster.node_gpu_count[node]))
    need = state.vram_need_gb(job)
    need_of = {g: float(need[g]) if isinstance(need, np.ndarray) else float(need) for g in gpus}
    vram = {g: float(state.vram_free_gb[g]) for g in gpus}
    compute = {g: float(state.compute_free[g]) for g in gpus}
    allowed = cluster.spec_mask(job.gpu_spec)[first] if job.gpu_spec else True
    limited = bool(cluster.has_node_limits and (job.cpu_milli or job.memory_mib))
    cpu_left = float(cluster.node_cpu_milli[node] - state.node_cpu_used[node])
    mem_left = float(cluster.node_memory_mib[node] - state.node_memory_used[node])
    holds = [p for p in held if p.held[first:first + len(gpus)].any()]
    times = sorted({now, *(max(e, now) for e, _ in releases),
                    *(p.finish_min for p in holds if p.finish_min > now)})
    k = 0
    for t in times:
        if t + run >= latest - EPS:
            return None
        while k < len(releases) and releases[k][0] <= t:  # release what ends by t
            share = vram if cluster.gang_placement == "spread" else None  # this node's share of a gang
            running = timeline.give_back(releases[k][1], vram, compute, within=share)
            cpu_left += running.cpu_milli
            mem_left += running.memory_mib
            k += 1
        if not allowed or (limited and (job.cpu_milli > cpu_left + EPS or job.memory_mib > mem_left + EPS)):
            continue
        end = t + run
        free = [g for g in gpus
                if vram[g] >= need_of[g] - EPS and compute[g] >= job.compute - EPS
                and not any(p.held[g] and p.start_min < end - EPS and p.finish_min > t + EPS
                            for p in holds)]
        if len(free) >= job.gpus:
            return t, tuple(free[: job.gpus])
    return None


def earliest_finish(view: SchedulerView, idx: int, held: Sequence[Plan] = (), *,
                    now_plan: Plan | None = None, releases: NodeReleases | None = None,
                    speeds: tuple[np.ndarray, np.ndarray] | None = None) -> Plan:
    """The plan with the earliest declared finish for the job with arrival index ``idx``, around
    the reservations in ``held`` (see the module docstring).

    Starting now is weighed first. Then each node that could hold the job and could still finish
    it sooner is weighed, soonest possible finish first: its running jobs release their resources
    at their declared ends (and reservations their GPUs at theirs) until the job fits. A node
    that cannot take the job now can take it no earlier than its first release, so a node whose
    first release plus the run there is no sooner than the best finish so far is never scanned.

    :param now_plan: :func:`start_now`'s answer, when the caller has it already.
    :param releases: the running jobs by node, when the caller has them already.
    :param speeds: :func:`node_speeds` of the job, when the caller has them already.
    """
    if now_plan is None:
        now_plan = start_now(view, idx, held)
    restore, declared = _declared(view, idx)
    if now_plan is not None and (view.speed_model.uniform or now_plan.finish_min <= view.time_min + restore
                                 + declared / float(view.best_speed[idx]) + EPS):
        return now_plan  # it starts now on a gang as fast as any: nothing is worth waiting for
    job, now = view.jobs[idx], view.time_min
    releases = (releases or NodeReleases()).update(view)
    nodes, speed = speeds if speeds is not None else node_speeds(view, job)
    down = view.state.down
    if down is not None:  # a down node's repair time is not known: plan without it
        up = ~down[view.cluster.node_first_gpu[nodes]]
        nodes, speed = nodes[up], speed[up]
    run = restore + declared / speed
    # A node with a reservation on it may be free now but blocked: its bound is now.
    reserved = np.zeros(view.cluster.n_nodes, dtype=bool)
    for plan in held:
        reserved[np.unique(view.cluster.gpu_node[plan.held])] = True
    first = np.where(reserved[nodes], now, np.maximum(releases.first_release[nodes], now))
    first = np.where(np.isfinite(first), first, now)  # an idle node that did not fit now: blocked
    bound = first + run
    best: Plan | None = now_plan
    best_key = (now_plan.finish_min, now) if now_plan is not None else (np.inf, np.inf)
    if job.gpus > 1 and view.cluster.gang_placement == "spread":
        spread = spread_finish(view, job, restore, declared, held, best_key[0])
        if spread is not None and (spread.finish_min, spread.start_min) < best_key:
            best_key, best = (spread.finish_min, spread.start_min), spread
    for k in np.argsort(bound, kind="stable"):
        if bound[k] >= best_key[0] - EPS:
            break
        node = int(nodes[k])
        found = _start_on_node(view, job, node, float(run[k]), releases.by_node.get(node, []), held,
                               best_key[0], releases.timeline)
        if found is not None:
            t, gpus = found
            key = (t + float(run[k]), t)
            if key < best_key:
                best_key, best = key, Plan(t, key[0], gpus)
    return NO_PLAN if best is None else best  # None: every node that could hold it is down


def spread_finish(view: SchedulerView, job: DeclaredJob, restore: float, declared: float,
                  held: Sequence[Plan] = (), latest: float = np.inf) -> Plan | None:
    """The earliest plan, finishing before ``latest``, on a gang of the cluster's spread rule
    (:class:`gpusched.core.gang.SpreadGang`): the running jobs release their resources at their
    declared ends, soonest first, until the rule forms a gang; a GPU a reservation of ``held``
    holds is left out until that reservation finishes. At that instant, the fastest of the gangs
    the rule forms (one per GPU model, at its lowest-index GPU). ``None`` if there is none."""
    state, cluster, now = view.state, view.cluster, view.time_min
    need = state.vram_need_gb(job)
    vram, compute = state.vram_free_gb.copy(), state.compute_free.copy()
    allowed = cluster.spec_mask(job.gpu_spec).copy() if job.gpu_spec else np.ones(cluster.n_gpus, dtype=bool)
    if state.down is not None:
        allowed &= ~state.down
    timeline = view.release_timeline()
    releases = timeline.releases
    times = sorted({now, *(max(e, now) for e, _ in releases)})
    k = 0
    for t in times:
        while k < len(releases) and releases[k][0] <= t:
            timeline.give_back(releases[k][1], vram, compute)
            k += 1
        single = allowed & (vram >= need - EPS) & (compute >= job.compute - EPS)
        for plan in held:
            if plan.finish_min > t + EPS:
                single &= ~plan.held
        gang = cluster.gang_mask(single, job.gpus)
        if not gang.any():
            continue
        best: Plan | None = None
        for code in np.unique(cluster.gpu_model_code[gang]).tolist():
            g = int(np.flatnonzero(gang & (cluster.gpu_model_code == code))[0])
            gpus = cluster.gang_at(single, g, job.gpus)
            finish = t + restore + declared / view.speed_model.of(job, gpus)
            if finish < latest - EPS and (best is None or finish < best.finish_min - EPS):
                best = Plan(t, finish, gpus)
        return best
    return None


class EarliestFinish:
    """``eft`` as a FIFO placement: the head job starts on the gang where it finishes earliest,
    or the queue holds while that gang is busy (the same as ``fcfs+eft``; see the module
    docstring)."""

    name = "eft"

    def __init__(self) -> None:
        self.view: SchedulerView | None = None

    def bind(self, view: SchedulerView) -> None:
        """Read the clock, the running jobs and the speeds of the run it schedules."""
        self.view = view

    def select(self, state, job: DeclaredJob) -> Action:
        view = self.view
        if view is None or view.state is not state:
            raise RuntimeError("eft needs bind(view) before select (Simulator.run does it)")
        idx = view.queue[0]
        if view.jobs[idx] is not job:
            raise ValueError("eft places the head job of the simulator it is bound to")
        plan = earliest_finish(view, idx)
        return plan.gpus if plan.start_min <= view.time_min + EPS else HOLD


class EarliestFinishQueue:
    """``ORDER+eft``: the order ranks the window, each job takes its earliest finish, and jobs
    that wait hold reservations (see the module docstring).

    ``promised`` records the first reservation of every job that held one (arrival index -> start
    time, minutes), so that a test can check that no job starts later than it was promised.

    :param order: the order (its spec, :data:`gpusched.policies.orders.ORDERS`); which waiting
        jobs hold reservations is its :attr:`~gpusched.policies.order_spec.OrderSpec.reserves`.
    :param name: registry name reported in results.
    """

    def __init__(self, order: OrderSpec, name: str):
        self.order = order
        self._reserves = order.reserves
        self.name = name
        self.held: dict[int, Plan] = {}
        self.promised: dict[int, float] = {}
        self._releases = NodeReleases()
        self._nodes: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._plan_epoch = 0

    def bind(self, view: SchedulerView) -> None:
        """Start a run: no reservations yet."""
        self.held = {}
        self.promised = {}
        self._releases = NodeReleases()
        self._nodes = {}
        self._plan_epoch = view.plan_epoch

    def _plan(self, view: SchedulerView, idx: int, others: list[Plan], now_plan: Plan | None) -> Plan:
        job = view.jobs[idx]
        shape = (job.type, fit_shape(job))
        speeds = self._nodes.get(shape)
        if speeds is None:
            speeds = self._nodes[shape] = node_speeds(view, job)
        return earliest_finish(view, idx, others, now_plan=now_plan, releases=self._releases,
                               speeds=speeds)

    def _may_reserve(self, slot: int) -> bool:
        return self._reserves == "all" or (self._reserves == "head" and slot == 0)

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        if view.plan_epoch != self._plan_epoch:  # a failure, repair or preemption: plan again
            self.held.clear()
            self._plan_epoch = view.plan_epoch
        now, held = view.time_min, self.held
        window = view.window_indices()
        for slot in self.order.ranked(view, window):
            idx = window[slot]
            others = [p for j, p in held.items() if j != idx]
            mine = held.get(idx)
            if mine is not None and view.state.down is not None and (mine.held & view.state.down).any():
                del held[idx]  # a node it reserved has failed: plan again
                mine = None
            if mine is not None:
                plan = start_now(view, idx, others)
                if plan is not None and plan.finish_min <= mine.finish_min + EPS:
                    del held[idx]
                    return slot, plan.gpus
                if mine.start_min > now + EPS:
                    continue  # keeps its reservation
                del held[idx]  # its start passed (a running job outlived its declared end)
            now_plan = start_now(view, idx, others)
            if now_plan is None and not self._may_reserve(slot):
                continue  # it cannot start now and may not reserve: nothing to plan
            plan = self._plan(view, idx, others, now_plan)
            if plan.start_min <= now + EPS:
                return slot, plan.gpus
            if self._may_reserve(slot) and plan.start_min < float("inf"):
                held[idx] = plan.reserved(view)
                self.promised.setdefault(idx, plan.start_min)
            if self.order.head_only:
                break
        return 0, HOLD
