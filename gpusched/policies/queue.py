"""Queue-aware heuristics: which window job starts, and where.

Each is named ``ORDER+PLACEMENT``: the ORDER picks a job among the window (the first ``window``
queued jobs, in arrival order; see :mod:`gpusched.core.simulator`), and the PLACEMENT, any
registered FIFO policy (``first_fit``, ``best_fit``, ``fastest_fit``, ``fgd``, ...), places it.
``ORDER`` alone means ``ORDER+best_fit``. Orders that read run times read the *declared* ones
(the run-time estimator's, :mod:`gpusched.core.estimator`), as Slurm users declare a time limit,
on the best GPU the job could get (declared duration / the best speed any gang of the cluster
offers it; without a speed table, the declared duration). With the placement ``eft`` (earliest finish time,
:mod:`gpusched.policies.eft`) the order ranks every window job and each may wait for a faster
gang with a reservation.

- ``fcfs``: the head job only; identical to the FIFO placement policy itself on any window.
- ``fitfirst``: the first window job that fits now (greedy backfilling without a reservation;
  it can starve big jobs, which shows in the p99 and maximum waits).
- ``easy``: EASY backfilling (Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995; Mu'alem and
  Feitelson, IEEE TPDS 12(6), 2001). The head job starts if it fits. Otherwise it gets a
  reservation: the earliest time it can start given the declared ends of the running jobs, on a
  gang of GPUs. A later window job may start now only if it fits now and does not delay that
  reservation: it ends (by its declared run time on its GPUs) before the reservation, or it uses
  none of the reserved GPUs (none of the reserved nodes, when nodes have CPU or memory limits).
- ``sjf``: the shortest declared run time on the best GPU first, among the window jobs that fit
  (Tiresias and the Alibaba PAI simulator order jobs by duration; here with declared times).
- ``priority``: the highest priority first, first-come first-served within a priority, among the
  window jobs that fit.
- ``wfp3``: the largest ``(wait / declared run time on the best GPU)^3 * gpus`` first, among the
  window jobs that fit (the WFP3 score of RLScheduler, Zhang et al., SC 2020).
- ``las`` and ``srtf``: least attained service (Tiresias's 2D-LAS) and shortest remaining
  declared time first; they also preempt (:mod:`gpusched.policies.preemptive`).
- ``qssf``, ``edf`` and ``least_slack``: the orders of urgency (:mod:`gpusched.policies.urgency`):
  the shortest predicted service (GPUs x declared or predicted run time) first, the earliest
  deadline first, and the least slack first.

Which orders read run times: ``sjf``, ``wfp3``, ``srtf``, ``easy``, ``qssf`` and ``least_slack``
(and every order with the placement ``eft``); ``fcfs``, ``fitfirst``, ``priority``, ``las`` and
``edf`` do not. Each order's facts (its key, label, traits) are its one spec in
:data:`gpusched.policies.orders.ORDERS` (:mod:`gpusched.policies.order_spec`).

Ties go to the earliest arrival (the lowest window slot).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from gpusched.core.cluster import EPS, ClusterState
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.simulator import HOLD, Action
from gpusched.core.view import SchedulerView
from gpusched.policies.base import Policy
from gpusched.policies.order_spec import OrderSpec


def sjf_key(view: SchedulerView) -> Callable[[int], float]:
    """The sort key of ``sjf``: the declared run time on the best GPU (minutes)."""
    declared = view.declared_best_min
    return lambda i: float(declared[i])


def priority_key(view: SchedulerView) -> Callable[[int], float]:
    """The sort key of ``priority``: the highest priority first."""
    jobs = view.jobs
    return lambda i: -jobs[i].priority


def wfp3_key(view: SchedulerView) -> Callable[[int], float]:
    """The sort key of ``wfp3``: minus RLScheduler's WFP3 score, ``(wait / declared run time on the best
    GPU)^3 * gpus``."""
    now, jobs, declared = view.time_min, view.jobs, view.declared_best_min

    def score(i: int) -> float:
        job = jobs[i]
        return -((now - job.arrival_min) / max(float(declared[i]), EPS)) ** 3 * job.gpus

    return score


LAS_THRESHOLDS_GPU_MIN: tuple[float, ...] = (60.0,)
"""The attained-service thresholds of ``las``'s queues (GPU-minutes; see
:mod:`gpusched.policies.preemptive`): queue k holds the jobs with at least ``thresholds[k - 1]``
and less than ``thresholds[k]``."""


def las_queue(attained_gpu_min: np.ndarray | float) -> np.ndarray:
    """The ``las`` queue of an attained service (GPU-minutes): 0 below the first threshold."""
    return np.searchsorted(LAS_THRESHOLDS_GPU_MIN, attained_gpu_min, side="right")


def las_key(view: SchedulerView) -> Callable[[int], float]:
    """The sort key of ``las``: the queue of a window job's attained service (:func:`las_queue`)."""
    window = view.window_indices()  # an order ranks the window's jobs alone
    queues = dict(zip(window, las_queue(view.attained_service_gpu_min(window)).tolist(), strict=True))
    return lambda i: float(queues[i])


