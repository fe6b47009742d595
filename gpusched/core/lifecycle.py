"""A job's lifecycle: start, complete, stop (a failure or a preemption), resume and migrate, and
the handlers of the simulator's kinds of event.

:class:`Lifecycle` holds the mechanisms a transition asks (the speed model,
:mod:`gpusched.core.speed_model`; the gang rule, :mod:`gpusched.core.gang`; the restore model,
:mod:`gpusched.core.restore`; the preemption guard) and nothing of a run: each method reads and
writes the run state it is given (:mod:`gpusched.core.run_state`: the cluster state, the per-job
record, the event heap, the integrals and the log) together, by the rules of
:mod:`gpusched.core.simulator`'s docstring. A transition that disrupts the run (a failure, a
preemption, a migration) ends with :meth:`RunState.disrupted
<gpusched.core.run_state.RunState.disrupted>`, which bumps the view epoch every cached plan
checks. A migration is a stop that keeps the job off the queue and a resumption on its new gang
at the same instant (one stop and one resume in the run's log). :meth:`Lifecycle.apply` applies
a batch of changes decided at once (:class:`~gpusched.core.actions.Batch`).

On the hot path each start, completion and arrival is one frame of this class: a queued job
leaves the queue inside :meth:`Lifecycle.start`, a completion is handled inside
:meth:`Lifecycle.on_completions`, and :meth:`Lifecycle.on_arrivals` walks the arrival cursor
itself.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Sequence
from heapq import heappush as _heappush

import numpy as np

from gpusched.core.actions import HOLD, Action, Batch
from gpusched.core.cluster import EPS
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.events import ARRIVAL, COMPLETION, EVENT_ORDER, NODE
from gpusched.core.failures import NodeFailures
from gpusched.core.gang import GangRule
from gpusched.core.readonly import QUEUE_OPS
from gpusched.core.restore import RestoreModel
from gpusched.core.run_state import RunState
from gpusched.core.speed_model import SpeedModel

_extend, _popleft, _delete, _insert = QUEUE_OPS
_ARRIVAL_RANK = EVENT_ORDER.index(ARRIVAL)
"""The arrival's rank (:data:`gpusched.core.events.EVENT_ORDER`), pushed without a lookup."""
_GPU_INDEX = (int, np.integer)
"""The types of an action that names one GPU."""


