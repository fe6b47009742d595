"""Jobs whose speed changes while they run, inside the simulator: phases as one mechanism.

Source: Shockwave (Zheng et al., NSDI 2023), ``uw-mad-dash/shockwave``, ``scheduler/scheduler.py``
(``_simulate_accordion``, ``_simulate_gns``, ``_scale_bs_and_iters``: a dynamic job's batch size,
and with it its measured throughput, changes as it trains); read, not copied. The phases
themselves are the data of :mod:`gpusched.core.phases` (steps and steps per second per GPU type);
this module runs them in the simulator.

**Work in reference minutes.** The simulator counts a job's progress in reference-speed minutes
(``duration_min``, :mod:`gpusched.core.simulator`). A phased job's reference is one GPU model
(:attr:`PhasedWork.reference`): phase ``p`` holds ``w_p`` minutes of work, its time on that model,
and runs at speed ``s_p(m) = rate_p(m) / rate_p(reference)`` on GPU model ``m``, where ``rate_p``
is the phase's measured throughput (steps/s). The job's ``duration_min`` is ``sum(w_p)``, its
time on the reference model (:func:`phased_job_minutes`). :class:`PhaseClock` maps time to work
and back, each phase at its own speed; a rigid job (no phases) keeps the one-speed arithmetic of
the lifecycle, unchanged.

**The speed model** (:class:`PhasedSpeeds`) answers per job and phase: :meth:`PhasedSpeeds.of_phase`
and :meth:`PhasedSpeeds.row_phase` give a phase's speed; :meth:`PhasedSpeeds.of` and
:meth:`PhasedSpeeds.row`, which planners and rules read, give a phased job's speed over its whole
work (its ``duration_min`` over its time there, so a fresh job's declared run time on a gang is
right). Rigid jobs are answered by the base model.

**In a run** (:class:`PhaseMechanism`, a mechanism of the run's setup like rounds): when a phased
job starts or resumes on a gang, the lifecycle asks :meth:`PhaseMechanism.run_min` for its run
time there: its restore, then the rest of its current phase at that phase's speed, then every
later phase at its own; the completion is pushed at that time. A ``phase`` event is pushed at each
boundary the run will cross; at it the job moves to its next phase (:attr:`PhasesRun.phase`, a
log of the changes), and its completion is the one already pushed: it was computed through this
boundary with the new phase's throughput, by the same sums. A run that stops (a preemption, a
move, a failure) counts its progress through the phases it crossed (:meth:`PhaseClock.advance`),
and its boundary events become stale (each run of a job has its own number). Under rounds the
round policies read the current phase's throughputs (:mod:`gpusched.policies.rounds.scheduler`).

Not modelled: a phased gang spread over nodes runs at its phase's consolidated speed (no spread
factor); Shockwave's rounding of the epoch in progress at a change (see
:mod:`gpusched.workload.shockwave_phases`); a fork that takes declared run times as true
(:meth:`RunState.copy <gpusched.core.run_state.RunState.copy>` with ``arrived_only``) keeps a
phased job's true phases, so under a run-time estimate error a planner's fork knows them.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpusched.core.cluster import Cluster
from gpusched.core.jobs import Job
from gpusched.core.phases import JobPhases
from gpusched.core.speed_model import SpeedModel

PHASE = "phase"
"""A running job crosses a phase boundary, a kind of event (:mod:`gpusched.core.events`)."""

PHASE_RANK = 0.25
"""Its rank at one instant: after completions (a job that ends there is done), before round ends,
wakeups, node events and arrivals."""

_CONSISTENCY = 1e-9
"""Largest relative difference between a phased job's ``duration_min`` and its phases' minutes on
the reference model."""


def phased_job_minutes(phases: JobPhases, reference: str) -> float:
    """A phased job's ``duration_min``: its phases' minutes on the ``reference`` GPU model."""
    return math.fsum(p.minutes(reference) for p in phases.phases)


@dataclass(frozen=True)
class PhaseClock:
    """One job's work as phases in reference minutes (see the module docstring).

    :param work: ``w_p``, each phase's work (reference minutes, > 0).
    :param speed: each phase's speed per GPU model (relative to the reference model; 0 or absent:
        it cannot run there).
    :param batch_size: each phase's batch size (``None`` where none is named).
    :param steps: each phase's training steps (empty: not known; :meth:`as_reported`).
    :param epochs: each phase's epochs (``None`` where not counted in epochs; empty: none is).
    """

    work: tuple[float, ...]
    speed: tuple[Mapping[str, float], ...]
    batch_size: tuple[int | None, ...]
    steps: tuple[float, ...] = ()
    epochs: tuple[float | None, ...] = ()
    starts: tuple[float, ...] = field(init=False)
    """Work done when each phase starts (reference minutes), and the total last."""
    flat: frozenset[str] = field(init=False)
    """The GPU models on which every phase runs at speed 1.0 (there, a minute is a minute of work)."""
    total: float = field(init=False)
    """The job's work (reference minutes): the last of :attr:`starts`."""

    def __post_init__(self) -> None:
        starts, total = [], 0.0
        for w in self.work:
            starts.append(total)
            total += w
        starts.append(total)
        object.__setattr__(self, "starts", tuple(starts))
        object.__setattr__(self, "total", starts[-1])
        models = {m for speeds in self.speed for m in speeds}
        object.__setattr__(self, "flat", frozenset(
            m for m in models if all(speeds.get(m, 0.0) == 1.0 for speeds in self.speed)))

    @classmethod
    def of(cls, phases: JobPhases, reference: str) -> PhaseClock:
        """The clock of ``phases`` with ``reference`` as the speed-1 GPU model.

        :raises ValueError: when a phase cannot run on the reference model.
        """
        work, speed = [], []
        for i, p in enumerate(phases.phases):
            base = p.rate(reference)
            if base <= 0:
                raise ValueError(f"phase {i} has no throughput on the reference GPU model {reference!r}")
            work.append(p.minutes(reference))
            speed.append({m: r / base for m, r in p.steps_per_s.items()})
        return cls(tuple(work), tuple(speed), tuple(p.batch_size for p in phases.phases),
                   tuple(p.work_steps for p in phases.phases), tuple(p.epochs for p in phases.phases))

    def speed_in(self, phase: int, model: str) -> float:
        """Phase ``phase``'s speed on GPU model ``model`` (0 where it cannot run)."""
        return float(self.speed[phase].get(model, 0.0))

    def phase_at(self, work: float) -> int:
        """The phase a job is in once it has done ``work`` (``len(work)`` once finished)."""
        return min(bisect.bisect_right(self.starts, work) - 1, len(self.work))

    def minutes(self, model: str, w0: float, w1: float | None = None) -> float:
        """Minutes on ``model`` to go from work ``w0`` to ``w1`` (default: the end), each phase at
        its own speed (``math.inf`` where a phase on the way cannot run there)."""
        w1 = self.total if w1 is None else w1
        if w1 <= w0:
            return 0.0
        if model in self.flat:
            return w1 - w0
        t = 0.0
        for p in range(max(self.phase_at(w0), 0), len(self.work)):
            lo, hi = max(w0, self.starts[p]), min(w1, self.starts[p + 1])
            if hi > lo:
                s = self.speed_in(p, model)
                if s <= 0:
                    return math.inf
                t += (hi - lo) / s
            if self.starts[p + 1] >= w1:
                break
        return t

    def advance(self, model: str, w0: float, minutes: float) -> float:
        """The work done after running ``minutes`` on ``model`` from work ``w0`` (it stops at the
        end, and where a phase cannot run)."""
        w, left = w0, max(minutes, 0.0)
        if model in self.flat:
            return min(w + left, self.total)
        p = self.phase_at(w)
        while p < len(self.work) and left > 0:
            s = self.speed_in(p, model)
            if s <= 0:
                break
            end = self.starts[p + 1]
            need = (end - w) / s
            if left < need:
                return w + left * s
            w, left, p = end, left - need, p + 1
        return min(w, self.total)

    def boundaries(self, model: str, w0: float, t0: float) -> list[tuple[float, int]]:
        """``(time, phase entered)`` of each boundary a run on ``model`` from work ``w0`` at time
        ``t0`` crosses before the end (the times the same sums as :meth:`minutes`)."""
        out, t = [], t0
        for p in range(self.phase_at(w0), len(self.work) - 1):
            s = self.speed_in(p, model)
            if s <= 0:
                break
            t += (self.starts[p + 1] - max(w0, self.starts[p])) / s
            out.append((t, p + 1))
        return out

    def as_reported(self, work: float) -> tuple[float, float]:
        """How the job itself reports what is left once it has done ``work``: the share its
        report bears to the work truly left, and its current phase's training steps per reference
        second.

        A job that changes its batch size reports its steps left at its *current* batch size, its
        epochs being kept (Shockwave's ``_scale_bs_and_iters``, ``uw-mad-dash/shockwave``,
        ``scheduler/scheduler.py``, rescales the steps left at each change; its scheduler reads
        them as they are). Its report is its epochs left at the current phase's work per epoch,
        whatever its later phases hold; the share is that over ``total - work`` (1 when the job
        has nothing left, when the phases are not counted in epochs, or in its last phase). The
        steps per second are 1 where the phases' steps are not known.
        """
        p = min(max(self.phase_at(work), 0), len(self.work) - 1)
        per_s = 1.0 if not self.steps else self.steps[p] / (self.work[p] * 60.0)
        left = self.total - work
        if left <= 0 or p == len(self.work) - 1 or not self.epochs or any(
                e is None or e <= 0 for e in self.epochs[p:]):
            return 1.0, per_s
        done = min(max((work - self.starts[p]) / self.work[p], 0.0), 1.0)
        epochs_left = self.epochs[p] * (1.0 - done) + math.fsum(self.epochs[p + 1:])
        return epochs_left * self.work[p] / self.epochs[p] / left, per_s

    def whole_speed(self, model: str) -> float:
        """The job's speed over its whole work on ``model`` (its work ÷ its time there; 0 where
        a phase cannot run)."""
        t = self.minutes(model, 0.0)
        return 0.0 if not math.isfinite(t) or t <= 0 else self.total / t


