"""The event-driven simulator: the one place that defines the cluster dynamics.

**Queue.** Jobs wait in a FIFO queue. At every decision point the simulator asks the policy
about the job at the head of the queue. The answer is a GPU index, a tuple of GPU indices (a
whole gang), or :data:`HOLD`:

- a GPU index places the job there, and for a multi-GPU job also on other GPUs of the same node
  (see the gang rule in :mod:`gpusched.core.cluster`); placing does not advance time;
- HOLD leaves the job at the head of the queue and advances the clock to the next event
  (an arrival or a completion). A GPU where the job does not fit counts as a HOLD and is
  recorded as a *misroute*.

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
from collections import deque
from collections.abc import Sequence

import numpy as np
import pandas as pd

from gpusched.core.cluster import Cluster, ClusterState
from gpusched.core.jobs import Job, check_jobs_feasible
from gpusched.core.metrics import RunningGini
from gpusched.core.result import Result
from gpusched.core.reward import RewardSpec, reward_for
from gpusched.core.timeline import Timeline

HOLD = -1
"""The action that leaves the head job in the queue until the next event."""

Action = int | Sequence[int]

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
    ):
        if check_feasible:
            check_jobs_feasible(jobs, cluster)
        self.cluster = cluster
        self.jobs: list[Job] = sorted(jobs, key=lambda j: (j.arrival_min, j.id))
        self.reward_spec = reward or RewardSpec()
        self.util_band = util_band
        self.horizon_min = horizon_min
        self.reset()

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
        self.stall_min = 0.0
        self.total_reward = 0.0
        # Decision records (the timeline derives everything else from the jobs).
        self.holds: list[tuple[float, float, int, bool]] = []  # (time, until, job, could fit)
        self.misroutes: list[tuple[float, int, int]] = []  # (time, job, gpu)
        self.decisions = 0
        self._admit_arrivals()
        self._advance_to_decision()

    def fork(self, arrived_only: bool = False) -> Simulator:
        """An independent copy of the run so far, for lookahead search (planners, oracles).

        The copy shares the immutable cluster and jobs and copies everything a step changes, so
        stepping either one leaves the other as it was.

        :param arrived_only: forget the jobs that have not arrived yet: the copy knows what a
            real scheduler knows now (the cluster, the running jobs and the queue, with their
            durations), and its run ends when those jobs are done.
        """
        k = self._next_arrival if arrived_only else len(self.jobs)
        twin = copy.copy(self)
        twin.jobs = self.jobs[:k] if arrived_only else self.jobs
        twin.state = self.state.copy()
        twin.queue = deque(self.queue)
        twin._running = list(self._running)
        twin.start_min = self.start_min[:k].copy()
        twin.end_min = self.end_min[:k].copy()
        twin.job_gpus = self.job_gpus[:k]
        twin._gini = self._gini.copy()
        twin.holds = list(self.holds)
        twin.misroutes = list(self.misroutes)
        return twin

    def gpu_release_min(self) -> tuple[list[float], list[float]]:
        """Minutes from now until each GPU's first and last running job ends (0 for an idle GPU).

        Durations are known to the simulator, as declared run times would be to a scheduler.
        """
        n = self.cluster.n_gpus
        first, last = [float("inf")] * n, [0.0] * n
        now = self.time_min
        job_gpus = self.job_gpus
        for end, idx in self._running:
            left = end - now
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
        """Run from the start to the end, asking ``policy.select(state, job)`` at every decision.

        A policy that also needs the queue or the clock (the RL agent) may define
        ``bind(simulator)``; it is called once, before the first decision.
        """
        self.reset()
        if hasattr(policy, "bind"):
            policy.bind(self)
        select = policy.select
        state = self.state
        while not self.done:
            self.step(select(state, self.jobs[self.queue[0]]))
        return self.result(policy_name=getattr(policy, "name", str(policy)))

    def step(self, action: Action) -> bool:
        """Apply one decision for the head job, then advance to the next decision point.

        :param action: a GPU index, a tuple of GPU indices (the gang), or :data:`HOLD`.
        :return: whether the head job was placed.
        """
        if self.done:
            raise RuntimeError("the run is over; call reset()")
        self.decisions += 1
        job_idx = self.queue[0]
        job = self.jobs[job_idx]
        gpus = self._resolve(job, action)
        if gpus:
            self.queue.popleft()
            self._start(job_idx, job, gpus)
            self._advance_to_decision()
            return True
        self._hold(job_idx, job)
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
                self.misroutes.append((self.time_min, job.id, gpu))
            return gang
        gang = tuple(int(g) for g in action)
        if self.state.can_place(job, gang):
            return gang
        self.misroutes.append((self.time_min, job.id, gang[0] if gang else HOLD))
        return ()

    def _start(self, job_idx: int, job: Job, gpus: tuple[int, ...]) -> None:
        state = self.state
        before = [float(state.compute_used[g]) for g in gpus]
        state.place(job, gpus)
        self._on_util_change(gpus, before)
        self.start_min[job_idx] = self.time_min
        self.job_gpus[job_idx] = gpus
        heapq.heappush(self._running, (self.time_min + job.duration_min, job_idx))

    def _hold(self, job_idx: int, job: Job) -> None:
        next_t = self.next_event_min()
        if next_t is None:
            self._finish("dead_stall")
            return
        could_fit = np.count_nonzero(self.state.fit_mask(job)) > 0
        until = next_t if self.horizon_min is None else min(next_t, self.horizon_min)
        if could_fit:
            self.stall_min += until - self.time_min
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
        self.end_min[job_idx] = self.start_min[job_idx] + self.jobs[job_idx].duration_min

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
            self.util_min += util * dt
            self.in_band_min += in_band
            self.gini_min += gini_now * dt
            self.waiting_job_min += waiting
            self.total_reward += reward_for(self.reward_spec, 0, waiting, in_band, gini_now * dt)
        self.time_min = t

    def _finish(self, reason: str) -> None:
        if self.horizon_min is not None and reason == "horizon":
            self.time_min = self.horizon_min
        self.done = True
        self.end_reason = reason

    # ------------------------------------------------------------------ results
    def jobs_table(self) -> pd.DataFrame:
        """One row per submitted job: id, type, arrival, start, end, node, gpu ids, wait, finished.

        Times are minutes. An unstarted job has no start; its wait counts up to the end of the run
        (0 for a job that had not arrived by then).
        """
        arrival = np.array([j.arrival_min for j in self.jobs])
        started = ~np.isnan(self.start_min)
        finished = ~np.isnan(self.end_min)
        wait = np.where(started, self.start_min - arrival, np.maximum(self.time_min - arrival, 0.0))
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
        })

    def metrics(self) -> dict[str, float]:
        """The per-run metrics (keys of :data:`gpusched.core.metrics.METRIC_KEYS`)."""
        n = len(self.jobs)
        arrival = np.array([j.arrival_min for j in self.jobs]) if n else np.zeros(0)
        started = ~np.isnan(self.start_min)
        wait = np.where(started, self.start_min - arrival, np.maximum(self.time_min - arrival, 0.0))
        span = self.time_min - self.start_time_min
        completed = int((~np.isnan(self.end_min)).sum())
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
            "total_reward": self.total_reward,
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
