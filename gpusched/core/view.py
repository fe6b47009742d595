"""What a scheduler sees: a read-only view of one simulator, and the one protocol schedulers follow.

**The view.** Policies, planners, the agent and the environment's observations read a
:class:`SchedulerView`, never the :class:`~gpusched.core.simulator.Simulator` itself. It shows
what a real scheduler knows now: the clock, the cluster and its state (fit masks, free VRAM and
compute, down nodes), the queue and its window, the arrived jobs with their *declared* run times
(:attr:`SchedulerView.jobs` carries each job as a
:class:`~gpusched.core.declared_jobs.DeclaredJob`: its declared time is ``declared_min``, and it
has no ``duration_min``, so a rule cannot read a true duration off a job), the running jobs with
their GPUs, starts, gang speeds and declared ends, and each job's attained service and saved progress. The
true durations, the true ends of running jobs and the failure process stay inside the simulator.
Its arrays are read-only; :meth:`SchedulerView.request_wakeup` and
:meth:`SchedulerView.request_event_decisions` are the requests a scheduler may make, besides its
decision.

**Epochs.** :attr:`SchedulerView.epoch` changes at every completion and every disruption (a node
failure or repair, a preemption, a migration), :attr:`SchedulerView.plan_epoch` at every
disruption only: a plan made around the running jobs' declared ends (an EASY or EFT reservation)
keys on one of them, and a mechanism that disrupts the run bumps both in one place
(:meth:`RunState.disrupted <gpusched.core.run_state.RunState.disrupted>`).

**Forks.** :meth:`SchedulerView.fork` is a new simulator that knows only what the view shows (the
arrived jobs, with their declared run times as their run times, and no failures to come).
:meth:`SchedulerView.clairvoyant_fork` is the one door to the truth: a copy of the whole run,
future arrivals, true durations and failures included. Only a planner that is meant to be
clairvoyant (the ``lookahead`` and ``lookahead_jct`` bounds) uses it, and says so.

**The protocol.** A :class:`Scheduler` has a ``name``, ``bind(view)`` (called once per run, before
the first decision) and ``decide(view) -> (window slot, action)``. A FIFO placement
(:class:`Placement`: ``select(state, job)`` for a job it is given, and optionally
``bind(view)``) becomes one through :func:`as_scheduler`, which answers for the head job (slot 0);
it is the one place that tells the two apart.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from functools import partial
from itertools import islice
from operator import attrgetter
from typing import Protocol

import numpy as np

from gpusched.core.actions import Action
from gpusched.core.cluster import Cluster, ClusterState
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.readonly import ReadOnlyState
from gpusched.core.releases import ReleaseTimeline, gpu_release_min
from gpusched.core.run_state import RunState


class ShownSimulator(Protocol):
    """What the view reads of the simulator it shows (:class:`gpusched.core.simulator.Simulator`,
    not imported here: the simulator imports the view): its fixed parts, its mechanisms, its run
    state and its forks."""

    cluster: Cluster
    window: int
    run_state: RunState
    view: SchedulerView

    def fork(self, arrived_only: bool = False, horizon_min: float | None = None) -> ShownSimulator: ...


class SchedulerView:
    """The read-only view of one simulator (see the module docstring).

    Fixed for a run (set at the start of the run and of a fork; none may be assigned):
    ``cluster``; ``state`` (the cluster state now, read-only in fact:
    :class:`~gpusched.core.readonly.ReadOnlyState`: fit masks, free VRAM and compute, down
    nodes); ``window`` (how many queued jobs may start); ``speeds`` (the resolved speed table, or
    ``None``) and ``speed_model`` (:mod:`gpusched.core.speed_model`); ``gang_rule``
    (:mod:`gpusched.core.gang`); ``preemption_min_run_min``;
    ``start_time_min`` (minutes); ``queue`` (arrival indices of the queued jobs, in arrival order;
    a :class:`~gpusched.core.readonly.JobQueue` whose changes raise); per job by arrival index,
    ``jobs`` (every job as declared, a read-only sequence of
    :class:`~gpusched.core.declared_jobs.DeclaredJob`: read only the arrived ones, an index below
    the queue's, a running or a finished job's) and the read-only arrays ``declared_min``
    (declared run time at speed 1.0, minutes), ``declared_best_min`` (on the best GPU it could
    get), ``best_speed`` (the fastest speed any gang could ever give it), ``start_min`` (start of
    its current or last run; NaN while it waits), ``declared_end_min`` (a running job's declared
    end; NaN otherwise), ``gang_speed`` (the speed of its current or last gang), and ``job_gpus``
    (the GPUs of its current or last run; a :class:`~gpusched.core.readonly.FrozenList`). Any
    write through them raises.

    The simulator's own answers, bound once per run (:data:`BOUND`; no frame of the view's on
    the hot path): ``hold_would_dead_stall()`` (whether holding now would end the run),
    ``declared_left_min(idx)`` (the declared work the job has left when it next starts,
    reference-speed minutes), ``resume_cost_min(idx)`` (minutes it spends restoring when it next
    starts; 0 if it never stopped), ``declared_run_min(idx, gpus)`` (its declared run time on
    ``gpus``, minutes, its restore included), ``is_running(idx)``, ``running_indices()`` (any
    order) and ``preemptible(idx)`` (whether it runs now and may be preempted).

    The declared times and ``jobs`` follow a learning run-time estimator
    (:meth:`estimates_changed`): a list a scheduler took from ``jobs`` is valid while
    :attr:`estimates_epoch` is unchanged (an estimate fixed at a job's arrival is written into it
    in place).

    :param sim: the simulator it shows.
    """

    FIXED = ("cluster", "state", "window", "speeds", "speed_model", "gang_rule", "preemption_min_run_min",
             "start_time_min", "queue", "jobs", "declared_min", "declared_best_min", "best_speed",
             "start_min", "declared_end_min", "gang_speed", "job_gpus")
    BOUND = ("hold_would_dead_stall", "declared_left_min", "resume_cost_min", "declared_run_min",
             "is_running", "running_indices", "preemptible")
    """The simulator's own read-only answers, bound once per run (no frame of the view's on the
    hot path)."""
    TAKEN = (*FIXED, *BOUND)
    __slots__ = ("_run", "_sim", *TAKEN)

    cluster: Cluster
    state: ClusterState
    queue: deque[int]
    jobs: Sequence[DeclaredJob]

    def __init__(self, sim: ShownSimulator):
        object.__setattr__(self, "_sim", sim)
        self.refresh()

    def refresh(self) -> None:
        """Take the run's fixed parts again (the simulator calls it when a run starts)."""
        sim, put = self._sim, object.__setattr__
        run = sim.run_state
        rec, life = run.record, sim.lifecycle
        put(self, "_run", run)
        run.watcher = self
        for name in ("cluster", "window", "speeds", "speed_model", "gang_rule", "preemption_min_run_min"):
            put(self, name, getattr(sim.setup, name))
        put(self, "start_time_min", run.start_time_min)
        put(self, "queue", run.queue)
        self._take_declared()
        put(self, "state", ReadOnlyState(run.state))
        for name in ("start_min", "declared_end_min", "gang_speed"):
            put(self, name, rec.readonly[name])
        put(self, "job_gpus", rec.job_gpus)
        for name in ("hold_would_dead_stall", "is_running", "running_indices"):
            put(self, name, getattr(run, name))
        for name in ("declared_left_min", "resume_cost_min", "declared_run_min", "preemptible"):
            put(self, name, partial(getattr(life, name), run))

    def _take_declared(self) -> None:
        run, put = self._run, object.__setattr__
        for name in ("declared_min", "declared_best_min", "best_speed"):
            frozen = getattr(run, name).view()
            frozen.flags.writeable = False
            put(self, name, frozen)
        put(self, "jobs", run.declared_jobs)

    def estimates_changed(self) -> None:
        """The run-time estimator learned (the run state calls it when the estimator's epoch
        moves): take the declared times and the declared jobs again, so every read after it sees
        the new estimates."""
        self._take_declared()

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"the scheduler's view is read-only (cannot set '{name}')")

    def __reduce__(self):
        """A copy of a view is the view of the copied simulator."""
        return _copied_view, (self._sim,)

    # Plain reads of the simulator's counters (C-level getters: the observation reads them at
    # every step).
    time_min = property(attrgetter("_run.time_min"), doc="The clock (minutes).")
    done = property(attrgetter("_run.done"), doc="Whether the run is over.")
    epoch = property(attrgetter("_run.epoch"),
                     doc="Changes at every completion and every disruption (see the module docstring).")
    plan_epoch = property(attrgetter("_run.disruptions"),
                          doc="Changes at every disruption: a failure, a repair, a preemption a "
                              "migration.")
    jobs_completed = property(attrgetter("_run.jobs_completed"), doc="Jobs completed so far.")
    rounds = property(attrgetter("_run.rounds"),
                      doc="The round mechanism's state (:mod:`gpusched.core.rounds.mechanism`; read "
                          "it, never change it), or ``None`` for a run without rounds.")
    phases = property(attrgetter("_run.phases"),
                      doc="The phase mechanism's state (:mod:`gpusched.core.phase_mechanism`: each "
                          "job's current phase; read it, never change it), or ``None``.")
    estimates_epoch = property(attrgetter("_run.estimates_epoch"),
                               doc="Changes whenever the run-time estimator learned (see "
                                   ":meth:`estimates_changed`).")

    # ------------------------------------------------------------ jobs, as declared
    @property
    def prices(self) -> np.ndarray | None:
        """USD per GPU-hour of each GPU (NaN: no price), or ``None`` (:mod:`gpusched.core.prices`)."""
        return self._sim.setup.gpu_price_usd_per_hour

    @property
    def run_times_declared(self) -> bool:
        """Whether run times are declared or predicted at all (``False`` only under
        ``workload.declared_run_time: none``, where every declared run time is NaN)."""
        return self._sim.run_state.estimator.declares

    def declared_basis(self, indices: Sequence[int]) -> np.ndarray:
        """Per job, how many completed jobs its run time was predicted from (a learning
        estimator's :attr:`~gpusched.core.history_estimator.HistoryEstimator.basis`; 0 for its
        prior), or -1 where the run time is declared, not predicted (int64)."""
        basis = self._sim.run_state.estimator.basis
        if basis is None:
            return np.full(len(indices), -1, dtype=np.int64)
        return basis[np.asarray(indices, dtype=np.int64)]

    def attained_service_gpu_min(self, indices: Sequence[int]) -> np.ndarray:
        """GPU-minutes each job has held GPUs so far, over all its runs (Tiresias's attained
        service): the one definition every order and observation reads."""
        return self._run.attained_service_gpu_min(indices)

    def stopped(self, indices: Sequence[int]) -> np.ndarray:
        """Per job, whether it ever stopped (a failure, a preemption or a migration)."""
        lives = self._run.record.lives
        return np.zeros(len(indices), dtype=bool) if lives is None else lives.stopped[list(indices)]

    # ------------------------------------------------------------ the queue
    @property
    def head_job(self) -> DeclaredJob | None:
        """The job at the head of the queue (as declared), or ``None`` when the run is over."""
        queue = self.queue
        if not queue or self._run.done:
            return None
        return self.jobs[queue[0]]

    def window_indices(self) -> list[int]:
        """Arrival indices of the window's jobs, in arrival order."""
        return list(islice(self.queue, self.window))

    def window_jobs(self) -> list[DeclaredJob]:
        """The window's jobs (as declared), in arrival order."""
        jobs = self.jobs
        return [jobs[i] for i in self.window_indices()]

    @property
    def arrivals_left(self) -> int:
        """Jobs that have not arrived yet."""
        return self._run.arrivals_left

    # ------------------------------------------------------------ running jobs
    @property
    def running_count(self) -> int:
        """Jobs running now."""
        return len(self._run.running)

    def run_restore_min(self, indices: np.ndarray) -> np.ndarray | float:
        """The restore of each job's current run (minutes; 0.0 when no job ever stopped)."""
        lives = self._run.record.lives
        return 0.0 if lives is None else lives.current_restore_min[indices]

    # ------------------------------------------------------------ what every rule derives
    def left_best_min(self, idx: int) -> float:
        """A waiting job's declared remaining run time on the best GPU it could get (minutes): its
        restore still to come plus its declared remaining work at its best speed. The remaining
        time of ``srtf`` and of the orders of urgency, and a running job's counterpart is
        :meth:`running_left_best_min`."""
        return self.resume_cost_min(idx) + self.declared_left_min(idx) / float(self.best_speed[idx])

    def running_left_best_min(self, indices: np.ndarray) -> np.ndarray:
        """Running jobs' declared remaining run time on the best GPU they could get (minutes), on
        the scale of :meth:`left_best_min`: what remains of their restore plus their declared work
        left (their declared end less now less that restore, at their gang's speed) at their best
        speed. A running job and the same job preempted rank alike (the preempted one a restore
        later)."""
        now = self.time_min
        restore_left = np.maximum(self.start_min[indices] + self.run_restore_min(indices) - now, 0.0)
        left = np.maximum(self.declared_end_min[indices] - now - restore_left, 0.0)
        return left * self.gang_speed[indices] / self.best_speed[indices] + restore_left

    def may_stop_from_min(self, indices: np.ndarray) -> np.ndarray:
        """When each running job may first be preempted or moved (minutes): the start of its run
        plus its restore plus ``preemption_min_run_min`` (the simulator's guard,
        :meth:`preemptible`, refuses earlier ones)."""
        return self.start_min[indices] + self.run_restore_min(indices) + self.preemption_min_run_min

    def gang_of(self, job: DeclaredJob, action: Action, state: ClusterState | None = None) -> tuple[int, ...]:
        """The GPUs a placement's answer for ``job`` takes on ``state`` (the view's by default; a
        masked state may be given): the gang the gang rule forms at a GPU index, or a gang given
        whole; ``()`` for ``HOLD`` or where the job does not fit."""
        state = self.state if state is None else state
        if isinstance(action, int | np.integer):
            return () if int(action) < 0 else state.gang_for(job, int(action))
        gang = tuple(int(g) for g in action)
        return gang if state.can_place(job, gang) else ()

    def running_by_declared_end(self) -> list[tuple[float, int]]:
        """The running jobs as (declared end in minutes, arrival index), soonest first."""
        return ReleaseTimeline(self).releases

    def gpu_release_min(self) -> tuple[list[float], list[float]]:
        """Minutes until each GPU's first and last running job ends by their declared times."""
        return gpu_release_min(self)

    def release_timeline(self) -> ReleaseTimeline:
        """The running jobs released at their declared ends (:mod:`gpusched.core.releases`): the
        one replay every plan around the running jobs reads."""
        return ReleaseTimeline(self)

    def gpu_down(self) -> np.ndarray:
        """Per GPU, whether its node is down; read-only."""
        return self._run.gpu_down()

    # ------------------------------------------------------------ requests and forks
    def request_wakeup(self, t_min: float) -> None:
        """Ask for a decision at ``t_min`` (minutes; if it is later than now): a policy that will
        want to act then, with nothing else happening (a job that becomes preemptible), asks for
        it."""
        self._run.request_wakeup(t_min)

    def request_event_decisions(self) -> None:
        """Ask to decide at every event of this run, even while the queue is empty (a policy that
        moves running jobs when GPUs free up; then ``decide`` may answer ``HOLD`` or ``Migrate``
        with an empty queue). It lasts until the run is reset; a fork does not inherit it."""
        self._run.decide_at_events = True

    def restore_min_on(self, job_idx: int, gpus: Sequence[int]) -> float:
        """Minutes the job would spend restoring if it moved to ``gpus`` (the restore model's:
        what a migration there costs before it progresses)."""
        return self._sim.setup.restore.move_cost_min(self._sim.run_state.jobs[job_idx], gpus)

    def fork(self) -> ShownSimulator:
        """A new simulator that knows what the view shows: the arrived jobs, their declared run
        times taken as true, and no failure to come."""
        return self._sim.fork(arrived_only=True)

    def clairvoyant_fork(self, horizon_min: float | None = None) -> ShownSimulator:
        """The one door to the truth: a copy of the whole run, future arrivals, true durations
        and failures included. For planners meant to be clairvoyant (bounds) only.

        :param horizon_min: the copy's run ends at this time (minutes; ``None``: at the run's
            own end), for a planner whose rollouts look only so far ahead."""
        return self._sim.fork(horizon_min=horizon_min)


