"""The event-driven simulator: the one place that defines the cluster dynamics.

**Queue.** Jobs wait in a queue in arrival order. The scheduler may start any of the first
``window`` queued jobs (the *window*; ``window = 1``, the default, is a strict FIFO queue). At
every decision point the simulator asks the policy for a window slot and a placement, or HOLD:

- a GPU index places the slot's job there, and for a multi-GPU job also on other GPUs of the same
  node (see the gang rule in :mod:`gpusched.core.cluster`); a tuple of GPU indices names the whole
  gang; placing does not advance time; a job started ahead of an earlier arrival that still
  waits is *backfilled*;
- HOLD leaves the queue as it is and advances the clock to the next event (an arrival or a
  completion). A GPU where the job does not fit counts as a HOLD and is recorded as a
  *misroute*, with its cause (:meth:`~gpusched.core.cluster.ClusterState.misroute_cause`:
  ``capacity``, ``occupied`` or ``gang``).

A policy written for the FIFO queue (``select(state, job)``) answers for the head job (slot 0); a
queue-aware policy (``decide(simulator)``) answers with ``(slot, action)``.

**Speed and declared run times.** A job's ``duration_min`` is its run time at speed 1.0 (on the
reference GPU). With a speed table (:mod:`gpusched.core.speed`) it runs for
``duration_min / speed`` on its gang, at the speed of its slowest GPU. What the scheduler knows of a
job's run time is its declared time (``Job.estimate_min``, ``duration_min`` when absent): rules
and agents read declared times, the simulator runs the true ones.

**Time to result.** A job's *ideal run time* is ``duration_min / best speed``, where the best speed
is the fastest that any gang of this cluster that could ever hold the job offers it (its type's
speed on the fastest GPU model among the nodes that could hold it when empty). A job's completion
time (JCT) is its wait plus its run; its *speed loss* is ``run - ideal run`` (never negative): the
minutes it lost by running on GPUs slower than the best this cluster could give it. Without a
speed table the ideal run time is the duration, and the speed loss is 0.

**Idle GPUs while jobs wait.** While the queue is not empty, the simulator integrates the number
of idle GPUs (running no job) over time. The integral is *stalled* while some window job would
have fitted somewhere and the policy held (the policy's fault; this time is ``stall_min``), and
*blocked* while no window job fits anywhere (fragmentation, or a real lack of capacity).

**Events.** There are no ticks. Time is in minutes (float). At one instant completions are
handled first, then arrivals, then decisions.

**End of a run.** A run ends when every job has finished, at ``horizon_min``, or on a dead stall
(nothing running, no arrival left, and the policy holds). Jobs that have not finished are
reported as unfinished, and their waits count up to the end time; a job that had not yet arrived
at ``horizon_min`` is reported as unfinished with a wait of 0 (a wait is never negative).

The simulator can be driven step by step (:meth:`Simulator.step`, used by the Gymnasium
environment) or run to the end with a policy (:meth:`Simulator.run`).
"""

from __future__ import annotations

import copy
import heapq
from collections import Counter, deque
from collections.abc import Sequence
from itertools import islice

import numpy as np
import pandas as pd

from gpusched.core.cluster import MISROUTE_CAUSES, Cluster, ClusterState
from gpusched.core.jobs import Job, check_jobs_feasible
from gpusched.core.metrics import RunningGini
from gpusched.core.result import Result
from gpusched.core.reward import RewardSpec, reward_for
from gpusched.core.speed import GpuSpeeds
from gpusched.core.timeline import Timeline

HOLD = -1
"""The action that leaves the queue as it is until the next event."""

BSLD_FLOOR_MIN = 10.0
"""Bounded slowdown divides by ``max(ideal run, 10 min)``, so that very short jobs do not dominate it."""

Action = int | Sequence[int]



