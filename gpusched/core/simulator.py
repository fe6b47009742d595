"""The event-driven simulator: the one place that defines the cluster dynamics.

**Queue.** Jobs wait in a queue in arrival order. The scheduler may start any of the first
``window`` queued jobs (the *window*; ``window = 1``, the default, is a strict FIFO queue). At
every decision point the simulator asks the policy for a window slot and a placement, or HOLD:

- a GPU index places the slot's job there, and for a multi-GPU job also on other GPUs of the same
  node (see the gang rule in :mod:`gpusched.core.cluster`; with ``cluster.gang_placement: spread``,
  of other nodes of its GPU model too, :mod:`gpusched.core.gang`); a tuple of GPU indices names the whole
  gang; placing does not advance time; a job started ahead of an earlier arrival that still
  waits is *backfilled*;
- HOLD leaves the queue as it is and advances the clock to the next event (an arrival, a
  completion, a node failure or repair, or a time a policy asked to decide again,
  :meth:`Simulator.request_wakeup`). A GPU where the job does not fit counts as a HOLD and is recorded as a
  *misroute*, with its cause (:meth:`~gpusched.core.cluster.ClusterState.misroute_cause`:
  ``capacity``, ``occupied`` or ``gang``).

A policy written for the FIFO queue (``select(state, job)``) answers for the head job (slot 0); a
queue-aware policy (``decide(view)``) answers with ``(slot, action)``. Every policy sees the run
through its read-only view (:mod:`gpusched.core.view`), never the simulator.

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

**Migration.** A queue-aware policy may also answer ``(slot, Migrate(job, gang))``
(:class:`Migrate`): the running job with that arrival index saves its progress at once, as a
preemption does (nothing is lost), frees its GPUs and resumes on ``gang`` at the same instant,
without going back to the queue; it pays ``restore_min`` there before it progresses again. The
gang must fit once the job's own GPUs are freed. The guard of preemption applies: a job may move
only once it has run ``preemption_min_run_min`` since it last started, resumed or moved, not
counting its restore (:meth:`Simulator.preemptible`), so it is never moved twice within that
time. An invalid migration raises ``ValueError``; like a preemption, a migration does not
advance time and is a disruption (it bumps the view's epochs). A policy that moves jobs may ask
to decide at every event even while the queue is empty
(:meth:`~gpusched.core.view.SchedulerView.request_event_decisions`): GPUs that free up then can
take a running job although no job waits.

**A job's whole life.** A job that stopped and resumed has several runs. Its completion time is
from its arrival to its final end; its wait is every minute it spent queued; its run time
(``run_min``) every minute it held GPUs, restores and lost work included; its start is its first
start.

**Events.** There are no ticks. Time is in minutes (float). At one instant completions are
handled first, then node failures and repairs, then arrivals, then decisions (one event queue,
:mod:`gpusched.core.events`, with this order explicit).

**End of a run.** A run ends when every job has finished, at ``horizon_min``, or on a dead stall
(nothing running, no arrival left, no node waiting for its repair, and the policy holds). A run
with failures and no ``horizon_min`` also ends at its safety horizon (end reason
``safety_horizon``; :func:`gpusched.core.failures.safety_horizon_min`). Jobs
that have not finished are reported as unfinished, and their waits count up to the end time; a job
that had not yet arrived at ``horizon_min`` is reported as unfinished with a wait of 0 (a wait is
never negative).

**Components.** The simulator keeps the loop, :meth:`Simulator.step`, :meth:`Simulator.fork`
and :meth:`Simulator.result`; the events are :mod:`gpusched.core.events`, the per-job state
:mod:`gpusched.core.jobs_record`, the transitions of a job :mod:`gpusched.core.lifecycle`, the
integrals, reward and metrics :mod:`gpusched.core.accounting` (the integrals and the reward are
updated at every jump of the clock, in the order the golden files fix; the metrics and the jobs
table only when a run is packaged); the mechanisms behind one interface each are the speed model
(:mod:`gpusched.core.speed_model`), the gang rule (:mod:`gpusched.core.gang`), the restore model
(:mod:`gpusched.core.restore`) and the run-time estimator (:mod:`gpusched.core.estimator`; when a
learning estimator's ``epoch`` moves, the simulator re-reads the declared times and the view
drops what it cached from them). Schedulers read the run through :attr:`Simulator.view`
(:mod:`gpusched.core.view`), read-only in fact (:mod:`gpusched.core.readonly`: the state, the
queue and the per-job GPU list refuse every write); a plan around the running jobs replays their
releases at their declared ends through :class:`~gpusched.core.releases.ReleaseTimeline`, the
one replay.

The simulator can be driven step by step (:meth:`Simulator.step`, used by the Gymnasium
environment) or run to the end with a policy (:meth:`Simulator.run`).
"""