class Lifecycle:
    """The transitions of a job and the handlers of events (see the module docstring).

    :param speed_model: the speed model.
    :param gang_rule: the gang rule.
    :param restore: the restore model.
    :param preemption_min_run_min: minutes a job runs after it (re)starts, not counting its
        restore, before it may be preempted or moved.
    :param max_node_failures: end the run (``safety_horizon``) after this many node failures, or
        ``None`` never.
    """

    def __init__(self, speed_model: SpeedModel, gang_rule: GangRule, restore: RestoreModel,
                 preemption_min_run_min: float, max_node_failures: int | None):
        self.speed_model = speed_model
        self.gang_rule = gang_rule
        self.restore = restore
        self.preemption_min_run_min = preemption_min_run_min
        self.max_node_failures = max_node_failures
        self._deferred: set[int] | None = None
        """Inside :meth:`apply`: the jobs whose completions its one pass drops (see
        :meth:`_stop_and_move`)."""
        self.phases = None
        """The phase mechanism (:mod:`gpusched.core.phase_mechanism`), set at its install when some
        jobs change their speed as they run; ``None``: every job runs at one speed per gang."""
        self.colocation = None
        """The co-location hook (:class:`gpusched.core.rounds.pairs.CoLocation`), set by the round
        mechanism: a pair member's run goes at its speed times its pair factor, and the second
        member of a pair rides on the first one's GPUs; ``None``: every job runs alone."""

    # ------------------------------------------------------------ transitions
    def start(self, run: RunState, job_idx: int, gpus: tuple[int, ...], slot: int = -1) -> None:
        """Start (or resume, after a stop) the job on ``gpus`` (a gang that fits): its true and
        declared ends there.

        :param slot: the window slot the job leaves the queue from, or -1 for a job that is not
            queued (a migration).
        """
        if slot >= 0:
            queue = run.queue
            if slot:
                _delete(queue, slot)
            else:
                _popleft(queue)
        job, rec = run.jobs[job_idx], run.record
        lives = rec.lives
        if slot >= 0 and (lives is None or not lives.stopped[job_idx]):
            rec.start_slot[job_idx] = slot  # a resumption keeps its first start's slot
        state = run.state
        colocation = self.colocation
        factor, rides = (1.0, False) if colocation is None else colocation.starting(run, job_idx)
        if not rides:  # a pair's second member holds nothing of its own
            used = state.compute_used
            before = [float(used[g]) for g in gpus]
            state.place(job, gpus)
            run.integrals.on_util_change(used, gpus, before)
        now = run.time_min
        rec.start_min[job_idx] = now
        list.__setitem__(rec.job_gpus, job_idx, gpus)
        model = self.speed_model
        speed = 1.0 if model.uniform else model.of(job, gpus)  # uniform: every gang runs at 1.0
        if factor != 1.0:
            speed *= factor
        rec.gang_speed[job_idx] = speed  # fixed for the run: its gang's speed, its pair factor included
        phases = self.phases
        clock = None if phases is None else phases.clocks.get(job.id)
        if lives is not None and lives.stopped[job_idx]:  # a resumption
            restore_model = self.restore
            restore = (restore_model.move_cost_min(job, gpus) if slot < 0  # a migration
                       else restore_model.resume_cost_min(job, gpus))
            saved = float(lives.saved_min[job_idx])
            lives.current_restore_min[job_idx] = restore
            if clock is None:
                duration = restore + max(job.duration_min - saved, 0.0) / speed
                declared = restore + max(float(run.declared_min[job_idx]) - saved, 0.0) / speed
            else:  # each phase at its own speed
                duration, declared = phases.run_min(run, job_idx, clock, gpus, saved, restore,
                                                    max(float(run.declared_min[job_idx]) - saved, 0.0))
            run.log.resumes.append((now, job_idx, gpus, restore))
        elif clock is None:
            duration = job.duration_min / speed
            declared = run.declared_min[job_idx] / speed
        else:
            duration, declared = phases.run_min(run, job_idx, clock, gpus, 0.0, 0.0,
                                                float(run.declared_min[job_idx]))
        rec.run_min[job_idx] = duration
        rec.declared_end_min[job_idx] = now + declared
        _heappush(run.events.heap, (now + duration, 0, job_idx, COMPLETION, job_idx))  # push_completion
        run.running[job_idx] = None

    def resolve(self, run: RunState, job: DeclaredJob, action: Action) -> tuple[int, ...]:
        """The gang a placement asks for (a GPU index, a gang or :data:`HOLD`), or ``()`` for a
        HOLD or a gang where the job does not fit (recorded as a misroute, with its cause)."""
        rule, state = self.gang_rule, run.state
        if isinstance(action, _GPU_INDEX):
            gpu = int(action)
            if gpu == HOLD:
                return ()
            n_gpus = run.cluster.n_gpus
            if not 0 <= gpu < n_gpus:
                raise ValueError(f"policy chose GPU {gpu}, outside 0..{n_gpus - 1}")
            gang = rule.gang_for(state, job, gpu)
            if not gang:
                run.log.misroutes.append((run.time_min, job.id, gpu, state.misroute_cause(job, gpu)))
            return gang
        gang = tuple(map(int, action))
        if rule.can_place(state, job, gang):
            return gang
        n_gpus = run.cluster.n_gpus
        first = gang[0] if gang and 0 <= gang[0] < n_gpus else HOLD
        cause = state.misroute_cause(job, first) if first != HOLD else "gang"
        run.log.misroutes.append((run.time_min, job.id, first, cause))
        return ()

    def stop(self, run: RunState, job_idx: int, kind: str) -> None:
        """Stop a running job (``failure`` or ``preemption``): count its progress, keep what the
        restore model keeps, free its GPUs, and put it back in the queue at its arrival position.
        The caller drops its completion from the event heap."""
        self._end_run(run, job_idx, kind)
        queue = run.queue
        _insert(queue, bisect.bisect_right(queue, job_idx), job_idx)  # bisect.insort, on the read-only queue

    def _end_run(self, run: RunState, job_idx: int, kind: str) -> None:
        """End a running job's run for ``kind`` (``failure``, ``preemption`` or ``migration``):
        count its progress, keep what the restore model keeps, and free its GPUs."""
        rec = run.record
        lives, job, now = rec.ensure_lives(), run.jobs[job_idx], run.time_min
        gpus = rec.job_gpus[job_idx]
        start_min = float(rec.start_min[job_idx])
        speed = float(rec.gang_speed[job_idx])  # its run's speed (see start)
        colocation = self.colocation
        restore = float(lives.current_restore_min[job_idx])
        held = now - start_min
        saved = float(lives.saved_min[job_idx])
        phases = self.phases
        clock = None if phases is None else phases.clocks.get(job.id)
        if clock is None:
            done = max(held - restore, 0.0) * speed
        else:  # through the phases it crossed
            done = phases.done(clock, gpus, saved, max(held - restore, 0.0))
        progress = saved + done
        kept = self.restore.kept_min(job, kind, progress, saved)
        if kind == "preemption":
            lives.preemptions[job_idx] += 1
        elif kind == "migration":
            lives.migrations[job_idx] += 1
        else:
            lives.interruptions[job_idx] += 1
        lost = progress - kept
        lost_held = lost / speed if clock is None else phases.held_for(clock, gpus, kept, progress)
        if clock is not None:
            phases.stopped(run, job_idx, clock, kept)
        first_start = lives.first_start_min[job_idx]
        if first_start != first_start:  # NaN: its first run ends
            lives.first_start_min[job_idx] = start_min
        lives.stopped[job_idx] = True
        lives.held_min[job_idx] += held
        lives.work_min[job_idx] += done
        lives.lost_min[job_idx] += lost
        lives.lost_held_min[job_idx] += lost_held
        lives.ended_restore_min[job_idx] += min(restore, held)
        lives.ended_moved_restore_min[job_idx] += min(float(lives.current_moved_restore_min[job_idx]), held)
        lives.saved_min[job_idx] = kept
        lives.current_restore_min[job_idx] = 0.0
        lives.current_moved_restore_min[job_idx] = 0.0
        run.log.stops.append((now, job_idx, kind, start_min, gpus, lost, lost_held))
        state = run.state
        releases, heir = (True, -1) if colocation is None else colocation.ending(run, job_idx)
        if releases:
            before = [float(state.compute_used[g]) for g in gpus]
            state.release(job, gpus)
            run.integrals.on_util_change(state.compute_used, gpus, before)
        if heir >= 0:
            self._hand_over(run, heir, gpus)
        rec.start_min[job_idx] = np.nan
        rec.run_min[job_idx] = np.nan
        rec.declared_end_min[job_idx] = np.nan
        list.__setitem__(rec.job_gpus, job_idx, ())

    @staticmethod
    def _hand_over(run: RunState, heir: int, gpus: tuple[int, ...]) -> None:
        """A pair's holder has left its GPUs: the member still running on them takes them over in
        the cluster state (see :mod:`gpusched.core.rounds.pairs`)."""
        state = run.state
        used = state.compute_used
        before = [float(used[g]) for g in gpus]
        state.place(run.jobs[heir], gpus)
        run.integrals.on_util_change(used, gpus, before)

    def _drop_completions(self, run: RunState, victims: list[int]) -> None:
        """Forget the completions of jobs that stopped (inside :meth:`apply`, at the batch's end)."""
        deferred = self._deferred
        if deferred is None:
            run.events.drop(COMPLETION, victims)
        else:
            deferred.update(victims)
        for idx in victims:
            del run.running[idx]

    def _check_may_move(self, run: RunState, job_idx: int, verb: str) -> None:
        if not 0 <= job_idx < len(run.jobs) or not run.is_running(job_idx):
            raise ValueError(f"cannot {verb} job index {job_idx}: it is not running")
        if not self.preemptible(run, job_idx):
            raise ValueError(f"cannot {verb} job index {job_idx} yet: it has run less than "
                             f"{self.preemption_min_run_min:g} min since it last started")

    def preempt(self, run: RunState, job_idx: int, disrupt: bool = True) -> None:
        """Preempt a running job that may be preempted (see the simulator's docstring).

        :param disrupt: bump the view's epochs (a batch bumps them once, at its end).
        :raises ValueError: if it does not run, or may not be preempted yet.
        """
        self._check_may_move(run, job_idx, "preempt")
        self.stop(run, job_idx, "preemption")
        self._drop_completions(run, [job_idx])
        if disrupt:
            run.disrupted()

    def migrate(self, run: RunState, job_idx: int, gang: tuple[int, ...], disrupt: bool = True) -> None:
        """Move a running job that may be preempted to ``gang`` (see the simulator's docstring): it
        saves its progress, frees its GPUs and resumes on ``gang`` now, after its restore there.

        :param disrupt: bump the view's epochs (a batch bumps them once, at its end).
        :raises ValueError: if it does not run, may not move yet, or does not fit on ``gang`` once
            its own GPUs are freed (or ``gang`` is the gang it holds).
        """
        self._check_may_move(run, job_idx, "migrate")
        job, held = run.jobs[job_idx], run.record.job_gpus[job_idx]
        if sorted(gang) == sorted(held):
            raise ValueError(f"cannot migrate job index {job_idx} to {list(gang)}: it runs there already")
        if set(gang).isdisjoint(held) and not (job.cpu_milli or job.memory_mib):
            freed = run.state  # its own GPUs and node resources are not the gang's: the same fit
        else:
            freed = run.state.copy()
            freed.release(job, held)
        if not self.gang_rule.can_place(freed, job, gang):
            raise ValueError(f"cannot migrate job index {job_idx} to GPUs {list(gang)}: it does not fit "
                             "there once its own GPUs are freed")
        self._end_run(run, job_idx, "migration")
        self._drop_completions(run, [job_idx])
        self.start(run, job_idx, gang)
        lives = run.record.lives
        lives.current_moved_restore_min[job_idx] = lives.current_restore_min[job_idx]
        if disrupt:
            run.disrupted()

    def apply(self, run: RunState, batch: Batch) -> None:
        """Apply a batch of changes at one instant (see the simulator's docstring): every stop,
        then every move, then every start, each in the order given, then one disruption.

        :raises ValueError: if a change is not possible when its turn comes (the changes before
            it stay applied).
        """
        colocation = self.colocation
        if colocation is not None:
            colocation.batch(run, batch)
        if batch.stop or batch.move:
            self._stop_and_move(run, batch)
        for job_idx, gang in batch.start:
            job_idx, gang = int(job_idx), tuple(map(int, gang))
            queue = run.queue
            if job_idx not in queue:
                raise ValueError(f"cannot start job index {job_idx}: it is not queued")
            job = run.jobs[job_idx]
            if (colocation is None or not colocation.rides(run, job_idx, gang)) and \
                    not self.gang_rule.can_place(run.state, job, gang):
                raise ValueError(f"cannot start job index {job_idx} on GPUs {list(gang)}: it does not fit")
            self.start(run, job_idx, gang, queue.index(job_idx))
        if batch.stop or batch.move:
            run.disrupted()

    def _stop_and_move(self, run: RunState, batch: Batch) -> None:
        """A batch's stops, then its moves, each a full transition, with the completions of the jobs
        they stop dropped from the event heap in one pass at the end instead of one pass each.

        Only the completion each job had before the batch goes (a moved job's new one stays): the
        entries are picked by identity up front, and they stay in the heap, alive, until the pass.
        The heap then holds the same entries as after one pass per job, and since no two of them
        compare equal, it yields them in the same order.
        """
        victims = {int(i) for i in batch.stop} | {int(m.job) for m in batch.move}
        heap = run.events.heap
        stale = {id(e): e[4] for e in heap if e[3] == COMPLETION and e[4] in victims}
        self._deferred = done = set()
        try:
            for job_idx in batch.stop:
                self.preempt(run, int(job_idx), disrupt=False)
            for move in batch.move:
                self.migrate(run, int(move.job), tuple(map(int, move.gang)), disrupt=False)
        finally:  # a change that is refused leaves the ones before it applied, their completions gone
            self._deferred = None
            if done:
                heap[:] = [e for e in heap if stale.get(id(e), -1) not in done]
                heapq.heapify(heap)

    def fail_node(self, run: RunState, node: int) -> None:
        """Stop every job whose gang holds the node (they lose the progress since their last
        checkpoint) and take the node out of every fit."""
        holds, job_gpus = self.gang_rule.holds_node, run.record.job_gpus
        victims = sorted(i for i in run.running if holds(job_gpus[i], node))
        for idx in victims:
            self.stop(run, idx, "failure")
        self._drop_completions(run, victims)
        run.state.set_node_down(node, True)
        run.log.node_events.append((run.time_min, node, "failure"))
        run.disrupted()

    def repair_node(self, run: RunState, node: int) -> None:
        """The node is back in every fit."""
        run.state.set_node_down(node, False)
        run.log.node_events.append((run.time_min, node, "repair"))
        run.disrupted()

    # ------------------------------------------------------------ reads of the mechanisms
    def preemptible(self, run: RunState, job_idx: int) -> bool:
        """Whether the job runs now and has run ``preemption_min_run_min`` since it last started
        or resumed, after its restore."""
        if job_idx not in run.running:
            return False
        lives = run.record.lives
        restore = 0.0 if lives is None else float(lives.current_restore_min[job_idx])
        ran = run.time_min - float(run.record.start_min[job_idx]) - restore
        return ran >= self.preemption_min_run_min - EPS

    def declared_left_min(self, run: RunState, job_idx: int) -> float:
        """The declared work the job has left when it next starts (reference-speed minutes): its
        declared run time less the progress it resumes from (never negative)."""
        lives = run.record.lives
        if lives is None or not lives.stopped[job_idx]:
            return float(run.declared_min[job_idx])
        return max(float(run.declared_min[job_idx] - lives.saved_min[job_idx]), 0.0)

    def resume_cost_min(self, run: RunState, job_idx: int) -> float:
        """Minutes the job spends restoring when it next starts (the restore model's if it
        stopped before, else 0)."""
        lives = run.record.lives
        if lives is None or not lives.stopped[job_idx]:
            return 0.0
        return self.restore.resume_cost_min(run.jobs[job_idx], ())

    def declared_run_min(self, run: RunState, job_idx: int, gpus: Sequence[int]) -> float:
        """The declared run time (minutes) of the job on ``gpus``: for a job that stopped before,
        its restore plus its declared remaining work there."""
        job = run.jobs[job_idx]
        clock = None if self.phases is None else self.phases.clocks.get(job.id)
        if clock is not None:  # the declared work at the speed of the true remaining run
            lives = run.record.lives
            saved = 0.0 if lives is None or not lives.stopped[job_idx] else float(lives.saved_min[job_idx])
            left = clock.total - saved
            true = self.phases.held_for(clock, gpus, saved, clock.total)
            ratio = true / left if left > 0 and math.isfinite(true) else 0.0
            return self.resume_cost_min(run, job_idx) + self.declared_left_min(run, job_idx) * ratio
        speed = self.speed_model.of(job, gpus)
        return self.resume_cost_min(run, job_idx) + self.declared_left_min(run, job_idx) / speed

    def progress_min(self, run: RunState, job_idx: int) -> float:
        """The job's true progress now (reference-speed minutes): its saved state plus, while it
        runs, what its current run has done after its restore."""
        rec = run.record
        lives = rec.lives
        saved = 0.0 if lives is None else float(lives.saved_min[job_idx])
        if job_idx not in run.running:
            return float(run.jobs[job_idx].duration_min) if not math.isnan(rec.end_min[job_idx]) else saved
        restore = 0.0 if lives is None else float(lives.current_restore_min[job_idx])
        done = max(run.time_min - float(rec.start_min[job_idx]) - restore, 0.0)
        job = run.jobs[job_idx]
        clock = None if self.phases is None else self.phases.clocks.get(job.id)
        if clock is not None:
            return saved + self.phases.done(clock, rec.job_gpus[job_idx], saved, done)
        return saved + done * float(rec.gang_speed[job_idx])  # its run's speed (see start)

    def fixed_speeds(self, run: RunState, jobs: np.ndarray) -> bool:
        """Whether each of the jobs ``jobs`` (by arrival index) runs at one speed for its whole run
        (no phases), so that :meth:`progress_at` can follow it."""
        phases = self.phases
        return phases is None or not any(run.jobs[i].id in phases.clocks for i in jobs.tolist())

    def progress_at(self, run: RunState, jobs: np.ndarray, times_min: np.ndarray) -> np.ndarray:
        """``(len(times_min), len(jobs))``: :meth:`progress_min` of each running job (by arrival
        index) at each time, as it would read with the clock there and the job still on its run
        (the same operations, element by element), for jobs of :meth:`fixed_speeds` only."""
        rec = run.record
        lives = rec.lives
        saved = np.zeros(len(jobs)) if lives is None else lives.saved_min[jobs]
        restore = np.zeros(len(jobs)) if lives is None else lives.current_restore_min[jobs]
        done = np.maximum(times_min[:, None] - rec.start_min[jobs] - restore, 0.0)
        return saved + done * rec.gang_speed[jobs]

    def remaining_work_min(self, run: RunState, job_idx: int) -> float:
        """The true work the job has left (reference-speed minutes; 0 once it has finished)."""
        return max(float(run.jobs[job_idx].duration_min) - self.progress_min(run, job_idx), 0.0)

    # ------------------------------------------------------------ event handlers
    def on_completions(self, run: RunState, t: float, completions: list[int]) -> None:
        """Jobs complete (their runs end at their true ends): free their GPUs; a learning
        estimator learns from them."""
        rec, state, jobs, running = run.record, run.state, run.jobs, run.running
        used, on_util_change = state.compute_used, run.integrals.on_util_change
        job_gpus, start_min, run_min, end_min = rec.job_gpus, rec.start_min, rec.run_min, rec.end_min
        colocation = self.colocation
        for job_idx in completions:
            gpus = job_gpus[job_idx]
            releases, heir = (True, -1) if colocation is None else colocation.ending(run, job_idx)
            if releases:
                before = [float(used[g]) for g in gpus]
                state.release(jobs[job_idx], gpus)
                on_util_change(used, gpus, before)
            if heir >= 0:
                self._hand_over(run, heir, gpus)
            end_min[job_idx] = start_min[job_idx] + run_min[job_idx]
            del running[job_idx]
        estimator = run.estimator
        if estimator.learns:
            for job_idx in completions:
                estimator.observe_completion(job_idx, jobs[job_idx], jobs[job_idx].duration_min)
            if estimator.epoch != run.estimates_epoch:
                run.estimates_changed()
        run.jobs_completed += len(completions)
        run.epoch += 1
        run.integrals.completions(len(completions))

    @staticmethod
    def on_wakeups(run: RunState, t: float, times: list[float]) -> None:
        """Decision times a policy asked for: nothing changes but the clock."""
        run.events.wakeups.difference_update(times)

    def on_node_events(self, run: RunState, t: float, node_events: list[tuple[int, int]]) -> None:
        """Nodes fail or are repaired (each one's next event is drawn first, in order); the run
        ends after :attr:`max_node_failures`."""
        failures, events = run.failure_process, run.events
        n_nodes = failures.n_nodes
        for kind, node in node_events:
            t_next, kind_next = failures.next_after(t, kind, node)
            events.push(t_next, NODE, (kind_next, node), kind_next * n_nodes + node)
        for kind, node in node_events:
            if kind == NodeFailures.FAIL:
                self.fail_node(run, node)
            else:
                self.repair_node(run, node)
        if self.max_node_failures is not None and run.node_failures >= self.max_node_failures:
            run.finish("safety_horizon")

    @staticmethod
    def on_arrivals(run: RunState, t: float, _: Sequence = ()) -> None:
        """Every job arriving by ``t`` joins the queue, taken from the arrival cursor
        (:attr:`RunState.next_arrival <gpusched.core.run_state.RunState.next_arrival>`), and the
        next arrival is pushed (the one arrival in the event heap); a learning estimator fixes
        their run times. The simulator also calls it at the start of a run."""
        first = k = run.next_arrival
        arrival_min = run.arrival_min
        n = len(arrival_min)
        while k < n and arrival_min[k] <= t:
            k += 1
        run.next_arrival = k
        if k < n:
            _heappush(run.events.heap, (arrival_min[k], _ARRIVAL_RANK, k, ARRIVAL, k))
        _extend(run.queue, range(first, k))
        if run.estimator.learns:
            run.declare_arrivals(range(first, k))
