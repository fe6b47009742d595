"""What a scheduler is shown of a job: its fields, with its declared run time under its own name.

A :class:`~gpusched.core.jobs.Job` carries its true run time (``duration_min``), which only the
simulator reads. The scheduler's view (:mod:`gpusched.core.view`) hands out each job as a
:class:`DeclaredJob`: every field of the job but ``duration_min``, and ``declared_min``, its
declared run time at speed 1.0 (minutes; the run-time estimator's, :mod:`gpusched.core.estimator`;
NaN where none is declared). A scheduler cannot read a true duration off a job it is given: the
name does not exist there.

A :class:`DeclaredJob` has every field the cluster state, the gang rule, the speed model and the
restore model read of a job (its shape, type, model and id), so they take it as they take a
``Job``. The fit masks of the cluster state are cached by the job object
(:meth:`ClusterState.fit_mask <gpusched.core.cluster.ClusterState.fit_mask>`): the simulator asks
its questions of shape (the gang of a placement, whether a held job could fit) of the same
:class:`DeclaredJob` the scheduler was given, so a mask the scheduler computed is reused.

**Cost.** A :class:`DeclaredJob` is a slotted object, as a ``Job`` is, so that CPython 3.11
specialises every read of a field (a named tuple's fields are read through a descriptor it does not
specialise: an environment step reads a dozen of them). It is read-only: writing a field raises
``AttributeError``. :func:`declared_jobs` builds the list with one small Python frame per job. A
run-time estimator whose declared times are fixed at its start builds it once and shares it, a
tuple, with every run and fork (:class:`~gpusched.core.estimator.DeclaredRuntime`); a run under a
learning estimator keeps a list of its own (a :class:`~gpusched.core.readonly.FrozenList`) and
rebuilds only the entries of the jobs whose estimate it fixes (:meth:`RunState.declare_arrivals
<gpusched.core.run_state.RunState.declare_arrivals>`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from operator import attrgetter

import numpy as np

from gpusched.core.jobs import Job

SHOWN_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Job) if f.name != "duration_min")
"""The fields of a :class:`~gpusched.core.jobs.Job` a scheduler is shown (all but ``duration_min``)."""

_FIELDS = (*SHOWN_FIELDS, "declared_min")


class _Fields:
    """The storage of a :class:`DeclaredJob`: its slots, writable while it is built."""

    __slots__ = _FIELDS


class DeclaredJob(_Fields):
    """One job as a scheduler sees it: the fields of :class:`~gpusched.core.jobs.Job` (see there
    for their units), without ``duration_min``, and its declared run time.

    Read-only (writing a field raises ``AttributeError``); equal to another only field by field,
    and hashable as its fields are. Build it with :func:`declared_job` or :func:`declared_jobs`.
    """

    __slots__ = ()

    id: int
    type: str
    arrival_min: float
    gpus: int
    vram_gb: float
    compute: float
    priority: int
    vram_frac: float
    cpu_milli: float
    memory_mib: float
    gpu_spec: tuple[str, ...] | None
    model: str | None
    weight: float
    deadline_min: float | None
    declared_min: float
    """Declared run time at speed 1.0 (minutes; NaN where no run time is declared)."""

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"a DeclaredJob is read-only (tried to set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a DeclaredJob is read-only (tried to delete {name!r})")

    def __eq__(self, other: object) -> bool:
        if type(other) is not DeclaredJob:
            return NotImplemented
        return _values(self) == _values(other)

    def __hash__(self) -> int:
        return hash(_values(self))

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={v!r}" for n, v in zip(_FIELDS, _values(self), strict=True))
        return f"DeclaredJob({fields})"

    def __reduce__(self):
        return _rebuild, _values(self)


_values = attrgetter(*_FIELDS)


def _rebuild(*values) -> DeclaredJob:
    """A :class:`DeclaredJob` of ``values``, in the order of its fields (for pickling and copies)."""
    job = _Fields()
    for name, value in zip(_FIELDS, values, strict=True):
        setattr(job, name, value)
    job.__class__ = DeclaredJob
    return job


def declared_job(job: Job, declared_min: float) -> DeclaredJob:
    """``job`` as a scheduler sees it, with ``declared_min`` (minutes at speed 1.0)."""
    shown = _Fields()
    shown.id, shown.type, shown.arrival_min, shown.gpus = job.id, job.type, job.arrival_min, job.gpus
    shown.vram_gb, shown.compute, shown.priority = job.vram_gb, job.compute, job.priority
    shown.vram_frac, shown.cpu_milli, shown.memory_mib = job.vram_frac, job.cpu_milli, job.memory_mib
    shown.gpu_spec, shown.model, shown.weight = job.gpu_spec, job.model, job.weight
    shown.deadline_min, shown.declared_min = job.deadline_min, float(declared_min)
    shown.__class__ = DeclaredJob  # read-only from here on (same slots: CPython allows it)
    return shown


def declared_jobs(jobs: Sequence[Job], declared_min: np.ndarray) -> tuple[DeclaredJob, ...]:
    """Every job of ``jobs`` as a scheduler sees it, by arrival index.

    :param jobs: the jobs, in arrival order.
    :param declared_min: each one's declared run time at speed 1.0 (minutes), by arrival index.
    """
    if len(jobs) != len(declared_min):
        raise ValueError(f"{len(jobs)} jobs but {len(declared_min)} declared run times")
    return tuple(map(declared_job, jobs, declared_min.tolist()))
