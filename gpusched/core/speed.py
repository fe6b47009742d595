"""Relative GPU speeds: how fast a job runs on each GPU model.

A job's ``duration_min`` is its run time at speed 1.0, on the reference GPU (A100-80GB in the
shipped table, V100 in Gavel's, :mod:`gpusched.core.gavel_speeds`). On a gang it runs at the speed
of its slowest GPU, so its run time is ``duration_min / min(speed of its GPUs for the job)``.

**Resolution.** A table maps GPU model -> row. A row maps job types (``Job.type``) to speeds,
and under its key :data:`MODELS_KEY` (``models``) job models (``Job.model``, e.g. ``ResNet-50
(batch size 64)``) to speeds: the two kinds of name are kept apart, so a job model spelt like a job
type (a job list's ``model`` column holding ``inference``) never takes that type's speed. For each
GPU model, a job's speed is, in this order:

1. its model's entry under ``models``, if the job has a model and the row names it there; an entry
   may give one speed, or a speed per gang size (GPUs, as measured tables do): then the entry for
   the job's GPU count, and if it has none, the next rule;
2. its type's entry, if the row names the type;
3. 1.0 (a GPU model the table does not name, or a job it names neither by model nor by type).

:meth:`GpuSpeeds.of_job` and :meth:`GpuSpeeds.row_of_job` answer per job; :meth:`GpuSpeeds.row`
answers for a job type alone (rule 2, then 3).

**The shipped table** (:data:`DEFAULT_SPEEDS`) is derived from NVIDIA's datasheet peaks, relative
to the A100-80GB (SXM):

- *training* (compute-bound): dense FP16/BF16 Tensor Core throughput. A100 312 TFLOPS (both memory
  sizes), V100 125, L4 121, T4 65.
- *inference* (small batches, memory-bound): memory bandwidth. A100-80GB 2,039 GB/s, A100-40GB
  1,555, V100 900, L4 300, T4 320.
- *batch* (in between): the geometric mean of the two ratios.

The figures are the vendors' published peaks; **using a peak ratio as a job's speed is an
assumption** (real jobs reach a varying share of a GPU's peak). Give a scenario its own table to
use measured speeds instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gpusched.core.cluster import Cluster
from gpusched.core.jobs import Job

REFERENCE_MODEL = "A100-80GB"
"""The GPU on which a job's ``duration_min`` is its run time (speed 1.0 in the shipped table)."""

_TRAINING_TFLOPS = {"A100-80GB": 312.0, "A100-40GB": 312.0, "V100-32GB": 125.0, "L4-24GB": 121.0,
                    "T4-16GB": 65.0}
_BANDWIDTH_GB_S = {"A100-80GB": 2039.0, "A100-40GB": 1555.0, "V100-32GB": 900.0, "L4-24GB": 300.0,
                   "T4-16GB": 320.0}


def _shipped_table() -> dict[str, dict[str, float]]:
    table = {}
    for model in _TRAINING_TFLOPS:
        training = round(_TRAINING_TFLOPS[model] / _TRAINING_TFLOPS[REFERENCE_MODEL], 2)
        inference = round(_BANDWIDTH_GB_S[model] / _BANDWIDTH_GB_S[REFERENCE_MODEL], 2)
        table[model] = {"training": training, "inference": inference,
                        "batch": round(math.sqrt(training * inference), 2)}
    return table


DEFAULT_SPEEDS: dict[str, dict[str, float]] = _shipped_table()
"""The shipped table (``speed: default``): GPU model -> job type -> speed relative to the
A100-80GB (see the module docstring for the sources)."""


SpeedEntry = float | Mapping[int, float]
"""A job model's entry: one speed, or a speed per gang size (GPUs -> speed)."""

MODELS_KEY = "models"
"""The key of a speed table's row that maps job models to speeds (every other key is a job type)."""