def srtf_key(view: SchedulerView) -> Callable[[int], float]:
    """The sort key of ``srtf``: the declared remaining time on the best GPU
    (:meth:`~gpusched.core.view.SchedulerView.left_best_min`)."""
    return view.left_best_min


class QueuePolicy:
    """ORDER+PLACEMENT: the order picks a window slot, the FIFO placement policy places its job.

    :param order: the order (its spec, :data:`gpusched.policies.orders.ORDERS`).
    :param placement: the FIFO policy that places the chosen job.
    :param name: registry name reported in results.
    """

    def __init__(self, order: OrderSpec, placement: Policy, name: str):
        self.order = order
        self.pick = None if order.head_only else order.pick
        self.placement = placement
        self.name = name

    def bind(self, view: SchedulerView) -> None:
        """Attach to the simulator (and attach the placement policy when it reads the simulator)."""
        if hasattr(self.placement, "bind"):
            self.placement.bind(view)

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        """The slot to start and its placement, or ``(0, HOLD)``."""
        window = view.window_indices()
        slot = 0 if self.pick is None else self.pick(view, window)
        if slot is None:
            return 0, HOLD
        return slot, self.placement.select(view.state, view.jobs[window[slot]])


class MaskedState:
    """A read-only view of a :class:`ClusterState` in which only ``allowed`` GPUs can take a job:
    the fit masks and the gang rule see the other GPUs as full. Everything else is the state's."""

    def __init__(self, state: ClusterState, allowed: np.ndarray):
        self._state = state
        self._allowed = allowed

    def __getattr__(self, name: str):
        return getattr(self._state, name)

    def single_gpu_fit(self, job: DeclaredJob) -> np.ndarray:
        return self._state.single_gpu_fit(job) & self._allowed

    def fit_mask(self, job: DeclaredJob) -> np.ndarray:
        single = self.single_gpu_fit(job)
        return single if job.gpus == 1 else self._state.cluster.gang_mask(single, job.gpus)

    def gang_for(self, job: DeclaredJob, gpu: int) -> tuple[int, ...]:
        if not self.fit_mask(job)[gpu]:
            return ()
        if job.gpus == 1:
            return (int(gpu),)
        return self._state.cluster.gang_at(self.single_gpu_fit(job), gpu, job.gpus)

    def can_place(self, job: DeclaredJob, gpus: Sequence[int]) -> bool:
        return self._state.can_place(job, gpus) and bool(self._allowed[list(gpus)].all())


class Reservation:
    """The head job's reservation: the earliest time it can start, by the declared ends of the
    running jobs, and the GPUs it will take then.

    :param start_min: the reserved start time (minutes; ``inf`` if it never fits).
    :param gpus: the reserved GPUs (every GPU of their nodes when nodes have CPU or memory limits).
    """

    def __init__(self, start_min: float, gpus: np.ndarray):
        self.start_min = start_min
        self.gpus = gpus


