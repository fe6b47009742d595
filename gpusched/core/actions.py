"""What a scheduler may answer at a decision: a placement, HOLD, a preemption, a migration, or a
batch of changes at one instant (their rules are in :mod:`gpusched.core.simulator`'s docstring)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

HOLD = -1
"""The action that leaves the queue as it is until the next event."""


@dataclass(frozen=True, slots=True)
class Preempt:
    """The action that preempts a running job (see the simulator's docstring).

    :param job: the arrival index of the running job to stop.
    """

    job: int


@dataclass(frozen=True, slots=True)
class Migrate:
    """The action that moves a running job to another gang (see the simulator's docstring).

    :param job: the arrival index of the running job to move.
    :param gang: the GPU indices it resumes on (they must fit once its own GPUs are freed).
    """

    job: int
    gang: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Batch:
    """Several changes decided at once, applied at one instant in this order: ``stop`` (each job
    preempted, in the order given), then ``move`` (each migration, in the order given), then
    ``start`` (each ``(arrival index, gang)`` of a queued job placed, in the order given); see
    the simulator's docstring.

    :param stop: arrival indices of the running jobs to preempt.
    :param move: the migrations.
    :param start: ``(arrival index, gang)`` of the queued jobs to start.
    """

    stop: tuple[int, ...] = ()
    move: tuple[Migrate, ...] = ()
    start: tuple[tuple[int, tuple[int, ...]], ...] = ()


Action = int | Sequence[int] | Preempt | Migrate | Batch
"""A GPU index, a gang, :data:`HOLD`, :class:`Preempt`, :class:`Migrate` or :class:`Batch`."""
