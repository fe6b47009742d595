"""Workload figures: arrivals over time, the VRAM, duration and GPU-count distributions by job
type, how long each type runs on each GPU model of the cluster (its speed table), and the speed of
each job model on each GPU model (a heatmap)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from gpusched.core.cluster import Cluster
from gpusched.core.jobs import Job
from gpusched.core.speed import GpuSpeeds
from gpusched.figures.style import apply_layout, job_type_color, log_axis_ticks


def jobs_frame(jobs: Sequence[Job]) -> pd.DataFrame:
    """The jobs as a table (one row per job, the :class:`Job` fields as columns)."""
    if not jobs:
        return pd.DataFrame(columns=["id", "type", "arrival_min", "duration_min", "gpus",
                                     "vram_gb", "compute", "priority"])
    return pd.DataFrame([asdict(j) for j in jobs])


def _types(df: pd.DataFrame) -> list[str]:
    order = ["training", "inference", "batch"]
    return [t for t in order if t in set(df["type"])] + sorted(set(df["type"]) - set(order))


ARRIVAL_BINS_MIN: tuple[tuple[float, str], ...] = (
    (60.0, "hour"), (120.0, "2 h"), (360.0, "6 h"), (720.0, "12 h"), (1440.0, "day"),
    (2880.0, "2 days"), (10080.0, "week"), (43200.0, "30 days"))
"""The widths an arrivals histogram may bin by (minutes) and how its title names each."""

MAX_ARRIVAL_BINS = 80
"""Most bars of an arrivals histogram: more would be hairlines on a half-page chart."""


def arrival_bin(end_min: float) -> tuple[float, str]:
    """The narrowest of :data:`ARRIVAL_BINS_MIN` that covers ``end_min`` minutes of arrivals in
    at most :data:`MAX_ARRIVAL_BINS` bars: its width (minutes) and its name."""
    return next(((w, n) for w, n in ARRIVAL_BINS_MIN if end_min / w <= MAX_ARRIVAL_BINS),
                ARRIVAL_BINS_MIN[-1])


def arrivals_figure(jobs: Sequence[Job], bin_min: float | None = None) -> go.Figure:
    """Arrivals per bin, stacked by job type; the bin (default :func:`arrival_bin`) keeps the
    bars wide enough to read however long the arrivals last (an hour on a day of jobs, a day
    on Gavel's 2,000 jobs over three months)."""
    df = jobs_frame(jobs)
    fig = go.Figure()
    end = float(df["arrival_min"].max()) if len(df) else 0.0
    bin_min, bin_name = (bin_min, f"{bin_min:g} min") if bin_min else arrival_bin(end)
    edges = np.arange(0.0, end + bin_min, bin_min)
    if edges.size < 2:
        edges = np.array([0.0, bin_min])
    for t in _types(df):
        counts, _ = np.histogram(df.loc[df["type"] == t, "arrival_min"], bins=edges)
        fig.add_trace(go.Bar(x=np.round(edges[:-1] + bin_min / 2, 1).tolist(), y=counts.tolist(),
                             width=bin_min * 0.92, name=t, marker_color=job_type_color(t),
                             hovertemplate="minute %{x:.0f}: %{y} arrivals<extra>" + t + "</extra>"))
    apply_layout(fig, title=f"Arrivals per {bin_name}", height=340)
    fig.update_layout(barmode="stack", bargap=0.1)
    fig.update_xaxes(title_text="arrival time (min)")
    fig.update_yaxes(title_text="jobs")
    return fig


def _grouped_counts(df: pd.DataFrame, column: str, title: str, x_title: str) -> go.Figure:
    fig = go.Figure()
    values = sorted(df[column].unique()) if len(df) else []
    for t in _types(df):
        counts = df.loc[df["type"] == t, column].value_counts()
        fig.add_trace(go.Bar(x=[f"{v:g}" for v in values],
                             y=[int(counts.get(v, 0)) for v in values], name=t,
                             marker_color=job_type_color(t),
                             hovertemplate=x_title + " %{x}: %{y} jobs<extra>" + t + "</extra>"))
    apply_layout(fig, title=title, height=340)
    fig.update_layout(barmode="group")
    fig.update_xaxes(title_text=x_title, type="category")
    fig.update_yaxes(title_text="jobs")
    return fig


def vram_figure(jobs: Sequence[Job]) -> go.Figure:
    """Jobs per VRAM request (GB per GPU), by job type."""
    return _grouped_counts(jobs_frame(jobs), "vram_gb", "VRAM per GPU requested",
                           "VRAM per GPU (GB)")


def compute_figure(jobs: Sequence[Job], step_pct: int = 10) -> go.Figure:
    """Jobs per share of a GPU requested (its compute, as a trace pod's ``gpu_milli`` asks for it),
    in ``step_pct`` % steps, by job type: the chart for jobs that ask for a share of a GPU rather
    than for VRAM in GB."""
    df = jobs_frame(jobs)
    df = df.assign(share_pct=(np.ceil(df["compute"] * 100 / step_pct - 1e-9) * step_pct).clip(lower=step_pct))
    fig = _grouped_counts(df, "share_pct", "Share of a GPU requested", "share of one GPU (%, up to)")
    return fig


def gpus_figure(jobs: Sequence[Job]) -> go.Figure:
    """Jobs per GPU count, by job type."""
    return _grouped_counts(jobs_frame(jobs), "gpus", "GPUs per job", "GPUs")


def duration_figure(jobs: Sequence[Job]) -> go.Figure:
    """Duration distribution (minutes, log axis) by job type, as box plots with the points."""
    df = jobs_frame(jobs)
    fig = go.Figure()
    for t in _types(df):
        d = df.loc[df["type"] == t, "duration_min"]
        fig.add_trace(go.Box(x=np.round(d, 1).tolist(), name=t, marker_color=job_type_color(t),
                             boxpoints="outliers", orientation="h",
                             hovertemplate="%{x:.0f} min<extra>" + t + "</extra>"))
    apply_layout(fig, title="Job duration", height=340)
    fig.update_layout(showlegend=False)
    positive = df.loc[df["duration_min"] > 0, "duration_min"]
    ticks = log_axis_ticks(positive.min(), positive.max()) if len(positive) else {}
    fig.update_xaxes(title_text="duration (min, log scale)", type="log", **ticks)
    fig.update_yaxes(title_text="job type")
    return fig


def runtime_by_model_figure(jobs: Sequence[Job], cluster: Cluster,
                            speeds: Mapping[str, Mapping[str, float]] | None) -> go.Figure:
    """Median run time (minutes) of each job type on each GPU model of the cluster: the jobs'
    ``duration_min`` (their time on the reference GPU) divided by the model's speed for the type
    (1.0 where the table is silent, or without a table)."""
    df = jobs_frame(jobs)
    models = list(dict.fromkeys(cluster.node_model))
    fig = go.Figure()
    for t in _types(df):
        durations = df.loc[df["type"] == t, "duration_min"].to_numpy()
        median = float(np.median(durations)) if durations.size else 0.0
        factors = [(speeds or {}).get(m, {}).get(t, 1.0) for m in models]
        fig.add_trace(go.Bar(x=models, y=[round(median / f, 1) for f in factors], name=t,
                             marker_color=job_type_color(t), customdata=factors,
                             hovertemplate="%{x}: %{y:.0f} min (speed %{customdata:.2f})<extra>" + t
                                           + "</extra>"))
    title = "Median run time by GPU model" + ("" if speeds else " (no speed table: all at speed 1.0)")
    apply_layout(fig, title=title, height=320)
    fig.update_layout(barmode="group")
    fig.update_xaxes(title_text="GPU model")
    fig.update_yaxes(title_text="median run time (min)")
    return fig


def model_speed_rows(jobs: Sequence[Job], cluster: Cluster,
                     speeds: GpuSpeeds | None) -> tuple[list[str], list[str], list[list[float]]]:
    """The numbers behind :func:`model_speed_figure`: its row labels (each job model of the
    workload with its GPU count when above 1, or for jobs without a model their type), its GPU
    models (in cluster order) and the speed of each (the speed table's resolution, 1.0 without
    one)."""
    kinds = {(j.model is None, j.model or j.type, j.gpus): j.type for j in jobs}
    gpu_models = list(dict.fromkeys(cluster.node_model))
    labels, z = [], []
    for (no_model, name, gpus), job_type in sorted(kinds.items()):
        label = f"{name} (type)" if no_model else name
        labels.append(label + (f" · {gpus} GPUs" if gpus > 1 else ""))
        model = None if no_model else name
        z.append([1.0 if speeds is None else speeds.speed_for(m, model, job_type, gpus)
                  for m in gpu_models])
    return labels, gpu_models, z


HEATMAP_ROWS = 30
"""Most rows of the speed heatmap with one row per job model and GPU count; with more (Gavel's 90),
each GPU count becomes a column of its own, so the chart stays about a screen tall."""


def model_speed_grid(jobs: Sequence[Job], cluster: Cluster,
                     speeds: GpuSpeeds | None) -> tuple[list[str], list[str], list[list[float]]]:
    """The speed heatmap's rows, columns and speeds: :func:`model_speed_rows` when it has at most
    :data:`HEATMAP_ROWS` rows; otherwise one row per job model and one column per GPU model and
    GPU count (``V100 ×4``), each cell the speed of that model on a gang of that size."""
    labels, gpu_models, z = model_speed_rows(jobs, cluster, speeds)
    if len(labels) <= HEATMAP_ROWS:
        return labels, gpu_models, z
    kinds = {(j.model is None, j.model or j.type): j.type for j in jobs}
    counts = sorted({j.gpus for j in jobs})
    columns = [f"{m} ×{g}" if len(counts) > 1 else m for m in gpu_models for g in counts]
    rows, grid = [], []
    for (no_model, name), job_type in sorted(kinds.items()):
        rows.append(f"{name} (type)" if no_model else name)
        model = None if no_model else name
        grid.append([1.0 if speeds is None else speeds.speed_for(m, model, job_type, g)
                     for m in gpu_models for g in counts])
    return rows, columns, grid


def model_speed_figure(jobs: Sequence[Job], cluster: Cluster, speeds: GpuSpeeds | None) -> go.Figure:
    """A heatmap of the speed of each job model (rows, with its GPU count; jobs without a model by
    their type) on each GPU model of the cluster (columns), relative to the table's reference GPU:
    where each model runs fastest (laid out by :func:`model_speed_grid`)."""
    labels, gpu_models, z = model_speed_grid(jobs, cluster, speeds)
    fig = go.Figure(go.Heatmap(
        z=z, x=gpu_models, y=labels, colorscale="Viridis", zmin=0.0,
        texttemplate="%{z:.2f}", colorbar={"title": {"text": "speed"}},
        hovertemplate="%{y} on %{x}: speed %{z:.2f}<extra></extra>"))
    title = "Speed of each job model on each GPU model" + ("" if speeds else " (no speed table)")
    apply_layout(fig, title=title, height=200 + 22 * len(labels))
    fig.update_xaxes(title_text="GPU model" + (" × GPUs per job" if "×" in "".join(gpu_models) else ""))
    fig.update_yaxes(title_text="job model", autorange="reversed")
    return fig


def job_models_figure(jobs: Sequence[Job]) -> go.Figure:
    """Jobs per job model (a workload whose jobs name their model, as Gavel's do), with the
    GPU-hours each model asks for on the reference GPU in the hover."""
    df = jobs_frame(jobs)
    df = df[df["model"].notna()] if "model" in df else df.iloc[0:0]
    asked = (df["duration_min"] * df["gpus"] / 60.0).groupby(df["model"]).sum()
    counts = df.groupby("model").size().sort_values()
    fig = go.Figure(go.Bar(
        x=counts.tolist(), y=counts.index.tolist(), orientation="h",
        marker_color=job_type_color("training"), customdata=asked.reindex(counts.index).round(0).tolist(),
        hovertemplate="%{y}: %{x} jobs, %{customdata:,.0f} GPU-hours on the reference GPU<extra></extra>"))
    apply_layout(fig, title="Jobs per job model", height=120 + 18 * max(len(counts), 1))
    fig.update_layout(margin={"l": 8})
    fig.update_xaxes(title_text="jobs")
    fig.update_yaxes(automargin=True, tickfont={"size": 11})
    return fig


def runtime_by_gpu_figure(jobs: Sequence[Job], cluster: Cluster, speeds: GpuSpeeds | None) -> go.Figure:
    """Median run time (minutes) of the workload's jobs on each GPU model of the cluster, each job
    at its own speed there (its model's, on its GPU count: :meth:`GpuSpeeds.speed_for`): the
    chart for a workload of job models, whose speeds differ by model rather than by job type."""
    gpu_models = list(dict.fromkeys(cluster.node_model))
    medians = []
    for m in gpu_models:
        times = [j.duration_min / (1.0 if speeds is None else speeds.speed_for(m, j.model, j.type, j.gpus))
                 for j in jobs]
        medians.append(round(float(np.median(times)), 1) if times else 0.0)
    fig = go.Figure(go.Bar(x=gpu_models, y=medians, marker_color=job_type_color("training"),
                           hovertemplate="%{x}: median %{y:,.0f} min<extra></extra>"))
    title = "Median run time of the jobs on each GPU model" + ("" if speeds else " (no speed table)")
    apply_layout(fig, title=title, height=320)
    fig.update_xaxes(title_text="GPU model")
    fig.update_yaxes(title_text="median run time (min)")
    return fig
