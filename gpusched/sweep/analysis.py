"""Tables derived from a sweep's results, ready for :func:`gpusched.figures.sweep.sweep_figure`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gpusched.core.metrics import METRIC_KEYS
from gpusched.errors import GpuschedError
from gpusched.fgd.allocation import ALLOC_PCT_COLUMNS, ALLOC_PCT_PREFIX, SUMMARY_KEYS
from gpusched.fgd.published import CURVE_COLUMNS, published_alloc_long
from gpusched.paths import DEFAULT_SWEEP_OUT_DIR, SHIPPED_SWEEP_RESULTS_DIR
from gpusched.sweep.runner import RESULTS_FILE, read_results
from gpusched.workload.files import is_file

RESERVED = {"run_id", "kind", "error"}


def alloc_curves(table: pd.DataFrame) -> pd.DataFrame:
    """Allocation runs in long form: one row per (run, arrived %), for plotting FGD curves.

    Columns: every parameter, ``arrived_pct`` (0-130) and ``alloc_pct``.
    """
    cols = list(ALLOC_PCT_COLUMNS)
    runs = table[(table.get("kind") == "allocation") & (table["error"] == "")]
    if runs.empty or cols[0] not in runs:
        return pd.DataFrame(columns=list(CURVE_COLUMNS))
    long = runs.melt(id_vars=["run_id", "pods", "policy", "seed"], value_vars=cols,
                     var_name="arrived_pct", value_name="alloc_pct")
    long["arrived_pct"] = long["arrived_pct"].str.removeprefix(ALLOC_PCT_PREFIX).astype(int)
    return long


def published_alloc_curves(table: pd.DataFrame) -> pd.DataFrame:
    """The FGD artifact's published curves for the traces in ``table``, in the long form of
    :func:`alloc_curves` (traces without published rows are left out)."""
    return published_alloc_long(table.get("pods", pd.Series(dtype=str)).dropna())


def parameters(table: pd.DataFrame) -> list[str]:
    """The parameter columns of a results table (what a metric can be plotted against)."""
    skip = RESERVED | set(METRIC_KEYS) | set(SUMMARY_KEYS) | set(ALLOC_PCT_COLUMNS)
    return [c for c in table.columns if c not in skip]


def varied_parameters(table: pd.DataFrame, params: list[str]) -> list[str]:
    """Of ``params``, those other than ``seed`` that take more than one value in ``table``."""
    return [p for p in params if p != "seed" and table[p].nunique() > 1]


def metrics(table: pd.DataFrame) -> list[str]:
    """The metric columns present in a results table."""
    names = [*METRIC_KEYS, *SUMMARY_KEYS]
    return [c for c in names if c in table.columns and table[c].notna().any()]


def discover_sweeps(roots: list[Path] | None = None) -> list[Path]:
    """Folders holding a ``results.csv``: the shipped examples and the default output folder."""
    roots = roots or [SHIPPED_SWEEP_RESULTS_DIR, DEFAULT_SWEEP_OUT_DIR]
    found = [p.parent for root in roots if root.is_dir()
             for p in sorted(root.glob(f"*/{RESULTS_FILE}"))]
    return list(dict.fromkeys(found))


def results_mtime(folder: str | Path) -> float:
    """When a folder's ``results.csv`` last changed (s since the epoch; 0 if it has none, or the
    path is one the system cannot look up), so that a cache can be keyed on it."""
    try:
        return (Path(folder) / RESULTS_FILE).stat().st_mtime
    except (OSError, ValueError):
        return 0.0


def load_sweep_results(folder: str | Path) -> pd.DataFrame:
    """A sweep's results table (its complete rows; see :func:`gpusched.sweep.runner.read_results`).

    :raises GpuschedError: if the folder has no readable ``results.csv``.
    """
    path = Path(folder) / RESULTS_FILE
    if not is_file(path):
        raise GpuschedError(f"'{folder}' holds no {RESULTS_FILE} (run `gpusched sweep` first)")
    try:
        table = read_results(folder)
    except (ValueError, pd.errors.ParserError) as exc:
        raise GpuschedError(f"'{path}': not a sweep results table ({exc})") from None
    missing = [c for c in ("run_id", "policy", "error") if c not in table]
    if missing:
        raise GpuschedError(f"'{path}': missing column '{missing[0]}'")
    return table


def filter_runs(table: pd.DataFrame, keep: dict[str, list]) -> pd.DataFrame:
    """Rows whose value of each key in ``keep`` is one of the listed values."""
    mask = pd.Series(True, index=table.index)
    for column, values in keep.items():
        mask &= table[column].isin(values)
    return table[mask]
