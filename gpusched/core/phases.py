"""Job phases: a job's work as a sequence of phases, each with its own speed per GPU type.

A job that changes its batch size while it trains (Accordion, Agarwal et al., MLSys 2021; the
gradient noise scale of McCandlish et al., 2018, as Pollux and Shockwave use it) runs at a
different throughput once its batch size changes. Shockwave (Zheng et al., NSDI 2023) simulates
such jobs by switching each job's batch size, and so its throughput, at epoch boundaries
(``scheduler/scheduler.py`` of ``uw-mad-dash/shockwave``: ``_simulate_accordion``,
``_simulate_gns`` and ``_scale_bs_and_iters``). This module is the data model of that: pure data
and arithmetic, with no simulator, no rounds and no file format (the Shockwave trace's phases are
built by :mod:`gpusched.workload.shockwave_phases`).

**The model.** A job's work is a sequence of :class:`Phase` objects. Phase ``i`` holds
``work_steps`` training steps (iterations) at its batch size, and ``steps_per_s[gpu_model]``, the
job's measured throughput in that phase on that GPU type (steps per second, for the whole job on
its GPUs). The job runs its phases in order; it moves to phase ``i + 1`` when the work of phase
``i`` is done, and it is finished when the last phase's work is done. A rigid job (one speed for
its whole life) is the one-phase case: its duration on a GPU type is ``work_steps /
steps_per_s`` (:meth:`JobPhases.duration_min`).

A position in a job is a :class:`Position`: the phase it is in and the steps of that phase already
done (``progress_steps``, from 0 to the phase's ``work_steps``). A finished job's position is
``Position(len(phases), 0.0)``.

**Units.** Work in steps, throughputs in steps per second (as measured), times in minutes (as
everywhere in gpusched): a phase of ``w`` steps at ``r`` steps/s takes ``w / r / 60`` minutes.

**A GPU type a phase cannot run on** (a throughput of 0, or a GPU type the phase does not name):
the time to finish from before that phase is ``math.inf``, and running on it makes no progress in
that phase.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

from gpusched.errors import GpuschedError

SECONDS_PER_MINUTE = 60.0
"""Throughputs are per second, times per minute."""

_END_TOLERANCE = 1e-12
"""A phase counts as done when what is left of it is within this share of its work: a run of
exactly the computed time must finish it despite rounding."""


class PhaseError(GpuschedError):
    """Phases, or a position in them, that cannot describe a job (one-line message)."""


def _is_number(value: object) -> bool:
    """A real number that is not a boolean (numpy's numbers count)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Phase:
    """One phase of a job's work.

    :param work_steps: training steps in this phase (> 0, finite).
    :param steps_per_s: GPU model -> the job's throughput in this phase on that GPU type (steps per
        second, >= 0, finite; 0 or absent: it cannot run there).
    :param batch_size: the batch size of this phase (``None`` for a rigid job that names none).
    :param epochs: the epochs of training this phase holds (``None`` if not counted in epochs).
    """

    work_steps: float
    steps_per_s: Mapping[str, float]
    batch_size: int | None = None
    epochs: float | None = None

    def __post_init__(self) -> None:
        if not (_is_number(self.work_steps) and math.isfinite(self.work_steps)
                and self.work_steps > 0):
            raise PhaseError(f"phase work_steps: must be a finite number > 0 (got {self.work_steps!r})")
        for gpu, rate in self.steps_per_s.items():
            if not (_is_number(rate) and math.isfinite(rate) and rate >= 0):
                raise PhaseError(f"phase steps_per_s[{gpu!r}]: must be a finite number >= 0 "
                                 f"(got {rate!r})")
        object.__setattr__(self, "steps_per_s",
                           MappingProxyType({str(k): float(v) for k, v in self.steps_per_s.items()}))

    def rate(self, gpu_model: str) -> float:
        """The job's throughput in this phase on ``gpu_model`` (steps/s; 0 if it cannot run there)."""
        return float(self.steps_per_s.get(gpu_model, 0.0))

    def minutes(self, gpu_model: str, steps: float | None = None) -> float:
        """Minutes to run ``steps`` steps of this phase (default: all of it) on ``gpu_model``;
        ``math.inf`` where it cannot run."""
        steps = self.work_steps if steps is None else steps
        if steps <= 0:
            return 0.0
        rate = self.rate(gpu_model)
        return math.inf if rate <= 0 else steps / rate / SECONDS_PER_MINUTE


class Position(NamedTuple):
    """Where a job is in its phases.

    :param phase: the index of the phase it is in (``len(phases)`` once finished).
    :param progress_steps: steps of that phase already done (0 once finished).
    """

    phase: int
    progress_steps: float


START = Position(0, 0.0)
"""A job that has not run yet."""


@dataclass(frozen=True, slots=True)
class JobPhases:
    """A job's phases, in the order it runs them (at least one).

    :param phases: the phases.
    """

    phases: tuple[Phase, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "phases", tuple(self.phases))
        if not self.phases:
            raise PhaseError("a job needs at least one phase")
        if not all(isinstance(p, Phase) for p in self.phases):
            raise PhaseError("every phase must be a Phase")

    @classmethod
    def rigid(cls, work_steps: float, steps_per_s: Mapping[str, float],
              batch_size: int | None = None) -> JobPhases:
        """A rigid job: one phase of ``work_steps`` steps at ``steps_per_s`` per GPU type."""
        return cls((Phase(work_steps, steps_per_s, batch_size),))

    def __len__(self) -> int:
        return len(self.phases)

    @property
    def total_steps(self) -> float:
        """Steps of all phases together."""
        return math.fsum(p.work_steps for p in self.phases)

    @property
    def finished(self) -> Position:
        """The position of a finished job."""
        return Position(len(self.phases), 0.0)

    def _check(self, at: Position) -> Position:
        phase, progress = at
        whole = isinstance(phase, numbers.Integral) and not isinstance(phase, bool)
        if not whole or not 0 <= phase <= len(self.phases):
            raise PhaseError(f"position phase: must be a whole number from 0 to {len(self.phases)} "
                             f"(got {phase!r})")
        limit = self.phases[phase].work_steps if phase < len(self.phases) else 0.0
        if not (_is_number(progress) and 0 <= progress <= limit):
            raise PhaseError(f"position progress_steps: must be from 0 to {limit:g} in phase {phase} "
                             f"(got {progress!r})")
        return Position(int(phase), float(progress))

    def remaining_min(self, gpu_model: str, at: Position = START) -> float:
        """Minutes to finish the job's remaining work from ``at`` on ``gpu_model``: what is left
        of the current phase at its throughput, then every later phase at its own.

        :param gpu_model: the GPU type it runs on.
        :param at: where the job is (default: not started).
        :return: minutes (0 once finished; ``math.inf`` if a remaining phase cannot run there).
        """
        phase, progress = self._check(at)
        if phase == len(self.phases):
            return 0.0
        total = self.phases[phase].minutes(gpu_model, self.phases[phase].work_steps - progress)
        for later in self.phases[phase + 1:]:
            total += later.minutes(gpu_model)
        return total

    def duration_min(self, gpu_model: str) -> float:
        """Minutes to run the whole job on ``gpu_model`` (the sum of its phases' times)."""
        return self.remaining_min(gpu_model, START)

    def advance(self, gpu_model: str, minutes: float, at: Position = START) -> Position:
        """Where the job is after running ``minutes`` minutes on ``gpu_model`` from ``at``.

        Each phase runs at its own throughput; the job moves to the next phase when the current
        one's work is done, and stops at :attr:`finished`. On a GPU type the current phase cannot
        run on, it stays where it is.

        :param gpu_model: the GPU type it runs on.
        :param minutes: how long it runs (>= 0, finite).
        :param at: where it starts (default: not started).
        :return: the position reached.
        """
        if not (_is_number(minutes) and math.isfinite(minutes) and minutes >= 0):
            raise PhaseError(f"minutes: must be a finite number >= 0 (got {minutes!r})")
        phase, progress = self._check(at)
        seconds_left = minutes * SECONDS_PER_MINUTE
        while phase < len(self.phases):
            current = self.phases[phase]
            rate = current.rate(gpu_model)
            if rate <= 0:
                return Position(phase, progress)
            steps_left = current.work_steps - progress
            can_run = seconds_left * rate
            if can_run < steps_left * (1.0 - _END_TOLERANCE):
                return Position(phase, progress + can_run)
            seconds_left = max(0.0, seconds_left - steps_left / rate)
            phase, progress = phase + 1, 0.0
        return self.finished
