"""The event-driven simulator: the one place that defines the cluster dynamics.

**Queue.** Jobs wait in a queue in arrival order. The scheduler may start any of the first
``window`` queued jobs (the *window*; ``window = 1``, the default, is a strict FIFO queue). At every
decision point the simulator asks the policy for a window slot and a placement, or HOLD:

- a GPU index places the slot's job there, and for a multi-GPU job also on other GPUs of the same
  node (see the gang rule in :mod:`gpusched.core.cluster`; with ``cluster.gang_placement: spread``,
  of other nodes of its GPU model too, :mod:`gpusched.core.gang`); a tuple of GPU indices names the
  whole gang; placing does not advance time; a job started ahead of an earlier arrival that still
  waits is *backfilled*;
- HOLD leaves the queue as it is and advances the clock to the next event (an arrival, a completion,
  a node failure or repair, or a time a policy asked to decide again,
  :meth:`SchedulerView.request_wakeup <gpusched.core.view.SchedulerView.request_wakeup>`). A GPU
  where the job does not fit counts as a HOLD and is recorded as a *misroute*, with its cause
  (:meth:`~gpusched.core.cluster.ClusterState.misroute_cause`: ``capacity``, ``occupied`` or
  ``gang``).

A policy written for the FIFO queue (``select(state, job)``) answers for the head job (slot 0); a
queue-aware policy (``decide(view)``) answers with ``(slot, action)``. Every policy sees the run
through its read-only view (:mod:`gpusched.core.view`), never the simulator.

**Speed and declared run times.** A job's ``duration_min`` is its run time at speed 1.0 (on the
reference GPU). With a speed table (:mod:`gpusched.core.speed`) it runs for ``duration_min / speed``
on its gang, at the speed of its slowest GPU. What the scheduler knows of a job's run time is its
declared time, the run-time estimator's (:mod:`gpusched.core.estimator`; a job carries its true run
time only): rules and agents read declared times, the simulator runs the true ones.

**Time to result.** A job's *ideal run time* is ``duration_min / best speed``, where the best speed
is the fastest that any gang of this cluster that could ever hold the job offers it (its type's
speed on the fastest GPU model among the nodes that could hold it when empty). A job's completion
time (JCT) is its wait plus its run; its *speed loss* is ``run - ideal run`` (never negative): the
minutes it lost by running on GPUs slower than the best this cluster could give it. Without a speed
table the ideal run time is the duration, and the speed loss is 0.

**Idle GPUs while jobs wait.** While the queue is not empty, the simulator integrates the number of
idle GPUs (running no job) over time. The integral is *stalled* while some window job would have
fitted somewhere and the policy held (the policy's fault; this time is ``stall_min``), and *blocked*
while no window job fits anywhere (fragmentation, or a real lack of capacity).

**Failures and checkpoints** (optional scenario keys ``failures:`` and ``checkpoint:``; see
:mod:`gpusched.core.failures`). Nodes fail and are repaired at times drawn by a seeded process of
their own, the same under every policy. When a node fails, every job on it stops: it keeps the
progress of its last checkpoint (its last saved state if its type does not checkpoint: where it was
last preempted, else nothing), goes back to the queue at its original arrival position with its
remaining work, and the node leaves every fit until it is repaired (:attr:`ClusterState.down
<gpusched.core.cluster.ClusterState>`). Progress is counted in reference-speed minutes: a job that
resumes on GPUs of another speed runs its remaining work at their speed, after ``restore_min`` of
loading its state; each resumption pays it once. The work thrown away is the job's *lost* work.

**Preemption.** A queue-aware policy may also answer ``(slot, Preempt(job))`` (:class:`Preempt`):
the running job with that arrival index stops at once, saves its progress (nothing is lost), goes
back to the queue at its arrival position, and pays ``restore_min`` when it resumes. Like a
placement, a preemption does not advance time. A job may be preempted only once it has run
``preemption_min_run_min`` (default 10) since it last started or resumed, not counting its restore,
so it is never preempted twice within that time and every run between two preemptions makes progress
(:meth:`SchedulerView.preemptible <gpusched.core.view.SchedulerView>`).

**Migration.** A queue-aware policy may also answer ``(slot, Migrate(job, gang))``
(:class:`Migrate`): the running job with that arrival index saves its progress at once, as a
preemption does (nothing is lost), frees its GPUs and resumes on ``gang`` at the same instant,
without going back to the queue; it pays ``restore_min`` there before it progresses again. The gang
must fit once the job's own GPUs are freed. The guard of preemption applies: a job may move only
once it has run ``preemption_min_run_min`` since it last started, resumed or moved, not counting its
restore, so it is never moved twice within that time. An invalid migration raises ``ValueError``;
like a preemption, a migration does not advance time and is a disruption (it bumps the view's
epochs). A policy that moves jobs may ask to decide at every event even while the queue is empty
(:meth:`~gpusched.core.view.SchedulerView.request_event_decisions`): GPUs that free up then can take
a running job although no job waits.

**Batched actions.** A queue-aware policy may also answer ``(slot, Batch(stop, move, start))``
(:class:`~gpusched.core.actions.Batch`): several changes decided at once, applied at one instant in
this order: every preemption of ``stop`` (in the order given), then every migration of ``move`` (in
the order given), then every start of ``start`` (each ``(arrival index, gang)`` of a queued job, in
the order given, each gang fitting once the changes before it are applied). Each change follows the
rules of its single form (the preemption guard, a gang that fits), and the whole batch is one
decision that bumps the view's epochs once (when it stops or moves a job) or not at all (starts
only). It gives the same run as its changes answered one decision at a time at that instant. After
it the simulator advances to the next decision point as after a placement. An invalid change raises
``ValueError``.

**A job's whole life.** A job that stopped and resumed has several runs. Its completion time is from
its arrival to its final end; its wait is every minute it spent queued; its run time (``run_min``)
every minute it held GPUs, restores and lost work included; its start is its first start.

**Events.** There are no ticks. Time is in minutes (float). Every future event is one entry of one
heap, ``(time, rank, sequence, kind, payload)`` (:mod:`gpusched.core.events`), and each kind has a
handler. At one instant completions are handled first, then wakeups, then node failures and repairs,
then arrivals, then decisions; the events of one kind at one instant go to its handler together. A
new kind of event is a handler and a rank (:meth:`EventKinds.register
<gpusched.core.events.EventKinds.register>`).

**End of a run.** A run ends when every job has finished, at ``horizon_min``, or on a dead stall
(nothing running, no arrival left, no node waiting for its repair, and the policy holds). A run with
failures and no ``horizon_min`` also ends at its safety horizon (end reason ``safety_horizon``;
:func:`gpusched.core.failures.safety_horizon_min`). Jobs that have not finished are reported as
unfinished, and their waits count up to the end time; a job that had not yet arrived at
``horizon_min`` is reported as unfinished with a wait of 0 (a wait is never negative).

**Components.** :class:`Simulator` is the loop: :meth:`Simulator.step`, :meth:`Simulator.fork` and
:meth:`Simulator.result`. Its fixed parts are :mod:`gpusched.core.run_setup`; everything a step
changes is one run state (:mod:`gpusched.core.run_state`: the clock, the cluster state, the queue,
the per-job record, the event heap :mod:`gpusched.core.events`, the integrals and the run's log),
copied in one place when the simulator forks; the transitions of a job and the handlers of events
are :mod:`gpusched.core.lifecycle`, which reads and writes the run state; the metrics, the jobs
table and the packaging are :mod:`gpusched.core.accounting`. The integrals and the reward are
updated at every jump of the clock, in the order the golden files fix. The mechanisms behind one
interface each are the speed model, the gang rule, the restore model and the run-time estimator
(when a learning estimator's ``epoch`` moves, the run state re-reads the declared times and the view
drops what it cached from them). Schedulers read the run through :attr:`Simulator.view`
(:mod:`gpusched.core.view`), the one read API, read-only in fact; a plan around the running jobs
replays their releases at their declared ends through
:class:`~gpusched.core.releases.ReleaseTimeline`, the one replay.

The simulator can be driven step by step (:meth:`Simulator.step`, used by the Gymnasium environment)
or run to the end with a policy (:meth:`Simulator.run`)."""

