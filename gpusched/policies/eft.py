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
the window's jobs (:func:`gpusched.policies.queue.ranked_slots`); the first whose earliest finish
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
from gpusched.core.jobs import Job
from gpusched.core.simulator import HOLD, Action, Simulator
from gpusched.policies.base import argmin_masked
from gpusched.policies.queue import ranked_slots


@dataclass(frozen=True)
class Plan:
    """Where and when a job would run by its earliest finish.

    :param start_min: when it starts (minutes; the current time for a start now).
    :param finish_min: its declared end there (minutes).
    :param gpus: its gang.
    :param held: the GPUs a reservation of this plan holds (the gang, or its whole node when
        nodes have CPU or memory limits); a boolean mask over the cluster's GPUs.
    """

    start_min: float
    finish_min: float
    gpus: tuple[int, ...]
    held: np.ndarray


def _held_mask(sim: Simulator, gpus: tuple[int, ...]) -> np.ndarray:
    cluster = sim.cluster
    mask = np.zeros(cluster.n_gpus, dtype=bool)
    if cluster.has_node_limits:
        mask[cluster.gpu_node == cluster.gpu_node[gpus[0]]] = True
    else:
        mask[list(gpus)] = True
    return mask


def _run_min(sim: Simulator, idx: int, job: Job) -> np.ndarray:
    """The job's declared run time on each GPU (minutes): its declared remaining work there, after
    its restore if it stopped before."""
    declared, restore = sim.declared_left_min(idx), sim.resume_cost_min(idx)
    if sim.speeds is None:
        return np.full(sim.cluster.n_gpus, restore + declared)
    return restore + declared / sim.speeds.row(job.type)


def _blocked_now(held: Sequence[Plan], now: float, run: np.ndarray) -> np.ndarray:
    """GPUs a job starting now cannot take: reserved by a plan whose time it would overlap."""
    blocked = np.zeros(run.size, dtype=bool)
    for plan in held:
        if plan.finish_min > now + EPS:
            blocked |= plan.held & (now + run > plan.start_min + EPS)
    return blocked


def start_now(sim: Simulator, idx: int, held: Sequence[Plan] = ()) -> Plan | None:
    """The earliest-finishing gang on which the job with arrival index ``idx`` can start now
    without delaying a reservation in ``held`` (``None`` if there is none). Ties: Best-Fit's
    choice (least VRAM left, lowest index)."""
    state, cluster, job, now = sim.state, sim.cluster, sim.jobs[idx], sim.time_min
    single = state.single_gpu_fit(job)
    if not single.any():
        return None
    run = _run_min(sim, idx, job)
    if held:
        single = single & ~_blocked_now(held, now, run)
    gang = cluster.gang_mask(single, job.gpus) if job.gpus > 1 else single
    if not gang.any():
        return None
    finish = now + run
    best = float(finish[gang].min())
    left = state.vram_free_gb - state.vram_need_gb(job)
    g = argmin_masked(left, gang & (finish <= best + EPS))
    gpus = (g,) if job.gpus == 1 else cluster.gang_at(single, g, job.gpus)
    return Plan(now, best, gpus, _held_mask(sim, gpus))


