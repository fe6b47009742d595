"""Tables of allocation runs, ready to plot or show: the curves in long form, our means against the
published ones, and the GPUs' state at the end of a run.

Long-form curves have the columns of :data:`gpusched.fgd.published.CURVE_COLUMNS` (``policy``,
``pods``, ``seed``, ``arrived_pct``, ``alloc_pct``), plus ``frag_pct``, so that
:func:`gpusched.figures.sweep.sweep_figure` draws them with the published curves of
:func:`gpusched.fgd.published.published_alloc_long`. Tables name policies by their registry names;
pages and figures turn them into labels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from gpusched.errors import GpuschedError
from gpusched.fgd.allocation import N_COLUMNS, SUMMARY_COLUMNS, AllocationRun
from gpusched.fgd.published import CURVE_COLUMNS as PUBLISHED_CURVE_COLUMNS
from gpusched.fgd.published import published_alloc_long, published_runs
from gpusched.workload.openb import MILLI_PER_GPU, OpenbNodes

CURVE_COLUMNS = [*PUBLISHED_CURVE_COLUMNS, "frag_pct"]


def curves_frame(runs: Sequence[AllocationRun], pods: str) -> pd.DataFrame:
    """Runs in long form: one row per (run, arrived %).

    :param runs: allocation runs on one trace.
    :param pods: the trace's key (a bundled stem matches the published results).
    :return: columns ``policy``, ``pods``, ``seed``, ``arrived_pct`` (0-130, % of cluster GPU
        capacity), ``alloc_pct`` and ``frag_pct`` (% of cluster GPU capacity; NaN where a column had
        no sample).
    """
    if not runs:
        return pd.DataFrame(columns=CURVE_COLUMNS)
    parts = [
        pd.DataFrame({
            "policy": run.policy,
            "pods": pods,
            "seed": run.seed,
            "arrived_pct": np.arange(N_COLUMNS),
            "alloc_pct": np.array(run.alloc_pct, dtype=float),
            "frag_pct": np.array(run.frag_pct, dtype=float),
        })
        for run in runs
    ]
    return pd.concat(parts, ignore_index=True)


def published_curves(pods: str, policies: Sequence[str], metric: str = "alloc") -> pd.DataFrame:
    """The FGD artifact's published curves (seeds 42-51) of the chosen policies, in long form.

    :param pods: the pod list's stem; an unknown one gives an empty table.
    :param policies: policies to keep.
    :param metric: ``"alloc"`` (column ``alloc_pct``) or ``"frag"`` (column ``frag_pct``), both in
        % of cluster GPU capacity.
    """
    value = f"{metric}_pct"
    if metric == "alloc":
        long = published_alloc_long([pods])
    else:
        try:
            runs = published_runs(pods, metric=metric)
        except GpuschedError:
            runs = None
        long = pd.DataFrame(columns=["policy", "seed", "arrived_pct", value]) if runs is None else \
            runs.reset_index().melt(id_vars=["policy", "seed"], var_name="arrived_pct", value_name=value)
    long = long[long["policy"].isin(list(policies))].assign(pods=pods).reset_index(drop=True)
    long["arrived_pct"] = long["arrived_pct"].astype(int)
    return long


def comparison_table(
    runs: Sequence[AllocationRun],
    workload: str | None,
    columns: tuple[int, ...] = SUMMARY_COLUMNS,
) -> pd.DataFrame:
    """Our mean allocation ratio per policy beside the published 10-seed mean, with the differences.

    :param runs: allocation runs on one trace.
    :param workload: the published workload name (the pod list's stem), or ``None`` if the trace has
        no published results (those columns are then NaN).
    :param columns: arrived-load columns to report (% of cluster GPU capacity).
    :return: one row per policy (in run order) with ``policy`` (registry name), ``seeds``, for each
        column ``ours @C (%)``, ``published @C (%)`` and ``Δ @C (points)`` (ours minus published), then
        ``failed pods`` (mean count) and ``s/run`` (mean wall seconds).
    """
    published: pd.DataFrame | None = None
    if workload is not None:
        try:
            published = published_runs(workload).groupby(level="policy")[list(columns)].mean()
        except GpuschedError:
            published = None
    rows = []
    for policy in dict.fromkeys(r.policy for r in runs):
        mine = [r for r in runs if r.policy == policy]
        row: dict[str, object] = {"policy": policy, "seeds": len(mine)}
        for c in columns:
            ours = float(np.nanmean([np.nan if r.alloc_pct[c] is None else r.alloc_pct[c] for r in mine]))
            pub = float(published.loc[policy, c]) if published is not None and policy in published.index \
                else np.nan
            row[f"ours @{c} (%)"] = round(ours, 2)
            row[f"published @{c} (%)"] = round(pub, 2)
            row[f"Δ @{c} (points)"] = round(ours - pub, 2)
        row["failed pods"] = float(np.mean([r.failed_pods for r in mine]))
        row["s/run"] = round(float(np.mean([r.seconds for r in mine])), 2)
        rows.append(row)
    return pd.DataFrame(rows)


def gpu_state_table(final_rem: np.ndarray, nodes: OpenbNodes) -> pd.DataFrame:
    """How the GPUs of each model end a run: fully allocated, partly allocated, or idle.

    :param final_rem: free milli-GPU per GPU, one row per node in ``nodes``' order (-1 pads).
    :param nodes: the node list.
    :return: one row per GPU model (most GPUs first) with ``model``, ``nodes``, ``GPUs``,
        ``fully allocated``, ``partly allocated`` and ``idle`` (GPU counts), and
        ``free on partly allocated (% of capacity)``: free milli-GPU stranded on partly allocated GPUs,
        in % of that model's GPU capacity.
    """
    _check_shape(final_rem, nodes)
    rows = []
    models = np.array(nodes.model)
    for model in dict.fromkeys(nodes.model):
        if not model:
            continue
        rem = final_rem[models == model]
        gpus = rem[rem >= 0]
        partly = (gpus > 0) & (gpus < MILLI_PER_GPU)
        rows.append({
            "model": model,
            "nodes": int((models == model).sum()),
            "GPUs": int(gpus.size),
            "fully allocated": int((gpus == 0).sum()),
            "partly allocated": int(partly.sum()),
            "idle": int((gpus == MILLI_PER_GPU).sum()),
            "free on partly allocated (% of capacity)": round(
                100 * float(gpus[partly].sum()) / (MILLI_PER_GPU * max(gpus.size, 1)), 2),
        })
    return pd.DataFrame(rows).sort_values("GPUs", ascending=False, kind="stable").reset_index(drop=True)


def _check_shape(final_rem: np.ndarray, nodes: OpenbNodes) -> None:
    if final_rem.ndim != 2 or final_rem.shape[0] != len(nodes):
        raise ValueError(f"final_rem has shape {final_rem.shape}; expected one row per node ({len(nodes)})")