from __future__ import annotations

import copy
import gc
import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import islice

import numpy as np
import pandas as pd

from gpusched.core import accounting, lifecycle
from gpusched.core.accounting import BSLD_FLOOR_MIN, Integrals
from gpusched.core.cluster import EPS, Cluster, ClusterState
from gpusched.core.estimator import DeclaredRuntime, RuntimeEstimator
from gpusched.core.events import EventQueue
from gpusched.core.failures import CheckpointSpec, FailureSpec, NodeFailures, safety_horizon_min
from gpusched.core.gang import GangRule, SameNodeGang
from gpusched.core.jobs import Job, check_jobs_feasible
from gpusched.core.jobs_record import JobLives, JobsRecord
from gpusched.core.prices import gpu_prices
from gpusched.core.readonly import QUEUE_OPS, JobQueue
from gpusched.core.releases import ReleaseTimeline, gpu_release_min
from gpusched.core.restore import CheckpointRestore, RestoreModel
from gpusched.core.result import Result
from gpusched.core.reward import RewardSpec
from gpusched.core.speed import GpuSpeeds
from gpusched.core.speed_model import SpeedModel, TableSpeeds
from gpusched.core.timeline import Timeline
from gpusched.core.view import PlacementScheduler, SchedulerView, as_scheduler
from gpusched.limits import SAFETY_MAX_NODE_FAILURES

__all__ = ["BSLD_FLOOR_MIN", "DEFAULT_PREEMPTION_MIN_RUN_MIN", "HOLD", "Action", "JobLives", "Migrate",
           "Preempt", "Simulator"]

HOLD = -1
"""The action that leaves the queue as it is until the next event."""

DEFAULT_PREEMPTION_MIN_RUN_MIN = 10.0
"""Minutes a job runs (after its restore) since it last started before it may be preempted."""


@dataclass(frozen=True, slots=True)
class Preempt:
    """The action that preempts a running job (see the module docstring).

    :param job: the arrival index of the running job to stop.
    """

    job: int


@dataclass(frozen=True, slots=True)
class Migrate:
    """The action that moves a running job to another gang (see the module docstring).

    :param job: the arrival index of the running job to move.
    :param gang: the GPU indices it resumes on (they must fit once its own GPUs are freed).
    """

    job: int
    gang: tuple[int, ...]


Action = int | Sequence[int] | Preempt | Migrate

_extend, _popleft, _delete, _ = QUEUE_OPS

_GPU_INDEX = (int, np.integer)
"""The types of an action that names one GPU."""

_MOVES = (Preempt, Migrate)
"""The types of an action on a running job."""


def _record_field(name: str) -> property:
    return property(lambda self: getattr(self.record, name),
                    doc=f"Per job, ``{name}`` (see :class:`~gpusched.core.jobs_record.JobsRecord`).")


def _integral(name: str) -> property:
    return property(lambda self: getattr(self.integrals, name),
                    doc=f"The run's ``{name}`` so far (see :class:`~gpusched.core.accounting.Integrals`).")


