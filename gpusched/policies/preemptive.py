"""Preemptive orders: ``las`` (least attained service) and ``srtf`` (shortest remaining time first).

Each is named ``ORDER+PLACEMENT`` like the other orders (:mod:`gpusched.policies.queue`): ``las``
and ``srtf`` alone mean ``+best_fit``, and every placement works (``las+eft``, ``srtf+fastest_fit``,
...). At each decision the order ranks the window's jobs by its key. Walking that ranking, the
first job that fits now starts (the placement places it), as with ``sjf``. Before it, a job that
fits nowhere may *preempt*: if stopping running jobs that rank strictly below it, and that may be
preempted (:attr:`SchedulerView.preemptible <gpusched.core.view.SchedulerView>`: they have run
``preemption_min_run_min`` since they last started), would make it fit on one node, the policy
answers :class:`~gpusched.core.simulator.Preempt` for the worst-ranked of them on the node that
needs the fewest stops (then the lowest node). It preempts one job per decision; the next decision,
at the same instant, preempts the next one or starts the job. A preempted job saves its progress,
goes back to the queue, and pays ``restore_min`` when it resumes (see
:mod:`gpusched.core.simulator`).

- ``las``: the discretised two-dimensional least-attained-service order (2D-LAS) of Tiresias (Gu et
  al., "Tiresias: A GPU Cluster Manager for Distributed Deep Learning", NSDI 2019). A job's
  attained service is the GPU-minutes it has held (its GPUs times the minutes it has run, over all
  its runs). Jobs fall into priority queues by attained service; the thresholds are
  :data:`~gpusched.policies.queue.LAS_THRESHOLDS_GPU_MIN`: two queues split at 60 GPU-minutes,
  the 3,600 GPU-seconds of the two-queue ``dlas-gpu`` setting in the artifact's simulator
  (``SymbioticLab/Tiresias``, ``simulator/README.md``). A lower queue goes first; within a
  queue, the earliest arrival. A job preempts only jobs of a strictly higher queue, so a newly
  arrived job (0 GPU-minutes) may preempt a running job that has had 60 GPU-minutes or more. It
  reads no run time at all. (Tiresias also promotes a job that has waited long back to the first
  queue; this lab does not, and needs not for every job to finish: arrivals end, and each run
  between two preemptions makes progress.)
- ``srtf``: shortest remaining declared time first, preemptive (Schrage, "A proof of the optimality
  of the shortest remaining processing time discipline", Operations Research 16(3), 1968). A
  job's remaining time is its restore still to come (a waiting job that stopped before pays it
  again) plus its declared remaining work on the best GPU it could get, so a running job and the
  same job preempted rank alike (the preempted one a restore later). A waiting job preempts
  running jobs whose remaining time is strictly longer than its own.

Neither order starves a job for ever: every run between two preemptions of a job lasts at least
``preemption_min_run_min`` after its restore, so it progresses, and a run without a horizon ends
with every job done (``tests/test_preemption.py`` checks it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gpusched.core.cluster import EPS, release_into
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.simulator import Action, Preempt
from gpusched.core.view import SchedulerView
from gpusched.policies.order_spec import OrderSpec, PreemptionRank
from gpusched.policies.queue import LAS_THRESHOLDS_GPU_MIN, las_queue

__all__ = ["LAS_THRESHOLDS_GPU_MIN", "LasRank", "Preemptive", "SrtfRank", "las_queue", "preemption_for"]


class SrtfRank:
    """``srtf``'s rank: a job's declared remaining time on the best GPU it could get
    (:meth:`~gpusched.core.view.SchedulerView.left_best_min` waiting,
    :meth:`~gpusched.core.view.SchedulerView.running_left_best_min` running).

    :param view: the run.
    """

    def __init__(self, view: SchedulerView):
        self.view = view
        self.waiting = view.left_best_min
        self.running = view.running_left_best_min

    def changes_min(self, idx: np.ndarray) -> None:
        """A running job's rank only falls as it runs: no change asks for a decision."""
        return None


class LasRank:
    """``las``'s rank: the queue of a job's attained service (:func:`las_queue`).

    :param view: the run.
    """

    def __init__(self, view: SchedulerView):
        self.view = view
        self.gpus = np.array([j.gpus for j in view.jobs], dtype=float)

    def waiting(self, idx: int) -> float:
        return float(las_queue(float(self.view.attained_service_gpu_min([idx])[0])))

    def running(self, idx: np.ndarray) -> np.ndarray:
        return las_queue(self.view.attained_service_gpu_min(idx)).astype(float)

    def changes_min(self, idx: np.ndarray) -> np.ndarray:
        """When each running job crosses into its next queue (minutes; ``inf`` past the last
        threshold)."""
        view = self.view
        gpus = self.gpus[idx]
        attained = view.attained_service_gpu_min(idx)
        nxt = np.asarray(LAS_THRESHOLDS_GPU_MIN)[np.minimum(las_queue(attained),
                                                             len(LAS_THRESHOLDS_GPU_MIN) - 1)]
        return np.where(attained < nxt, view.time_min + (nxt - attained) / gpus, np.inf)