@dataclass(frozen=True)
class PhasedWork:
    """The phased jobs of a workload: job id -> its phases, and the reference GPU model.

    :param phases: job id -> :class:`~gpusched.core.phases.JobPhases` (jobs not named are rigid).
    :param reference: the GPU model whose speed is 1.0 (a phased job's ``duration_min`` is its
        time there, :func:`phased_job_minutes`).
    """

    phases: Mapping[int, JobPhases]
    reference: str

    def clocks(self, jobs: Sequence[Job]) -> dict[int, PhaseClock]:
        """Job id -> its clock, for the jobs of ``jobs`` that have phases.

        :raises ValueError: naming the job, when its ``duration_min`` is not its phases' minutes
            on the reference model, or a phase cannot run there.
        """
        out = {}
        for job in jobs:
            phases = self.phases.get(job.id)
            if phases is None:
                continue
            try:
                clock = PhaseClock.of(phases, self.reference)
            except ValueError as exc:
                raise ValueError(f"job {job.id}: {exc}") from None
            if abs(clock.total - job.duration_min) > _CONSISTENCY * max(clock.total, 1.0):
                raise ValueError(f"job {job.id}: duration_min {job.duration_min:g} is not its phases' "
                                 f"{clock.total:g} minutes on {self.reference}")
            out[job.id] = clock
        return out


