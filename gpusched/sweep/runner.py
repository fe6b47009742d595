"""Execute a sweep's runs on a backend and collect one tidy table.

Backends:

- ``local`` (default): a process pool over the local cores (``workers=1`` runs in this process);
- ``ray``: every run is a Ray task. Without ``address`` a local Ray instance is started; with
  ``address`` (e.g. ``ray://head:10001`` or ``auto``) the sweep joins an existing cluster.

Results land in ``OUT/results.csv``, one row per run: every parameter, every metric, and
``error`` (empty when the run succeeded). Rows are written as runs finish, so a stopped sweep
keeps its progress; ``resume=True`` skips runs already done. Wall times go to
``OUT/timings.csv`` so that the results table itself depends only on the parameters.
"""

from __future__ import annotations

import csv
import functools
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import pandas as pd

from gpusched.core.metrics import METRIC_KEYS
from gpusched.errors import GpuschedError
from gpusched.experiment.runner import run_policy
from gpusched.fgd.allocation import TABLE_COLUMNS as ALLOC_TABLE_COLUMNS
from gpusched.fgd.allocation import run_allocation
from gpusched.fgd.typical_pods import typical_pods
from gpusched.sweep.spec import SimulateGrid, SweepSpec
from gpusched.workload.openb import read_openb_nodes, read_openb_pods
from gpusched.workload.scenario import Scenario, load_scenario

RESULTS_FILE = "results.csv"
TIMINGS_FILE = "timings.csv"

Progress = Callable[[int, int, int], None]
"""Called as ``progress(done, failed, total)`` after each run."""


def execute_run(params: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """Run one sweep entry. Never raises: a failure is recorded in the row's ``error``.

    :return: (row of parameters and metrics, wall seconds).
    """
    started = time.perf_counter()
    row = dict(params)
    try:
        if params["kind"] == "simulate":
            row.update(_simulate(params))
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
    overrides = {k: v for k, v in params.items() if "." in k}
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
        row = dict(params)
        try:
            row.update(_simulate(params, scenario))
            row["error"] = ""
        except Exception as exc:  # a failed run is data, as in a sweep
            row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0]
        rows.append(row)
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


# ---------------------------------------------------------------------------- backends
def _local(runs: list[dict[str, Any]], workers: int) -> Iterator[tuple[dict[str, Any], float]]:
    if workers <= 1:
        for params in runs:
            yield execute_run(params)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(execute_run, p) for p in runs]
        for future in as_completed(futures):
            yield future.result()


def _ray(runs: list[dict[str, Any]], workers: int | None,
         address: str | None) -> Iterator[tuple[dict[str, Any], float]]:
    try:
        import ray
    except ImportError:
        raise GpuschedError(
            "the ray backend needs Ray: pip install -r requirements-ray.txt") from None
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(execute_run)
        pending = [remote.remote(p) for p in runs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started_here:
            ray.shutdown()


# ---------------------------------------------------------------------------- results
def read_results(out_dir: str | Path) -> pd.DataFrame:
    """The results table of a sweep folder (empty if there is none yet)."""
    path = Path(out_dir) / RESULTS_FILE
    if not path.is_file():
        return pd.DataFrame()
    table = pd.read_csv(path, dtype={"error": object, "run_id": str})
    if "error" in table:
        table["error"] = table["error"].where(table["error"].notna(), "")
    return table


def _append(path: Path, rows: Iterable[dict[str, Any]], columns: list[str]) -> None:
    new = not path.exists()
    with path.open("a", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        if new:
            writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in columns})


def _columns(runs: list[dict[str, Any]]) -> list[str]:
    params = list(dict.fromkeys(k for r in runs for k in r if k != "run_id"))
    extra = list(ALLOC_TABLE_COLUMNS) if any(r["kind"] == "allocation" for r in runs) else []
    metrics = list(METRIC_KEYS) if any(r["kind"] == "simulate" for r in runs) else []
    return ["run_id", *params, *metrics, *extra, "error"]


def run_sweep(spec: SweepSpec, out_dir: str | Path, *, backend: str = "local",
              workers: int | None = None, address: str | None = None, resume: bool = False,
              progress: Progress | None = None) -> pd.DataFrame:
    """Run every run of ``spec`` that is not done yet and return the whole results table.

    :param out_dir: folder for ``results.csv`` and ``timings.csv`` (created).
    :param backend: ``local`` or ``ray``.
    :param workers: local processes (default: all cores) or Ray CPUs for a local Ray instance.
    :param address: an existing Ray cluster to join (ray backend only).
    :param resume: keep the rows already in ``out_dir`` and skip their runs; without it an
        existing results file is an error, so nothing already computed is overwritten.
    """
    import os

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results_path, timings_path = out / RESULTS_FILE, out / TIMINGS_FILE
    runs = spec.runs()
    columns = _columns(runs)
    done_ids: set[str] = set()
    if results_path.exists():
        if not resume:
            raise GpuschedError(f"'{results_path}' already exists: use --resume to continue "
                                "that sweep, or choose another --out")
        previous = read_results(out)
        ok = previous[previous["error"] == ""] if "error" in previous else previous
        done_ids = set(ok["run_id"])
        if len(ok) != len(previous):  # failed runs are retried: drop their old rows
            ok.to_csv(results_path, index=False)
    todo = [r for r in runs if r["run_id"] not in done_ids]
    workers = workers or os.cpu_count() or 1
    if backend == "local":
        stream = _local(todo, workers)
    elif backend == "ray":
        stream = _ray(todo, workers, address)
    else:
        raise GpuschedError(f"unknown backend '{backend}' (use local or ray)")
    failed = 0
    total = len(todo)
    for n, (row, seconds) in enumerate(stream, start=1):
        failed += bool(row["error"])
        _append(results_path, [row], columns)
        _append(timings_path, [{"run_id": row["run_id"], "seconds": round(seconds, 4)}],
                ["run_id", "seconds"])
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
