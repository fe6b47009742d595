"""Readers and validation for Alibaba's openb trace (node list and pod list).

The openb trace (Weng et al., USENIX ATC '23) describes a GPU cluster by two CSV files:

- a **node list** (``sn,cpu_milli,memory_mib,gpu,model``): one row per node with its CPU capacity
  (milli-cores), memory (MiB), GPU count and GPU model;
- a **pod list**
  (``name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,qos,pod_phase,creation_time,
  deletion_time,scheduled_time]``): one row per pod with its CPU request (milli-cores), memory
  request (MiB), GPU count, per-GPU share (milli-GPU, 1000 = a whole GPU) and optional allowed GPU
  models (``|``-separated).

Every problem in a file raises :class:`TraceError` with one line that names the file, the line and
the column, e.g. ``trace 'pods.csv', line 13, column 'gpu_milli': must be between 1 and 1000 for a
pod with num_gpu 1 (got 1500)``. A file is read through :mod:`gpusched.workload.files` (at most
:data:`gpusched.limits.MAX_TRACE_BYTES`, UTF-8 text), must hold at least one row, and every number
must be finite and at most :data:`gpusched.limits.MAX_QUANTITY` (GPU counts at most
:data:`gpusched.limits.MAX_GPUS_PER_NODE`); a pod may not be deleted before it was created, and a
node list may hold at most :data:`gpusched.limits.MAX_NODES` nodes and
:data:`gpusched.limits.MAX_GPUS` GPUs.

GPU memory per model (:data:`GPU_VRAM_GB`): the trace gives no VRAM, so it is taken from the public
specification of each model (P100 16 GB, T4 16 GB, V100M16 16 GB, V100M32 32 GB, A10 24 GB).
**Assumption:** G2 and G3 are undisclosed internal codes. We assume G2 = 32 GB (its 8-GPU, 96-core
nodes match the V100M32 servers of the same cluster) and G3 = 80 GB (8 GPUs with 128 cores and 768
GiB per node, an A100-80GB-class server). Only trace-driven scenarios use these values; the
allocation experiment counts milli-GPU and never VRAM.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from gpusched.errors import GpuschedError
from gpusched.limits import MAX_GPUS, MAX_GPUS_PER_NODE, MAX_NODES, MAX_QUANTITY, MAX_TRACE_BYTES
from gpusched.paths import TRACES_DIR
from gpusched.workload.files import is_dir, is_file, read_user_text

#: VRAM per GPU (GB) for each openb GPU model; G2 and G3 are assumptions (see the module docstring).
GPU_VRAM_GB: dict[str, float] = {
    "P100": 16.0,
    "T4": 16.0,
    "V100M16": 16.0,
    "V100M32": 32.0,
    "A10": 24.0,
    "G2": 32.0,
    "G3": 80.0,
}

NODE_COLUMNS: tuple[str, ...] = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
POD_COLUMNS: tuple[str, ...] = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")
POD_OPTIONAL_COLUMNS: tuple[str, ...] = (
    "gpu_spec",
    "creation_time",
    "deletion_time",
    "scheduled_time",
)
MILLI_PER_GPU = 1000


class TraceError(GpuschedError):
    """A trace file is missing, unreadable or holds an invalid value (one-line message)."""


def bundled_traces(prefix: str = "openb_") -> list[str]:
    """Stems of the bundled trace files (in :data:`gpusched.paths.TRACES_DIR`) whose name starts
    with ``prefix``, sorted."""
    return sorted(p.stem for p in TRACES_DIR.glob(f"{prefix}*.csv"))


def resolve_trace(name: str | Path) -> Path:
    """Turn a path or a bundled file stem (``openb_pod_list_default``) into an existing CSV path.

    :param name: a path to a CSV file, or the stem of a file in :data:`gpusched.paths.TRACES_DIR`.
    :raises TraceError: if neither exists (the message lists the bundled stems).
    """
    path = Path(name)
    if is_file(path):
        return path
    if is_dir(path):
        raise TraceError(f"trace '{name}': is a folder, not a file")
    bundled = TRACES_DIR / f"{path.stem}.csv"
    if path.suffix in ("", ".csv") and path.parent == Path(".") and is_file(bundled):
        return bundled
    raise TraceError(
        f"trace '{name}': no such file, and not a bundled trace (one of "
        f"{', '.join(bundled_traces())})"
    )


@dataclass(frozen=True)
class OpenbNodes:
    """An openb node list, one array entry per node, in file order.

    :param source: the file it was read from.
    :param name: node names.
    :param cpu_milli: CPU capacity (milli-cores).
    :param memory_mib: memory capacity (MiB).
    :param gpus: GPU count (0 for a CPU-only node).
    :param model: GPU model ("" for a CPU-only node).
    :param lines: the line of the file each node is on (empty: line ``i + 2``).
    """

    source: str
    name: tuple[str, ...]
    cpu_milli: np.ndarray
    memory_mib: np.ndarray
    gpus: np.ndarray
    model: tuple[str, ...]
    lines: tuple[int, ...] = ()

    def __len__(self) -> int:
        return len(self.name)

    def line(self, i: int) -> int:
        """The line of the file node ``i`` is on."""
        return self.lines[i] if self.lines else i + 2

    @property
    def total_gpus(self) -> int:
        """Number of GPUs in the whole list."""
        return int(self.gpus.sum())


@dataclass(frozen=True)
class OpenbPods:
    """An openb pod list, one array entry per pod, in file order.

    :param source: the file it was read from.
    :param name: pod names.
    :param cpu_milli: CPU request (milli-cores).
    :param memory_mib: memory request (MiB).
    :param num_gpu: GPU count (0 for a CPU-only pod).
    :param gpu_milli: share of each of its GPUs (milli-GPU, 1-1000); 0 for a CPU-only pod.
    :param gpu_spec: allowed GPU models per pod (empty tuple = any model).
    :param creation_time_s: creation time (seconds from the trace start); NaN if absent.
    :param deletion_time_s: deletion time (seconds); NaN if absent.
    :param scheduled_time_s: time the pod was scheduled (seconds); NaN if absent or never.
    :param lines: the line of the file each pod is on (empty: line ``i + 2``).
    """

    source: str
    name: tuple[str, ...]
    cpu_milli: np.ndarray
    memory_mib: np.ndarray
    num_gpu: np.ndarray
    gpu_milli: np.ndarray
    gpu_spec: tuple[tuple[str, ...], ...]
    creation_time_s: np.ndarray
    deletion_time_s: np.ndarray
    scheduled_time_s: np.ndarray
    lines: tuple[int, ...] = ()

    def __len__(self) -> int:
        return len(self.name)

    def line(self, i: int) -> int:
        """The line of the file pod ``i`` is on."""
        return self.lines[i] if self.lines else i + 2

    @property
    def total_gpu_milli(self) -> int:
        """Sum of ``num_gpu * gpu_milli`` over all pods (milli-GPU)."""
        return int((self.num_gpu * self.gpu_milli).sum())


def read_csv_columns(path: Path, required: tuple[str, ...], *,
                     max_bytes: int = MAX_TRACE_BYTES) -> pd.DataFrame:
    """Read a CSV as strings (at most ``max_bytes``) and check that every required column is
    present and that it has rows (the reader of every trace CSV, job lists included).

    Blank lines are skipped; :func:`row_line` gives the line of the file each row starts on (so a
    message names the right line after blank lines or a quoted cell that spans lines). A column
    named twice, and a row with more cells than the header names, are refused (the extra cells
    would be dropped or shift the row); a row with fewer cells reads the missing ones as empty.

    :raises TraceError: one line naming the file (and the line, for a bad row).
    """
    if is_dir(path):
        raise TraceError(f"trace '{path}': is a folder, not a file")
    if not is_file(path):
        raise TraceError(f"trace '{path}': no such file")
    text = read_user_text(path, label=f"trace '{path}'", max_bytes=max_bytes, error=TraceError)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    rows: list[list[str]] = []
    lines: list[int] = []
    cells: list[int] = []
    end = 0
    try:
        for record in reader:
            start, end = end + 1, reader.line_num
            if not record or (len(record) == 1 and not record[0].strip()):  # a blank line
                continue
            if header is None:
                header = [c.strip() for c in record]
                continue
            if len(record) > len(header):
                raise TraceError(f"trace '{path}', line {start}: {len(record)} cells, but the header "
                                 f"names {len(header)} columns")
            rows.append(record + [""] * (len(header) - len(record)))
            lines.append(start)
            cells.append(len(record))
    except csv.Error as err:
        raise TraceError(f"trace '{path}': not a readable CSV file ({err}, line "
                         f"{reader.line_num})") from None
    if header is None:
        raise TraceError(f"trace '{path}': not a readable CSV file (it has no header line)")
    seen: dict[str, int] = {}
    for k, name in enumerate(header):
        if name in seen:
            raise TraceError(f"trace '{path}': column '{name[:40]}' is named twice (columns "
                             f"{seen[name] + 1} and {k + 1}); the second would be ignored")
        seen[name] = k
    missing = [c for c in required if c not in header]
    if missing:
        raise TraceError(
            f"trace '{path}': missing column '{missing[0]}' "
            f"(expected columns {', '.join(required)}; found {_columns_found(header)})"
        )
    if not rows:
        raise TraceError(f"trace '{path}': has a header but no rows")
    frame = pd.DataFrame(rows, columns=header, dtype=str)
    frame.attrs["lines"] = np.array(lines, dtype=np.int64)
    frame.attrs["cells"] = np.array(cells, dtype=np.int64)
    return frame


def empty_cell(frame: pd.DataFrame, i: int, column: str) -> str:
    """How a message names the empty cell of row ``i`` in ``column``: ``an empty cell``, or for a
    row too short to reach the column, that it has no such cell."""
    cells = frame.attrs.get("cells")
    if cells is not None and list(frame.columns).index(column) >= cells[i]:
        return f"no cell: the row has {int(cells[i])} of the header's {len(frame.columns)}"
    return "an empty cell"


def row_line(frame: pd.DataFrame, i: int) -> int:
    """The line of the file on which row ``i`` of a frame of :func:`read_csv_columns` starts (the
    header is line 1 when the file has no blank line before it)."""
    lines = frame.attrs.get("lines")
    return int(lines[i]) if lines is not None else i + 2


def _columns_found(columns) -> str:
    """The columns a file has, for a message: at most 12, each at most 30 characters."""
    names = [c if len(c) <= 30 else c[:27] + "..." for c in map(str, columns)]
    return ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")


def numeric_column(
    frame: pd.DataFrame, path: Path, column: str, *, integer: bool, optional: bool = False,
    maximum: float = MAX_QUANTITY,
) -> np.ndarray:
    """Parse one column as finite numbers from 0 to ``maximum``; empty cells are NaN if ``optional``
    (the check of every number of a trace CSV, job lists included)."""
    raw = frame[column].str.strip()
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    empty = (raw == "").to_numpy()
    bad = np.isnan(values) & ~(empty & optional)
    if bad.any():
        i = int(np.argmax(bad))
        got = empty_cell(frame, i, column) if empty[i] else repr(raw.iloc[i])
        raise TraceError(
            f"trace '{path}', line {row_line(frame, i)}, column '{column}': must be a number (got {got})"
        )
    negative = values < 0
    if negative.any():
        i = int(np.argmax(negative))
        raise TraceError(
            f"trace '{path}', line {row_line(frame, i)}, column '{column}': must be >= 0 (got {raw.iloc[i]})"
        )
    too_big = ~np.isnan(values) & ~(values <= maximum)
    if too_big.any():
        i = int(np.argmax(too_big))
        rule = "a finite number" if np.isinf(values[i]) else f"<= {maximum:g}"
        raise TraceError(
            f"trace '{path}', line {row_line(frame, i)}, column '{column}': must be {rule} "
            f"(got {raw.iloc[i]})"
        )
    if integer:
        fractional = ~np.isnan(values) & (values != np.floor(values))
        if fractional.any():
            i = int(np.argmax(fractional))
            raise TraceError(
                f"trace '{path}', line {row_line(frame, i)}, column '{column}': must be a whole number "
                f"(got {raw.iloc[i]})"
            )
        return values.astype(np.int64)
    return values


def read_openb_nodes(path: str | Path) -> OpenbNodes:
    """Read and validate an openb node list.

    :param path: a CSV path or a bundled stem (see :func:`resolve_trace`).
    :raises TraceError: on a missing column, a non-numeric, negative or too large value, a GPU node
        without a model, no GPU node at all, or more nodes or GPUs than the limits.
    """
    path = resolve_trace(path)
    frame = read_csv_columns(path, NODE_COLUMNS)
    if len(frame) > MAX_NODES:
        raise TraceError(f"trace '{path}': {len(frame):,} nodes, more than the limit of {MAX_NODES:,}")
    cpu = numeric_column(frame, path, "cpu_milli", integer=True)
    mem = numeric_column(frame, path, "memory_mib", integer=True)
    gpus = numeric_column(frame, path, "gpu", integer=True, maximum=MAX_GPUS_PER_NODE)
    if gpus.sum() > MAX_GPUS:
        raise TraceError(f"trace '{path}': {int(gpus.sum()):,} GPUs in total, more than the limit "
                         f"of {MAX_GPUS:,}")
    if not gpus.any():
        raise TraceError(f"trace '{path}': has no GPU node (every 'gpu' is 0)")
    model = tuple(m.strip() for m in frame["model"])
    for i, (g, m) in enumerate(zip(gpus, model, strict=True)):
        if g > 0 and not m:
            raise TraceError(
                f"trace '{path}', line {row_line(frame, i)}, column 'model': empty for a node with {g} GPUs"
            )
    return OpenbNodes(
        source=str(path),
        name=tuple(s.strip() for s in frame["sn"]),
        cpu_milli=cpu,
        memory_mib=mem,
        gpus=gpus,
        model=model,
        lines=tuple(int(n) for n in frame.attrs["lines"]),
    )


def read_openb_pods(path: str | Path, *, max_gpus_per_node: int | None = None) -> OpenbPods:
    """Read and validate an openb pod list.

    :param path: a CSV path or a bundled stem (see :func:`resolve_trace`).
    :param max_gpus_per_node: the largest GPU count of any node (GPUs); a pod asking for more is an
        error. ``None`` skips that check.
    :raises TraceError: on a missing column, a non-numeric, negative or too large value,
        ``gpu_milli`` outside 1-1000 for a GPU pod, a multi-GPU pod asking for a fraction of a GPU,
        ``num_gpu`` above ``max_gpus_per_node``, or a deletion before the creation.
    """
    path = resolve_trace(path)
    frame = read_csv_columns(path, POD_COLUMNS)
    cpu = numeric_column(frame, path, "cpu_milli", integer=True)
    mem = numeric_column(frame, path, "memory_mib", integer=False)
    num_gpu = numeric_column(frame, path, "num_gpu", integer=True, maximum=MAX_GPUS_PER_NODE)
    milli = numeric_column(frame, path, "gpu_milli", integer=True)
    gpu_pod = num_gpu > 0
    bad = gpu_pod & ((milli < 1) | (milli > MILLI_PER_GPU)) | ~gpu_pod & (milli > MILLI_PER_GPU)
    if bad.any():
        i = int(np.argmax(bad))
        raise TraceError(
            f"trace '{path}', line {row_line(frame, i)}, column 'gpu_milli': must be between 1 and 1000 "
            f"for a pod "
            f"with num_gpu {num_gpu[i]} (got {milli[i]})"
        )
    partial_multi = (num_gpu > 1) & (milli < MILLI_PER_GPU)
    if partial_multi.any():
        i = int(np.argmax(partial_multi))
        raise TraceError(
            f"trace '{path}', line {row_line(frame, i)}, column 'gpu_milli': a pod with num_gpu "
            f"{num_gpu[i]} must ask "
            f"for whole GPUs (1000), got {milli[i]}"
        )
    if max_gpus_per_node is not None:
        too_big = num_gpu > max_gpus_per_node
        if too_big.any():
            i = int(np.argmax(too_big))
            raise TraceError(
                f"trace '{path}', line {row_line(frame, i)}, column 'num_gpu': {num_gpu[i]} GPUs, "
                f"but no node holds "
                f"more than {max_gpus_per_node}"
            )
    milli = np.where(gpu_pod, milli, 0)
    n = len(frame)
    if "gpu_spec" in frame.columns:
        specs = tuple(
            tuple(t.strip() for t in s.split("|") if t.strip()) if g else ()
            for s, g in zip(frame["gpu_spec"], gpu_pod, strict=True)
        )
    else:
        specs = ((),) * n
    times = {}
    for column in ("creation_time", "deletion_time", "scheduled_time"):
        if column in frame.columns:
            times[column] = numeric_column(frame, path, column, integer=False, optional=True)
        else:
            times[column] = np.full(n, np.nan)
    backwards = times["deletion_time"] < times["creation_time"]  # False where either is missing
    if backwards.any():
        i = int(np.argmax(backwards))
        raise TraceError(
            f"trace '{path}', line {row_line(frame, i)}, column 'deletion_time': must not be before "
            f"creation_time (got {times['deletion_time'][i]:g} < {times['creation_time'][i]:g})"
        )
    return OpenbPods(
        source=str(path),
        name=tuple(s.strip() for s in frame["name"]),
        cpu_milli=cpu,
        memory_mib=mem,
        num_gpu=num_gpu,
        gpu_milli=milli,
        gpu_spec=specs,
        creation_time_s=times["creation_time"],
        deletion_time_s=times["deletion_time"],
        scheduled_time_s=times["scheduled_time"],
        lines=tuple(int(n) for n in frame.attrs["lines"]),
    )
