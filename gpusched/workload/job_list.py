"""A plain job list: one job per row of a CSV file (``workload.trace.jobs: PATH``).

Columns (``id,arrival_min,model,gpus,duration_min`` are required, in any order):

| column | meaning | when absent or empty |
|---|---|---|
| ``id`` | job id, a whole number, unique | required |
| ``arrival_min`` | arrival (minutes from the start) | required |
| ``model`` | job model, a label a speed table may name (``ResNet-50 (batch size 64)``) | no model |
| ``gpus`` | GPUs, all on one node | required |
| ``duration_min`` | run time on a speed-1.0 GPU (minutes, >= 1e-6: ``MIN_DURATION_MIN``) | required |
| ``type`` | job type: ``training``, ``inference``, ``batch`` or ``trace`` | ``trace`` |
| ``vram_gb`` | VRAM per GPU (GB) | 0: fits on any GPU of the cluster |
| ``compute`` | compute share per GPU (0-1] | 1.0: the job does not share its GPUs |
| ``priority`` | 1 (low) to 3 (high) | 2 |
| ``weight`` | priority weight (1e-6 to 1e6: ``MIN_JOB_WEIGHT``, ``MAX_JOB_WEIGHT``) | 1.0 |
| ``deadline_min`` | deadline, minutes after arrival | none |
| ``estimate_min`` | run time its user declares (minutes at speed 1.0, >= 1e-6; below) | ``duration_min`` |
| ``vram_frac`` | extra VRAM per GPU as a share of its capacity (0-1) | 0 |
| ``cpu_milli``, ``memory_mib`` | node CPU (milli-cores) and memory (MiB) requests | 0 |
| ``gpu_spec`` | GPU models it may run on, ``|``-separated (no empty name) | any |

``estimate_min`` is told to the scheduler only under ``workload.declared_run_time: listed``, which
is what a scenario with a job list and without the key reads; ``exact`` tells the true run times
whatever the column says (:mod:`gpusched.workload.declared`).

An absent ``model`` or ``type`` gets no entry of a speed table: the type ``trace`` is not in the
shipped table, so such a job runs at speed 1.0 everywhere unless a table names ``trace``. Other
columns are ignored, so the jobs table that ``gpusched simulate --jobs-csv`` writes (which has all
of the above and the run's results) reads back as the same jobs.

The file is read by the trace machinery of :mod:`gpusched.workload.openb`
(:func:`~gpusched.workload.openb.read_csv_columns`, :func:`~gpusched.workload.openb.numeric_column`):
at most :data:`gpusched.limits.MAX_JOB_LIST_BYTES`, UTF-8, no column named twice, no row with more
cells than the header, and every problem is one line naming the file, the line (blank lines
counted) and the column (:class:`~gpusched.workload.openb.TraceError`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from gpusched.core.jobs import Job
from gpusched.limits import (
    MAX_GPUS_PER_NODE,
    MAX_HORIZON_MIN,
    MAX_JOB_LIST_BYTES,
    MAX_JOB_WEIGHT,
    MAX_JOBS,
    MAX_MODEL_CHARS,
    MAX_QUANTITY,
    MAX_VRAM_GB,
    MIN_DURATION_MIN,
    MIN_JOB_WEIGHT,
)
from gpusched.workload.openb import TraceError, numeric_column, read_csv_columns, row_line
from gpusched.workload.synthetic import JOB_TYPES

JOB_LIST_COLUMNS: tuple[str, ...] = ("id", "arrival_min", "model", "gpus", "duration_min")
"""The required columns of a job list."""

JOB_LIST_OPTIONAL: tuple[str, ...] = ("type", "vram_gb", "compute", "priority", "weight",
                                      "deadline_min", "estimate_min", "vram_frac", "cpu_milli",
                                      "memory_mib", "gpu_spec")
"""The optional columns (see the module docstring for their defaults)."""

LIST_TYPES: tuple[str, ...] = (*JOB_TYPES, "trace")
"""The values of the ``type`` column."""

DEFAULT_TYPE = "trace"
"""The type of a job whose ``type`` is absent or empty."""

NONE = float("nan")
"""The default of an optional column whose absence means "none" (``deadline_min``)."""

RowCheck = Callable[[Job], tuple[str, str] | None]
"""Given a job of the list, the column and the reason the scenario cannot run it as given
(``None`` if it can): under ``speed: gavel``, a model Gavel did not measure at its GPU count, a
share of a GPU, or a ``gpu_spec`` naming none of the GPU models that can run it."""


def _where(path: Path, frame: pd.DataFrame, i: int, column: str) -> str:
    return f"trace '{path}', line {row_line(frame, i)}, column '{column}'"


def _gpu_specs(frame: pd.DataFrame, path: Path) -> list[tuple[str, ...] | None]:
    """The ``gpu_spec`` of each row: ``None`` for an empty cell (any GPU), else its ``|``-separated
    GPU models; a cell that names no model (``|``) or an empty one (``K80||V100``) is refused, as
    it would otherwise read as "any GPU"."""
    out: list[tuple[str, ...] | None] = []
    for i, cell in enumerate(_texts(frame, "gpu_spec")):
        if not cell:
            out.append(None)
            continue
        names = tuple(t.strip() for t in cell.split("|"))
        if not all(names):
            raise TraceError(f"{_where(path, frame, i, 'gpu_spec')}: '{cell[:40]}' holds an empty GPU "
                             "model name (give models separated by '|', e.g. K80|V100, or an empty "
                             "cell for any GPU)")
        out.append(tuple(dict.fromkeys(names)))
    return out


def _number(frame: pd.DataFrame, path: Path, column: str, *, default: float | None, low: float,
            high: float, strict_low: bool = False, integer: bool = False) -> np.ndarray:
    """One column as numbers within ``[low, high]`` (``(low, high]`` when ``strict_low``); an
    absent column or an empty cell is ``default`` (NaN for "none"; ``None``: the column is
    required and every cell must hold a number)."""
    if column not in frame.columns:
        return np.full(len(frame), default)
    values = numeric_column(frame, path, column, integer=False, optional=default is not None,
                            maximum=high)
    values = values.astype(float)
    bad = ~np.isnan(values) & ((values <= low) if strict_low else (values < low))
    if bad.any():
        i = int(np.argmax(bad))
        rule = f"> {low:g}" if strict_low else f">= {low:g}"
        raise TraceError(f"{_where(path, frame, i, column)}: must be {rule} "
                         f"(got {frame[column].iloc[i].strip()})")
    if integer:
        fractional = ~np.isnan(values) & (values != np.floor(values))
        if fractional.any():
            i = int(np.argmax(fractional))
            raise TraceError(f"{_where(path, frame, i, column)}: must be a whole number "
                             f"(got {frame[column].iloc[i].strip()})")
    if default is not None:
        values = np.where(np.isnan(values), default, values)
    return values


def _texts(frame: pd.DataFrame, column: str) -> list[str]:
    return [s.strip() for s in frame[column]] if column in frame.columns else [""] * len(frame)


def read_job_list(path: str | Path, *, max_jobs: int | None = None,
                  check_row: RowCheck | None = None) -> list[Job]:
    """Read and validate a job list.

    :param path: the CSV file.
    :param max_jobs: keep the first ``max_jobs`` jobs by arrival (ties by id).
    :param check_row: refuses a job the scenario cannot run as given (:data:`RowCheck`), naming
        its line and column.
    :return: the jobs sorted by arrival, then id (a job carries its true run time only; its
        ``estimate_min`` is :func:`read_listed_estimates`'s).
    :raises TraceError: one line naming the file, the line and the column.
    """
    return _read(path, max_jobs, check_row)[0]


def read_listed_estimates(path: str | Path) -> dict[int, float]:
    """A job list's ``estimate_min`` column: job id -> the run time its user declares (minutes at
    speed 1.0), for the jobs that have one; what the scheduler is told under
    ``workload.declared_run_time: listed`` (:class:`~gpusched.core.estimator.DeclaredRuntime`).

    :raises TraceError: as :func:`read_job_list`.
    """
    return _read(path, None, None)[1]


def _read(path: str | Path, max_jobs: int | None,
          check_row: RowCheck | None) -> tuple[list[Job], dict[int, float]]:
    path = Path(path)
    frame = read_csv_columns(path, JOB_LIST_COLUMNS, max_bytes=MAX_JOB_LIST_BYTES)
    if len(frame) > MAX_JOBS:
        raise TraceError(f"trace '{path}': {len(frame):,} jobs, more than the limit of {MAX_JOBS:,}")
    ids = _number(frame, path, "id", default=None, low=0, high=MAX_QUANTITY, integer=True)
    arrival = _number(frame, path, "arrival_min", default=None, low=0, high=MAX_HORIZON_MIN)
    duration = _number(frame, path, "duration_min", default=None, low=MIN_DURATION_MIN,
                       high=MAX_HORIZON_MIN)
    gpus = _number(frame, path, "gpus", default=None, low=1, high=MAX_GPUS_PER_NODE, integer=True)
    vram = _number(frame, path, "vram_gb", default=0.0, low=0, high=MAX_VRAM_GB)
    compute = _number(frame, path, "compute", default=1.0, low=0, high=1.0, strict_low=True)
    priority = _number(frame, path, "priority", default=2.0, low=1, high=3, integer=True)
    weight = _number(frame, path, "weight", default=1.0, low=MIN_JOB_WEIGHT, high=MAX_JOB_WEIGHT)
    deadline = _number(frame, path, "deadline_min", default=NONE, low=0, high=MAX_HORIZON_MIN,
                       strict_low=True)
    estimate = _number(frame, path, "estimate_min", default=NONE, low=MIN_DURATION_MIN,
                       high=MAX_HORIZON_MIN)
    vram_frac = _number(frame, path, "vram_frac", default=0.0, low=0, high=1.0)
    cpu = _number(frame, path, "cpu_milli", default=0.0, low=0, high=MAX_QUANTITY)
    memory = _number(frame, path, "memory_mib", default=0.0, low=0, high=MAX_QUANTITY)
    seen: dict[int, int] = {}
    for i, job_id in enumerate(ids.astype(np.int64).tolist()):
        if job_id in seen:
            raise TraceError(f"{_where(path, frame, i, 'id')}: duplicate id {job_id} (also on line "
                             f"{row_line(frame, seen[job_id])})")
        seen[job_id] = i
    types = _texts(frame, "type")
    for i, t in enumerate(types):
        if t and t not in LIST_TYPES:
            raise TraceError(f"{_where(path, frame, i, 'type')}: unknown job type '{t[:40]}' (known: "
                             f"{', '.join(LIST_TYPES)}; empty for none)")
    models = _texts(frame, "model")
    for i, m in enumerate(models):
        if len(m) > MAX_MODEL_CHARS:
            raise TraceError(f"{_where(path, frame, i, 'model')}: longer than {MAX_MODEL_CHARS} "
                             f"characters ('{m[:40]}...')")
        if any(ord(c) < 32 for c in m):
            raise TraceError(f"{_where(path, frame, i, 'model')}: holds a control character")
    specs = _gpu_specs(frame, path)
    jobs = [Job(id=int(ids[i]), type=types[i] or DEFAULT_TYPE, arrival_min=float(arrival[i]),
                duration_min=float(duration[i]), gpus=int(gpus[i]), vram_gb=float(vram[i]),
                compute=float(compute[i]), priority=int(priority[i]), vram_frac=float(vram_frac[i]),
                cpu_milli=float(cpu[i]), memory_mib=float(memory[i]), gpu_spec=specs[i],
                model=models[i] or None, weight=float(weight[i]),
                deadline_min=None if np.isnan(deadline[i]) else float(deadline[i]))
            for i in range(len(frame))]
    if check_row is not None:
        for i, job in enumerate(jobs):
            problem = check_row(job)
            if problem:
                raise TraceError(f"{_where(path, frame, i, problem[0])}: {problem[1]}")
    order = np.lexsort((ids, arrival))
    if max_jobs is not None:
        order = order[:max_jobs]
    listed = {int(ids[i]): float(estimate[i]) for i in order.tolist() if not np.isnan(estimate[i])}
    return [jobs[i] for i in order.tolist()], listed
