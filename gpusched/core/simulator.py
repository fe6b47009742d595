"""The event-driven simulator: the one place that defines the cluster dynamics.

**Queue.** Jobs wait in a queue in arrival order. The scheduler may start any of the first
``window`` queued jobs (the *window*; ``window = 1``, the default, is a strict FIFO queue). At
every decision point the simulator asks the policy for a window slot and a placement, or HOLD:

- a GPU index places the slot's job there, and for a multi-GPU job also on other GPUs of the same
  node (see the gang rule in :mod:`gpusched.core.cluster`); a tuple of GPU indices names the whole
  gang; placing does not advance time; a job started ahead of an earlier arrival that still
  waits is *backfilled*;
- HOLD leaves the queue as it is and advances the clock to the next event (an arrival, a
  completion, a node failure or repair, or a time a policy asked to decide again,
  :meth:`Simulator.request_wakeup`). A GPU where the job does not fit counts as a HOLD and is recorded as a
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

**Failures and checkpoints** (optional scenario keys ``failures:`` and ``checkpoint:``; see
:mod:`gpusched.core.failures`). Nodes fail and are repaired at times drawn by a seeded process of
their own, the same under every policy. When a node fails, every job on it stops: it keeps the
progress of its last checkpoint (its last saved state if its type does not checkpoint: where it was
last preempted, else nothing), goes back to the queue at its original arrival position with its
remaining work, and the node leaves every fit until it is repaired (:attr:`ClusterState.down
<gpusched.core.cluster.ClusterState>`). Progress is counted in reference-speed minutes: a job that
resumes on GPUs of another speed runs its remaining work at their speed, after ``restore_min`` of
loading its state; each resumption pays it once. The work thrown away is the job's *lost* work.

**Preemption.** A queue-aware policy may also answer ``(slot, Preempt(job))``
(:class:`Preempt`): the running job with that arrival index stops at once, saves its progress
(nothing is lost), goes back to the queue at its arrival position, and pays ``restore_min`` when
it resumes. Like a placement, a preemption does not advance time. A job may be preempted only once
it has run ``preemption_min_run_min`` (default 10) since it last started or resumed, not counting
its restore, so it is never preempted twice within that time and every run between two
preemptions makes progress (:meth:`Simulator.preemptible`).

**A job's whole life.** A job that stopped and resumed has several runs. Its completion time is
from its arrival to its final end; its wait is every minute it spent queued; its run time
(``run_min``) every minute it held GPUs, restores and lost work included; its start is its first
start.

**Events.** There are no ticks. Time is in minutes (float). At one instant completions are
handled first, then node failures and repairs, then arrivals, then decisions.

**End of a run.** A run ends when every job has finished, at ``horizon_min``, or on a dead stall
(nothing running, no arrival left, no node waiting for its repair, and the policy holds). A run
with failures and no ``horizon_min`` also ends at its safety horizon (end reason
``safety_horizon``; :func:`gpusched.core.failures.safety_horizon_min`). Jobs
that have not finished are reported as unfinished, and their waits count up to the end time; a job
that had not yet arrived at ``horizon_min`` is reported as unfinished with a wait of 0 (a wait is
never negative).

The simulator can be driven step by step (:meth:`Simulator.step`, used by the Gymnasium
environment) or run to the end with a policy (:meth:`Simulator.run`).
"""

from __future__ import annotations

import bisect
import copy
import heapq
import math
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice

import numpy as np
import pandas as pd

from gpusched.core.cluster import EPS, MISROUTE_CAUSES, Cluster, ClusterState, fit_shape
from gpusched.core.failures import (
    CheckpointSpec,
    FailureSpec,
    NodeFailures,
    checkpointed_min,
    safety_horizon_min,
)
from gpusched.core.jobs import Job, check_jobs_feasible, job_columns
from gpusched.core.metrics import RunningGini
from gpusched.core.result import Result
from gpusched.core.reward import RewardSpec, reward_for
from gpusched.core.speed import GpuSpeeds
from gpusched.core.timeline import Timeline

