"""The speed model: how fast a job runs on a gang (one interface, answered per job).

The simulator, the planners and the observations ask :class:`SpeedModel` for a *job*'s speed,
never for a type's, so a model that resolves speeds per model name, per job size or per job can
replace :class:`TableSpeeds` without touching them. A job's run time on a gang is
``duration_min / speed`` (see :mod:`gpusched.core.simulator`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from gpusched.core.cluster import Cluster, fit_shape
from gpusched.core.jobs import Job
from gpusched.core.speed import GpuSpeeds


class SpeedModel(Protocol):
    """Relative speeds of jobs on GPUs (1.0 is the reference GPU)."""

    uniform: bool
    """Whether every GPU runs every job at speed 1.0 (no speed table)."""

    def of(self, job: Job, gpus: Sequence[int]) -> float:
        """The speed of ``job`` on the gang ``gpus``."""
        ...

    def row(self, job: Job) -> np.ndarray | None:
        """The speed of ``job`` on every GPU (read-only), or ``None`` when :attr:`uniform`."""
        ...

    def best(self, jobs: Sequence[Job]) -> np.ndarray:
        """Per job, the fastest speed any gang of the cluster that could ever hold it offers it."""
        ...


class TableSpeeds:
    """The shipped speed model: a speed table (:class:`~gpusched.core.speed.GpuSpeeds`) resolved per
    job (its model, then its type, then 1.0), a gang at its slowest GPU's speed; every GPU at 1.0
    without a table.

    :param cluster: the cluster.
    :param speeds: the resolved speed table, or ``None``.
    """

    def __init__(self, cluster: Cluster, speeds: GpuSpeeds | None):
        self.cluster = cluster
        self.table = speeds
        self.uniform = speeds is None
        if speeds is not None:  # the table's own answer, without a frame of this class (hot path)
            self.of = speeds.of_job

    def of(self, job: Job, gpus: Sequence[int]) -> float:
        return 1.0 if self.table is None else self.table.of_job(job, gpus)

    def row(self, job: Job) -> np.ndarray | None:
        return None if self.table is None else self.table.row_of_job(job)

    def best(self, jobs: Sequence[Job]) -> np.ndarray:
        """The fastest GPU, for the job, among those where it fits on an empty cluster (a node
        holds one GPU model, so a gang's speed is its node's); cached by the job's shape, type and model."""
        if self.table is None:
            return np.ones(len(jobs))
        cluster, table = self.cluster, self.table
        cache: dict[tuple, float] = {}
        out = np.empty(len(jobs))
        for i, job in enumerate(jobs):
            key = (job.type, job.model, fit_shape(job))
            best = cache.get(key)
            if best is None:
                mask = cluster.empty_fit_mask(job)
                best = cache[key] = float(table.row_of_job(job)[mask].max()) if mask.any() else 1.0
            out[i] = best
        return out