from __future__ import annotations

from itertools import islice

import numpy as np
import pandas as pd

from gpusched.core import report
from gpusched.core.accounting import BSLD_FLOOR_MIN
from gpusched.core.actions import HOLD, Action, Batch, Migrate, Preempt
from gpusched.core.cluster import Cluster
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.events import ARRIVAL, COMPLETION, NODE, WAKEUP, EventKinds
from gpusched.core.jobs import Job
from gpusched.core.lifecycle import Lifecycle
from gpusched.core.result import Result
from gpusched.core.run_setup import DEFAULT_PREEMPTION_MIN_RUN_MIN, RunSetup
from gpusched.core.view import PlacementScheduler, SchedulerView, as_scheduler
from gpusched.limits import SAFETY_MAX_NODE_FAILURES

__all__ = ["BSLD_FLOOR_MIN", "DEFAULT_PREEMPTION_MIN_RUN_MIN", "HOLD", "Action", "Batch", "Migrate",
           "Preempt", "Simulator"]

_CHANGES = (Preempt, Migrate, Batch)
"""The types of an action on running jobs (or several jobs at once)."""


class Simulator:
    """Run one workload on one cluster: the loop (see the module docstring).

    Its fixed parts are :attr:`setup` (:class:`~gpusched.core.run_setup.RunSetup`, whose
    parameters ``options`` are), its state :attr:`run_state`
    (:class:`~gpusched.core.run_state.RunState`): read them there (``sim.setup.window``,
    ``sim.run_state.time_min``); a scheduler reads :attr:`view`. Slotted and without an attribute
    hook, so that CPython specialises every read of its five attributes on the hot path.

    :param cluster: the cluster topology.
    :param jobs: the workload (any order; ids must be unique).
    :param options: the run's options (:class:`~gpusched.core.run_setup.RunSetup`).
    """

    __slots__ = ("setup", "lifecycle", "event_kinds", "run_state", "view")

    def __init__(self, cluster: Cluster, jobs: list[Job], **options):
        self.setup = setup = RunSetup(cluster, jobs, **options)
        """The run's fixed parts (:mod:`gpusched.core.run_setup`)."""
        self.lifecycle = life = Lifecycle(setup.speed_model, setup.gang_rule, setup.restore,
                                          setup.preemption_min_run_min,
                                          SAFETY_MAX_NODE_FAILURES if setup.safety_horizon else None)
        """The transitions of a job and the handlers of events (:mod:`gpusched.core.lifecycle`)."""
        self.event_kinds = EventKinds()
        """The kinds of event of this simulator (:mod:`gpusched.core.events`; a fork takes a copy)."""
        for rank, (kind, handler) in enumerate(((COMPLETION, life.on_completions), (WAKEUP, life.on_wakeups),
                                                (NODE, life.on_node_events), (ARRIVAL, life.on_arrivals))):
            self.event_kinds.register(kind, rank, handler)
        for mechanism in setup.mechanisms:  # e.g. rounds (gpusched.core.rounds.mechanism)
            mechanism.install(self.event_kinds, life)
        self.reset()

    def reset(self) -> None:
        """Start the run over and advance to the first decision point."""
        self.run_state = run = self.setup.start(self.event_kinds)
        """Everything a step changes (:mod:`gpusched.core.run_state`)."""
        for mechanism in self.setup.mechanisms:
            mechanism.start(run)
        self.lifecycle.on_arrivals(run, run.time_min)
        view = getattr(self, "view", None)  # set at the first reset
        if view is None:
            self.view = SchedulerView(self)
            """What schedulers see of this run (:mod:`gpusched.core.view`), the one read API."""
        else:
            view.refresh()
        self._advance_to_decision()

    def fork(self, arrived_only: bool = False, horizon_min: float | None = None) -> Simulator:
        """An independent copy of the run so far, for lookahead search (planners, oracles): it
        shares the setup and the mechanisms and copies the run state
        (:meth:`RunState.copy <gpusched.core.run_state.RunState.copy>`), so stepping either one
        leaves the other as it was.

        :param arrived_only: forget the jobs that have not arrived yet: the copy knows what a
            real scheduler knows now (the cluster, the running jobs and the queue, with their
            declared run times, which it then takes as their run times), and its run ends when
            those jobs are done; it foresees no node failure and no repair.
        :param horizon_min: the copy's run ends at this time (minutes, not before the clock now;
            end reason ``horizon``) unless the run's own horizon is earlier
            (:meth:`RunSetup.until <gpusched.core.run_setup.RunSetup.until>`); ``None``: it runs
            to the run's own end.
        """
        if horizon_min is not None and horizon_min < self.run_state.time_min:
            raise ValueError(f"a fork's horizon_min ({horizon_min:g}) is before the clock "
                             f"({self.run_state.time_min:g})")
        twin = object.__new__(Simulator)
        twin.setup = self.setup if horizon_min is None else self.setup.until(horizon_min)
        twin.lifecycle = self.lifecycle
        twin.event_kinds = self.event_kinds.copy()
        twin.run_state = self.run_state.copy(twin.event_kinds, arrived_only)
        twin.run_state.horizon_min = twin.setup.horizon_min
        twin.view = SchedulerView(twin)
        return twin

    # ------------------------------------------------------------------ driving
    def run(self, policy) -> Result:
        """Run from the start to the end with ``policy``: a scheduler (``bind(view)`` once, then
        ``decide(view)`` at every decision) or a FIFO placement (``select(state, job)`` for the
        head job); see :mod:`gpusched.core.view`. The policy sees :attr:`view`, never the
        simulator.
        """
        self.reset()
        scheduler = as_scheduler(policy)
        view, run = self.view, self.run_state
        scheduler.bind(view)
        step = self.step
        if isinstance(scheduler, PlacementScheduler) and not run.estimator.learns:
            # the head job's placement, without a tuple (the declared job list never changes)
            select, state, jobs, queue = scheduler.placement.select, view.state, view.jobs, view.queue
            while not run.done:
                step(select(state, jobs[queue[0]]))
        else:
            decide = scheduler.decide
            while not run.done:
                slot, action = decide(view)
                step(action, slot)
        return self.result(policy_name=getattr(policy, "name", str(policy)))

    def step(self, action: Action, slot: int = 0) -> bool:
        """Apply one decision, then advance to the next decision point.

        :param action: a GPU index, a tuple of GPU indices (the gang), :data:`HOLD`,
            :class:`Preempt`, :class:`Migrate` or :class:`Batch` (then ``slot`` is not used).
        :param slot: the window slot of the job the action is for (0: the head job).
        :return: whether the job was placed (for a preemption, a migration or a batch: True, the
            changes were applied).
        :raises ValueError: for a preemption or a migration that the rules refuse (see the module
            docstring), or a batch with a change that is not possible when its turn comes.
        """
        run = self.run_state
        if run.done:
            raise RuntimeError("the run is over; call reset()")
        if isinstance(action, _CHANGES):
            run.decisions += 1
            life = self.lifecycle
            if isinstance(action, Preempt):
                life.preempt(run, int(action.job))
            elif isinstance(action, Migrate):
                life.migrate(run, int(action.job), tuple(int(g) for g in action.gang))
            else:
                life.apply(run, action)
                for mechanism in self.setup.mechanisms:
                    mechanism.applied(run, action)
                if action.start:
                    self._advance_to_decision()
            return True
        queue = run.queue
        if not queue:  # a decision at an event with an empty queue (decide_at_events)
            if not (isinstance(action, int | np.integer) and int(action) == HOLD):
                raise ValueError(f"the queue is empty: only HOLD, Preempt or Migrate apply (got {action!r})")
            self._advance_to_decision()
            return False
        window = self.setup.window
        if not 0 <= slot < min(window, len(queue)):
            raise ValueError(f"window slot {slot} is outside 0..{min(window, len(queue)) - 1}")
        run.decisions += 1
        life = self.lifecycle
        shown = run.declared_jobs  # the jobs the policy was given: their fit masks are cached
        gpus = life.resolve(run, shown[queue[slot]], action)
        if gpus:
            life.start(run, queue[slot], gpus, slot)
            self._advance_to_decision()
            return True
        self._hold(shown[queue[0]])
        return False

    def _hold(self, job: DeclaredJob) -> None:
        run = self.run_state
        state = run.state
        next_t = run.next_min(True)  # the queue has a head
        if next_t is None or (not run.running and run.hold_would_dead_stall()):
            run.finish("dead_stall")
            return
        mask = state.fit_mask(job)  # usually cached already (the policy just asked for it)
        could_fit = bool(mask[mask.argmax()])  # some GPU fits (argmax: no Python-level wrapper)
        window = self.setup.window
        if not could_fit and window > 1:
            fits, jobs = state.fits_somewhere, run.declared_jobs
            could_fit = any(fits(jobs[i]) for i in islice(run.queue, 1, window))
        now, horizon = run.time_min, run.horizon_min
        until = next_t if horizon is None else min(next_t, horizon)
        idle = state.idle_gpus - state.down_gpus  # a down GPU is not idle capacity
        run.integrals.hold(until - now, idle, could_fit)
        run.log.holds.append((now, until, job.id, could_fit))
        self._jump_to(next_t)
        if run.queue or run.done:
            return
        self._advance_to_decision()

    def _advance_to_decision(self) -> None:
        """Move the clock until the queue has a head job (with ``decide_at_events``: to the
        next event), or end the run."""
        run = self.run_state
        while not run.queue and not run.done:
            next_t = run.next_min(False)
            if next_t is None or (not run.running and run.next_arrival >= len(run.arrival_min)):
                run.finish("completed")
                return
            self._jump_to(next_t)
            if run.decide_at_events:
                return

    def _jump_to(self, t: float) -> None:
        """Accumulate the integrals up to ``t`` and handle every event at ``t``, by kind in the
        order of :data:`gpusched.core.events.EVENT_ORDER`."""
        run = self.run_state
        horizon = run.horizon_min
        end = horizon is not None and t > horizon
        if end:
            t = horizon
        run.advance_clock(t)
        if end:
            run.finish("safety_horizon" if self.setup.safety_horizon else "horizon", horizon)
            return
        run.events.run_due(run, t)

    def jobs_table(self) -> pd.DataFrame:
        """One row per submitted job (:func:`gpusched.core.report.jobs_table`)."""
        return report.jobs_table(self.run_state)

    def metrics(self) -> dict[str, float]:
        """The per-run metrics (:func:`gpusched.core.report.metrics`)."""
        return report.metrics(self.run_state)

    def result(self, policy_name: str = "", scenario_name: str = "", seed: int | None = None) -> Result:
        """Package the finished run (:func:`gpusched.core.report.package`)."""
        return report.package(self.run_state, policy_name, scenario_name, seed)
