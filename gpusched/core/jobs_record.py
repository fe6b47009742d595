"""The simulator's one record of per-job state, copied in one place when the simulator forks.

Every per-job array the simulator changes during a run lives in :class:`JobsRecord`, indexed by
arrival index; the stops and resumptions of jobs that stopped live in :class:`JobLives`, made at
the first stop of a run (a run without one pays nothing for it). :meth:`JobsRecord.copy` is the
only place a fork copies them: a mechanism that adds per-job state adds an array here (to
:attr:`JobsRecord.ARRAYS` or :attr:`JobLives.FIELDS`) and the fork copies it with the rest.
"""

from __future__ import annotations

import numpy as np

from gpusched.core.readonly import FrozenList


class JobLives:
    """What the simulator keeps of jobs that stopped and resumed, per arrival index (made at the
    first stop of a run, so that a run without one pays nothing for it).

    ``stopped`` (ever stopped or moved), ``interruptions``, ``preemptions`` and ``migrations``
    (counts), ``first_start_min``,
    and over the runs that ended in a stop: ``held_min`` (minutes on GPUs), ``work_min``
    (progress, reference-speed minutes), ``lost_min`` (progress thrown away, reference-speed
    minutes), ``lost_held_min`` (the minutes on GPUs that progress took), ``ended_restore_min``
    (minutes spent restoring); ``saved_min`` (the progress the job resumes from, reference-speed
    minutes) and ``current_restore_min`` (the restore of its current run, minutes); of
    migrations, ``ended_moved_restore_min`` (minutes spent restoring after a migration, over the
    runs that ended) and ``current_moved_restore_min`` (the restore of its current run if a
    migration began it, minutes). ``ended_*`` sums the runs that ended; ``current_*`` is the
    current run's alone.
    """

    FIELDS = ("held_min", "work_min", "lost_min", "lost_held_min", "ended_restore_min", "saved_min",
              "current_restore_min", "first_start_min", "ended_moved_restore_min",
              "current_moved_restore_min")
    COUNTS = ("stopped", "interruptions", "preemptions", "migrations")

    def __init__(self, n: int):
        self.stopped = np.zeros(n, dtype=bool)
        self.interruptions = np.zeros(n, dtype=np.int64)
        self.preemptions = np.zeros(n, dtype=np.int64)
        self.migrations = np.zeros(n, dtype=np.int64)
        for name in self.FIELDS:
            setattr(self, name, np.zeros(n))
        self.first_start_min[:] = np.nan

    def copy(self, k: int) -> JobLives:
        """An independent copy of the first ``k`` jobs."""
        twin = object.__new__(JobLives)
        for name in (*self.COUNTS, *self.FIELDS):
            setattr(twin, name, getattr(self, name)[:k].copy())
        return twin


class JobsRecord:
    """Per-job state of one run, by arrival index (see the module docstring).

    ``start_min`` (start of the current or last run; NaN while it waits), ``end_min`` (its end
    once finished), ``run_min`` (true minutes of the current or last run on its GPUs),
    ``declared_end_min`` (start plus the declared run time on those GPUs), ``start_slot`` (the
    window slot of its first start; -1 before), ``gang_speed`` (the speed of its current or last
    gang; 1.0 before it starts), ``job_gpus`` (the GPUs of its current or last run) and ``lives``
    (:class:`JobLives`, ``None`` until a job first stops).

    :param n: the number of jobs.
    """

    ARRAYS = ("start_min", "end_min", "run_min", "declared_end_min", "start_slot", "gang_speed")

    def __init__(self, n: int):
        self.start_min = np.full(n, np.nan)
        self.end_min = np.full(n, np.nan)
        self.run_min = np.full(n, np.nan)
        self.declared_end_min = np.full(n, np.nan)
        self.start_slot = np.full(n, -1, dtype=np.int64)
        self.gang_speed = np.ones(n)
        self.job_gpus = FrozenList([()] * n)  # changed through list.__setitem__ (lifecycle)
        self.lives: JobLives | None = None
        self._freeze()

    def _freeze(self) -> None:
        """Read-only views of the arrays, made once, for the scheduler's view."""
        self.readonly: dict[str, np.ndarray] = {}
        for name in self.ARRAYS:
            frozen = getattr(self, name).view()
            frozen.flags.writeable = False
            self.readonly[name] = frozen

    def copy(self, k: int) -> JobsRecord:
        """An independent copy of the first ``k`` jobs' state (the GPU tuples are immutable)."""
        twin = object.__new__(JobsRecord)
        for name in self.ARRAYS:
            setattr(twin, name, getattr(self, name)[:k].copy())
        twin.job_gpus = FrozenList(self.job_gpus[:k])
        twin.lives = None if self.lives is None else self.lives.copy(k)
        twin._freeze()
        return twin

    def ensure_lives(self) -> JobLives:
        """The record of stops, made at the first stop."""
        if self.lives is None:
            self.lives = JobLives(len(self.job_gpus))
        return self.lives
