"""Execute a sweep's runs on a backend and collect one tidy table.

Backends (:mod:`gpusched.backends`, shared with expert iteration's labelling):

- ``local`` (default): a process pool over the local cores (``workers=1`` runs in this process);
- ``ray``: every run is a Ray task. Without ``address`` a local Ray instance is started; with
  ``address`` (e.g. ``ray://head:10001`` or ``auto``) the sweep joins an existing cluster.

Results land in ``OUT/results.csv``, one row per run: every parameter, every metric, and
``error`` (empty when the run succeeded). Wall times go to ``OUT/timings.csv`` so that the results
table itself depends only on the parameters.

**Nothing computed is lost.** Rows are written whole as runs finish and flushed at once
(:mod:`gpusched.sweep.table`), so a sweep stopped or killed at any byte leaves a readable table.
``OUT/spec.json`` holds the spec and its sha256. ``resume=True`` checks the table's header and
that hash against the spec (a changed spec is refused with one line, so rows with other columns
are never appended), keeps every complete row of a run that succeeded, and runs the rest again:
failed runs, a damaged last row (cut off, or without its newline) and runs never started. Each
run ends up in the table exactly once.
"""

from __future__ import annotations

import functools
import io
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from gpusched.backends import check_backend, run_tasks
from gpusched.core.metrics import METRIC_KEYS
from gpusched.errors import GpuschedError
from gpusched.experiment.budget import check_run_count
from gpusched.experiment.runner import run_policy
from gpusched.fgd.allocation import TABLE_COLUMNS as ALLOC_TABLE_COLUMNS
from gpusched.fgd.allocation import run_allocation
from gpusched.fgd.typical_pods import typical_pods
from gpusched.limits import DEFAULT_MAX_RUNS
from gpusched.sweep.spec import RUN_KEYS, SimulateGrid, SweepSpec, spec_digest
from gpusched.sweep.table import (
    TableFile,
    append_rows,
    cut_to_last_row,
    format_row,
    read_table,
    rewrite_table,
    write_text_atomically,
)
from gpusched.workload.files import check_output_dir
from gpusched.workload.openb import read_openb_nodes, read_openb_pods
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario

RESULTS_FILE = "results.csv"
TIMINGS_FILE = "timings.csv"
SPEC_FILE = "spec.json"
"""The spec of the results beside them, with its sha256 (checked by ``--resume``)."""

Progress = Callable[[int, int, int], None]
"""Called as ``progress(done, failed, total)`` after each run."""


def execute_run(params: dict[str, Any], scenario: Scenario | None = None) -> tuple[dict[str, Any], float]:
    """Run one sweep entry (a simulate entry on ``scenario`` when given, instead of the scenario it
    names). Never raises: a failure is recorded in the row's ``error``.

    :return: (row of parameters and metrics, wall seconds).
    """
    started = time.perf_counter()
    row = dict(params)
    try:
        if params["kind"] == "simulate":
            row.update(_simulate(params, scenario))
        elif params["kind"] == "allocation":
            row.update(_allocation(params))
        else:
            raise GpuschedError(f"unknown run kind '{params['kind']}'")
        row["error"] = ""
    except Exception as exc:  # a failed run is data, not a crash of the sweep
        row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0]
    return row, time.perf_counter() - started


def _simulate(params: dict[str, Any], scenario: Scenario | None = None) -> dict[str, float]:
    """One simulate run: the named scenario (or ``scenario``) with the run's overrides."""
    scenario = scenario or load_scenario(params["scenario"])
    overrides = {k: v for k, v in params.items() if k not in RUN_KEYS}
    if overrides:
        scenario = scenario.with_overrides(**overrides)
    return run_policy(scenario, params["policy"], seed=params["seed"]).metrics


