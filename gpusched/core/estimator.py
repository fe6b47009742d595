"""The run-time estimator: what the scheduler is told of a job's run time (one interface).

Schedulers read *declared* run times, never true ones (:mod:`gpusched.core.view`). The
:class:`RuntimeEstimator` answers them, by arrival index, at speed 1.0 (reference-speed minutes),
and may learn, but only from what a real scheduler sees: a job's true run time once it has
completed (:meth:`RuntimeEstimator.observe_completion`). A job carries its true run time only
(``Job.duration_min``); a scheduler is shown each job with its declared one under its own name
(:class:`~gpusched.core.declared_jobs.DeclaredJob`, ``declared_min``). Every mode of
``workload.declared_run_time`` is an estimator:

- ``exact``: :class:`DeclaredRuntime` without estimates, each job's true run time;
- ``listed``: :class:`DeclaredRuntime` with a job list's ``estimate_min`` column, by job id (the
  true run time where a job has none);
- ``{lognormal: SIGMA}``: :class:`LognormalRuntime`, the true run time times a log-normal error;
- ``none``: :class:`UndeclaredRuntime`, nothing (every run time NaN);
- ``history``: the online estimator of :mod:`gpusched.core.history_estimator`.

**A learning estimator fixes a job's estimate at its arrival.** The simulator calls
:meth:`RuntimeEstimator.fix_at_arrival` for every arriving job (only if ``learns``), after the
completions of that instant, and the job's declared run time never changes after that: a queued
job's estimate is what was known when it arrived. The run's declared arrays and declared jobs are
updated in place for those jobs then (:meth:`RunState.declare_arrivals
<gpusched.core.run_state.RunState.declare_arrivals>`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

from gpusched.core.declared_jobs import DeclaredJob, declared_jobs
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

    estimate_min: np.ndarray | None
    """Per job, the run time declared apart from its true one (a user's estimate: a job list's
    ``estimate_min``, a log-normal draw; minutes at speed 1.0, NaN for a job without one), or
    ``None`` when no job has one. A fork that knows only what a scheduler knows takes the
    declared times as true when some job has one (or the estimator learns), and the jobs table
    writes it as its ``estimate_min`` column."""

    declared_jobs: tuple[DeclaredJob, ...] | None
    """Every job as a scheduler sees it (:class:`~gpusched.core.declared_jobs.DeclaredJob`), by
    arrival index, for an estimator that does not learn: built once, at its start, and shared
    (immutable) by its copies (the runs and forks of one setup). ``None`` for one that learns
    (each run keeps a list of its own, :meth:`RunState.set_declared
    <gpusched.core.run_state.RunState.set_declared>`)."""

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
    """Declared run times that learn nothing: each job's estimate where it has one, its true run
    time otherwise (see the module docstring).

    :param jobs: the jobs, in arrival order.
    :param estimates: job id -> its declared run time (minutes at speed 1.0); ``None`` or a job
        left out: the job declares its true run time.
    """

    learns = False
    declares = True
    epoch = 0
    basis = None

    def __init__(self, jobs: Sequence[Job], estimates: Mapping[int, float] | None = None):
        given = [None if estimates is None else estimates.get(j.id) for j in jobs]
        self.declared_min = np.array([j.duration_min if e is None else e
                                      for j, e in zip(jobs, given, strict=True)], dtype=float)
        self.declared_min.flags.writeable = False  # its copies share it
        self.estimate_min = _given(np.array([np.nan if e is None else e for e in given], dtype=float))
        self.declared_jobs = declared_jobs(jobs, self.declared_min)

    def observe_completion(self, job_idx: int, job: Job, work_min: float) -> None:
        return None

    def fix_at_arrival(self, job_idx: int, job: Job) -> None:
        return None

    def copy(self, k: int) -> DeclaredRuntime:
        twin = object.__new__(type(self))
        twin.declared_min = self.declared_min[:k]
        twin.estimate_min = None if self.estimate_min is None else _given(self.estimate_min[:k])
        shown = self.declared_jobs
        twin.declared_jobs = shown if k == len(shown) else shown[:k]
        return twin


def _given(estimate_min: np.ndarray) -> np.ndarray | None:
    """``estimate_min`` read-only, or ``None`` when no job has an estimate."""
    if np.isnan(estimate_min).all():
        return None
    estimate_min.flags.writeable = False
    return estimate_min


ESTIMATE_STREAM = 0x5EED
"""Second word of the seed of the log-normal estimates' generator: ``default_rng([seed, 0x5EED])``,
so that drawing estimates never changes the jobs themselves."""


class LognormalRuntime(DeclaredRuntime):
    """The run times a user would declare: ``estimate = duration * exp(sigma * Z)``, ``Z ~ N(0,
    1)`` (a multiplicative log-normal error, median-unbiased), rounded to 6 decimals, drawn in
    arrival order from a generator of its own seeded with ``[seed, ESTIMATE_STREAM]``
    (``workload.declared_run_time: {lognormal: SIGMA}``, or the older
    ``workload.runtime_estimate_error: SIGMA``). A sigma of 0 declares the true run times.

    :param jobs: the jobs, in arrival order.
    :param sigma: sigma of the log-normal error (log-minutes, >= 0).
    :param seed: the workload seed.
    """

    def __init__(self, jobs: Sequence[Job], sigma: float, seed: int):
        if not sigma:
            super().__init__(jobs)
            return
        rng = np.random.default_rng([seed, ESTIMATE_STREAM])
        factors = np.exp(sigma * rng.standard_normal(len(jobs)))
        super().__init__(jobs, {job.id: round(job.duration_min * float(f), 6)
                                for job, f in zip(jobs, factors, strict=True)})


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
        self.estimate_min = None
        self.declared_jobs = declared_jobs(jobs, self.declared_min)