class GpuSpeeds:
    """A speed table resolved for one cluster: the speed of every GPU, per job type and per job.

    :param cluster: the cluster.
    :param table: GPU model -> job type -> relative speed (> 0), and under :data:`MODELS_KEY` job
        model -> a speed or a speed per gang size (GPUs -> speed); see the module docstring for
        the resolution order.
    """

    def __init__(self, cluster: Cluster, table: Mapping[str, Mapping[str, Any]]):
        self._types = {m: {t: float(v) for t, v in row.items() if t != MODELS_KEY}
                       for m, row in table.items()}
        self._models = {m: dict(row.get(MODELS_KEY) or {}) for m, row in table.items()}
        types = sorted({t for row in self._types.values() for t in row})
        names, self._inverse = np.unique(np.array(cluster.gpu_model, dtype=str), return_inverse=True)
        self._names = names.tolist()
        self._rows: dict[str, np.ndarray] = {}
        for job_type in types:
            row = np.array([self._types.get(m, {}).get(job_type, 1.0) for m in cluster.gpu_model],
                           dtype=float)
            row.flags.writeable = False
            self._rows[job_type] = row
        self._ones = np.ones(cluster.n_gpus)
        self._ones.flags.writeable = False
        self._job_rows: dict[tuple[str | None, str, int], np.ndarray] = {}

    def row(self, job_type: str) -> np.ndarray:
        """The speed of every GPU for a job type (read-only; rules 2 and 3 of the module
        docstring)."""
        return self._rows.get(job_type, self._ones)

    def of(self, job_type: str, gpus: Sequence[int]) -> float:
        """The speed of a gang for a job type: its slowest GPU's (1.0 for an empty gang)."""
        row = self._rows.get(job_type)
        if row is None or not len(gpus):
            return 1.0
        return float(min(row[g] for g in gpus))

    def speed_for(self, gpu_model: str, model: str | None, job_type: str, gpus: int) -> float:
        """The speed of one GPU model for a job of ``model`` and ``job_type`` on ``gpus`` GPUs,
        resolved as the module docstring says."""
        entry = self._models.get(gpu_model, {}).get(model) if model is not None else None
        if isinstance(entry, Mapping):
            entry = entry.get(gpus)
        if entry is None:
            entry = self._types.get(gpu_model, {}).get(job_type)
        return 1.0 if entry is None else float(entry)

    def row_of_job(self, job: Job) -> np.ndarray:
        """The speed of every GPU for ``job`` (read-only), cached by its model, type and GPU count."""
        key = (job.model, job.type, job.gpus)
        row = self._job_rows.get(key)
        if row is None:
            per_model = np.array([self.speed_for(m, job.model, job.type, job.gpus) for m in self._names])
            row = per_model[self._inverse]
            row.flags.writeable = False
            self._job_rows[key] = row
        return row

    def of_job(self, job: Job, gpus: Sequence[int]) -> float:
        """The speed of ``job`` on a gang: its slowest GPU's (1.0 for an empty gang)."""
        n = len(gpus)
        if not n:
            return 1.0
        row = self._job_rows.get((job.model, job.type, job.gpus))
        if row is None:
            row = self.row_of_job(job)
        return float(row[gpus[0]]) if n == 1 else float(min(row[g] for g in gpus))


SPEED_TYPES: tuple[str, ...] = ("training", "inference", "batch")
"""The job types a speed table's editor shows as columns (any other type has speed 1.0)."""


def speed_rows(table: Mapping[str, Mapping[str, float]]) -> list[dict[str, float | str]]:
    """A speed table as rows for an editor: ``{"gpu_model": ..., "training": ..., ...}``."""
    return [{"gpu_model": model, **{t: float(row.get(t, 1.0)) for t in SPEED_TYPES}}
            for model, row in table.items()]


def speed_table(rows: Sequence[Mapping[str, float | str]]) -> dict[str, dict[str, float]]:
    """The table back from editor rows (rows without a model name are left out)."""
    out: dict[str, dict[str, float]] = {}
    for row in rows:
        model = str(row.get("gpu_model") or "").strip()
        if model:
            out[model] = {t: float(row[t]) for t in SPEED_TYPES if row.get(t) is not None}
    return out