class PhasedSpeeds:
    """The speed model of a workload with phased jobs: the base model for rigid jobs, each
    phase's speed for phased ones (see the module docstring).

    :param base: the speed model of the rigid jobs.
    :param cluster: the cluster.
    :param clocks: job id -> :class:`PhaseClock` of the phased jobs.
    """

    def __init__(self, base: SpeedModel, cluster: Cluster, clocks: Mapping[int, PhaseClock]):
        self.base = base
        self.cluster = cluster
        self.clocks = clocks
        models = tuple(dict.fromkeys(cluster.gpu_model))
        self.uniform = base.uniform and all(
            c.speed_in(p, m) == 1.0 for c in clocks.values() for p in range(len(c.work)) for m in models)
        self._rows: dict[tuple[int, int], np.ndarray] = {}

    def _row(self, clock: PhaseClock, key: tuple[int, int], speed_of) -> np.ndarray:  # noqa: ANN001
        row = self._rows.get(key)
        if row is None:
            by_model = {m: speed_of(m) for m in dict.fromkeys(self.cluster.gpu_model)}
            row = self._rows[key] = np.array([by_model[m] for m in self.cluster.gpu_model])
            row.flags.writeable = False
        return row

    def of_phase(self, job: Job, phase: int, gpus: Sequence[int]) -> float:
        """The speed of ``job`` in phase ``phase`` on the gang ``gpus`` (the base model's for a
        rigid job)."""
        clock = self.clocks.get(job.id)
        if clock is None:
            return self.base.of(job, gpus)
        return clock.speed_in(min(phase, len(clock.work) - 1), self.cluster.gpu_model[gpus[0]])

    def row_phase(self, job: Job, phase: int) -> np.ndarray | None:
        """The speed of ``job`` in phase ``phase`` on every GPU (read-only)."""
        clock = self.clocks.get(job.id)
        if clock is None:
            return self.base.row(job)
        p = min(phase, len(clock.work) - 1)
        return self._row(clock, (job.id, p), lambda m: clock.speed_in(p, m))

    def of(self, job: Job, gpus: Sequence[int]) -> float:
        clock = self.clocks.get(job.id)
        if clock is None:
            return self.base.of(job, gpus)
        return clock.whole_speed(self.cluster.gpu_model[gpus[0]])

    def row(self, job: Job) -> np.ndarray | None:
        clock = self.clocks.get(job.id)
        if clock is None:
            return self.base.row(job)
        return self._row(clock, (job.id, -1), clock.whole_speed)

    def fit_row(self, job: Job, single: np.ndarray) -> np.ndarray | None:
        return self.base.fit_row(job, single) if job.id not in self.clocks else self.row(job)

    def best(self, jobs: Sequence[Job]) -> np.ndarray:
        out = self.base.best(jobs)
        if self.uniform:
            return out
        out = np.array(out, dtype=float)
        for i, job in enumerate(jobs):
            if job.id in self.clocks:
                mask = self.cluster.empty_fit_mask(job)
                out[i] = float(self.row(job)[mask].max()) if mask.any() else 1.0
        return out


