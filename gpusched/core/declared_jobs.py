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

**Cost.** :func:`declared_jobs` builds the list in one pass of C-level maps (no Python frame per
job). A run-time estimator whose declared times are fixed at its start builds it once and shares
it, a tuple, with every run and fork (:class:`~gpusched.core.estimator.DeclaredRuntime`); a run
under a learning estimator keeps a list of its own (a
:class:`~gpusched.core.readonly.FrozenList`) and rebuilds only the entries of the jobs whose
estimate it fixes (:meth:`RunState.declare_arrivals
<gpusched.core.run_state.RunState.declare_arrivals>`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import add, attrgetter
from typing import NamedTuple

import numpy as np

from gpusched.core.jobs import Job


class DeclaredJob(NamedTuple):
    """One job as a scheduler sees it: the fields of :class:`~gpusched.core.jobs.Job` (see there
    for their units), without ``duration_min``, and its declared run time.

    Immutable (a named tuple). Equal to another only field by field.
    """

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


SHOWN_FIELDS: tuple[str, ...] = DeclaredJob._fields[:-1]
"""The fields of a :class:`~gpusched.core.jobs.Job` a scheduler is shown (all but ``duration_min``)."""

_shown = attrgetter(*SHOWN_FIELDS)
_new = tuple.__new__


def declared_job(job: Job, declared_min: float) -> DeclaredJob:
    """``job`` as a scheduler sees it, with ``declared_min`` (minutes at speed 1.0)."""
    return _new(DeclaredJob, (*_shown(job), float(declared_min)))


def declared_jobs(jobs: Sequence[Job], declared_min: np.ndarray) -> tuple[DeclaredJob, ...]:
    """Every job of ``jobs`` as a scheduler sees it, by arrival index.

    :param jobs: the jobs, in arrival order.
    :param declared_min: each one's declared run time at speed 1.0 (minutes), by arrival index.
    """
    if len(jobs) != len(declared_min):
        raise ValueError(f"{len(jobs)} jobs but {len(declared_min)} declared run times")
    shown = map(_shown, jobs)
    told = zip(declared_min.tolist())  # 1-tuples of Python floats
    return tuple(map(_new, repeat(DeclaredJob), map(add, shown, told)))