def reservation(view: SchedulerView, job_idx: int) -> Reservation:
    """When and where the job ``job_idx`` could start if nothing else started: the running jobs
    release their resources at their declared ends, soonest first, until the job fits; it then
    reserves the gang the gang rule gives at the lowest-index GPU where it fits.

    Only the released GPUs (and, with node limits, their nodes) can change, so each release checks
    those alone, on plain lists."""
    state, cluster, job = view.state, view.cluster, view.jobs[job_idx]
    single_now = state.single_gpu_fit(job)
    gang_now = state.fit_mask(job)
    if gang_now.any():
        return Reservation(view.time_min, _reserved_gpus(cluster, job, single_now, gang_now))
    need = state.vram_need_gb(job)
    need_of = need.tolist() if isinstance(need, np.ndarray) else [float(need)] * cluster.n_gpus
    vram_free = state.vram_free_gb.tolist()
    compute_free = state.compute_free.tolist()
    allowed = cluster.spec_mask(job.gpu_spec) if job.gpu_spec else np.ones(cluster.n_gpus, dtype=bool)
    if state.down is not None:  # a down node's repair time is not known: reserve without it
        allowed = allowed & ~state.down
    allowed = allowed.tolist()
    gpu_node = cluster.gpu_node.tolist()
    limited = bool(cluster.has_node_limits and (job.cpu_milli or job.memory_mib))
    cpu_left = (cluster.node_cpu_milli - state.node_cpu_used).tolist()
    mem_left = (cluster.node_memory_mib - state.node_memory_used).tolist()
    single = single_now.tolist()
    count = np.bincount(cluster.gpu_node[single_now], minlength=cluster.n_nodes).tolist()
    first_gpu, node_size = cluster.node_first_gpu.tolist(), cluster.node_gpu_count.tolist()
    compute, gpus = job.compute, job.gpus
    spread = gpus > 1 and cluster.gang_placement == "spread"

    def fits_on(g: int) -> bool:
        if not (allowed[g] and vram_free[g] >= need_of[g] - EPS and compute_free[g] >= compute - EPS):
            return False
        node = gpu_node[g]
        return not limited or (job.cpu_milli <= cpu_left[node] + EPS
                               and job.memory_mib <= mem_left[node] + EPS)

    timeline = view.release_timeline()
    for end, ended in timeline.instants():  # every job ending at that instant
        touched: set[int] = set()
        for idx in ended:
            running = timeline.give_back(idx, vram_free, compute_free)
            touched.update(view.job_gpus[idx])
            if running.cpu_milli or running.memory_mib:
                node = gpu_node[view.job_gpus[idx][0]]
                cpu_left[node] += running.cpu_milli
                mem_left[node] += running.memory_mib
                if limited:
                    touched.update(range(first_gpu[node], first_gpu[node] + node_size[node]))
        for g in touched:
            ok = fits_on(g)
            if ok != single[g]:
                single[g] = ok
                count[gpu_node[g]] += 1 if ok else -1
        if spread:  # a gang may span nodes: ask the cluster's gang rule
            mask = np.array(single)
            gang = cluster.gang_mask(mask, gpus)
            if gang.any():
                return Reservation(max(end, view.time_min), _reserved_gpus(cluster, job, mask, gang))
            continue
        candidates = sorted(g for g in touched if single[g] and count[gpu_node[g]] >= gpus)
        if candidates:
            mask = np.array(single)
            gang = mask & (np.array(count)[cluster.gpu_node] >= gpus)
            return Reservation(max(end, view.time_min), _reserved_gpus(cluster, job, mask, gang))
    return Reservation(float("inf"), np.ones(cluster.n_gpus, dtype=bool))


def _reserved_gpus(cluster, job: DeclaredJob, single: np.ndarray, gang: np.ndarray) -> np.ndarray:
    first = int(np.flatnonzero(gang)[0])
    reserved = np.zeros(cluster.n_gpus, dtype=bool)
    gang = cluster.gang_at(single, first, job.gpus) if job.gpus > 1 else (first,)
    if cluster.has_node_limits:  # every node of the gang (one, unless it is spread)
        reserved[np.isin(cluster.gpu_node, cluster.gpu_node[list(gang)])] = True
    else:
        reserved[list(gang)] = True
    return reserved


class EasyBackfill(QueuePolicy):
    """EASY backfilling over a FIFO placement policy (see the module docstring).

    The reservation of a head job is computed when it is first blocked and kept until the view's
    epoch changes (:attr:`~gpusched.core.view.SchedulerView.epoch`: a job completes, a node fails or
    is repaired, a job is preempted; a backfilled job never delays it, so it stays valid until then). A
    down node is left out of every reservation.
    ``reservations`` records the first reservation of every head job (arrival index -> start
    time), so that a test can check that no head job starts later than it was promised.
    """

    def __init__(self, order: OrderSpec, placement: Policy, name: str):
        super().__init__(order, placement, name)
        self._cache: tuple[int, int, Reservation] | None = None
        self.reservations: dict[int, float] = {}

    def bind(self, view: SchedulerView) -> None:
        super().bind(view)
        self._cache = None
        self.reservations = {}

    def _reservation(self, view: SchedulerView, head: int) -> Reservation:
        cache = self._cache
        if cache is not None and cache[0] == head and cache[1] == view.epoch:
            return cache[2]
        res = reservation(view, head)
        self._cache = (head, view.epoch, res)
        self.reservations.setdefault(head, res.start_min)
        return res

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        state, jobs = view.state, view.jobs
        window = view.window_indices()
        head = window[0]
        if state.fits_somewhere(jobs[head]):
            return 0, self.placement.select(state, jobs[head])
        res = None
        for slot in range(1, len(window)):
            idx = window[slot]
            job = jobs[idx]
            if not state.fits_somewhere(job):
                continue
            res = res or self._reservation(view, head)
            gang = view.gang_of(job, self.placement.select(state, job), state)
            if gang and (view.time_min + view.declared_run_min(idx, gang) <= res.start_min + EPS
                         or not res.gpus[list(gang)].any()):
                return slot, gang
            masked = MaskedState(state, ~res.gpus)  # place it away from the reserved GPUs
            if masked.fit_mask(job).any():
                gang = view.gang_of(job, self.placement.select(masked, job), masked)
                if gang:
                    return slot, gang
        return 0, HOLD