def simulate_grid_rows(grid: SimulateGrid, scenario: Scenario,
                       progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """The rows a sweep of ``grid`` would write, for one more scenario given as an object (e.g.
    a cluster edited on the dashboard), run here, one after another.

    :param grid: the policies, seeds and overrides (its own scenarios are not run).
    :param scenario: the scenario to run them on; its name fills the ``scenario`` column.
    :param progress: called as ``progress(done, total)`` after each run.
    """
    spec = SweepSpec(name="rows", simulate=grid.model_copy(update={"scenarios": [scenario.name]}))
    runs = spec.runs()
    rows = []
    for n, params in enumerate(runs, start=1):
        rows.append(execute_run(params, scenario)[0])
        if progress:
            progress(n, len(runs))
    return pd.DataFrame(rows, columns=_columns(runs))


@functools.lru_cache(maxsize=8)
def _trace(nodes: str, pods: str):
    """Node list, pod list and typical pods, read once per worker process."""
    node_list = read_openb_nodes(nodes)
    pod_list = read_openb_pods(pods, max_gpus_per_node=int(node_list.gpus.max()))
    return node_list, pod_list, typical_pods(pod_list)


def _allocation(params: dict[str, Any]) -> dict[str, float | int | None]:
    nodes, pods, typical = _trace(params["nodes"], params["pods"])
    run = run_allocation(nodes, pods, params["policy"], params["seed"], tune=params["tune"],
                         typical=typical)
    return run.table_row()


# ---------------------------------------------------------------------------- results
def read_results(out_dir: str | Path) -> pd.DataFrame:
    """The results table of a sweep folder: every complete row (a damaged last row, cut off by a
    crash, is left out); empty if there is none yet."""
    table = read_table(Path(out_dir) / RESULTS_FILE)
    if table.header is None:
        return pd.DataFrame()
    text = "".join(format_row(r) for r in [table.header, *table.rows])
    frame = pd.read_csv(io.StringIO(text), dtype={"error": object, "run_id": str})
    if "error" in frame:
        frame["error"] = frame["error"].where(frame["error"].notna(), "")
    return frame


def _columns(runs: list[dict[str, Any]]) -> list[str]:
    params = list(dict.fromkeys(k for r in runs for k in r if k != "run_id"))
    extra = list(ALLOC_TABLE_COLUMNS) if any(r["kind"] == "allocation" for r in runs) else []
    metrics = list(METRIC_KEYS) if any(r["kind"] == "simulate" for r in runs) else []
    return ["run_id", *params, *metrics, *extra, "error"]


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _succeeded(row: dict[str, str]) -> bool:
    """Whether a complete row records a run that succeeded, with every metric it must have."""
    if row.get("error") != "":
        return False
    if row.get("kind") == "simulate":
        return all(_is_number(row.get(k, "")) for k in METRIC_KEYS)
    if row.get("kind") == "allocation":  # columns no sample reached stay empty
        return _is_number(row.get("failed_pods", ""))
    return False


def _done_rows(table: TableFile, columns: list[str], run_ids: set[str],
               results_path: Path) -> tuple[list[list[str]], bool]:
    """The rows to keep on resume (each succeeded run once) and whether anything was dropped.

    :raises GpuschedError: if the table belongs to another spec (other columns, or runs this spec
        does not have).
    """
    if table.header is None:
        return [], True
    if table.header != columns:
        raise GpuschedError(f"'{results_path}' has other columns than this spec's runs, so the spec "
                            "has changed since it was written; use another --out, or the old spec")
    kept, seen = [], set()
    for values in table.rows:
        row = dict(zip(columns, values, strict=True))
        if row["run_id"] not in run_ids:
            raise GpuschedError(f"'{results_path}' holds run {row['run_id']}, which this spec does "
                                "not have, so the spec has changed; use another --out, or the old spec")
        if row["run_id"] not in seen and _succeeded(row):
            kept.append(values)
            seen.add(row["run_id"])
    return kept, bool(table.damaged) or len(kept) != len(table.rows)


def _check_spec_file(path: Path, digest: str) -> None:
    """Refuse results written for another spec (``spec.json`` holds its sha256)."""
    if not path.is_file():
        return
    try:
        stored = json.loads(path.read_text(encoding="utf-8")).get("sha256")
    except (OSError, ValueError, AttributeError):
        stored = None  # a damaged spec file: the header and run ids still guard the table
    if stored is not None and stored != digest:
        raise GpuschedError(f"'{path}' records another spec (sha256 {str(stored)[:12]}…, this one "
                            f"{digest[:12]}…): the spec has changed; use another --out, or the old spec")


def run_sweep(spec: SweepSpec, out_dir: str | Path, *, backend: str = "local",
              workers: int | None = None, address: str | None = None, resume: bool = False,
              progress: Progress | None = None, max_runs: int = DEFAULT_MAX_RUNS) -> pd.DataFrame:
    """Run every run of ``spec`` that is not done yet and return the whole results table.

    Everything is checked before the first run: the run count, the output folder, and on resume
    the existing table and ``spec.json`` (see the module docstring).

    :param out_dir: folder for ``results.csv``, ``timings.csv`` and ``spec.json`` (created).
    :param backend: ``local`` or ``ray``.
    :param workers: local processes (default: all cores) or Ray CPUs for a local Ray instance.
    :param address: an existing Ray cluster to join (ray backend only).
    :param resume: keep the rows already in ``out_dir`` and skip their runs; without it an
        existing results file is an error, so nothing already computed is overwritten.
    :param max_runs: refuse a spec with more runs than this (``--max-runs``).
    :raises GpuschedError: for too many runs, an output folder that cannot be written, existing
        results without ``resume``, or results of another spec.
    """
    import os

    check_backend(backend)
    check_run_count(spec.run_count(), max_runs, f"sweep '{spec.name}'")
    out = check_output_dir(out_dir, what="--out")
    runs = spec.runs()
    columns = _columns(runs)
    digest = spec_digest(spec)
    results_path, timings_path, spec_path = out / RESULTS_FILE, out / TIMINGS_FILE, out / SPEC_FILE
    done_ids: set[str] = set()
    if results_path.exists():
        if not resume:
            raise GpuschedError(f"'{results_path}' already exists: use --resume to continue "
                                "that sweep, or choose another --out")
        _check_spec_file(spec_path, digest)
        kept, dropped = _done_rows(read_table(results_path), columns, {r["run_id"] for r in runs},
                                   results_path)
        if dropped:  # failed and damaged runs are redone: drop their rows
            rewrite_table(results_path, columns, kept)
        done_ids = {values[0] for values in kept}
        cut_to_last_row(timings_path)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GpuschedError(f"--out '{out_dir}': cannot create it ({exc.strerror})") from None
    write_text_atomically(spec_path, json.dumps(
        {"sha256": digest, "runs": len(runs), "spec": spec.model_dump(mode="json")}, indent=1) + "\n")
    if not results_path.exists():
        rewrite_table(results_path, columns, [])
    todo = [r for r in runs if r["run_id"] not in done_ids]
    workers = workers or os.cpu_count() or 1
    stream = run_tasks(execute_run, todo, backend=backend, workers=workers, address=address)
    failed = 0
    total = len(todo)
    for n, (row, seconds) in enumerate(stream, start=1):
        failed += bool(row["error"])
        append_rows(results_path, columns, [row])
        append_rows(timings_path, ["run_id", "seconds"],
                    [{"run_id": row["run_id"], "seconds": round(seconds, 4)}])
        if progress:
            progress(n, failed, total)
    return ordered_results(spec, read_results(out))


def ordered_results(spec: SweepSpec, table: pd.DataFrame) -> pd.DataFrame:
    """The results table in the spec's run order (independent of completion order)."""
    if table.empty:
        return table
    order = {r["run_id"]: i for i, r in enumerate(spec.runs())}
    table = table[table["run_id"].isin(order)]
    return table.sort_values("run_id", key=lambda s: s.map(order)).reset_index(drop=True)
