"""Readers for Shockwave's cluster files: its job trace, its throughputs file and its policy settings.

Shockwave (Zheng et al., "Shockwave: Fair and Efficient Cluster Scheduling for Dynamic Adaptation
in Machine Learning", NSDI 2023; repository ``uw-mad-dash/shockwave``, MIT) ran a 120-job trace on
32 real V100s at TACC and in its own simulator. The files are shipped in
:data:`gpusched.paths.SHOCKWAVE_DIR`; the formats are those its code reads:

- **The trace** (:func:`read_shockwave_trace`): one job a line, 12 tab-separated fields, in the
  order of ``parse_trace`` in ``scheduler/utils.py`` (:data:`TRACE_COLUMNS`): the job type
  (``ResNet-18 (batch size 32)``: the model is its first word, as ``Job.model`` in
  ``scheduler/job.py`` takes it, and the batch size the number in ``(batch size B)``), the command,
  working directory and steps argument (kept as text), ``needs_data_dir`` (0 or 1), ``total_steps``
  (training steps at the initial batch size), ``scale_factor`` (GPUs), ``mode`` (``static``,
  ``accordion`` or ``gns``: how the job changes its batch size), ``priority_weight``, ``SLO`` (a
  factor of the duration; negative for none, as ``Job`` in ``scheduler/job.py`` reads it),
  ``duration`` (seconds on the V100) and ``arrival_time`` (seconds). A job's id is its 0-based line
  number. The lines must be in arrival order (Shockwave's simulator asserts it).
- **The throughputs** (:func:`read_shockwave_throughputs`): JSON, GPU type -> ``"('<job type>',
  GPUs)"`` -> ``{"null": steps per second of the job alone, ...}``, as Gavel's
  ``read_all_throughputs_json_v2`` (``scheduler/utils.py``) reads it; the other keys of an entry
  (a second job sharing the GPU) are not read. A GPU type ``x_unconsolidated`` holds the throughputs
  of a gang spread over several servers. GPU types are named as clusters name them: upper-cased
  (``v100`` -> ``V100``, as ``speed: gavel`` names them).
- **The settings** (:func:`read_shockwave_config`): the Shockwave policy's settings
  (``tacc_32gpus.config.json``), every key of :data:`CONFIG_KEYS` and no other.

**Bad input.** Every problem raises :class:`~gpusched.workload.openb.TraceError` with one line that
names the file and the line and column, or the key, e.g. ``trace 'x.trace', line 3, column
'scale_factor': must be a whole number from 1 to 64 (got 0)``. Each file is read through
:mod:`gpusched.workload.files` (at most :data:`gpusched.limits.MAX_TRACE_BYTES`, UTF-8 text; JSON
without ``NaN``, ``Infinity`` or a key given twice). Numbers must be plain decimal numbers
(``12``, ``1.5``, ``1e3``; not ``nan``, ``inf``, ``0x10`` or ``1_000``), finite and at most
:data:`gpusched.limits.MAX_QUANTITY`; a trace holds at most :data:`gpusched.limits.MAX_JOBS` jobs,
GPU counts are at most :data:`gpusched.limits.MAX_GPUS_PER_NODE`, weights at most
:data:`gpusched.limits.MAX_JOB_WEIGHT`, and a job type at most
:data:`gpusched.limits.MAX_MODEL_CHARS` characters.

**The real cluster** (:data:`TACC_GPUS`, :data:`TACC_ROUND_S`): ``scheduler/reproduce/tacc_32gpus.sh``
runs the trace with ``--cluster_spec 32:0:0`` (32 V100s) and ``--time_per_iteration 120``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from gpusched.limits import (
    MAX_GPUS_PER_NODE,
    MAX_JOB_WEIGHT,
    MAX_JOBS,
    MAX_MODEL_CHARS,
    MAX_QUANTITY,
    MAX_TRACE_BYTES,
    MAX_VRAM_GB,
    MAX_WORKERS,
)
from gpusched.workload.files import is_file, load_json_text, read_user_text
from gpusched.workload.openb import TraceError

TRACE_COLUMNS: tuple[str, ...] = (
    "job_type", "command", "working_directory", "num_steps_arg", "needs_data_dir", "total_steps",
    "scale_factor", "mode", "priority_weight", "SLO", "duration", "arrival_time",
)
"""The fields of a trace line, in order (``parse_trace`` in Shockwave's ``scheduler/utils.py``)."""

MODES: tuple[str, ...] = ("static", "accordion", "gns")
"""How a job changes its batch size: never, by Accordion's rule, or by the gradient noise scale."""

TACC_GPUS: dict[str, int] = {"V100": 32}
"""The real cluster the shipped trace ran on (``--cluster_spec 32:0:0``)."""

TACC_ROUND_S = 120.0
"""Its round length (s; ``--time_per_iteration 120``)."""

UNCONSOLIDATED = "_unconsolidated"
"""The suffix of a GPU type whose throughputs are those of a gang spread over servers."""

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_JOB_TYPE = re.compile(r"(?P<model>[^\s()]+) \(batch size (?P<batch>[0-9]+)\)")
_PLAIN_TYPE = re.compile(r"[^\s()]+")
_JOB_KEY = re.compile(r"\('(?P<type>[^']*)', (?P<gpus>[0-9]+)\)")


@dataclass(frozen=True, slots=True)
class ShockwaveJob:
    """One job of a Shockwave trace.

    :param id: its 0-based line number.
    :param job_type: the job type as written (``ResNet-18 (batch size 32)``).
    :param model: the model, the job type's first word (``ResNet-18``).
    :param batch_size: its initial batch size (``None`` for a job type that names none).
    :param command: the training command (text, not run).
    :param working_directory: the command's folder (text).
    :param num_steps_arg: the command's steps argument (text).
    :param needs_data_dir: whether the command needs the data folder.
    :param total_steps: training steps at the initial batch size.
    :param scale_factor: GPUs (a gang).
    :param mode: ``static``, ``accordion`` or ``gns`` (:data:`MODES`).
    :param priority_weight: priority weight (> 0).
    :param slo: SLO as a factor of the duration, ``None`` for none.
    :param duration_s: run time alone on the V100 at the initial batch size (seconds).
    :param arrival_s: arrival time (seconds from the trace's start).
    """

    id: int
    job_type: str
    model: str
    batch_size: int | None
    command: str
    working_directory: str
    num_steps_arg: str
    needs_data_dir: bool
    total_steps: int
    scale_factor: int
    mode: str
    priority_weight: float
    slo: float | None
    duration_s: float
    arrival_s: float


@dataclass(frozen=True)
class ShockwaveTrace:
    """A Shockwave trace: its jobs in line order (``jobs[i].id == i``).

    :param source: the file it was read from.
    :param jobs: the jobs.
    """

    source: str
    jobs: tuple[ShockwaveJob, ...]

    def __len__(self) -> int:
        return len(self.jobs)

    def count_by_mode(self) -> dict[str, int]:
        """Jobs per mode, in the order of :data:`MODES`."""
        return {mode: sum(job.mode == mode for job in self.jobs) for mode in MODES}


@dataclass(frozen=True)
class ShockwaveThroughputs:
    """Measured throughputs of jobs running alone (steps per second).

    :param source: the file it was read from.
    :param consolidated: GPU model -> ``(job type, GPUs)`` -> the job's throughput with its GPUs on
        one server (0: it does not fit or was not measured).
    :param unconsolidated: the same for a gang spread over several servers.
    """

    source: str
    consolidated: Mapping[str, Mapping[tuple[str, int], float]]
    unconsolidated: Mapping[str, Mapping[tuple[str, int], float]]

    @property
    def gpu_models(self) -> tuple[str, ...]:
        """The GPU models with consolidated throughputs, in the file's order."""
        return tuple(self.consolidated)

    def steps_per_s(self, gpu_model: str, job_type: str, gpus: int, *, spread: bool = False) -> float:
        """The throughput of ``job_type`` on ``gpus`` GPUs of ``gpu_model`` (steps/s; 0 where the
        file has none or it does not fit)."""
        table = self.unconsolidated if spread else self.consolidated
        return float(table.get(gpu_model, {}).get((job_type, int(gpus)), 0.0))


@dataclass(frozen=True)
class ShockwaveConfig:
    """The Shockwave policy's settings (``scheduler/policies/shockwave.py`` reads them).

    :param future_rounds: rounds its plan looks ahead.
    :param k: the weight of its efficiency term.
    :param lam: ``lambda``, the weight of its fairness term.
    :param rhomax: the largest finish-time fairness it aims for.
    :param log_approximation_bases: the points of its piecewise-linear logarithm.
    :param gpu_ram_gb: GPU memory (GB).
    :param solver_rel_gap: the solver's relative optimality gap.
    :param solver_num_threads: the solver's threads.
    :param solver_timeout_s: the solver's time limit (s).
    """

    future_rounds: int
    k: float
    lam: float
    rhomax: float
    log_approximation_bases: tuple[float, ...]
    gpu_ram_gb: float
    solver_rel_gap: float
    solver_num_threads: int
    solver_timeout_s: float


def read_json_mapping(path: Path, label: str, what: str) -> dict:
    """The JSON object in ``path`` (at most :data:`gpusched.limits.MAX_TRACE_BYTES`).

    :param label: how errors name the file, e.g. ``"throughputs 'x.json'"``.
    :param what: what the mapping holds, for the error when the file holds something else.
    :raises TraceError: one line naming the file: missing, unreadable, not JSON, or not a mapping.
    """
    if not is_file(path):
        raise TraceError(f"{label}: no such file")
    data = load_json_text(read_user_text(path, label=label, max_bytes=MAX_TRACE_BYTES, error=TraceError),
                          label=label, error=TraceError)
    if not isinstance(data, dict):
        raise TraceError(f"{label}: expected a mapping of {what}, got {type(data).__name__}")
    return data


# ---------------------------------------------------------------------------- numbers

def _number(text: str, where: str, *, low: float, high: float, whole: bool = False,
            low_open: bool = False) -> float:
    """``text`` as a plain decimal number within ``[low, high]`` (``(low, high]`` if ``low_open``)."""
    shown = text if len(text) <= 40 else text[:37] + "..."
    if not _NUMBER.fullmatch(text):
        raise TraceError(f"{where}: must be a number (got {shown!r})")
    value = float(text)
    if not math.isfinite(value):
        raise TraceError(f"{where}: must be a finite number (got {shown})")
    if whole and not value.is_integer():
        raise TraceError(f"{where}: must be a whole number (got {shown})")
    if value < low or (low_open and value == low) or value > high:
        bound = f"> {low:g}" if low_open else f">= {low:g}"
        raise TraceError(f"{where}: must be {bound} and <= {high:g} (got {shown})")
    return value


def _json_number(value: Any, where: str, *, low: float, high: float, whole: bool = False,
                 low_open: bool = False) -> float:
    """A JSON value as a number within bounds (never a boolean or text)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TraceError(f"{where}: must be a number (got {_shown_json(value)})")
    return _number(repr(float(value)) if isinstance(value, float) else str(value), where, low=low,
                   high=high, whole=whole, low_open=low_open)


def _shown_json(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _checked_text(text: str, where: str) -> str:
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise TraceError(f"{where}: holds a control character")
    return text


# ---------------------------------------------------------------------------- the trace
def parse_job_type(job_type: str) -> tuple[str, int | None]:
    """The model and initial batch size of a job type: ``ResNet-18 (batch size 32)`` ->
    ``("ResNet-18", 32)``; a job type with no batch size (``A3C``) -> ``("A3C", None)``.

    :raises ValueError: for any other form.
    """
    match = _JOB_TYPE.fullmatch(job_type)
    if match:
        return match["model"], int(match["batch"])
    if _PLAIN_TYPE.fullmatch(job_type):
        return job_type, None
    raise ValueError(job_type)


def _job(path: Path, i: int, line: str) -> ShockwaveJob:
    fields = line.split("\t")
    if len(fields) != len(TRACE_COLUMNS):
        raise TraceError(f"trace '{path}', line {i + 1}: has {len(fields)} tab-separated fields, "
                         f"expected {len(TRACE_COLUMNS)} ({', '.join(TRACE_COLUMNS)})")
    row = dict(zip(TRACE_COLUMNS, (f.strip() for f in fields), strict=True))

    def where(column: str) -> str:
        return f"trace '{path}', line {i + 1}, column '{column}'"

    for column in ("command", "working_directory", "num_steps_arg"):
        _checked_text(row[column], where(column))
    job_type = _checked_text(row["job_type"], where("job_type"))
    if len(job_type) > MAX_MODEL_CHARS:
        raise TraceError(f"{where('job_type')}: longer than {MAX_MODEL_CHARS} characters")
    try:
        model, batch_size = parse_job_type(job_type)
    except ValueError:
        raise TraceError(f"{where('job_type')}: must be a model and its batch size, as "
                         f"'ResNet-18 (batch size 32)' (got {job_type[:40]!r})") from None
    if batch_size is not None and not 1 <= batch_size <= MAX_QUANTITY:
        raise TraceError(f"{where('job_type')}: the batch size must be from 1 to {MAX_QUANTITY:g} "
                         f"(got {batch_size})")
    needs = _number(row["needs_data_dir"], where("needs_data_dir"), low=0, high=1, whole=True)
    steps = _number(row["total_steps"], where("total_steps"), low=1, high=MAX_QUANTITY, whole=True)
    gpus = _number(row["scale_factor"], where("scale_factor"), low=1, high=MAX_GPUS_PER_NODE,
                   whole=True)
    mode = row["mode"]
    if mode not in MODES:
        raise TraceError(f"{where('mode')}: must be one of {', '.join(MODES)} (got {mode[:40]!r})")
    if mode != "static" and batch_size is None:
        raise TraceError(f"{where('job_type')}: a {mode} job changes its batch size, so its job type "
                         f"must name one, as 'ResNet-18 (batch size 32)' (got {job_type[:40]!r})")
    weight = _number(row["priority_weight"], where("priority_weight"), low=0, high=MAX_JOB_WEIGHT,
                     low_open=True)
    slo = _number(row["SLO"], where("SLO"), low=-MAX_QUANTITY, high=MAX_QUANTITY)
    if slo == 0:
        raise TraceError(f"{where('SLO')}: must be > 0, or negative for none (got {row['SLO']})")
    duration = _number(row["duration"], where("duration"), low=0, high=MAX_QUANTITY, low_open=True)
    arrival = _number(row["arrival_time"], where("arrival_time"), low=0, high=MAX_QUANTITY)
    return ShockwaveJob(
        id=i, job_type=job_type, model=model, batch_size=batch_size, command=row["command"],
        working_directory=row["working_directory"], num_steps_arg=row["num_steps_arg"],
        needs_data_dir=bool(needs), total_steps=int(steps), scale_factor=int(gpus), mode=mode,
        priority_weight=weight, slo=slo if slo > 0 else None, duration_s=duration, arrival_s=arrival,
    )


def read_shockwave_trace(path: str | Path) -> ShockwaveTrace:
    """Read and validate a Shockwave trace.

    :param path: the trace file.
    :return: its jobs, ``jobs[i].id == i`` (the 0-based line number).
    :raises TraceError: one line naming the file, the line and the column: a missing or unreadable
        file, no job, a blank line, a line without 12 fields, a value out of its bounds, an unknown
        mode, or an arrival before the previous line's.
    """
    path = Path(path)
    if not is_file(path):
        raise TraceError(f"trace '{path}': no such file")
    text = read_user_text(path, label=f"trace '{path}'", max_bytes=MAX_TRACE_BYTES, error=TraceError)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if not lines:
        raise TraceError(f"trace '{path}': holds no job")
    if len(lines) > MAX_JOBS:
        raise TraceError(f"trace '{path}': {len(lines):,} jobs, more than the limit of {MAX_JOBS:,}")
    jobs = []
    for i, line in enumerate(lines):
        if not line.strip():
            raise TraceError(f"trace '{path}', line {i + 1}: is blank (every line is one job, and a "
                             "job's id is its line number)")
        job = _job(path, i, line)
        if jobs and job.arrival_s < jobs[-1].arrival_s:
            raise TraceError(f"trace '{path}', line {i + 1}, column 'arrival_time': before the "
                             f"previous line's ({job.arrival_s:g} < {jobs[-1].arrival_s:g}); the "
                             "lines must be in arrival order")
        jobs.append(job)
    return ShockwaveTrace(source=str(path), jobs=tuple(jobs))


def _shown_number(value: float) -> str:
    """A number as a trace writes it: whole numbers without a point, others exactly (``repr``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def format_shockwave_trace(jobs: Sequence[ShockwaveJob]) -> str:
    """The text of a trace holding ``jobs`` in order, in the format :func:`read_shockwave_trace`
    reads (an SLO of none is written ``-1.000000``, as Shockwave's ``Job.__str__`` writes it)."""
    lines = []
    for job in jobs:
        fields = (job.job_type, job.command, job.working_directory, job.num_steps_arg,
                  str(int(job.needs_data_dir)), str(job.total_steps), str(job.scale_factor), job.mode,
                  _shown_number(job.priority_weight),
                  "-1.000000" if job.slo is None else _shown_number(job.slo),
                  _shown_number(job.duration_s), _shown_number(job.arrival_s))
        lines.append("\t".join(fields) + "\n")
    return "".join(lines)


# ---------------------------------------------------------------------------- throughputs
def _gpu_name(key: str) -> str:
    return key.upper()


def read_shockwave_throughputs(path: str | Path) -> ShockwaveThroughputs:
    """Read and validate a throughputs file (``tacc_throughputs.json``; Gavel's format).

    :param path: the JSON file.
    :raises TraceError: one line naming the file and the key: not JSON, a GPU type or job entry
        that is not a mapping, a job key not of the form ``('<job type>', GPUs)``, a ``null``
        throughput that is missing, negative, not a number or too large, or no throughput at all.
    """
    path = Path(path)
    label = f"throughputs '{path}'"
    data = read_json_mapping(path, label, "GPU types")
    consolidated: dict[str, dict[tuple[str, int], float]] = {}
    unconsolidated: dict[str, dict[tuple[str, int], float]] = {}
    spelled: dict[str, str] = {}
    for gpu_key, entries in data.items():
        where = f"{label}, {gpu_key[:40]!r}"
        if not gpu_key or len(gpu_key) > MAX_MODEL_CHARS:
            raise TraceError(f"{where}: a GPU type must be 1 to {MAX_MODEL_CHARS} characters")
        _checked_text(gpu_key, where)
        if not isinstance(entries, dict):
            raise TraceError(f"{where}: expected a mapping of job types, got {type(entries).__name__}")
        spread = gpu_key.endswith(UNCONSOLIDATED)
        name = _gpu_name(gpu_key[: -len(UNCONSOLIDATED)] if spread else gpu_key)
        other = spelled.setdefault(f"{name}{UNCONSOLIDATED if spread else ''}", gpu_key)
        if other != gpu_key:
            raise TraceError(f"{where}: the same GPU type as {other[:40]!r} (GPU types are read "
                             f"upper-cased, as {name})")
        table = (unconsolidated if spread else consolidated).setdefault(name, {})
        for job_key, entry in entries.items():
            at = f"{where}, {job_key[:60]!r}"
            match = _JOB_KEY.fullmatch(job_key)
            if not match:
                raise TraceError(f"{at}: a job key must be of the form \"('<job type>', GPUs)\"")
            gpus = _number(match["gpus"], at, low=1, high=MAX_GPUS_PER_NODE, whole=True)
            if not isinstance(entry, dict):
                raise TraceError(f"{at}: expected a mapping with a 'null' throughput, got "
                                 f"{type(entry).__name__}")
            if "null" not in entry:
                raise TraceError(f"{at}: has no 'null' throughput (the job running alone)")
            if (match["type"], int(gpus)) in table:
                raise TraceError(f"{at}: the same job type and GPUs as another key of {gpu_key[:40]!r}")
            table[(match["type"], int(gpus))] = _json_number(entry["null"], f"{at}, 'null'", low=0,
                                                             high=MAX_QUANTITY)
    if not any(consolidated.values()):
        raise TraceError(f"{label}: holds no throughput of a job on a server (only spread gangs, or "
                         "nothing)")
    return ShockwaveThroughputs(
        source=str(path),
        consolidated=MappingProxyType({g: MappingProxyType(t) for g, t in consolidated.items()}),
        unconsolidated=MappingProxyType({g: MappingProxyType(t) for g, t in unconsolidated.items()}),
    )


# ---------------------------------------------------------------------------- settings
CONFIG_KEYS: dict[str, tuple[str, float, float, bool]] = {
    "future_rounds": ("whole", 1, MAX_QUANTITY, False),
    "k": ("number", 0, MAX_QUANTITY, True),
    "lambda": ("number", 0, MAX_QUANTITY, False),
    "rhomax": ("number", 0, MAX_QUANTITY, True),
    "log_approximation_bases": ("list", 0, MAX_QUANTITY, False),
    "gpu_ram": ("number", 0, MAX_VRAM_GB, True),
    "solver_rel_gap": ("number", 0, 1, False),
    "solver_num_threads": ("whole", 1, MAX_WORKERS, False),
    "solver_timeout": ("number", 0, MAX_QUANTITY, True),
}
"""Each settings key: its kind (``whole``, ``number``, or ``list`` of numbers in increasing
order), its lowest and highest value, and whether the lowest is excluded. ``gpu_ram`` is in GB,
``solver_timeout`` in seconds."""


def read_shockwave_config(path: str | Path) -> ShockwaveConfig:
    """Read and validate the Shockwave policy's settings (``tacc_32gpus.config.json``).

    :param path: the JSON file.
    :raises TraceError: one line naming the file and the key: not a JSON mapping, a key missing or
        unknown, or a value of the wrong kind or out of its bounds (:data:`CONFIG_KEYS`).
    """
    path = Path(path)
    label = f"Shockwave settings '{path}'"
    data = read_json_mapping(path, label, "keys")
    unknown = [k for k in data if k not in CONFIG_KEYS]
    if unknown:
        raise TraceError(f"{label}, key {unknown[0][:40]!r}: unknown (known: {', '.join(CONFIG_KEYS)})")
    values: dict[str, Any] = {}
    for key, (kind, low, high, low_open) in CONFIG_KEYS.items():
        where = f"{label}, key '{key}'"
        if key not in data:
            raise TraceError(f"{where}: missing")
        value = data[key]
        if kind == "list":
            if not isinstance(value, list) or not value:
                raise TraceError(f"{where}: must be a non-empty list of numbers (got {_shown_json(value)})")
            items = [_json_number(v, f"{where}[{j}]", low=low, high=high) for j, v in enumerate(value)]
            if any(b <= a for a, b in zip(items, items[1:], strict=False)):
                raise TraceError(f"{where}: must be in increasing order (got {_shown_json(value)})")
            values[key] = tuple(items)
        else:
            values[key] = _json_number(value, where, low=low, high=high, whole=kind == "whole",
                                       low_open=low_open)
    return ShockwaveConfig(
        future_rounds=int(values["future_rounds"]), k=values["k"], lam=values["lambda"],
        rhomax=values["rhomax"], log_approximation_bases=values["log_approximation_bases"],
        gpu_ram_gb=values["gpu_ram"], solver_rel_gap=values["solver_rel_gap"],
        solver_num_threads=int(values["solver_num_threads"]), solver_timeout_s=values["solver_timeout"],
    )