def _copied_view(sim: ShownSimulator) -> SchedulerView:
    """A view of ``sim`` whose fixed parts are taken at their first use (``sim`` may still be
    being copied)."""
    view = object.__new__(_CopiedView)
    object.__setattr__(view, "_sim", sim)
    return view


class _CopiedView(SchedulerView):
    """A copied view before its first read of a fixed part: it takes them from its copied
    simulator then and becomes a plain :class:`SchedulerView`, whose reads pass through no
    ``__getattr__`` hook."""

    __slots__ = ()

    def __getattr__(self, name: str):
        if name in SchedulerView.TAKEN or name == "_run":
            self.refresh()
            object.__setattr__(self, "__class__", SchedulerView)
            return object.__getattribute__(self, name)
        raise AttributeError(f"'SchedulerView' object has no attribute '{name}'")


class Placement(Protocol):
    """A FIFO placement: where a job it is given goes (a GPU index, a gang, or ``HOLD``). It must
    not change the state. One that reads more than the state (the clock, the speed table) also
    defines ``bind(view)``."""

    name: str

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        """The placement for ``job``."""
        ...


class Scheduler(Protocol):
    """A scheduler: ``bind(view)`` once per run, then ``decide(view)`` at every decision."""

    name: str

    def bind(self, view: SchedulerView) -> None:
        """Start a run on ``view`` (forget the previous run's plans)."""
        ...

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        """The window slot and the action for it (``(0, HOLD)`` to wait)."""
        ...


class PlacementScheduler:
    """A FIFO placement as a :class:`Scheduler`: it places the head job (slot 0).

    :param placement: the placement.
    """

    def __init__(self, placement: Placement):
        self.placement = placement
        self.name = getattr(placement, "name", str(placement))
        self._bind = getattr(placement, "bind", None)
        self._state: ClusterState | None = None
        self._jobs: Sequence[DeclaredJob] = ()
        self._queue: deque[int] = deque()
        self._estimates = -1

    def bind(self, view: SchedulerView) -> None:
        if self._bind is not None:
            self._bind(view)
        self._state, self._jobs, self._queue = view.state, view.jobs, view.queue
        self._estimates = view.estimates_epoch

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        if view.state is not self._state or view.estimates_epoch != self._estimates:
            self.bind(view)  # a run it was not bound to, or new estimates
        return 0, self.placement.select(self._state, self._jobs[self._queue[0]])


def as_scheduler(policy: Scheduler | Placement) -> Scheduler:
    """``policy`` as a :class:`Scheduler`: itself if it decides, else its placement of the head job."""
    return policy if hasattr(policy, "decide") else PlacementScheduler(policy)