@dataclass
class PhasesRun:
    """The phase mechanism's part of one run (held by the run state, copied with it).

    :param phase: each job's current phase, by arrival index (0 for a rigid job).
    :param runs: each job's runs so far (the number a boundary event carries).
    :param changes: ``(time, arrival index, phase entered)`` of every phase change so far.
    """

    phase: np.ndarray
    runs: np.ndarray
    changes: list[tuple[float, int, int]] = field(default_factory=list)

    def copy(self) -> PhasesRun:
        """An independent copy."""
        return PhasesRun(self.phase.copy(), self.runs.copy(), list(self.changes))


class PhaseMechanism:
    """Phases in one simulator (see the module docstring): the ``phase`` event's handler, and
    the run time and progress of a phased job, which the lifecycle asks
    (:attr:`Lifecycle.phases <gpusched.core.lifecycle.Lifecycle>`).

    :param clocks: job id -> :class:`PhaseClock` of the phased jobs.
    :param speed_model: the run's speed model (for the gang's GPU model).
    """

    def __init__(self, clocks: Mapping[int, PhaseClock], cluster: Cluster):
        self.clocks = clocks
        self.gpu_model = cluster.gpu_model

    def install(self, kinds: Any, lifecycle: Any) -> None:
        """Register the ``phase`` kind and tell the lifecycle which jobs have phases."""
        kinds.register(PHASE, PHASE_RANK, self.on_phase)
        lifecycle.phases = self

    def start(self, run: Any) -> None:
        """Give a new run its phase state."""
        n = len(run.jobs)
        run.phases = PhasesRun(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64))

    def applied(self, run: Any, action: Any) -> None:
        """Nothing to do after a batched action (a start asks :meth:`run_min`)."""

    # ------------------------------------------------------------ asked by the lifecycle
    def run_min(self, run: Any, job_idx: int, clock: PhaseClock, gpus: Sequence[int], saved: float,
                restore: float, declared_left: float) -> tuple[float, float]:
        """A phased job (re)starts on ``gpus`` now from work ``saved``: its true and declared run
        times there (minutes), and its boundary events pushed.

        :param declared_left: its declared work left (reference minutes); its declared time is
            that work at the speed of its true remaining run (the true one when exact).
        """
        model, now = self.gpu_model[gpus[0]], run.time_min
        true = clock.minutes(model, saved)
        left = clock.total - saved
        declared = declared_left * (true / left) if left > 0 and math.isfinite(true) else true
        state = run.phases
        state.runs[job_idx] += 1
        state.phase[job_idx] = clock.phase_at(saved)
        stamp = int(state.runs[job_idx])
        for t, p in clock.boundaries(model, saved, now + restore):
            run.events.push(t, PHASE, (job_idx, stamp, p), job_idx)
        return restore + true, restore + declared

    def done(self, clock: PhaseClock, gpus: Sequence[int], saved: float, ran_min: float) -> float:
        """Work done (reference minutes) by a run on ``gpus`` from ``saved`` that progressed
        ``ran_min`` minutes (after its restore)."""
        return clock.advance(self.gpu_model[gpus[0]], saved, ran_min) - saved

    def held_for(self, clock: PhaseClock, gpus: Sequence[int], w0: float, w1: float) -> float:
        """Minutes on ``gpus`` that the work from ``w0`` to ``w1`` took."""
        return clock.minutes(self.gpu_model[gpus[0]], w0, w1)

    def stopped(self, run: Any, job_idx: int, clock: PhaseClock, kept: float) -> None:
        """A phased job stopped and keeps work ``kept``: its phase is the one it resumes in."""
        run.phases.phase[job_idx] = min(clock.phase_at(kept), len(clock.work) - 1)
        run.phases.runs[job_idx] += 1  # its boundary events are stale

    # ------------------------------------------------------------ the event
    def on_phase(self, run: Any, t: float, payloads: list) -> None:
        """Running jobs cross a phase boundary: each moves to its next phase (stale events of a
        run that stopped are dropped)."""
        state = run.phases
        for job_idx, stamp, phase in payloads:
            if job_idx in run.running and int(state.runs[job_idx]) == stamp:
                state.phase[job_idx] = phase
                state.changes.append((t, job_idx, phase))
