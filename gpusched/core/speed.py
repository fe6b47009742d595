"""Relative GPU speeds: how fast a job of each type runs on each GPU model.

A job's ``duration_min`` is its run time at speed 1.0, on the reference GPU (A100-80GB in the
shipped table). On a gang it runs at the speed of its slowest GPU, so its run time is
``duration_min / min(speed of its GPUs for its type)``. A model or a job type the table does not
name has speed 1.0.

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

import numpy as np

from gpusched.core.cluster import Cluster

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


class GpuSpeeds:
    """A speed table resolved for one cluster: per job type, the speed of every GPU.

    :param cluster: the cluster.
    :param table: GPU model -> job type -> relative speed (> 0); models and types it does not
        name have speed 1.0.
    """

    def __init__(self, cluster: Cluster, table: Mapping[str, Mapping[str, float]]):
        types = sorted({t for row in table.values() for t in row})
        self._rows: dict[str, np.ndarray] = {}
        for job_type in types:
            row = np.array([table.get(m, {}).get(job_type, 1.0) for m in cluster.gpu_model])
            row.flags.writeable = False
            self._rows[job_type] = row
        self._ones = np.ones(cluster.n_gpus)
        self._ones.flags.writeable = False

    def row(self, job_type: str) -> np.ndarray:
        """The speed of every GPU for a job type (read-only)."""
        return self._rows.get(job_type, self._ones)

    def of(self, job_type: str, gpus: Sequence[int]) -> float:
        """The speed of a gang: its slowest GPU's (1.0 for an empty gang)."""
        row = self._rows.get(job_type)
        if row is None or not len(gpus):
            return 1.0
        return float(min(row[g] for g in gpus))


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
