"""The state of one run: everything a step changes, in one object copied in one place.

:class:`RunState` holds the clock, the cluster state, the queue, the per-job record
(:mod:`gpusched.core.jobs_record`), the event heap (:mod:`gpusched.core.events`) with the failure
process and the arrival cursor, the integrals (:mod:`gpusched.core.integrals`), the run's log
(:class:`RunLog`: holds, misroutes, stops, resumes, node events), the declared run times and the
epochs a scheduler's caches key on. :meth:`RunState.copy` is the one place a fork copies them: a
mechanism that adds state to a run adds it here (or to the record, the log or the heap) and the
fork copies it with the rest. The counters of disruptions (:attr:`RunState.preemptions`,
:attr:`RunState.migrations`, :attr:`RunState.node_failures`) are read from the record and the
log, never kept beside them.
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np

from gpusched.core.cluster import Cluster, ClusterState
from gpusched.core.declared_jobs import DeclaredJob, declared_job, declared_jobs
from gpusched.core.estimator import RuntimeEstimator
from gpusched.core.events import ARRIVAL, COMPLETION, NODE, EventHeap, EventKinds
from gpusched.core.failures import NodeFailures
from gpusched.core.integrals import Integrals
from gpusched.core.jobs import Job
from gpusched.core.jobs_record import JobsRecord
from gpusched.core.readonly import FrozenList, JobQueue
from gpusched.core.reward import RewardSpec


class DeclaredWatcher(Protocol):
    """What shows the declared run times (the scheduler's view), told when the estimator learned
    (the arrays and the declared jobs were taken anew)."""

    def estimates_changed(self) -> None: ...


class RunLog:
    """What happened in a run, in order: ``holds`` ``(time, until, job id, could fit)``,
    ``misroutes`` ``(time, job id, GPU, cause)``, ``stops`` ``(time, job index, failure,
    preemption or migration, start of the run it ends, its GPUs, lost progress in reference-speed
    minutes, the minutes on GPUs that progress took)``, ``resumes`` ``(time, job index, GPUs,
    restore minutes)`` and ``node_events`` ``(time, node, failure or repair)``."""

    __slots__ = ("holds", "misroutes", "node_events", "resumes", "stops")

    def __init__(self):
        self.holds: list[tuple[float, float, int, bool]] = []
        self.misroutes: list[tuple[float, int, int, str]] = []
        self.stops: list[tuple[float, int, str, float, tuple[int, ...], float, float]] = []
        self.resumes: list[tuple[float, int, tuple[int, ...], float]] = []
        self.node_events: list[tuple[float, int, str]] = []

    def copy(self, k: int) -> RunLog:
        """An independent copy that keeps the first ``k`` jobs' stops and resumptions."""
        twin = object.__new__(RunLog)
        twin.holds = list(self.holds)
        twin.misroutes = list(self.misroutes)
        twin.stops = [e for e in self.stops if e[1] < k]
        twin.resumes = [e for e in self.resumes if e[1] < k]
        twin.node_events = list(self.node_events)
        return twin


class RunState:
    """The state of one run (see the module docstring), at its start.

    :param cluster: the cluster (shared, immutable).
    :param jobs: the jobs in arrival order (shared, immutable).
    :param best_speed: per job, the fastest speed any gang could give it (read-only).
    :param estimator: the run's own run-time estimator.
    :param prices: USD per GPU-hour of each GPU (read-only).
    :param uniform: whether every gang runs every job at speed 1.0.
    :param speeds_given: whether a speed table was given (a learning estimator's declared times
        on the best GPU are then filled in at each arrival).
    :param util_band: the target band of cluster utilisation (fractions 0-1).
    :param reward: the reward weights.
    :param kinds: the kinds of event (:mod:`gpusched.core.events`).
    :param failures: the node failure process (``None``: nodes never fail).
    """

    def __init__(self, cluster: Cluster, jobs: list[Job], best_speed: np.ndarray,
                 estimator: RuntimeEstimator, prices: np.ndarray, uniform: bool, speeds_given: bool,
                 util_band: tuple[float, float], reward: RewardSpec, kinds: EventKinds,
                 failures: NodeFailures | None):
        n = len(jobs)
        self.cluster, self.jobs, self.best_speed, self.prices = cluster, jobs, best_speed, prices
        self.uniform, self.speeds_given = uniform, speeds_given
        self.arrival_min = [j.arrival_min for j in jobs]
        self.state = ClusterState(cluster)
        self.time_min = self.start_time_min = jobs[0].arrival_min if jobs else 0.0
        self.queue = JobQueue()
        """Arrival indices of the queued jobs, in arrival order (read-only but through
        :data:`~gpusched.core.readonly.QUEUE_OPS`)."""
        self.record = JobsRecord(n)
        self.estimator = estimator
        self.watcher: DeclaredWatcher | None = None
        """What shows the declared run times (the view), told when they change."""
        self.set_declared()
        self.done = n == 0
        self.end_reason = "completed" if self.done else ""
        self.jobs_completed = 0
        self.decisions = 0
        self.horizon_min: float | None = None
        """The clock never passes this time (the setup's horizon, set when the run starts or is
        forked): read by a mechanism that moves the clock over a quiet stretch
        (:meth:`advance_clock`)."""
        self.integrals = Integrals(self.state.compute_used, cluster.n_gpus, util_band, reward)
        self.log = RunLog()
        self.failure_process = failures
        """The node failure process (``None`` without failures)."""
        self.events = EventHeap(kinds)
        if failures is not None:
            for t, kind, node in failures.first:
                self.events.push(t, NODE, (kind, node), kind * failures.n_nodes + node)
        self.running: dict[int, None] = {}
        """Arrival indices of the running jobs, in the order they (re)started."""
        self.next_arrival = 0
        """Arrival index of the next job to arrive (the arrival cursor; jobs are taken from it by
        :meth:`Lifecycle.on_arrivals <gpusched.core.lifecycle.Lifecycle.on_arrivals>`)."""
        self.rounds = None
        """The round mechanism's state (:class:`~gpusched.core.rounds.mechanism.RoundsRun`), or
        ``None`` for a run without rounds."""
        self.phases = None
        """The phase mechanism's state (:class:`~gpusched.core.phase_mechanism.PhasesRun`), or
        ``None`` for a run whose jobs are all rigid."""
        self.decide_at_events = False
        """Whether every event is a decision point, even with an empty queue (set by a policy
        that moves jobs; see :meth:`~gpusched.core.view.SchedulerView.request_event_decisions`)."""
        self.epoch = 0
        """Bumped by every completion and every disruption: a plan made from the running jobs is
        stale when it changes."""
        self.disruptions = 0
        """Failures, repairs, preemptions, migrations and learned estimates so far: a
        reservation made around the running jobs' declared ends is stale when it changes."""

    def copy(self, kinds: EventKinds, arrived_only: bool = False) -> RunState:
        """An independent copy, whose events have ``kinds``; the cluster, the jobs and the
        read-only arrays are shared.

        :param arrived_only: forget the jobs that have not arrived yet and the failures to come,
            and take the declared run times as true (what a real scheduler knows now).
        """
        k = self.next_arrival if arrived_only else len(self.jobs)
        twin = _copy.copy(self)
        if arrived_only:
            twin.jobs, twin.arrival_min = self.jobs[:k], self.arrival_min[:k]
        twin.estimator = self.estimator.copy(k)
        twin.declared_min = self.declared_min[:k]
        twin.best_speed = self.best_speed[:k]
        twin.declared_best_min = self.declared_best_min[:k]
        if self.estimator.learns:  # the copy learns on its own
            twin.set_declared(FrozenList(self.declared_jobs[:k]))
        else:
            twin.declared_jobs = twin.estimator.declared_jobs
        twin.state = self.state.copy()
        twin.queue = JobQueue(self.queue)
        twin.record = self.record.copy(k)
        twin.events = self.events.copy(kinds)
        twin.running = dict(self.running)
        failures = self.failure_process
        twin.failure_process = None if failures is None or arrived_only else failures.copy()
        if arrived_only:  # it foresees no failure, no repair and no arrival
            twin.events.drop(NODE)
            twin.events.drop(ARRIVAL)
            if self.estimator.learns or twin.estimator.estimate_min is not None:
                twin._forget_true_run_times()
        twin.integrals = self.integrals.copy()
        twin.log = self.log.copy(k)
        twin.watcher = None
        twin.rounds = None if self.rounds is None else self.rounds.copy()
        twin.phases = None if self.phases is None else self.phases.copy()
        twin.decide_at_events = False  # a policy that binds to the fork's view asks again
        return twin

    def _forget_true_run_times(self) -> None:
        """Take the declared run times as the true ones (a fork that knows only what a scheduler
        knows)."""
        declared = self.declared_min.tolist()
        self.jobs = [j if j.duration_min == d else replace(j, duration_min=d)
                     for j, d in zip(self.jobs, declared, strict=True)]
        rec = self.record
        for idx in range(len(self.jobs)):
            if not np.isnan(rec.start_min[idx]) and np.isnan(rec.end_min[idx]):
                rec.run_min[idx] = rec.declared_end_min[idx] - rec.start_min[idx]
        now = self.time_min
        self.events.retime(COMPLETION, lambda i: max(float(rec.declared_end_min[i]), now))

    # ------------------------------------------------------------ declared run times
    def set_declared(self, shown: FrozenList | None = None) -> None:
        """Read the declared run times from the estimator, and take the declared jobs: the
        estimator's own, shared, if it does not learn; else ``shown`` (a fork's copy of its
        parent's) or a list of the run's own."""
        self.estimates_epoch = self.estimator.epoch
        """The estimator's epoch when the declared times were last read."""
        self.declared_min = self.estimator.declared_min
        """Declared run time of each job at speed 1.0 (minutes), by arrival index."""
        self.declared_best_min = (self.declared_min.view() if self.uniform
                                  else self.declared_min / self.best_speed)
        if self.estimator.learns and self.speeds_given:  # filled in at each arrival
            self._declared_best = self.declared_best_min
            self.declared_best_min = self._declared_best.view()
        self.declared_best_min.flags.writeable = False  # shared with every fork
        """Declared run time of each job on the best GPU it could get (minutes), by arrival index."""
        estimator = self.estimator
        if not estimator.learns:
            shown = estimator.declared_jobs
        elif shown is None:
            shown = FrozenList(declared_jobs(self.jobs, self.declared_min))
        self.declared_jobs: Sequence[DeclaredJob] = shown
        """Every job as a scheduler sees it (:class:`~gpusched.core.declared_jobs.DeclaredJob`:
        its declared run time, never its true one), by arrival index; the view hands it out. The
        estimator's tuple, shared by every run and fork, if it does not learn; else the run's own
        :class:`~gpusched.core.readonly.FrozenList`, whose entries :meth:`declare_arrivals` sets."""

    def declare_arrivals(self, arrivals: Sequence[int]) -> None:
        """A learning estimator fixes the arriving jobs' run times now; the declared arrays and
        the declared jobs (the view's) take them in place (see :mod:`gpusched.core.estimator`)."""
        estimator, jobs = self.estimator, self.jobs
        for idx in arrivals:
            estimator.fix_at_arrival(idx, jobs[idx])
        if self.speeds_given:
            for idx in arrivals:
                self._declared_best[idx] = self.declared_min[idx] / self.best_speed[idx]
        shown, declared = self.declared_jobs, self.declared_min
        for idx in arrivals:
            list.__setitem__(shown, idx, declared_job(jobs[idx], declared[idx]))

    def estimates_changed(self) -> None:
        """The estimator learned: re-read the declared times; the view drops what it cached from
        them, and plans made around the old ones are stale (a disruption)."""
        self.set_declared()
        if self.watcher is not None:
            self.watcher.estimates_changed()
        self.disrupted()

    def disrupted(self) -> None:
        """A failure, a repair, a preemption or a migration happened: every cached plan is
        stale (bumps :attr:`epoch` and :attr:`disruptions`)."""
        self.disruptions += 1
        self.epoch += 1

    # ------------------------------------------------------------ arrivals and the clock
    @property
    def arrivals_left(self) -> int:
        """Jobs that have not arrived yet."""
        return len(self.arrival_min) - self.next_arrival

    def next_min(self, queued: bool) -> float | None:
        """Time of the next event (minutes), ``None`` if there is none. An event other than an
        arrival or a completion (a failure, a repair, a wakeup) counts only while a job runs,
        one is to arrive, or ``queued`` (jobs wait): a run with nothing left to do ends without
        waiting for the next failure."""
        if not (queued or self.running or self.next_arrival < len(self.arrival_min)):
            return None
        heap = self.events.heap
        return heap[0][0] if heap else None

    def hold_would_dead_stall(self) -> bool:
        """Whether holding now would end the run (nothing running, no arrival left, no wakeup
        asked for, and no node waiting for its repair)."""
        if self.running or self.next_arrival < len(self.arrival_min) or self.events.wakeups:
            return False
        return self.failure_process is None or self.state.down is None

    def advance_clock(self, t_min: float) -> None:
        """Move the clock to ``t_min`` (minutes, not past :attr:`horizon_min`), integrating the
        queue, the running jobs and the idle GPUs over the stretch; the events due then are the
        caller's to handle."""
        dt = t_min - self.time_min
        if dt > 0:
            self.integrals.accumulate(dt, len(self.queue), len(self.running), self.state.idle_gpus)
        self.time_min = t_min

    def request_wakeup(self, t_min: float) -> None:
        """Make ``t_min`` a decision point (if it is later than now): a policy that will want to
        act then, with nothing else happening (a job that becomes preemptible), asks for it."""
        self.events.push_wakeup(t_min, self.time_min)

    # ------------------------------------------------------------ reads
    def is_running(self, job_idx: int) -> bool:
        """Whether the job with this arrival index holds GPUs now."""
        return job_idx in self.running

    def running_indices(self) -> list[int]:
        """Arrival indices of the running jobs (in the order they (re)started)."""
        return list(self.running)

    def gpu_down(self) -> np.ndarray:
        """Per GPU, whether its node is down (failed, not yet repaired); read-only."""
        down = self.state.down
        return np.zeros(self.cluster.n_gpus, dtype=bool) if down is None else down

    def attained_service_gpu_min(self, indices: Sequence[int]) -> np.ndarray:
        """GPU-minutes each job (by arrival index) has held GPUs so far, over all its runs,
        restores and lost work included (the attained service of Tiresias's 2D-LAS)."""
        rec = self.record
        idx = np.asarray(indices, dtype=np.int64)
        gpus = np.array([self.jobs[i].gpus for i in idx.tolist()], dtype=float)
        start = rec.start_min[idx]
        live = ~np.isnan(start) & np.isnan(rec.end_min[idx])
        held = np.where(live, self.time_min - np.where(live, start, 0.0), 0.0)
        finished = ~np.isnan(rec.end_min[idx])
        held = np.where(finished, rec.run_min[idx], held)
        if rec.lives is not None:
            held = held + rec.lives.held_min[idx]
        return held * gpus

    # ------------------------------------------------------------ counters, from the record and the log
    @property
    def preemptions(self) -> int:
        """Preemptions so far."""
        lives = self.record.lives
        return 0 if lives is None else int(lives.preemptions.sum())

    @property
    def migrations(self) -> int:
        """Migrations so far."""
        lives = self.record.lives
        return 0 if lives is None else int(lives.migrations.sum())

    @property
    def node_failures(self) -> int:
        """Node failures so far: each node's events alternate failure and repair, so the
        failures are the repairs plus the nodes down now."""
        down = self.state.down
        down_nodes = 0 if down is None else int(down[self.cluster.node_first_gpu].sum())
        return (len(self.log.node_events) + down_nodes) // 2

    def finish(self, reason: str, horizon_min: float | None = None) -> None:
        """End the run for ``reason`` (at ``horizon_min``, when given)."""
        if horizon_min is not None:
            self.time_min = horizon_min
        self.done = True
        self.end_reason = reason
