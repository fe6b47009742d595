"""The speed model: how fast a job runs on a gang (one interface, answered per job).

The simulator, the planners and the observations ask :class:`SpeedModel` for a *job*'s speed,
never for a type's, so a model that resolves speeds per model name, per job size or per job can
replace :class:`TableSpeeds` without touching them. A job's run time on a gang is
``duration_min / speed`` (see :mod:`gpusched.core.simulator`). On a cluster whose gangs may span
nodes (:class:`gpusched.core.gang.SpreadGang`), a gang that spans nodes runs at its table speed
times the rule's spread factor, so the speed of a spread gang comes from here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from gpusched.core.cluster import Cluster, ClusterState
from gpusched.core.jobs import Job, fit_shape
from gpusched.core.speed import GpuSpeeds


class SpeedModel(Protocol):
    """Relative speeds of jobs on GPUs (1.0 is the reference GPU)."""

    uniform: bool
    """Whether every GPU runs every job at speed 1.0 (no speed table)."""

    table: GpuSpeeds | None
    """The speed table the model reads, or ``None`` (the observations show its rows per job type)."""

    def of(self, job: Job, gpus: Sequence[int]) -> float:
        """The speed of ``job`` on the gang ``gpus``."""
        ...

    def row(self, job: Job) -> np.ndarray | None:
        """The speed of ``job`` on every GPU (read-only), or ``None`` when :attr:`uniform`."""
        ...

    def best(self, jobs: Sequence[Job]) -> np.ndarray:
        """Per job, the fastest speed any gang of the cluster that could ever hold it offers it."""
        ...

    def fit_row(self, job: Job, single: np.ndarray) -> np.ndarray | None:
        """The speed of ``job`` on the gang the gang rule forms at each GPU, when ``single`` holds
        the GPUs that could each take one of its GPUs: :meth:`row`, or for a gang that must span
        nodes, each GPU's speed times its spread factor (``None`` when every gang runs at 1.0)."""
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
        self.spread = cluster.gang_rule if cluster.gang_placement == "spread" else None
        self.uniform = speeds is None and (self.spread is None or self.spread.uniform)
        self._spread_rows: dict[tuple, np.ndarray] = {}
        if self.spread is None:  # the one-node rule's speed, without a check or a frame per call
            self.of = self._of_table if speeds is None else speeds.of_job
        if speeds is not None:  # the table's own row, without a frame per call
            self.row = speeds.row_of_job

    def _of_table(self, job: Job, gpus: Sequence[int]) -> float:
        return 1.0 if self.table is None else self.table.of_job(job, gpus)

    def of(self, job: Job, gpus: Sequence[int]) -> float:
        speed = self._of_table(job, gpus)
        spread = self.spread
        if spread is not None and len(gpus) > 1 and spread.spans(gpus):
            speed *= spread.factor(job, self.cluster.gpu_model[gpus[0]])
        return speed

    def fit_row(self, job: Job, single: np.ndarray) -> np.ndarray | None:
        spread = self.spread
        if spread is None or job.gpus == 1 or spread.packs(single, job.gpus):
            return self.row(job)
        key = (job.model, job.type, job.gpus)
        row = self._spread_rows.get(key)
        if row is None:
            base = np.ones(self.cluster.n_gpus) if self.table is None else self.table.row_of_job(job)
            names = self.cluster.gpu_model
            factor = {m: spread.factor(job, m) for m in dict.fromkeys(names)}
            row = self._spread_rows[key] = base * np.array([factor[m] for m in names])
            row.flags.writeable = False
        return row

    def row(self, job: Job) -> np.ndarray | None:
        return None if self.table is None else self.table.row_of_job(job)

    def best(self, jobs: Sequence[Job]) -> np.ndarray:
        """The fastest GPU, for the job, among those where it fits on an empty cluster (a node
        holds one GPU model, so a gang's speed is its node's); cached by the job's shape, type and model."""
        if self.uniform:
            return np.ones(len(jobs))
        cluster = self.cluster
        cache: dict[tuple, float] = {}
        out = np.empty(len(jobs))
        empty = None if self.spread is None else ClusterState(cluster)
        for i, job in enumerate(jobs):
            key = (job.type, job.model, fit_shape(job))
            best = cache.get(key)
            if best is None:
                mask = cluster.empty_fit_mask(job)
                row = (self.table.row_of_job(job) if empty is None
                       else self.fit_row(job, empty.single_gpu_fit(job)))
                best = cache[key] = float(row[mask].max()) if mask.any() and row is not None else 1.0
            out[i] = best
        return out