HOLD = -1
"""The action that leaves the queue as it is until the next event."""

BSLD_FLOOR_MIN = 10.0
"""Bounded slowdown divides by ``max(ideal run, 10 min)``, so that very short jobs do not dominate it."""

DEFAULT_PREEMPTION_MIN_RUN_MIN = 10.0
"""Minutes a job runs (after its restore) since it last started before it may be preempted."""


@dataclass(frozen=True, slots=True)
class Preempt:
    """The action that preempts a running job (see the module docstring).

    :param job: the arrival index of the running job to stop.
    """

    job: int


Action = int | Sequence[int] | Preempt


class JobLives:
    """What the simulator keeps of jobs that stopped and resumed, per arrival index (made at the
    first stop of a run, so that a run without one pays nothing for it).

    ``stopped`` (ever stopped), ``interruptions`` and ``preemptions`` (counts), ``first_start_min``,
    and over the runs that ended in a stop: ``held_min`` (minutes on GPUs), ``work_min``
    (progress, reference-speed minutes), ``lost_min`` (progress thrown away, reference-speed
    minutes), ``lost_held_min`` (the minutes on GPUs that progress took), ``restored_min``
    (minutes spent restoring); ``saved_min`` (the progress the job resumes from, reference-speed
    minutes) and ``restore_min`` (the restore of its current run, minutes).
    """

    FIELDS = ("held_min", "work_min", "lost_min", "lost_held_min", "restored_min", "saved_min",
              "restore_min", "first_start_min")

    def __init__(self, n: int):
        self.stopped = np.zeros(n, dtype=bool)
        self.interruptions = np.zeros(n, dtype=np.int64)
        self.preemptions = np.zeros(n, dtype=np.int64)
        for name in self.FIELDS:
            setattr(self, name, np.zeros(n))
        self.first_start_min[:] = np.nan

    def copy(self, k: int) -> JobLives:
        """An independent copy of the first ``k`` jobs."""
        twin = object.__new__(JobLives)
        for name in ("stopped", "interruptions", "preemptions", *self.FIELDS):
            setattr(twin, name, getattr(self, name)[:k].copy())
        return twin



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
    :param horizon_min: end the run at this time (minutes), or ``None`` to run until done (with
        failures: until done or the safety horizon).
    :param check_feasible: refuse jobs that no node could ever hold (raises
        :class:`~gpusched.errors.InfeasibleJobError`).
    :param window: queued jobs the scheduler may start (1 is a strict FIFO queue).
    :param speeds: relative GPU speeds per job type (``None``: every GPU at speed 1.0).
    :param failures: node failures and repairs (``None`` or a rate of 0: nodes never fail).
    :param failure_seed: seed of the failure process (see
        :meth:`~gpusched.core.failures.FailureSpec.seed_for`).
    :param checkpoint: which job types checkpoint, how often, and the restore time (``None``: no
        job checkpoints, and a resumption costs nothing).
    :param preemption_min_run_min: minutes a job runs after it (re)starts, not counting its
        restore, before it may be preempted (must be > 0).
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
        failures: FailureSpec | None = None,
        failure_seed: int = 0,
        checkpoint: CheckpointSpec | None = None,
        preemption_min_run_min: float = DEFAULT_PREEMPTION_MIN_RUN_MIN,
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
        if not preemption_min_run_min > 0:
            raise ValueError(f"preemption_min_run_min must be > 0, got {preemption_min_run_min}")
        rate = 0.0 if failures is None else failures.node_failures_per_1000_node_days
        self.failures = failures if rate > 0 else None
        self.failure_seed = int(failure_seed)
        self.checkpoint = checkpoint
        self.preemption_min_run_min = float(preemption_min_run_min)
        self.restore_min = 0.0 if checkpoint is None else float(checkpoint.restore_min)
        """Minutes a resumed job spends loading its state before it progresses."""
        self.safety_horizon = horizon_min is None and self.failures is not None and bool(self.jobs)
        """Whether ``horizon_min`` is the run's safety horizon (failures and no horizon given)."""
        if self.safety_horizon:
            self.horizon_min = safety_horizon_min(self.jobs, self.failures, self.restore_min, speeds)
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
            key = (job.type, job.model, fit_shape(job))
            best = cache.get(key)
            if best is None:
                mask = cluster.empty_fit_mask(job)
                best = cache[key] = float(speeds.row_of_job(job)[mask].max()) if mask.any() else 1.0
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
        self.gang_speed = np.ones(n)
        """The speed of each job's current or last gang (1.0 before it starts), by arrival index."""
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
        # Failures, preemptions and resumptions (see the module docstring).
        self.failure_process = (None if self.failures is None else
                                NodeFailures(self.cluster.n_nodes, self.failures, self.failure_seed,
                                             self.time_min))
        """The node failures and repairs still to come (``None`` without failures)."""
        self._wakeups: list[float] = []
        self.lives: JobLives | None = None
        """Per-job record of stops and resumptions (``None`` until a job first stops)."""
        self.node_failures = 0
        self.preemptions = 0
        self.disruptions = 0
        """Failures, repairs and preemptions so far: a policy's cached plan is stale when it changes."""
        self.stops: list[tuple[float, int, str, float, tuple[int, ...], float, float]] = []
        """(time, job index, ``failure`` or ``preemption``, start of the run it ends, its GPUs,
        lost progress in reference-speed minutes, the minutes on GPUs that progress took)."""
        self.resumes: list[tuple[float, int, tuple[int, ...], float]] = []
        """(time, job index, GPUs, restore minutes) of every resumption."""
        self.node_events: list[tuple[float, int, str]] = []
        """(time, node, ``failure`` or ``repair``)."""
        self._admit_arrivals()
        self._advance_to_decision()

    def fork(self, arrived_only: bool = False) -> Simulator:
        """An independent copy of the run so far, for lookahead search (planners, oracles).

        The copy shares the immutable cluster and jobs and copies everything a step changes, so
        stepping either one leaves the other as it was.

        :param arrived_only: forget the jobs that have not arrived yet: the copy knows what a
            real scheduler knows now (the cluster, the running jobs and the queue, with their
            declared run times, which it then takes as their run times), and its run ends when
            those jobs are done; it foresees no node failure and no repair.
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
        twin.gang_speed = self.gang_speed[:k].copy()
        twin.job_gpus = self.job_gpus[:k]
        if arrived_only and any(j.estimate_min is not None for j in twin.jobs):
            twin._forget_true_run_times()
        twin._gini = self._gini.copy()
        twin.holds = list(self.holds)
        twin.misroutes = list(self.misroutes)
        # A fork that knows only what a scheduler knows foresees no failure and no repair.
        twin.failure_process = (None if self.failure_process is None or arrived_only
                                else self.failure_process.copy())
        twin._wakeups = list(self._wakeups)
        twin.lives = None if self.lives is None else self.lives.copy(k)
        twin.stops = [e for e in self.stops if e[1] < k]
        twin.resumes = [e for e in self.resumes if e[1] < k]
        twin.node_events = list(self.node_events)
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
        return 1.0 if self.speeds is None else self.speeds.of_job(job, gpus)

    def declared_run_min(self, job_idx: int, gpus: Sequence[int]) -> float:
        """The declared run time (minutes) of the job with arrival index ``job_idx`` on ``gpus``:
        for a job that stopped before, its restore plus its declared remaining work there."""
        return self.resume_cost_min(job_idx) + self.declared_left_min(job_idx) / self.speed_of(
            self.jobs[job_idx], gpus)

    # ------------------------------------------------------------ failures and preemption
    def declared_left_min(self, job_idx: int) -> float:
        """The declared work the job has left when it next starts (reference-speed minutes): its
        declared run time less the progress it resumes from (never negative)."""
        lives = self.lives
        if lives is None or not lives.stopped[job_idx]:
            return float(self.declared_min[job_idx])
        return max(float(self.declared_min[job_idx] - lives.saved_min[job_idx]), 0.0)

    def resume_cost_min(self, job_idx: int) -> float:
        """Minutes the job spends restoring when it next starts (``restore_min`` if it stopped
        before, else 0)."""
        lives = self.lives
        return self.restore_min if lives is not None and lives.stopped[job_idx] else 0.0

    def gpu_down(self) -> np.ndarray:
        """Per GPU, whether its node is down (failed, not yet repaired); read-only."""
        down = self.state.down
        return np.zeros(self.cluster.n_gpus, dtype=bool) if down is None else down

    def is_running(self, job_idx: int) -> bool:
        """Whether the job with this arrival index holds GPUs now."""
        return bool(self.job_gpus[job_idx]) and math.isnan(self.end_min[job_idx])

    def running_indices(self) -> list[int]:
        """Arrival indices of the running jobs (any order)."""
        return [i for _, i in self._running]

    def progress_min(self, job_idx: int) -> float:
        """The job's progress now (reference-speed minutes): its saved state plus, while it runs,
        what its current run has done after its restore."""
        lives = self.lives
        saved = 0.0 if lives is None else float(lives.saved_min[job_idx])
        if not self.is_running(job_idx):
            return float(self.jobs[job_idx].duration_min) if not math.isnan(self.end_min[job_idx]) else saved
        restore = 0.0 if lives is None else float(lives.restore_min[job_idx])
        done = max(self.time_min - float(self.start_min[job_idx]) - restore, 0.0)
        return saved + done * self.speed_of(self.jobs[job_idx], self.job_gpus[job_idx])

    def remaining_work_min(self, job_idx: int) -> float:
        """The true work the job has left (reference-speed minutes; 0 once it has finished)."""
        return max(float(self.jobs[job_idx].duration_min) - self.progress_min(job_idx), 0.0)

    def attained_service_gpu_min(self, indices: Sequence[int]) -> np.ndarray:
        """GPU-minutes each job (by arrival index) has held GPUs so far, over all its runs,
        restores and lost work included (the attained service of Tiresias's 2D-LAS)."""
        idx = np.asarray(indices, dtype=np.int64)
        gpus = np.array([self.jobs[i].gpus for i in idx.tolist()], dtype=float)
        start = self.start_min[idx]
        live = ~np.isnan(start) & np.isnan(self.end_min[idx])
        held = np.where(live, self.time_min - np.where(live, start, 0.0), 0.0)
        finished = ~np.isnan(self.end_min[idx])
        held = np.where(finished, self.run_min[idx], held)
        if self.lives is not None:
            held = held + self.lives.held_min[idx]
        return held * gpus

    def preemptible(self, job_idx: int) -> bool:
        """Whether the job runs now and has run ``preemption_min_run_min`` since it last started or
        resumed, after its restore."""
        if not self.is_running(job_idx):
            return False
        restore = 0.0 if self.lives is None else float(self.lives.restore_min[job_idx])
        ran = self.time_min - float(self.start_min[job_idx]) - restore
        return ran >= self.preemption_min_run_min - EPS

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
        """Time of the next arrival, completion, or (while jobs are left) node failure or repair
        (minutes), ``None`` if there is none."""
        t_arr = self.jobs[self._next_arrival].arrival_min if self.arrivals_left else None
        t_end = self._running[0][0] if self._running else None
        t = t_end if t_arr is None else (t_arr if t_end is None else min(t_arr, t_end))
        if self.failure_process is not None and (t is not None or self.queue):
            t_node = self.failure_process.next_min()
            t = t_node if t is None else min(t, t_node)
        if self._wakeups and (t is not None or self.queue):
            t = self._wakeups[0] if t is None else min(t, self._wakeups[0])
        return t

    def request_wakeup(self, t_min: float) -> None:
        """Make ``t_min`` a decision point (if it is later than now): a policy that will want to
        act then, with nothing else happening (a job that becomes preemptible), asks for it."""
        if t_min > self.time_min and math.isfinite(t_min) and t_min not in self._wakeups:
            heapq.heappush(self._wakeups, float(t_min))

    def hold_would_dead_stall(self) -> bool:
        """Whether holding now would end the run (nothing running, no arrival left, and no node
        waiting for its repair)."""
        if self._running or self.arrivals_left or self._wakeups:
            return False
        return self.failure_process is None or self.state.down is None

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

        :param action: a GPU index, a tuple of GPU indices (the gang), :data:`HOLD`, or
            :class:`Preempt` (then ``slot`` is not used).
        :param slot: the window slot of the job the action is for (0: the head job).
        :return: whether the job was placed (for a preemption: True, the job stopped).
        :raises ValueError: for a preemption of a job that does not run or may not be preempted
            yet (:meth:`preemptible`).
        """
        if self.done:
            raise RuntimeError("the run is over; call reset()")
        if isinstance(action, Preempt):
            self.decisions += 1
            self._preempt(int(action.job))
            return True
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
            if self.lives is None or not self.lives.stopped[job_idx]:
                self.start_slot[job_idx] = slot  # a resumption keeps its first start's slot
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
        self.gang_speed[job_idx] = speed
        lives = self.lives
        if lives is not None and lives.stopped[job_idx]:  # a resumption
            saved, restore = float(lives.saved_min[job_idx]), self.restore_min
            lives.restore_min[job_idx] = restore
            run = restore + max(job.duration_min - saved, 0.0) / speed
            declared = restore + max(float(self.declared_min[job_idx]) - saved, 0.0) / speed
            self.resumes.append((self.time_min, job_idx, gpus, restore))
        else:
            run = job.duration_min / speed
            declared = self.declared_min[job_idx] / speed
        self.run_min[job_idx] = run
        self.declared_end_min[job_idx] = self.time_min + declared
        heapq.heappush(self._running, (self.time_min + run, job_idx))

    def _hold(self, job_idx: int, job: Job) -> None:
        next_t = self.next_event_min()
        if next_t is None or self.hold_would_dead_stall():
            self._finish("dead_stall")
            return
        # The head's mask is usually cached already (the policy just asked for it).
        could_fit = np.count_nonzero(self.state.fit_mask(job)) > 0
        if not could_fit and self.window > 1:
            fits, jobs = self.state.fits_somewhere, self.jobs
            could_fit = any(fits(jobs[i]) for i in islice(self.queue, 1, self.window))
        until = next_t if self.horizon_min is None else min(next_t, self.horizon_min)
        held_min = until - self.time_min
        idle = self.state.idle_gpus - self.state.down_gpus  # a down GPU is not idle capacity
        if could_fit:
            self.stall_min += held_min
            self.idle_gpu_min_stalled += idle * held_min
        else:
            self.idle_gpu_min_blocked += idle * held_min
        self.holds.append((self.time_min, until, job.id, could_fit))
        self._jump_to(next_t)
        if not self.done:
            self._advance_to_decision()

    def _advance_to_decision(self) -> None:
        """Move the clock until the queue has a head job, or end the run."""
        while not self.queue and not self.done:
            next_t = self.next_event_min()
            if next_t is None or (not self._running and not self.arrivals_left):
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
        wakeups = self._wakeups
        while wakeups and wakeups[0] <= t:
            heapq.heappop(wakeups)
        failures = self.failure_process
        if failures is not None:
            while failures.next_min() <= t:
                _, kind, node = failures.pop()
                if kind == NodeFailures.FAIL:
                    self._fail_node(node)
                else:
                    self._repair_node(node)
        self._admit_arrivals()

    def _fail_node(self, node: int) -> None:
        """Stop every job on the node (they lose the progress since their last checkpoint) and
        take the node out of every fit."""
        gpu_node = self.cluster.gpu_node
        victims = sorted(i for _, i in self._running if gpu_node[self.job_gpus[i][0]] == node)
        for idx in victims:
            self._stop(idx, "failure")
        self._drop_running(victims)
        self.state.set_node_down(node, True)
        self.node_failures += 1
        self.disruptions += 1
        self.node_events.append((self.time_min, node, "failure"))

    def _repair_node(self, node: int) -> None:
        self.state.set_node_down(node, False)
        self.disruptions += 1
        self.node_events.append((self.time_min, node, "repair"))

    def _preempt(self, job_idx: int) -> None:
        if not 0 <= job_idx < len(self.jobs) or not self.is_running(job_idx):
            raise ValueError(f"cannot preempt job index {job_idx}: it is not running")
        if not self.preemptible(job_idx):
            raise ValueError(f"cannot preempt job index {job_idx} yet: it has run less than "
                             f"{self.preemption_min_run_min:g} min since it last started")
        self._stop(job_idx, "preemption")
        self._drop_running([job_idx])
        self.preemptions += 1
        self.disruptions += 1

    def _drop_running(self, victims: Sequence[int]) -> None:
        if victims:
            gone = set(victims)
            self._running = [e for e in self._running if e[1] not in gone]
            heapq.heapify(self._running)

    def _stop(self, job_idx: int, kind: str) -> None:
        """Stop a running job (``failure`` or ``preemption``): count its progress, keep what was
        saved, free its GPUs, and put it back in the queue at its arrival position."""
        if self.lives is None:
            self.lives = JobLives(len(self.jobs))
        lives, job, now = self.lives, self.jobs[job_idx], self.time_min
        gpus = self.job_gpus[job_idx]
        start = float(self.start_min[job_idx])
        speed = self.speed_of(job, gpus)
        restore = float(lives.restore_min[job_idx])
        held = now - start
        done = max(held - restore, 0.0) * speed
        saved = float(lives.saved_min[job_idx])
        progress = saved + done
        if kind == "preemption":
            kept = progress
            lives.preemptions[job_idx] += 1
        else:
            ckpt = self.checkpoint
            interval = ckpt.interval_min if ckpt is not None and job.type in ckpt.types else None
            kept = checkpointed_min(progress, saved, interval)
            lives.interruptions[job_idx] += 1
        lost = progress - kept
        if np.isnan(lives.first_start_min[job_idx]):
            lives.first_start_min[job_idx] = start
        lives.stopped[job_idx] = True
        lives.held_min[job_idx] += held
        lives.work_min[job_idx] += done
        lives.lost_min[job_idx] += lost
        lives.lost_held_min[job_idx] += lost / speed
        lives.restored_min[job_idx] += min(restore, held)
        lives.saved_min[job_idx] = kept
        lives.restore_min[job_idx] = 0.0
        self.stops.append((now, job_idx, kind, start, gpus, lost, lost / speed))
        before = [float(self.state.compute_used[g]) for g in gpus]
        self.state.release(job, gpus)
        self._on_util_change(gpus, before)
        self.start_min[job_idx] = np.nan
        self.run_min[job_idx] = np.nan
        self.declared_end_min[job_idx] = np.nan
        self.job_gpus[job_idx] = ()
        bisect.insort(self.queue, job_idx)

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
            reason = "safety_horizon" if self.safety_horizon else reason
        self.done = True
        self.end_reason = reason

    # ------------------------------------------------------------------ results
    def jobs_table(self) -> pd.DataFrame:
        """One row per submitted job: id, type, arrival, start, end, node, gpu ids, wait, finished,
        ``run_min`` (the true run time on the GPUs it got), ``ideal_run_min`` (its run time on the
        best GPU this cluster could give it: ``duration_min / best speed``), ``start_slot`` (the
        window slot it started from; -1 if it never started) and ``backfilled`` (started ahead of an earlier
        arrival that still waited); then ``interruptions`` (runs stopped by a node failure),
        ``preemptions``, ``lost_min`` (progress thrown away, reference-speed minutes),
        ``work_min`` (progress made over all its runs, lost work included, reference-speed
        minutes; a finished job's is its duration plus its lost work) and ``restore_min`` (minutes
        spent restoring).

        Times are minutes. ``start_min`` is the first start; ``run_min`` every minute it held GPUs
        up to the end of the run (restores and lost work included; a job still running at the
        horizon counts the minutes it held them until then) and ``wait_min`` every minute it was
        queued, over its whole life; ``node`` and ``gpu_ids`` are those of its last run (none while
        it waits after a stop). An unstarted job has no start; its wait counts up to the end of the
        run (0 for a job that had not arrived by then).
        """
        arrival, started, wait = self._waits()
        finished = ~np.isnan(self.end_min)
        node = np.array([int(self.cluster.gpu_node[g[0]]) if g else -1 for g in self.job_gpus])
        n = len(self.jobs)
        lives = self.lives
        start = self.start_min.copy()
        held, _ = self._current_run()  # a run cut by the horizon counts the minutes it held GPUs
        current = np.where(np.isnan(self.end_min), held, self.run_min)  # a finished run: exactly
        run = np.where(np.isnan(start), np.nan, current)
        if lives is not None:
            start = np.where(lives.stopped, lives.first_start_min, start)
            run = lives.held_min + current
        work, restored = self._work_and_restore()
        return pd.DataFrame({
            "id": [j.id for j in self.jobs],
            "type": [j.type for j in self.jobs],
            "arrival_min": arrival,
            "start_min": start,
            "end_min": self.end_min.copy(),
            "duration_min": [j.duration_min for j in self.jobs],
            "gpus": [j.gpus for j in self.jobs],
            "vram_gb": [j.vram_gb for j in self.jobs],
            "compute": [j.compute for j in self.jobs],
            "priority": [j.priority for j in self.jobs],
            **job_columns(self.jobs),
            "node": node,
            "gpu_ids": [list(g) for g in self.job_gpus],
            "wait_min": wait,
            "finished": finished,
            "run_min": run,
            "ideal_run_min": self._ideal_run_min(),
            "start_slot": self.start_slot.copy(),
            "backfilled": self.start_slot > 0,
            "interruptions": np.zeros(n, dtype=np.int64) if lives is None else lives.interruptions.copy(),
            "preemptions": np.zeros(n, dtype=np.int64) if lives is None else lives.preemptions.copy(),
            "lost_min": np.zeros(n) if lives is None else lives.lost_min.copy(),
            "work_min": work,
            "restore_min": restored,
        })

    def _current_run(self) -> tuple[np.ndarray, np.ndarray]:
        """Per job, the minutes its current or last run has held GPUs (up to now; 0 if it holds
        none) and the minutes of that run after its restore."""
        start, end = self.start_min, self.end_min
        on = ~np.isnan(start)
        until = np.where(np.isnan(end), self.time_min, end)
        held = np.where(on, np.minimum(until - np.where(on, start, 0.0), np.where(on, self.run_min, 0.0)),
                        0.0)
        restore = 0.0 if self.lives is None else self.lives.restore_min
        return held, np.maximum(held - restore, 0.0)

    def _work_and_restore(self) -> tuple[np.ndarray, np.ndarray]:
        """Per job, its progress over all its runs (reference-speed minutes, lost work included)
        and the minutes it spent restoring."""
        held, after = self._current_run()
        lives = self.lives
        if lives is None:  # one run per job, at speed duration / run_min
            duration = np.array([j.duration_min for j in self.jobs], dtype=float)
            work = np.where(after > 0, after * duration / np.where(after > 0, self.run_min, 1.0), 0.0)
            return work, np.zeros(len(self.jobs))
        return (lives.work_min + after * self.gang_speed,
                lives.restored_min + np.minimum(held, lives.restore_min))

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
            **self._failure_metrics(),
            "total_reward": self.total_reward,
        }

    def _failure_metrics(self) -> dict[str, float]:
        """Node failures, interrupted jobs, preemptions, lost and restore GPU-hours, and goodput:
        the GPU-hours jobs held doing useful work (neither thrown away nor restoring) over all the
        GPU-hours they held (1.0 when nothing was lost or restored)."""
        lives = self.lives
        if lives is None:
            return {"node_failures": self.node_failures, "jobs_interrupted": 0, "preemptions": 0,
                    "lost_gpu_hours": 0.0, "restore_gpu_hours": 0.0, "goodput": 1.0}
        gpus = np.array([j.gpus for j in self.jobs], dtype=float)
        held, _ = self._current_run()
        held_gpu_min = float(((lives.held_min + held) * gpus).sum())
        _, restored = self._work_and_restore()
        lost_gpu_min = float((lives.lost_held_min * gpus).sum())
        restore_gpu_min = float((restored * gpus).sum())
        useful = held_gpu_min - lost_gpu_min - restore_gpu_min
        return {
            "node_failures": self.node_failures,
            "jobs_interrupted": int((lives.interruptions > 0).sum()),
            "preemptions": self.preemptions,
            "lost_gpu_hours": lost_gpu_min / 60.0,
            "restore_gpu_hours": restore_gpu_min / 60.0,
            "goodput": useful / held_gpu_min if held_gpu_min > 0 else 1.0,
        }

    def _ideal_run_min(self) -> np.ndarray:
        """Each job's run time on the best GPU this cluster could give it (minutes)."""
        duration = np.array([j.duration_min for j in self.jobs], dtype=float)
        return duration if self.speeds is None else duration / self.best_speed

    def _waits(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(arrival, started, wait) per job, minutes: an unstarted job waits up to the end of the
        run (0 if it had not arrived by then); a job that stopped and resumed waits every minute it
        was queued (``started`` is whether it ever started)."""
        arrival = np.array([j.arrival_min for j in self.jobs], dtype=float)
        started = ~np.isnan(self.start_min)
        lives = self.lives
        if lives is None:
            wait = np.where(started, self.start_min - arrival, np.maximum(self.time_min - arrival, 0.0))
            return arrival, started, wait
        before = lives.held_min
        queued = np.where(lives.stopped, self.time_min - arrival - before,
                          np.maximum(self.time_min - arrival, 0.0))
        wait = np.where(started, self.start_min - arrival - before, queued)
        return arrival, started | lives.stopped, wait

    def _queue_metrics(self, wait: np.ndarray, started: np.ndarray) -> dict[str, float]:
        """Job completion time, slowdown against the ideal run time, bounded slowdown, speed
        loss, priority-weighted and p99 wait, backfilled jobs and busy GPU-hours. A job that has
        not finished counts up to the end of the run; a job that stopped and resumed counts its
        whole life, and its speed loss is its useful run time (held, less lost work and restores)
        less its ideal run time."""
        if not len(self.jobs):
            return {"avg_jct_min": 0.0, "avg_slowdown": 0.0, "avg_bsld": 0.0, "speed_loss_min": 0.0,
                    "weighted_wait_min": 0.0, "p99_wait_min": 0.0, "backfilled_jobs": 0,
                    "gpu_hours": 0.0}
        lives = self.lives
        if lives is None:
            ran = np.where(started, np.minimum(self.run_min, self.time_min - self.start_min), 0.0)
            run = self.run_min
        else:
            held, _ = self._current_run()
            ran = lives.held_min + held
            _, restored = self._work_and_restore()
            run = lives.held_min + np.where(np.isnan(self.run_min), 0.0, self.run_min)
            run = run - lives.lost_held_min - restored
        jct = wait + ran
        ideal = self._ideal_run_min()
        priority = np.array([j.priority for j in self.jobs], dtype=float)
        loss = np.maximum(run[started] - ideal[started], 0.0)
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
                                     self.start_time_min, self.time_min, last_start_min=self.start_min,
                                     stops=self.stops, resumes=self.resumes,
                                     node_events=self.node_events)
        return Result(
            scenario=scenario_name, policy=policy_name, seed=seed, metrics=self.metrics(),
            jobs=jobs, timeline=timeline, cluster=self.cluster, end_reason=self.end_reason,
        )