class Simulator:
    """Run one workload on one cluster.

    :param cluster: the cluster topology.
    :param jobs: the workload (any order; ids must be unique).
    :param reward: reward weights (see :mod:`gpusched.core.reward`).
    :param util_band: target band of cluster utilisation (fractions 0-1).
    :param horizon_min: end the run at this time (minutes), or ``None`` to run until done (with
        failures: until done or the safety horizon). Not before the first arrival, where the
        clock starts (``ValueError``; a scenario refuses it naming ``horizon_min``).
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
    :param speed_model: the speed model (default: :class:`~gpusched.core.speed_model.TableSpeeds`
        of ``speeds``).
    :param gang_rule: the gang rule (default: the cluster's own, else
        :class:`~gpusched.core.gang.SameNodeGang`).
    :param restore: the restore model (default:
        :class:`~gpusched.core.restore.CheckpointRestore` of ``checkpoint``).
    :param estimator: the run-time estimator, or a function of the jobs in arrival order that
        builds one (default: :class:`~gpusched.core.estimator.DeclaredRuntime`).
    :param prices: USD per GPU-hour per GPU model (default: the shipped table of
        :mod:`gpusched.core.prices`); fixed for the run, read by the cost metrics and by
        price-aware placements, never by the dynamics.
    """

    start_min = _record_field("start_min")
    end_min = _record_field("end_min")
    run_min = _record_field("run_min")
    declared_end_min = _record_field("declared_end_min")
    start_slot = _record_field("start_slot")
    gang_speed = _record_field("gang_speed")
    job_gpus = _record_field("job_gpus")
    lives = _record_field("lives")
    util_min = _integral("util_min")
    in_band_min = _integral("in_band_min")
    gini_min = _integral("gini_min")
    waiting_job_min = _integral("waiting_job_min")
    system_job_min = _integral("system_job_min")
    stall_min = _integral("stall_min")
    idle_gpu_min_stalled = _integral("idle_gpu_min_stalled")
    idle_gpu_min_blocked = _integral("idle_gpu_min_blocked")
    busy_gpu_min = _integral("busy_gpu_min")
    total_reward = _integral("total_reward")

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
        speed_model: SpeedModel | None = None,
        gang_rule: GangRule | None = None,
        restore: RestoreModel | None = None,
        estimator: RuntimeEstimator | Callable[[list[Job]], RuntimeEstimator] | None = None,
        prices: Mapping[str, float] | None = None,
    ):
        if check_feasible:
            check_jobs_feasible(jobs, cluster)
        if window < 1:
            raise ValueError(f"window must be at least 1, got {window}")
        self.cluster = cluster
        self.window = int(window)
        self.speeds = speeds
        self.speed_model: SpeedModel = speed_model or TableSpeeds(cluster, speeds)
        self.gang_rule: GangRule = gang_rule or cluster.gang_rule or SameNodeGang(cluster)
        self.jobs: list[Job] = sorted(jobs, key=lambda j: (j.arrival_min, j.id))
        if horizon_min is not None and self.jobs and horizon_min < self.jobs[0].arrival_min:
            # the clock starts at the first arrival: an earlier horizon would run it backwards
            raise ValueError(f"horizon_min ({horizon_min:g}) is before the first arrival "
                             f"({self.jobs[0].arrival_min:g})")
        self._arrival_min = [j.arrival_min for j in self.jobs]
        if callable(estimator) and not hasattr(estimator, "declared_min"):
            estimator = estimator(self.jobs)
        self._estimator0: RuntimeEstimator = estimator or DeclaredRuntime(self.jobs)
        self.gpu_price_usd_per_hour = gpu_prices(cluster.gpu_model, prices)
        self.gpu_price_usd_per_hour.flags.writeable = False
        """USD per GPU-hour of each GPU (NaN: no price), by GPU index."""
        self.best_speed = self.speed_model.best(self.jobs)
        self.best_speed.flags.writeable = False  # shared with every fork
        """The fastest speed any gang of the cluster that could ever hold each job offers it
        (1.0 without a speed table), by arrival index."""
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
        self.restore: RestoreModel = restore or CheckpointRestore(checkpoint)
        self.restore_min = 0.0 if checkpoint is None else float(checkpoint.restore_min)
        """Minutes a resumed job spends loading its state before it progresses (the default
        restore model's)."""
        self.safety_horizon = horizon_min is None and self.failures is not None and bool(self.jobs)
        """Whether ``horizon_min`` is the run's safety horizon (failures and no horizon given)."""
        if self.safety_horizon:
            self.horizon_min = safety_horizon_min(self.jobs, self.failures, self.restore_min, speeds)
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Start the run over and advance to the first decision point."""
        n = len(self.jobs)
        self.state = ClusterState(self.cluster)
        self.time_min = self.jobs[0].arrival_min if self.jobs else 0.0
        self.start_time_min = self.time_min
        self.queue = JobQueue()
        """Arrival indices of the queued jobs, in arrival order (read-only but through
        :data:`~gpusched.core.readonly.QUEUE_OPS`)."""
        self.record = JobsRecord(n)
        self.estimator = self._estimator0.copy(n)
        self._set_declared()
        self.done = n == 0
        self.end_reason = "completed" if self.done else ""
        self.jobs_completed = 0
        self.integrals = Integrals(self.state.compute_used, self.cluster.n_gpus, self.util_band,
                                   self.reward_spec)
        # Decision records (the timeline derives everything else from the jobs).
        self.holds: list[tuple[float, float, int, bool]] = []  # (time, until, job, could fit)
        self.misroutes: list[tuple[float, int, int, str]] = []  # (time, job, gpu, cause)
        self.decisions = 0
        failure_process = (None if self.failures is None else
                           NodeFailures(self.cluster.n_nodes, self.failures, self.failure_seed,
                                        self.time_min))
        self.events = EventQueue(self._arrival_min, failure_process)
        self.node_failures = 0
        self.preemptions = 0
        self.migrations = 0
        self.decide_at_events = False
        """Whether every event is a decision point, even with an empty queue (set by a policy
        that moves jobs; see :meth:`~gpusched.core.view.SchedulerView.request_event_decisions`)."""
        self.epoch = 0
        """Bumped by every completion and every disruption: a plan made from the running jobs is
        stale when it changes."""
        self.disruptions = 0
        """Failures, repairs, preemptions and migrations so far: a reservation made
        around the running jobs' declared ends is stale when it changes."""
        self.stops: list[tuple[float, int, str, float, tuple[int, ...], float, float]] = []
        """(time, job index, ``failure``, ``preemption`` or ``migration``, start of the run it ends, its GPUs,
        lost progress in reference-speed minutes, the minutes on GPUs that progress took)."""
        self.resumes: list[tuple[float, int, tuple[int, ...], float]] = []
        """(time, job index, GPUs, restore minutes) of every resumption."""
        self.node_events: list[tuple[float, int, str]] = []
        """(time, node, ``failure`` or ``repair``)."""
        _extend(self.queue, self.events.pop_arrivals(self.time_min))
        if self.estimator.learns:
            self._declare_arrivals(self.queue)
        view = self.__dict__.get("view")
        if view is None:
            self.view = SchedulerView(self)
            """What schedulers see of this run (:mod:`gpusched.core.view`)."""
        else:
            view.refresh()
        self._advance_to_decision()

    def _set_declared(self) -> None:
        self.estimates_epoch = self.estimator.epoch
        """The estimator's epoch when the declared times were last read."""
        self.declared_min = self.estimator.declared_min
        """Declared run time of each job at speed 1.0 (minutes), by arrival index."""
        self.declared_best_min = (self.declared_min.view() if self.speed_model.uniform
                                  else self.declared_min / self.best_speed)
        if self.estimator.learns and self.speeds is not None:  # filled in at each arrival
            self._declared_best = self.declared_best_min
            self.declared_best_min = self._declared_best.view()
        self.declared_best_min.flags.writeable = False  # shared with every fork
        """Declared run time of each job on the best GPU it could get (minutes), by arrival index."""

    def _declare_arrivals(self, arrivals: Sequence[int]) -> None:
        """A learning estimator fixes the arriving jobs' run times now; the declared arrays and
        the view's cached jobs take them in place (see :mod:`gpusched.core.estimator`)."""
        estimator, jobs = self.estimator, self.jobs
        for idx in arrivals:
            estimator.fix_at_arrival(idx, jobs[idx])
        if self.speeds is not None:
            for idx in arrivals:
                self._declared_best[idx] = self.declared_min[idx] / self.best_speed[idx]
        view = self.__dict__.get("view")
        if view is not None:
            view.declared_changed(arrivals)

    @property
    def failure_process(self) -> NodeFailures | None:
        """The node failures and repairs still to come (``None`` without failures)."""
        return self.events.failures

    def _estimates_changed(self) -> None:
        """The estimator learned: re-read the declared times; the view drops what it cached from
        them, and plans made around the old ones are stale (a disruption)."""
        self._set_declared()
        self.view.estimates_changed()
        self.disrupted()

    def disrupted(self) -> None:
        """A failure, a repair, a preemption or a migration happened: every cached plan
        is stale (bumps :attr:`epoch` and :attr:`disruptions`)."""
        self.disruptions += 1
        self.epoch += 1

    def fork(self, arrived_only: bool = False) -> Simulator:
        """An independent copy of the run so far, for lookahead search (planners, oracles).

        The copy shares the immutable cluster and jobs and copies everything a step changes (the
        state, the record, the events, the integrals and the logs), so stepping either one leaves
        the other as it was.

        :param arrived_only: forget the jobs that have not arrived yet: the copy knows what a
            real scheduler knows now (the cluster, the running jobs and the queue, with their
            declared run times, which it then takes as their run times), and its run ends when
            those jobs are done; it foresees no node failure and no repair.
        """
        k = self.events.next_arrival if arrived_only else len(self.jobs)
        twin = copy.copy(self)
        twin.jobs = self.jobs[:k] if arrived_only else self.jobs
        twin.estimator = self.estimator.copy(k)
        twin.declared_min = self.declared_min[:k]
        twin.best_speed = self.best_speed[:k]
        twin.declared_best_min = self.declared_best_min[:k]
        if self.estimator.learns:  # the copy learns on its own
            twin._set_declared()
        twin.state = self.state.copy()
        twin.queue = JobQueue(self.queue)
        twin.record = self.record.copy(k)
        # A fork that knows only what a scheduler knows foresees no failure and no repair.
        twin.events = self.events.copy(k, keep_failures=not arrived_only)
        if arrived_only and (self.estimator.learns or any(j.estimate_min is not None for j in twin.jobs)):
            twin._forget_true_run_times()
        twin.integrals = self.integrals.copy()
        twin.holds = list(self.holds)
        twin.misroutes = list(self.misroutes)
        twin.stops = [e for e in self.stops if e[1] < k]
        twin.resumes = [e for e in self.resumes if e[1] < k]
        twin.node_events = list(self.node_events)
        twin.view = SchedulerView(twin)
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
        events = self.events
        events.running = [(max(float(rec.declared_end_min[i]), self.time_min), i) for _, i in events.running]
        heapq.heapify(events.running)

    def gpu_release_min(self) -> tuple[list[float], list[float]]:
        """Minutes from now until each GPU's first and last running job ends by their declared
        run times (0 for an idle GPU; :meth:`ReleaseTimeline.gpu_release_min
        <gpusched.core.releases.ReleaseTimeline.gpu_release_min>`)."""
        return gpu_release_min(self.view)

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
        """The speed of ``job`` on ``gpus`` (the speed model's; 1.0 without a speed table)."""
        return self.speed_model.of(job, gpus)

    def declared_run_min(self, job_idx: int, gpus: Sequence[int]) -> float:
        """The declared run time (minutes) of the job with arrival index ``job_idx`` on ``gpus``:
        for a job that stopped before, its restore plus its declared remaining work there."""
        return self.resume_cost_min(job_idx) + self.declared_left_min(job_idx) / self.speed_of(
            self.jobs[job_idx], gpus)

    # ------------------------------------------------------------ failures and preemption
    def declared_left_min(self, job_idx: int) -> float:
        """The declared work the job has left when it next starts (reference-speed minutes): its
        declared run time less the progress it resumes from (never negative)."""
        lives = self.record.lives
        if lives is None or not lives.stopped[job_idx]:
            return float(self.declared_min[job_idx])
        return max(float(self.declared_min[job_idx] - lives.saved_min[job_idx]), 0.0)

    def resume_cost_min(self, job_idx: int) -> float:
        """Minutes the job spends restoring when it next starts (the restore model's if it
        stopped before, else 0)."""
        lives = self.record.lives
        if lives is None or not lives.stopped[job_idx]:
            return 0.0
        return self.restore.restore_min(self.jobs[job_idx], ())

    def gpu_down(self) -> np.ndarray:
        """Per GPU, whether its node is down (failed, not yet repaired); read-only."""
        down = self.state.down
        return np.zeros(self.cluster.n_gpus, dtype=bool) if down is None else down

    def is_running(self, job_idx: int) -> bool:
        """Whether the job with this arrival index holds GPUs now."""
        return lifecycle.is_running(self, job_idx)

    def running_indices(self) -> list[int]:
        """Arrival indices of the running jobs (any order)."""
        return [i for _, i in self.events.running]

    def progress_min(self, job_idx: int) -> float:
        """The job's progress now (reference-speed minutes): its saved state plus, while it runs,
        what its current run has done after its restore."""
        rec = self.record
        lives = rec.lives
        saved = 0.0 if lives is None else float(lives.saved_min[job_idx])
        if not self.is_running(job_idx):
            return float(self.jobs[job_idx].duration_min) if not math.isnan(rec.end_min[job_idx]) else saved
        restore = 0.0 if lives is None else float(lives.restore_min[job_idx])
        done = max(self.time_min - float(rec.start_min[job_idx]) - restore, 0.0)
        return saved + done * self.speed_of(self.jobs[job_idx], rec.job_gpus[job_idx])

    def remaining_work_min(self, job_idx: int) -> float:
        """The true work the job has left (reference-speed minutes; 0 once it has finished)."""
        return max(float(self.jobs[job_idx].duration_min) - self.progress_min(job_idx), 0.0)

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

    def preemptible(self, job_idx: int) -> bool:
        """Whether the job runs now and has run ``preemption_min_run_min`` since it last started or
        resumed, after its restore."""
        if not self.is_running(job_idx):
            return False
        lives = self.record.lives
        restore = 0.0 if lives is None else float(lives.restore_min[job_idx])
        ran = self.time_min - float(self.record.start_min[job_idx]) - restore
        return ran >= self.preemption_min_run_min - EPS

    def running_by_declared_end(self) -> list[tuple[float, int]]:
        """The running jobs as (declared end time in minutes, arrival index), soonest first."""
        return ReleaseTimeline(self.view).releases

    @property
    def arrivals_left(self) -> int:
        """Jobs that have not arrived yet."""
        return self.events.arrivals_left

    @property
    def running_count(self) -> int:
        """Jobs running now."""
        return len(self.events.running)

    def next_event_min(self) -> float | None:
        """Time of the next arrival, completion, or (while jobs are left) node failure or repair
        (minutes), ``None`` if there is none."""
        return self.events.next_min(bool(self.queue))

    def request_wakeup(self, t_min: float) -> None:
        """Make ``t_min`` a decision point (if it is later than now): a policy that will want to
        act then, with nothing else happening (a job that becomes preemptible), asks for it."""
        self.events.push_wakeup(t_min, self.time_min)

    def hold_would_dead_stall(self) -> bool:
        """Whether holding now would end the run (nothing running, no arrival left, and no node
        waiting for its repair)."""
        events = self.events
        if events.running or events.arrivals_left or events.wakeups:
            return False
        return events.failures is None or self.state.down is None

    # ------------------------------------------------------------------ driving
    def run(self, policy) -> Result:
        """Run from the start to the end with ``policy``: a scheduler (``bind(view)`` once, then
        ``decide(view)`` at every decision) or a FIFO placement (``select(state, job)`` for the
        head job); see :mod:`gpusched.core.view`. The policy sees :attr:`view`, never the
        simulator.
        """
        self.reset()
        scheduler = as_scheduler(policy)
        view = self.view
        scheduler.bind(view)
        step = self.step
        if isinstance(scheduler, PlacementScheduler) and not self.estimator.learns:
            # the head job's placement, without a tuple (the declared job list never changes)
            select, state, jobs, queue = scheduler.placement.select, view.state, view.jobs, view.queue
            while not self.done:
                step(select(state, jobs[queue[0]]))
        else:
            decide = scheduler.decide
            while not self.done:
                slot, action = decide(view)
                step(action, slot)
        return self.result(policy_name=getattr(policy, "name", str(policy)))

    def step(self, action: Action, slot: int = 0) -> bool:
        """Apply one decision, then advance to the next decision point.

        :param action: a GPU index, a tuple of GPU indices (the gang), :data:`HOLD`,
            :class:`Preempt` or :class:`Migrate` (then ``slot`` is not used).
        :param slot: the window slot of the job the action is for (0: the head job).
        :return: whether the job was placed (for a preemption or a migration: True, the job
            stopped or moved).
        :raises ValueError: for a preemption or a migration of a job that does not run or may not
            be preempted yet (:meth:`preemptible`), or a migration to a gang that does not fit.
        """
        if self.done:
            raise RuntimeError("the run is over; call reset()")
        if isinstance(action, _MOVES):
            self.decisions += 1
            if isinstance(action, Preempt):
                lifecycle.preempt(self, int(action.job))
            else:
                lifecycle.migrate(self, int(action.job), tuple(int(g) for g in action.gang))
            return True
        if not self.queue:  # a decision at an event with an empty queue (decide_at_events)
            if not (isinstance(action, int | np.integer) and int(action) == HOLD):
                raise ValueError(f"the queue is empty: only HOLD, Preempt or Migrate apply (got {action!r})")
            self._advance_to_decision()
            return False
        if not 0 <= slot < min(self.window, len(self.queue)):
            raise ValueError(f"window slot {slot} is outside 0..{min(self.window, len(self.queue)) - 1}")
        self.decisions += 1
        job_idx = self.queue[slot]
        job = self.jobs[job_idx]
        gpus = self._resolve(job, action)
        if gpus:
            if slot:
                _delete(self.queue, slot)
            else:
                _popleft(self.queue)
            lives = self.record.lives
            if lives is None or not lives.stopped[job_idx]:
                self.record.start_slot[job_idx] = slot  # a resumption keeps its first start's slot
            lifecycle.start(self, job_idx, job, gpus)
            self._advance_to_decision()
            return True
        head = self.queue[0]
        self._hold(head, self.jobs[head])
        return False

    def _resolve(self, job: Job, action: Action) -> tuple[int, ...]:
        """The gang an action asks for, or ``()`` for a HOLD or a GPU where the job does not fit."""
        rule = self.gang_rule
        if isinstance(action, _GPU_INDEX):
            gpu = int(action)
            if gpu == HOLD:
                return ()
            if not 0 <= gpu < self.cluster.n_gpus:
                raise ValueError(f"policy chose GPU {gpu}, outside 0..{self.cluster.n_gpus - 1}")
            gang = rule.gang_for(self.state, job, gpu)
            if not gang:
                self.misroutes.append((self.time_min, job.id, gpu, self.state.misroute_cause(job, gpu)))
            return gang
        gang = tuple(int(g) for g in action)
        if rule.can_place(self.state, job, gang):
            return gang
        first = gang[0] if gang and 0 <= gang[0] < self.cluster.n_gpus else HOLD
        cause = self.state.misroute_cause(job, first) if first != HOLD else "gang"
        self.misroutes.append((self.time_min, job.id, first, cause))
        return ()

    def _hold(self, job_idx: int, job: Job) -> None:
        events, state = self.events, self.state
        next_t = events.next_min(True)  # the queue has a head
        if next_t is None or (not events.running and self.hold_would_dead_stall()):
            self._finish("dead_stall")
            return
        # The head's mask is usually cached already (the policy just asked for it).
        could_fit = np.count_nonzero(state.fit_mask(job)) > 0
        if not could_fit and self.window > 1:
            fits, jobs = state.fits_somewhere, self.jobs
            could_fit = any(fits(jobs[i]) for i in islice(self.queue, 1, self.window))
        now, horizon = self.time_min, self.horizon_min
        until = next_t if horizon is None else min(next_t, horizon)
        idle = state.idle_gpus - state.down_gpus  # a down GPU is not idle capacity
        self.integrals.hold(until - now, idle, could_fit)
        self.holds.append((now, until, job.id, could_fit))
        self._jump_to(next_t)
        if self.queue or self.done:
            return
        self._advance_to_decision()

    def _advance_to_decision(self) -> None:
        """Move the clock until the queue has a head job (with :attr:`decide_at_events`: to the
        next event), or end the run."""
        events = self.events
        while not self.queue and not self.done:
            next_t = events.next_min(False)
            if next_t is None or (not events.running and not events.arrivals_left):
                self._finish("completed")
                return
            self._jump_to(next_t)
            if self.decide_at_events:
                return

    def _jump_to(self, t: float) -> None:
        """Accumulate the integrals up to ``t`` and handle every event at ``t``, by class in the
        order of :data:`gpusched.core.events.EVENT_ORDER`."""
        if self.horizon_min is not None and t > self.horizon_min:
            self._accumulate(self.horizon_min)
            self._finish("horizon")
            return
        events = self.events
        dt = t - self.time_min
        if dt > 0:
            self.integrals.accumulate(dt, len(self.queue), len(events.running), self.state.idle_gpus)
        self.time_min = t
        completions, _, node_events, arrivals = events.pop_due(t)
        if completions:
            complete = lifecycle.complete
            for job_idx in completions:
                complete(self, job_idx)
            if self.estimator.learns:
                estimator, jobs = self.estimator, self.jobs
                for job_idx in completions:
                    estimator.observe_completion(job_idx, jobs[job_idx], jobs[job_idx].duration_min)
                if estimator.epoch != self.estimates_epoch:
                    self._estimates_changed()
            self.jobs_completed += len(completions)
            self.epoch += 1
            self.integrals.completions(len(completions))
        for kind, node in node_events:
            if kind == NodeFailures.FAIL:
                lifecycle.fail_node(self, node)
            else:
                lifecycle.repair_node(self, node)
        if self.safety_horizon and self.node_failures >= SAFETY_MAX_NODE_FAILURES:
            self._finish("safety_horizon")
            return
        if arrivals:
            _extend(self.queue, arrivals)
            if self.estimator.learns:
                self._declare_arrivals(arrivals)

    def _accumulate(self, t: float) -> None:
        dt = t - self.time_min
        if dt > 0:
            self.integrals.accumulate(dt, len(self.queue), len(self.events.running), self.state.idle_gpus)
        self.time_min = t

    def _finish(self, reason: str) -> None:
        if self.horizon_min is not None and reason == "horizon":
            self.time_min = self.horizon_min
            reason = "safety_horizon" if self.safety_horizon else reason
        self.done = True
        self.end_reason = reason

    # ------------------------------------------------------------------ results
    def jobs_table(self) -> pd.DataFrame:
        """One row per submitted job (see :func:`gpusched.core.accounting.jobs_table`)."""
        return accounting.jobs_table(self)

    def metrics(self) -> dict[str, float]:
        """The per-run metrics (keys of :data:`gpusched.core.metrics.METRIC_KEYS`; see
        :func:`gpusched.core.accounting.metrics`)."""
        return accounting.metrics(self)

    def result(self, policy_name: str = "", scenario_name: str = "", seed: int | None = None) -> Result:
        """Package the finished run (metrics, jobs table, timeline).

        The tables hold a new list per job and no reference cycle, so the cyclic garbage
        collector is paused while they are built: its passes over the run's live objects
        would otherwise cost about a third of the packaging of 100,000 jobs."""
        collecting = gc.isenabled()
        gc.disable()
        try:
            jobs = self.jobs_table()
            timeline = Timeline.from_run(self.cluster, self.jobs, jobs, self.holds, self.misroutes,
                                         self.start_time_min, self.time_min,
                                         last_start_min=self.start_min, stops=self.stops,
                                         resumes=self.resumes, node_events=self.node_events)
            metrics = self.metrics()
        finally:
            if collecting:
                gc.enable()
        return Result(
            scenario=scenario_name, policy=policy_name, seed=seed, metrics=metrics,
            jobs=jobs, timeline=timeline, cluster=self.cluster, end_reason=self.end_reason,
        )
