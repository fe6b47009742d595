"""Reader for Microsoft's Philly trace, as the Pollux and Sia artifacts process it.

The trace (Jeon et al., "Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training
Workloads", USENIX ATC 2019; raw data ``msr-fiddle/philly-traces``) is read in the processed form
that Pollux (OSDI 2021, ``petuum/adaptdl``, branch ``osdi21-artifact``, ``simulator/traces/
philly.csv``) and Sia (SOSP 2023, ``siasosp23/artifacts``, ``sia-simulator/traces/philly.csv``)
ship: a CSV with one job a row and the columns

| column | meaning |
|---|---|
| ``timestamp`` | submission, ``YYYY-MM-DD HH:MM:SS`` in the trace's local clock time |
| ``duration`` | run time (seconds, > 0) |
| ``num_gpus`` | GPUs (a whole number, 1 to :data:`gpusched.limits.MAX_GPUS`: a job may span servers) |
| ``gpu_time`` | optional: ``duration * num_gpus`` (GPU-seconds); checked when present |
| ``cluster`` | the virtual cluster (a team's quota; hashed), 1 to ``MAX_MODEL_CHARS`` characters |

:func:`read_philly` keeps the rows in file order (row ``i`` is line ``i + 2``) with each job's
virtual cluster and GPU count, on which history estimates key. Submission times become seconds
after the earliest submission of the file (:attr:`PhillyJobs.submit_s`); the clock times are
naive (no time zone or daylight-saving change is applied). Other columns are ignored.

**Bad input.** Every problem raises :class:`~gpusched.workload.openb.TraceError` with one line that
names the file, the line and the column, e.g. ``trace 'philly.csv', line 7, column 'num_gpus': must
be a whole number (got 1.5)``. The file is read as every trace CSV is
(:func:`~gpusched.workload.openb.read_csv_columns`: at most :data:`gpusched.limits.MAX_TRACE_BYTES`,
UTF-8, at least one row); every number must be finite and at most
:data:`gpusched.limits.MAX_QUANTITY`, and a file holds at most :data:`gpusched.limits.MAX_JOBS`
jobs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from gpusched.limits import MAX_GPUS, MAX_JOBS, MAX_MODEL_CHARS, MAX_QUANTITY
from gpusched.workload.openb import TraceError, numeric_column, read_csv_columns

PHILLY_COLUMNS: tuple[str, ...] = ("timestamp", "duration", "num_gpus", "cluster")
"""The required columns of a processed Philly CSV."""

GPU_TIME = "gpu_time"
"""The optional column checked against ``duration * num_gpus``."""

TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S"
"""How a submission time is written."""

_GPU_TIME_TOLERANCE = 1e-6
"""Largest relative difference between ``gpu_time`` and ``duration * num_gpus`` (rounding)."""


@dataclass(frozen=True)
class PhillyJobs:
    """The jobs of a Philly CSV, one array entry per row, in file order.

    :param source: the file it was read from.
    :param start: the earliest submission time of the file, as written.
    :param submit_s: submission (seconds after ``start``).
    :param duration_s: run time (seconds, > 0).
    :param num_gpus: GPUs.
    :param cluster: the virtual cluster of each job.
    """

    source: str
    start: str
    submit_s: np.ndarray
    duration_s: np.ndarray
    num_gpus: np.ndarray
    cluster: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.cluster)

    def by_submission(self) -> np.ndarray:
        """Row indexes in order of submission (ties in file order)."""
        return np.argsort(self.submit_s, kind="stable")

    def count_by_cluster(self) -> dict[str, int]:
        """Jobs per virtual cluster, most jobs first (ties by name)."""
        counts = Counter(self.cluster)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def count_by_gpus(self) -> dict[int, int]:
        """Jobs per GPU count, ascending."""
        values, counts = np.unique(self.num_gpus, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts, strict=True)}


def _where(path: Path, i: int, column: str) -> str:
    return f"trace '{path}', line {i + 2}, column '{column}'"


def read_philly(path: str | Path) -> PhillyJobs:
    """Read and validate a processed Philly CSV.

    :param path: the CSV file.
    :raises TraceError: one line naming the file, the line and the column: a missing column, a
        time that is not ``YYYY-MM-DD HH:MM:SS``, a run time that is not > 0, a GPU count that is
        not a whole number from 1 to :data:`gpusched.limits.MAX_GPUS`, a ``gpu_time`` that is not
        ``duration * num_gpus``, an empty or too long virtual cluster, or too many rows.
    """
    path = Path(path)
    frame = read_csv_columns(path, PHILLY_COLUMNS)
    if len(frame) > MAX_JOBS:
        raise TraceError(f"trace '{path}': {len(frame):,} jobs, more than the limit of {MAX_JOBS:,}")
    raw_times = frame["timestamp"].str.strip()
    times = pd.to_datetime(raw_times, format=TIMESTAMP_FORMAT, errors="coerce")
    bad = times.isna().to_numpy()
    if bad.any():
        i = int(np.argmax(bad))
        got = raw_times.iloc[i]
        shown = "an empty cell" if not got else repr(got if len(got) <= 40 else got[:37] + "...")
        raise TraceError(f"{_where(path, i, 'timestamp')}: must be a time as YYYY-MM-DD HH:MM:SS "
                         f"(got {shown})")
    duration = numeric_column(frame, path, "duration", integer=False)
    if not (duration > 0).all():
        i = int(np.argmax(~(duration > 0)))
        got = frame["duration"].iloc[i].strip()
        raise TraceError(f"{_where(path, i, 'duration')}: must be > 0 (got {got})")
    gpus = numeric_column(frame, path, "num_gpus", integer=True, maximum=MAX_GPUS)
    if not (gpus >= 1).all():
        i = int(np.argmax(~(gpus >= 1)))
        got = frame["num_gpus"].iloc[i].strip()
        raise TraceError(f"{_where(path, i, 'num_gpus')}: must be >= 1 (got {got})")
    if GPU_TIME in frame.columns:
        gpu_time = numeric_column(frame, path, GPU_TIME, integer=False)
        expected = duration * gpus
        off = np.abs(gpu_time - expected) > _GPU_TIME_TOLERANCE * np.maximum(1.0, expected)
        if off.any():
            i = int(np.argmax(off))
            raise TraceError(f"{_where(path, i, GPU_TIME)}: must be duration * num_gpus = "
                             f"{expected[i]:g} (got {frame[GPU_TIME].iloc[i].strip()})")
    clusters = tuple(c.strip() for c in frame["cluster"])
    for i, name in enumerate(clusters):
        if not name or len(name) > MAX_MODEL_CHARS:
            raise TraceError(f"{_where(path, i, 'cluster')}: must be 1 to {MAX_MODEL_CHARS} characters "
                             f"(got {len(name)})")
        if any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise TraceError(f"{_where(path, i, 'cluster')}: holds a control character")
    first = times.min()
    submit = (times - first).dt.total_seconds().to_numpy(dtype=float)
    if not (submit <= MAX_QUANTITY).all():  # pragma: no cover - pandas' dates span under 600 years
        raise TraceError(f"trace '{path}': its submissions span more than {MAX_QUANTITY:g} s")
    return PhillyJobs(source=str(path), start=first.strftime(TIMESTAMP_FORMAT), submit_s=submit,
                      duration_s=duration.astype(float), num_gpus=gpus.astype(np.int64),
                      cluster=clusters)
