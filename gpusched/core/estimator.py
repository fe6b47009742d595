"""The run-time estimator: what the scheduler is told of a job's run time (one interface).

Schedulers read *declared* run times, never true ones (:mod:`gpusched.core.view`). The
:class:`RuntimeEstimator` answers them, by arrival index, at speed 1.0 (reference-speed minutes),
and may learn, but only from what a real scheduler sees: a job's true run time once it has
completed (:meth:`RuntimeEstimator.observe_completion`). The shipped estimator
(:class:`DeclaredRuntime`) takes the user's declared time (``Job.estimate_min``, the true
``duration_min`` when absent) and learns nothing; :class:`UndeclaredRuntime` declares nothing (every
run time NaN: ``workload.declared_run_time: none``); an online estimator
(:mod:`gpusched.core.history_estimator`) replaces them alone.

**A learning estimator fixes a job's estimate at its arrival.** The simulator calls
:meth:`RuntimeEstimator.fix_at_arrival` for every arriving job (only if ``learns``), after the
completions of that instant, and the job's declared run time never changes after that: a queued
job's estimate is what was known when it arrived. The view's cached jobs and declared arrays are
updated in place for those jobs then (:meth:`Simulator._declare_arrivals
<gpusched.core.simulator.Simulator._declare_arrivals>`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from gpusched.core.jobs import Job


class RuntimeEstimator(Protocol):
    """Declared (or estimated) run times, by arrival index."""

    declared_min: np.ndarray
    """Each job's declared run time at speed 1.0 (minutes), by arrival index."""

    learns: bool
    """Whether it learns from completions (the simulator calls :meth:`observe_completion` only then)."""

    declares: bool
    """Whether it declares run times at all (``False`` only for ``declared_run_time: none``)."""

    basis: np.ndarray | None
    """Per job, how many completed jobs its run time was predicted from (int64; 0 for a
    prediction's prior), or ``None`` when run times are declared, not predicted."""

    epoch: int
    """Changes whenever :attr:`declared_min` changes (a learning estimator bumps it once it has
    learned): the simulator then re-reads the declared times, and the view drops what it cached
    from them (:meth:`gpusched.core.view.SchedulerView.estimates_changed`)."""

    def observe_completion(self, job_idx: int, job: Job, work_min: float) -> None:
        """A job completed after ``work_min`` reference-speed minutes of work: learn from it."""
        ...

    def fix_at_arrival(self, job_idx: int, job: Job) -> None:
        """The job arrives now: fix its ``declared_min`` from what has completed so far."""
        ...

    def copy(self, k: int) -> RuntimeEstimator:
        """An independent copy for the first ``k`` jobs (for a fork)."""
        ...


class DeclaredRuntime:
    """The user's declared run times, learning nothing (see the module docstring).

    :param jobs: the jobs, in arrival order.
    """

    learns = False
    declares = True
    epoch = 0
    basis = None

    def __init__(self, jobs: Sequence[Job]):
        self.declared_min = np.array([j.duration_min if j.estimate_min is None else j.estimate_min
                                      for j in jobs], dtype=float)
        self.declared_min.flags.writeable = False  # its copies share it

    def observe_completion(self, job_idx: int, job: Job, work_min: float) -> None:
        return None

    def fix_at_arrival(self, job_idx: int, job: Job) -> None:
        return None

    def copy(self, k: int) -> DeclaredRuntime:
        twin = object.__new__(type(self))
        twin.declared_min = self.declared_min[:k]
        return twin


class UndeclaredRuntime(DeclaredRuntime):
    """No run time is declared (``workload.declared_run_time: none``): every ``declared_min`` is
    NaN. Orders and placements that read run times are refused on such a run
    (:func:`gpusched.policies.registry.reads_run_times`).

    :param jobs: the jobs, in arrival order.
    """

    declares = False

    def __init__(self, jobs: Sequence[Job]):
        self.declared_min = np.full(len(jobs), np.nan)
        self.declared_min.flags.writeable = False