def preemption_for(view: SchedulerView, order: OrderSpec, keys: PreemptionRank | None = None) -> int | None:
    """The running job (arrival index) the preemptive ``order`` stops now, or ``None`` (see the
    module docstring). When the best-ranked waiting job fits nowhere and no preemption helps now,
    it asks the simulator to decide again when the next running job becomes preemptible (or, for
    ``las``, crosses a queue threshold)."""
    running = view.running_indices()
    if not running:
        return None
    window = view.window_indices()
    ranked = order.ranked(view, window)
    state, jobs = view.state, view.jobs
    if not ranked or state.fits_somewhere(jobs[window[ranked[0]]]):
        return None  # the best-ranked job starts now, without a preemption
    keys = keys or order.preempts(view)
    idx = np.array(running, dtype=np.int64)
    ready = view.may_stop_from_min(idx)
    may = ready <= view.time_min + EPS
    if may.any():
        ok, run_key = idx[may], keys.running(idx[may])
        worst = float(run_key.max())
        for slot in ranked:
            job_idx = window[slot]
            key = keys.waiting(job_idx)
            if key >= worst:
                break  # every later job ranks no better
            job = jobs[job_idx]
            if state.fits_somewhere(job):
                return None  # it starts now, without a preemption
            below = run_key > key
            # A victim goes back to the queue at its arrival position: the job must stay in the window.
            budget = view.window - 1 - slot
            victims = _victims(view, job, ok[below].tolist(), run_key[below].tolist(), job_idx, budget)
            if victims:
                return victims[0]
    _wake_for_next_chance(view, keys, idx, ready, may)
    return None


def _wake_for_next_chance(view: SchedulerView, keys: PreemptionRank, idx: np.ndarray, ready: np.ndarray,
                          may: np.ndarray) -> None:
    """Ask to decide again when a running job next becomes preemptible, or its rank changes by
    itself (``las``: it moves to a later queue): nothing else may happen then."""
    times = ready[~may]
    changes = keys.changes_min(idx)
    if changes is not None:
        times = np.concatenate([times, changes])
    if times.size:
        view.request_wakeup(float(times.min()))


def _victims(view: SchedulerView, job: DeclaredJob, candidates: Sequence[int], cand_keys: Sequence[float],
             job_idx: int, budget: int) -> list[int]:
    """The fewest candidates, worst-ranked first and on one node, whose stop would let ``job``
    (arrival index ``job_idx``; its whole gang, even with ``gang_placement: spread``) fit there
    (ties: the node whose best-ranked victim ranks worst, so that a victim is less likely to outrank
    a job still running; then the lowest node); empty when no node would do. At most ``budget`` of
    them may have arrived before the job: each of those goes back to the queue ahead of it and
    pushes it one slot further from the head, and it must stay in the window."""
    state, cluster = view.state, view.cluster
    ever = cluster.empty_fit_mask(job)
    if state.down is not None:
        ever = ever & ~state.down
    gpu_node, first_gpu, size = cluster.gpu_node, cluster.node_first_gpu, cluster.node_gpu_count
    by_node: dict[int, list[tuple[float, int]]] = {}
    for i, k in zip(candidates, cand_keys, strict=True):
        g = view.job_gpus[i][0]
        if ever[g]:
            by_node.setdefault(int(gpu_node[g]), []).append((k, i))
    need = state.vram_need_gb(job)
    spread = cluster.gang_placement == "spread"
    best: list[int] = []
    best_rank = (0, 0.0)
    for node in sorted(by_node):
        lo, hi = int(first_gpu[node]), int(first_gpu[node] + size[node])
        vram = state.vram_free_gb[lo:hi].copy()
        compute = state.compute_free[lo:hi].copy()
        need_here = need[lo:hi] if isinstance(need, np.ndarray) else need
        cpu = cluster.node_cpu_milli[node] - state.node_cpu_used[node]
        mem = cluster.node_memory_mib[node] - state.node_memory_used[node]
        stops: list[int] = []
        earlier = 0
        for k, i in sorted(by_node[node], key=lambda e: (-e[0], -e[1])):  # worst first, latest arrival
            if best and len(stops) + 1 > len(best):
                break
            if i < job_idx:
                if earlier >= budget:
                    continue
                earlier += 1
            victim, held = view.jobs[i], view.job_gpus[i]
            if spread and len(held) > 1:  # a spread victim frees only its share of this node here
                held = [g for g in held if lo <= g < hi]
            release_into(victim, held, cluster.gpu_vram_gb, vram, compute, offset=lo)
            cpu += victim.cpu_milli
            mem += victim.memory_mib
            stops.append(i)
            fits = (vram >= need_here - EPS) & (compute >= job.compute - EPS)
            if (int(fits.sum()) >= job.gpus and job.cpu_milli <= cpu + EPS
                    and job.memory_mib <= mem + EPS):
                rank = (len(stops), -k)  # k: the key of the last (best-ranked) stop
                if not best or rank < best_rank:
                    best, best_rank = stops, rank
                break
    return best


class Preemptive:
    """A preemptive order over its queue policy: preempt when the order says so (see the module
    docstring), else let ``inner`` (the order with its placement) decide.

    :param inner: the ``ORDER+PLACEMENT`` policy that starts jobs.
    :param order: a preemptive order (its spec's ``preempts`` is set: ``las``, ``srtf``).
    :param name: registry name reported in results.
    """

    def __init__(self, inner: Any, order: OrderSpec, name: str):
        if order.preempts is None:
            raise ValueError(f"'{order.name}' is not a preemptive order")
        self.inner = inner
        self.order = order
        self.name = name
        self._keys: PreemptionRank | None = None

    def bind(self, view: SchedulerView) -> None:
        """Attach to the simulator (and attach the inner policy)."""
        self._keys = self.order.preempts(view)
        if hasattr(self.inner, "bind"):
            self.inner.bind(view)

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        """``(0, Preempt(job))``, or the inner policy's decision."""
        keys = self._keys
        if keys is None or keys.view is not view:
            keys = self._keys = self.order.preempts(view)
        victim = preemption_for(view, self.order, keys)
        if victim is not None:
            return 0, Preempt(victim)
        return self.inner.decide(view)
