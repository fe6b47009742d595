"""The restore model: what a job keeps when it stops, and what it pays when it resumes.

When a running job stops (a node failure, a preemption) the simulator asks :class:`RestoreModel`
how much of its progress it keeps, and when it resumes, how long it spends loading its state.
The shipped model (:class:`CheckpointRestore`) is the scenario's ``checkpoint:`` key
(:mod:`gpusched.core.failures`): a preempted or migrated job keeps all its progress; a job a failure stops
keeps its last checkpoint (its last saved state if its type does not checkpoint); each
resumption from the queue pays ``restore_min``, and a move straight from the GPUs a job runs on to
others (a migration) pays ``move_restore_min`` (``restore_min`` unless set). A model with per-job or
per-size restores replaces it alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gpusched.core.failures import CheckpointSpec, checkpointed_min
from gpusched.core.jobs import Job


class RestoreModel(Protocol):
    """What a job keeps when it stops, and the restore it pays when it resumes."""

    def resume_cost_min(self, job: Job, gpus: Sequence[int]) -> float:
        """Minutes ``job`` spends restoring when it resumes on ``gpus`` from the queue."""
        ...

    def move_cost_min(self, job: Job, gpus: Sequence[int]) -> float:
        """Minutes ``job`` spends restoring when it moves to ``gpus`` straight from the GPUs it
        runs on (a migration)."""
        ...

    def kept_min(self, job: Job, kind: str, progress_min: float, saved_min: float) -> float:
        """The progress (reference-speed minutes) ``job`` keeps when it stops for ``kind``
        (``failure``, ``preemption`` or ``migration``), from its progress now and its last saved
        state."""
        ...


class CheckpointRestore:
    """The scenario's checkpoints (see the module docstring).

    :param checkpoint: which job types checkpoint, how often, and the restore time (``None``: no
        job checkpoints, and a resumption costs nothing).
    """

    def __init__(self, checkpoint: CheckpointSpec | None):
        self.checkpoint = checkpoint
        self.restore = 0.0 if checkpoint is None else float(checkpoint.restore_min)
        self.move_restore = 0.0 if checkpoint is None else checkpoint.move_min

    def resume_cost_min(self, job: Job, gpus: Sequence[int]) -> float:
        return self.restore

    def move_cost_min(self, job: Job, gpus: Sequence[int]) -> float:
        return self.move_restore

    def kept_min(self, job: Job, kind: str, progress_min: float, saved_min: float) -> float:
        if kind in ("preemption", "migration"):
            return progress_min
        ckpt = self.checkpoint
        interval = ckpt.interval_min if ckpt is not None and job.type in ckpt.types else None
        return checkpointed_min(progress_min, saved_min, interval)