def next_decision(policy, sim: Simulator) -> tuple[int, Action]:
    """``policy``'s (window slot, action) at ``sim``'s current decision: ``decide(sim)`` of a
    queue-aware policy, or ``select`` of a FIFO one for the head job (slot 0). :meth:`Simulator.run`
    makes the same choice once per run."""
    if hasattr(policy, "decide"):
        return policy.decide(sim)
    return 0, policy.select(sim.state, sim.head_job)


_RESYNC_EVERY = 4096
"""Recompute the running pairwise-difference sum exactly after this many updates."""


class Simulator:
    """Run one workload on one cluster.

    :param cluster: the cluster topology.
    :param jobs: the workload (any order; ids must be unique).
    :param reward: reward weights (see :mod:`gpusched.core.reward`).
    :param util_band: target band of cluster utilisation (fractions 0-1).
    :param horizon_min: end the run at this time (minutes), or ``None`` to run until done.
    :param check_feasible: refuse jobs that no node could ever hold (raises
        :class:`~gpusched.errors.InfeasibleJobError`).
    :param window: queued jobs the scheduler may start (1 is a strict FIFO queue).
    :param speeds: relative GPU speeds per job type (``None``: every GPU at speed 1.0).
    """

    def __init__(
        self,
        cluster: Cluster,
        jobs: Sequence[Job],
        *,
        reward: RewardSpec | None = None,
        util_band: tuple[float, float] = (0.6, 0.8),
        horizon_min: float | None = None,
        check_feasible: bool = True,
        window: int = 1,
        speeds: GpuSpeeds | None = None,
    ):
        if check_feasible:
            check_jobs_feasible(jobs, cluster)
        if window < 1:
            raise ValueError(f"window must be at least 1, got {window}")
        self.cluster = cluster
        self.window = int(window)
        self.speeds = speeds
        self.jobs: list[Job] = sorted(jobs, key=lambda j: (j.arrival_min, j.id))
        self.declared_min = np.array([j.duration_min if j.estimate_min is None else j.estimate_min
                                      for j in self.jobs], dtype=float)
        """Declared run time of each job at speed 1.0 (minutes), by arrival index."""
        self.best_speed = self._best_speeds()
        """The fastest speed any gang of the cluster that could ever hold each job offers it
        (1.0 without a speed table), by arrival index."""
        self.declared_best_min = (self.declared_min if speeds is None
                                  else self.declared_min / self.best_speed)
        """Declared run time of each job on the best GPU it could get (minutes), by arrival index."""
        self.reward_spec = reward or RewardSpec()
        self.util_band = util_band
        self.horizon_min = horizon_min
        self.reset()

    def _best_speeds(self) -> np.ndarray:
        """Per job (arrival order), the best speed of the gangs that could ever hold it: the
        fastest GPU, for its type, among those where it fits on an empty cluster (a node holds one
        GPU model, so a gang's speed is its node's). Cached by the job's shape and type."""
        if self.speeds is None:
            return np.ones(len(self.jobs))
        cluster, speeds = self.cluster, self.speeds
        cache: dict[tuple, float] = {}
        out = np.empty(len(self.jobs))
        for i, job in enumerate(self.jobs):
            key = (job.type, job.gpus, job.vram_gb, job.vram_frac, job.compute, job.gpu_spec,
                   job.cpu_milli, job.memory_mib)
            best = cache.get(key)
            if best is None:
                mask = cluster.empty_fit_mask(job)
                best = cache[key] = float(speeds.row(job.type)[mask].max()) if mask.any() else 1.0
            out[i] = best
        return out

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Start the run over and advance to the first decision point."""
        n = len(self.jobs)
        self.state = ClusterState(self.cluster)
        self.time_min = self.jobs[0].arrival_min if self.jobs else 0.0
        self.start_time_min = self.time_min
        self.queue: deque[int] = deque()
        self._next_arrival = 0
        self._running: list[tuple[float, int]] = []
        self.start_min = np.full(n, np.nan)
        self.end_min = np.full(n, np.nan)
        self.run_min = np.full(n, np.nan)  # true run time on the GPUs it got
        self.declared_end_min = np.full(n, np.nan)  # start + declared run time on those GPUs
        self.start_slot = np.full(n, -1, dtype=np.int64)  # window slot it started from
        self.job_gpus: list[tuple[int, ...]] = [()] * n
        self.done = n == 0
        self.end_reason = "completed" if self.done else ""
        self.jobs_completed = 0
        # Integrals over time, updated whenever the clock moves.
        self._gini = RunningGini(self.state.compute_used)  # also keeps the utilisation sum
        self._updates = 0
        self.util_min = 0.0  # integral of cluster utilisation (minutes)
        self.in_band_min = 0.0
        self.gini_min = 0.0
        self.waiting_job_min = 0.0
        self.system_job_min = 0.0  # integral of the jobs queued or running (job-minutes)
        self.stall_min = 0.0
        self.idle_gpu_min_stalled = 0.0  # idle GPU-minutes while the head could fit and was held
        self.idle_gpu_min_blocked = 0.0  # idle GPU-minutes while the head fitted nowhere
        self.busy_gpu_min = 0.0  # integral of GPUs running at least one job (GPU-minutes)
        self.total_reward = 0.0
        # Decision records (the timeline derives everything else from the jobs).
        self.holds: list[tuple[float, float, int, bool]] = []  # (time, until, job, could fit)
        self.misroutes: list[tuple[float, int, int, str]] = []  # (time, job, gpu, cause)
        self.decisions = 0
        self._admit_arrivals()
        self._advance_to_decision()

    def fork(self, arrived_only: bool = False) -> Simulator:
        """An independent copy of the run so far, for lookahead search (planners, oracles).

        The copy shares the immutable cluster and jobs and copies everything a step changes, so
        stepping either one leaves the other as it was.

        :param arrived_only: forget the jobs that have not arrived yet: the copy knows what a
            real scheduler knows now (the cluster, the running jobs and the queue, with their
            declared run times, which it then takes as their run times), and its run ends when
            those jobs are done.
        """
        k = self._next_arrival if arrived_only else len(self.jobs)
        twin = copy.copy(self)
        twin.jobs = self.jobs[:k] if arrived_only else self.jobs
        twin.declared_min = self.declared_min[:k]
        twin.best_speed = self.best_speed[:k]
        twin.declared_best_min = self.declared_best_min[:k]
        twin.state = self.state.copy()
        twin.queue = deque(self.queue)
        twin._running = list(self._running)
        twin.start_min = self.start_min[:k].copy()
        twin.end_min = self.end_min[:k].copy()
        twin.run_min = self.run_min[:k].copy()
        twin.declared_end_min = self.declared_end_min[:k].copy()
        twin.start_slot = self.start_slot[:k].copy()
        twin.job_gpus = self.job_gpus[:k]
        if arrived_only and any(j.estimate_min is not None for j in twin.jobs):
            twin._forget_true_run_times()
        twin._gini = self._gini.copy()
        twin.holds = list(self.holds)
        twin.misroutes = list(self.misroutes)
        return twin

    def _forget_true_run_times(self) -> None:
        """Take the declared run times as the true ones (a fork that knows only what a scheduler
        knows)."""
        from dataclasses import replace

        self.jobs = [j if j.estimate_min is None else replace(j, duration_min=j.estimate_min)
                     for j in self.jobs]
        for idx in range(len(self.jobs)):
            if not np.isnan(self.start_min[idx]) and np.isnan(self.end_min[idx]):
                self.run_min[idx] = self.declared_end_min[idx] - self.start_min[idx]
        self._running = [(max(float(self.declared_end_min[i]), self.time_min), i) for _, i in self._running]
        heapq.heapify(self._running)

    def gpu_release_min(self) -> tuple[list[float], list[float]]:
        """Minutes from now until each GPU's first and last running job ends by their declared
        run times (0 for an idle GPU)."""
        n = self.cluster.n_gpus
        first, last = [float("inf")] * n, [0.0] * n
        now = self.time_min
        job_gpus = self.job_gpus
        declared_end = self.declared_end_min
        for _, idx in self._running:
            left = float(declared_end[idx]) - now
            for g in job_gpus[idx]:
                if left < first[g]:
                    first[g] = left
                if left > last[g]:
                    last[g] = left
        return [0.0 if f == float("inf") else f for f in first], last

    @property
    def head_job(self) -> Job | None:
        """The job at the head of the queue, or ``None`` when the run is over."""
        return self.jobs[self.queue[0]] if self.queue and not self.done else None

    def window_indices(self) -> list[int]:
        """Arrival indices of the window's jobs: the first ``window`` queued jobs, in arrival order."""
        return list(islice(self.queue, self.window))

    def window_jobs(self) -> list[Job]:
        """The jobs the scheduler may start now (slot 0 is the head), in arrival order."""
        jobs = self.jobs
        return [jobs[i] for i in islice(self.queue, self.window)]

    def speed_of(self, job: Job, gpus: Sequence[int]) -> float:
        """The speed of ``job`` on ``gpus``: its slowest GPU's (1.0 without a speed table)."""
        return 1.0 if self.speeds is None else self.speeds.of(job.type, gpus)

    def declared_run_min(self, job_idx: int, gpus: Sequence[int]) -> float:
        """The declared run time (minutes) of the job with arrival index ``job_idx`` on ``gpus``."""
        return float(self.declared_min[job_idx]) / self.speed_of(self.jobs[job_idx], gpus)

    def running_by_declared_end(self) -> list[tuple[float, int]]:
        """The running jobs as (declared end time in minutes, arrival index), soonest first."""
        declared_end = self.declared_end_min
        return sorted((float(declared_end[i]), i) for _, i in self._running)

    @property
    def arrivals_left(self) -> int:
        """Jobs that have not arrived yet."""
        return len(self.jobs) - self._next_arrival

    @property
    def running_count(self) -> int:
        """Jobs running now."""
        return len(self._running)

    def next_event_min(self) -> float | None:
        """Time of the next arrival or completion (minutes), ``None`` if there is none."""
        t_arr = self.jobs[self._next_arrival].arrival_min if self.arrivals_left else None
        t_end = self._running[0][0] if self._running else None
        if t_arr is None:
            return t_end
        return t_arr if t_end is None else min(t_arr, t_end)

    def hold_would_dead_stall(self) -> bool:
        """Whether holding now would end the run (nothing running and no arrival left)."""
        return not self._running and not self.arrivals_left

    # ------------------------------------------------------------------ driving
    def run(self, policy) -> Result:
        """Run from the start to the end with ``policy``.

        A FIFO policy answers ``select(state, job)`` for the head job; a queue-aware policy
        answers ``decide(simulator)`` with ``(window slot, action)``. A policy that also needs the
        queue or the clock (the RL agent, a planner) may define ``bind(simulator)``; it is called
        once, before the first decision.
        """
        self.reset()
        if hasattr(policy, "bind"):
            policy.bind(self)
        if hasattr(policy, "decide"):
            decide = policy.decide
            while not self.done:
                slot, action = decide(self)
                self.step(action, slot)
            return self.result(policy_name=getattr(policy, "name", str(policy)))
        select = policy.select
        state = self.state
        while not self.done:
            self.step(select(state, self.jobs[self.queue[0]]))
        return self.result(policy_name=getattr(policy, "name", str(policy)))

    def step(self, action: Action, slot: int = 0) -> bool:
        """Apply one decision, then advance to the next decision point.

        :param action: a GPU index, a tuple of GPU indices (the gang), or :data:`HOLD`.
        :param slot: the window slot of the job the action is for (0: the head job).
        :return: whether the job was placed.
        """
        if self.done:
            raise RuntimeError("the run is over; call reset()")
        if not 0 <= slot < min(self.window, len(self.queue)):
            raise ValueError(f"window slot {slot} is outside 0..{min(self.window, len(self.queue)) - 1}")
        self.decisions += 1
        job_idx = self.queue[slot]
        job = self.jobs[job_idx]
        gpus = self._resolve(job, action)
        if gpus:
            if slot:
                del self.queue[slot]
            else:
                self.queue.popleft()
            self.start_slot[job_idx] = slot
            self._start(job_idx, job, gpus)
            self._advance_to_decision()
            return True
        head = self.queue[0]
        self._hold(head, self.jobs[head])
        return False

    def _resolve(self, job: Job, action: Action) -> tuple[int, ...]:
        """The gang an action asks for, or ``()`` for a HOLD or a GPU where the job does not fit."""
        if isinstance(action, int | np.integer):
            gpu = int(action)
            if gpu == HOLD:
                return ()
            if not 0 <= gpu < self.cluster.n_gpus:
                raise ValueError(f"policy chose GPU {gpu}, outside 0..{self.cluster.n_gpus - 1}")
            gang = self.state.gang_for(job, gpu)
            if not gang:
                self.misroutes.append((self.time_min, job.id, gpu, self.state.misroute_cause(job, gpu)))
            return gang
        gang = tuple(int(g) for g in action)
        if self.state.can_place(job, gang):
            return gang
        first = gang[0] if gang and 0 <= gang[0] < self.cluster.n_gpus else HOLD
        cause = self.state.misroute_cause(job, first) if first != HOLD else "gang"
        self.misroutes.append((self.time_min, job.id, first, cause))
        return ()

    def _start(self, job_idx: int, job: Job, gpus: tuple[int, ...]) -> None:
        state = self.state
        before = [float(state.compute_used[g]) for g in gpus]
        state.place(job, gpus)
        self._on_util_change(gpus, before)
        self.start_min[job_idx] = self.time_min
        self.job_gpus[job_idx] = gpus
        speed = self.speed_of(job, gpus)
        run = job.duration_min / speed
        self.run_min[job_idx] = run
        self.declared_end_min[job_idx] = self.time_min + self.declared_min[job_idx] / speed
        heapq.heappush(self._running, (self.time_min + run, job_idx))

    def _hold(self, job_idx: int, job: Job) -> None:
        next_t = self.next_event_min()
        if next_t is None:
            self._finish("dead_stall")
            return
        # The head's mask is usually cached already (the policy just asked for it).
        could_fit = np.count_nonzero(self.state.fit_mask(job)) > 0
        if not could_fit and self.window > 1:
            fits, jobs = self.state.fits_somewhere, self.jobs
            could_fit = any(fits(jobs[i]) for i in islice(self.queue, 1, self.window))
        until = next_t if self.horizon_min is None else min(next_t, self.horizon_min)
        held_min = until - self.time_min
        if could_fit:
            self.stall_min += held_min
            self.idle_gpu_min_stalled += self.state.idle_gpus * held_min
        else:
            self.idle_gpu_min_blocked += self.state.idle_gpus * held_min
        self.holds.append((self.time_min, until, job.id, could_fit))
        self._jump_to(next_t)
        if not self.done:
            self._advance_to_decision()

    def _advance_to_decision(self) -> None:
        """Move the clock until the queue has a head job, or end the run."""
        while not self.queue and not self.done:
            next_t = self.next_event_min()
            if next_t is None:
                self._finish("completed")
                return
            self._jump_to(next_t)

    def _jump_to(self, t: float) -> None:
        """Accumulate the integrals up to ``t`` and handle every event at ``t``."""
        if self.horizon_min is not None and t > self.horizon_min:
            self._accumulate(self.horizon_min)
            self._finish("horizon")
            return
        self._accumulate(t)
        completed = 0
        running = self._running
        while running and running[0][0] <= t:
            _, job_idx = heapq.heappop(running)
            self._complete(job_idx)
            completed += 1
        if completed:
            self.jobs_completed += completed
            self.total_reward += reward_for(self.reward_spec, completed, 0.0, 0.0, 0.0)
        self._admit_arrivals()

    def _admit_arrivals(self) -> None:
        jobs = self.jobs
        while self._next_arrival < len(jobs) and jobs[self._next_arrival].arrival_min <= self.time_min:
            self.queue.append(self._next_arrival)
            self._next_arrival += 1

    def _complete(self, job_idx: int) -> None:
        gpus = self.job_gpus[job_idx]
        before = [float(self.state.compute_used[g]) for g in gpus]
        self.state.release(self.jobs[job_idx], gpus)
        self._on_util_change(gpus, before)
        self.end_min[job_idx] = self.start_min[job_idx] + self.run_min[job_idx]

    def _on_util_change(self, gpus: tuple[int, ...], before: list[float]) -> None:
        """Update the running sums behind cluster utilisation and Gini after GPUs changed."""
        u = self.state.compute_used
        self._updates += 1
        if self._updates % _RESYNC_EVERY == 0:
            self._gini.resync(u)
            return
        for g, old in zip(gpus, before, strict=True):
            self._gini.update(old, float(u[g]))

    def _accumulate(self, t: float) -> None:
        dt = t - self.time_min
        if dt > 0:
            n = self.cluster.n_gpus
            util = self._gini.total / n
            gini_now = self._gini.value()
            in_band = dt if self.util_band[0] <= util <= self.util_band[1] else 0.0
            waiting = len(self.queue) * dt
            in_system = waiting + len(self._running) * dt
            self.busy_gpu_min += (n - self.state.idle_gpus) * dt
            self.util_min += util * dt
            self.in_band_min += in_band
            self.gini_min += gini_now * dt
            self.waiting_job_min += waiting
            self.system_job_min += in_system
            self.total_reward += reward_for(self.reward_spec, 0, waiting, in_band, gini_now * dt, in_system)
        self.time_min = t

    def _finish(self, reason: str) -> None:
        if self.horizon_min is not None and reason == "horizon":
            self.time_min = self.horizon_min
        self.done = True
        self.end_reason = reason

    # ------------------------------------------------------------------ results
    def jobs_table(self) -> pd.DataFrame:
        """One row per submitted job: id, type, arrival, start, end, node, gpu ids, wait, finished,
        ``run_min`` (the true run time on the GPUs it got), ``ideal_run_min`` (its run time on the
        best GPU this cluster could give it: ``duration_min / best speed``), ``start_slot`` (the
        window slot it started from; -1 if it never started) and ``backfilled`` (started ahead of an earlier
        arrival that still waited).

        Times are minutes. An unstarted job has no start; its wait counts up to the end of the run
        (0 for a job that had not arrived by then).
        """
        arrival, started, wait = self._waits()
        finished = ~np.isnan(self.end_min)
        node = np.array([int(self.cluster.gpu_node[g[0]]) if g else -1 for g in self.job_gpus])
        return pd.DataFrame({
            "id": [j.id for j in self.jobs],
            "type": [j.type for j in self.jobs],
            "arrival_min": arrival,
            "start_min": self.start_min.copy(),
            "end_min": self.end_min.copy(),
            "duration_min": [j.duration_min for j in self.jobs],
            "gpus": [j.gpus for j in self.jobs],
            "vram_gb": [j.vram_gb for j in self.jobs],
            "compute": [j.compute for j in self.jobs],
            "priority": [j.priority for j in self.jobs],
            "node": node,
            "gpu_ids": [list(g) for g in self.job_gpus],
            "wait_min": wait,
            "finished": finished,
            "run_min": self.run_min.copy(),
            "ideal_run_min": self._ideal_run_min(),
            "start_slot": self.start_slot.copy(),
            "backfilled": self.start_slot > 0,
        })

    def metrics(self) -> dict[str, float]:
        """The per-run metrics (keys of :data:`gpusched.core.metrics.METRIC_KEYS`)."""
        n = len(self.jobs)
        _, started, wait = self._waits()
        span = self.time_min - self.start_time_min
        completed = int((~np.isnan(self.end_min)).sum())
        causes = Counter(m[3] for m in self.misroutes)
        queue = self._queue_metrics(wait, started)
        return {
            "jobs_submitted": n,
            "jobs_completed": completed,
            "jobs_unfinished": n - completed,
            "avg_wait_min": float(wait.mean()) if n else 0.0,
            "p95_wait_min": float(np.percentile(wait, 95)) if n else 0.0,
            "max_wait_min": float(wait.max()) if n else 0.0,
            "avg_util": self.util_min / span if span > 0 else 0.0,
            "util_in_band_frac": self.in_band_min / span if span > 0 else 0.0,
            "gini": self.gini_min / span if span > 0 else 0.0,
            "makespan_min": span,
            "stall_min": self.stall_min,
            "misroutes": len(self.misroutes),
            **{f"misroutes_{c}": causes[c] for c in MISROUTE_CAUSES},
            "idle_gpu_min_queued": self.idle_gpu_min_stalled + self.idle_gpu_min_blocked,
            "idle_gpu_min_stalled": self.idle_gpu_min_stalled,
            "idle_gpu_min_blocked": self.idle_gpu_min_blocked,
            **queue,
            "total_reward": self.total_reward,
        }

    def _ideal_run_min(self) -> np.ndarray:
        """Each job's run time on the best GPU this cluster could give it (minutes)."""
        duration = np.array([j.duration_min for j in self.jobs], dtype=float)
        return duration if self.speeds is None else duration / self.best_speed

    def _waits(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(arrival, started, wait) per job, minutes: an unstarted job waits up to the end of the
        run (0 if it had not arrived by then)."""
        arrival = np.array([j.arrival_min for j in self.jobs], dtype=float)
        started = ~np.isnan(self.start_min)
        wait = np.where(started, self.start_min - arrival, np.maximum(self.time_min - arrival, 0.0))
        return arrival, started, wait

    def _queue_metrics(self, wait: np.ndarray, started: np.ndarray) -> dict[str, float]:
        """Job completion time, slowdown against the ideal run time, bounded slowdown, speed
        loss, priority-weighted and p99 wait, backfilled jobs and busy GPU-hours. A job that has
        not finished counts up to the end of the run."""
        if not len(self.jobs):
            return {"avg_jct_min": 0.0, "avg_slowdown": 0.0, "avg_bsld": 0.0, "speed_loss_min": 0.0,
                    "weighted_wait_min": 0.0, "p99_wait_min": 0.0, "backfilled_jobs": 0,
                    "gpu_hours": 0.0}
        ran = np.where(started, np.minimum(self.run_min, self.time_min - self.start_min), 0.0)
        jct = wait + ran
        ideal = self._ideal_run_min()
        priority = np.array([j.priority for j in self.jobs], dtype=float)
        loss = np.maximum(self.run_min[started] - ideal[started], 0.0)
        return {
            "avg_jct_min": float(jct.mean()),
            "avg_slowdown": float((jct / ideal).mean()),
            "avg_bsld": float(np.maximum(1.0, jct / np.maximum(ideal, BSLD_FLOOR_MIN)).mean()),
            "speed_loss_min": float(loss.mean()) if loss.size else 0.0,
            "weighted_wait_min": float((priority * wait).sum() / priority.sum()),
            "p99_wait_min": float(np.percentile(wait, 99)),
            "backfilled_jobs": int((self.start_slot > 0).sum()),
            "gpu_hours": self.busy_gpu_min / 60.0,
        }

    def result(self, policy_name: str = "", scenario_name: str = "", seed: int | None = None) -> Result:
        """Package the finished run (metrics, jobs table, timeline)."""
        jobs = self.jobs_table()
        timeline = Timeline.from_run(self.cluster, self.jobs, jobs, self.holds, self.misroutes,
                                     self.start_time_min, self.time_min)
        return Result(
            scenario=scenario_name, policy=policy_name, seed=seed, metrics=self.metrics(),
            jobs=jobs, timeline=timeline, cluster=self.cluster, end_reason=self.end_reason,
        )