def earliest_finish(sim: Simulator, idx: int, held: Sequence[Plan] = ()) -> Plan:
    """The plan with the earliest declared finish for the job with arrival index ``idx``, around
    the reservations in ``held`` (see the module docstring).

    Starting now is weighed first; then the running jobs release their resources at their
    declared ends (and reservations their GPUs at theirs), soonest first, and each node is
    weighed when its GPUs change, until no later start could finish sooner.
    """
    now_plan = start_now(sim, idx, held)
    if sim.speeds is None and now_plan is not None:
        return now_plan  # every gang runs the job equally fast: nothing is worth waiting for
    state, cluster, job, now = sim.state, sim.cluster, sim.jobs[idx], sim.time_min
    run = _run_min(sim, idx, job)
    best_finish = now_plan.finish_min if now_plan is not None else float("inf")
    # Nodes worth waiting for: those that could ever hold the job and run it sooner than now_plan.
    ever = cluster.empty_fit_mask(job)
    first_gpu, node_size = cluster.node_first_gpu, cluster.node_gpu_count
    node_run = {int(n): float(run[first_gpu[n]]) for n in np.unique(cluster.gpu_node[ever])}
    node_run = {n: r for n, r in node_run.items() if now + r < best_finish - EPS}
    if not node_run:
        if now_plan is None:  # every node that could hold it is down
            return Plan(float("inf"), float("inf"), (), np.zeros(cluster.n_gpus, dtype=bool))
        return now_plan
    fastest = min(node_run.values())
    need = state.vram_need_gb(job)
    need_of = need.tolist() if isinstance(need, np.ndarray) else [float(need)] * cluster.n_gpus
    vram_free = state.vram_free_gb.tolist()
    compute_free = state.compute_free.tolist()
    allowed = cluster.spec_mask(job.gpu_spec) if job.gpu_spec else np.ones(cluster.n_gpus, dtype=bool)
    if state.down is not None:  # a down node's repair time is not known: plan without it
        allowed = allowed & ~state.down
    allowed = allowed.tolist()
    gpu_node = cluster.gpu_node.tolist()
    limited = bool(cluster.has_node_limits and (job.cpu_milli or job.memory_mib))
    cpu_left = (cluster.node_cpu_milli - state.node_cpu_used).tolist()
    mem_left = (cluster.node_memory_mib - state.node_memory_used).tolist()
    compute = job.compute
    holds_on = {n: [p for p in held if p.held[first_gpu[n]:first_gpu[n] + node_size[n]].any()]
                for n in node_run}

    def fits(g: int) -> bool:
        if not (allowed[g] and vram_free[g] >= need_of[g] - EPS and compute_free[g] >= compute - EPS):
            return False
        node = gpu_node[g]
        return not limited or (job.cpu_milli <= cpu_left[node] + EPS
                               and job.memory_mib <= mem_left[node] + EPS)

    def gang_at(node: int, t: float) -> tuple[int, ...]:
        """The node's lowest-index GPUs that can take the job from ``t`` for its run there."""
        end = t + node_run[node]
        first = int(first_gpu[node])
        free = []
        for g in range(first, first + int(node_size[node])):
            if not fits(g):
                continue
            if any(p.held[g] and p.start_min < end - EPS and p.finish_min > t + EPS for p in holds_on[node]):
                continue
            free.append(g)
            if len(free) == job.gpus:
                return tuple(free)
        return ()

    # Events in time order: (time, kind, what) with kind 0 a running job's declared end and
    # kind 1 a reservation's end.
    events = [(end, 0, i) for end, i in sim.running_by_declared_end() if i != idx]
    events += [(p.finish_min, 1, k) for k, p in enumerate(held) if p.finish_min > now]
    events.sort()
    best: Plan | None = now_plan
    k = 0
    while k < len(events):
        t = max(events[k][0], now)
        if t + fastest >= best_finish - EPS:
            break
        touched: set[int] = set()
        while k < len(events) and events[k][0] <= t:
            _, kind, what = events[k]
            k += 1
            if kind == 1:
                touched.update(gpu_node[g] for g in np.flatnonzero(held[what].held).tolist())
                continue
            running = sim.jobs[what]
            gpus = sim.job_gpus[what]
            for g in gpus:
                vram_free[g] += running.vram_gb + running.vram_frac * float(cluster.gpu_vram_gb[g])
                compute_free[g] += running.compute
            node = gpu_node[gpus[0]]
            touched.add(node)
            if running.cpu_milli or running.memory_mib:
                cpu_left[node] += running.cpu_milli
                mem_left[node] += running.memory_mib
        for node in sorted(touched):
            r = node_run.get(node)
            if r is None or t + r >= best_finish - EPS:
                continue
            gpus = gang_at(node, t)
            if gpus:
                best_finish = t + r
                best = Plan(t, best_finish, gpus, _held_mask(sim, gpus))
    if best is None:  # every node that could hold it is down: no plan until one is repaired
        return Plan(float("inf"), float("inf"), (), np.zeros(cluster.n_gpus, dtype=bool))
    return best


class EarliestFinish:
    """``eft`` as a FIFO placement: the head job starts on the gang where it finishes earliest,
    or the queue holds while that gang is busy (the same as ``fcfs+eft``; see the module
    docstring)."""

    name = "eft"

    def __init__(self) -> None:
        self.sim: Simulator | None = None

    def bind(self, sim: Simulator) -> None:
        """Read the clock, the running jobs and the speeds of the simulator it runs in."""
        self.sim = sim

    def select(self, state, job: Job) -> Action:
        sim = self.sim
        if sim is None or sim.state is not state:
            raise RuntimeError("eft needs bind(simulator) before select (Simulator.run does it)")
        idx = sim.queue[0]
        if sim.jobs[idx] is not job:
            raise ValueError("eft places the head job of the simulator it is bound to")
        plan = earliest_finish(sim, idx)
        return plan.gpus if plan.start_min <= sim.time_min + EPS else HOLD


class EarliestFinishQueue:
    """``ORDER+eft``: the order ranks the window, each job takes its earliest finish, and jobs
    that wait hold reservations (see the module docstring).

    ``promised`` records the first reservation of every job that held one (arrival index -> start
    time, minutes), so that a test can check that no job starts later than it was promised.

    :param order: the order's name (a key of :data:`gpusched.policies.queue.ORDERS`).
    :param name: registry name reported in results.
    """

    def __init__(self, order: str, name: str):
        self.order = order
        self.name = name
        self.held: dict[int, Plan] = {}
        self.promised: dict[int, float] = {}
        self._disruptions = 0

    def bind(self, sim: Simulator) -> None:
        """Start a run: no reservations yet."""
        self.held = {}
        self.promised = {}
        self._disruptions = sim.disruptions

    def _may_reserve(self, slot: int) -> bool:
        return self.order != "fcfs" and (self.order != "easy" or slot == 0)

    def decide(self, sim: Simulator) -> tuple[int, Action]:
        if sim.disruptions != self._disruptions:  # a failure, repair or preemption: plan again
            self.held.clear()
            self._disruptions = sim.disruptions
        now, held = sim.time_min, self.held
        window = sim.window_indices()
        for slot in ranked_slots(self.order, sim, window):
            idx = window[slot]
            others = [p for j, p in held.items() if j != idx]
            mine = held.get(idx)
            if mine is not None and sim.state.down is not None and (mine.held & sim.state.down).any():
                del held[idx]  # a node it reserved has failed: plan again
                mine = None
            if mine is not None:
                plan = start_now(sim, idx, others)
                if plan is not None and plan.finish_min <= mine.finish_min + EPS:
                    del held[idx]
                    return slot, plan.gpus
                if mine.start_min > now + EPS:
                    continue  # keeps its reservation
                del held[idx]  # its start passed (a running job outlived its declared end)
            plan = earliest_finish(sim, idx, others)
            if plan.start_min <= now + EPS:
                return slot, plan.gpus
            if self._may_reserve(slot) and plan.start_min < float("inf"):
                held[idx] = plan
                self.promised.setdefault(idx, plan.start_min)
            if self.order == "fcfs":
                break
        return 0, HOLD
