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


def arrivals_figure(jobs: Sequence[Job], bin_min: float = 60.0) -> go.Figure:
    """Arrivals per ``bin_min`` minutes, stacked by job type."""
    df = jobs_frame(jobs)
    fig = go.Figure()
    end = float(df["arrival_min"].max()) if len(df) else 0.0
    edges = np.arange(0.0, end + bin_min, bin_min)
    if edges.size < 2:
        edges = np.array([0.0, bin_min])
    for t in _types(df):
        counts, _ = np.histogram(df.loc[df["type"] == t, "arrival_min"], bins=edges)
        fig.add_trace(go.Bar(x=np.round(edges[:-1] + bin_min / 2, 1).tolist(), y=counts.tolist(),
                             width=bin_min * 0.92, name=t, marker_color=job_type_color(t),
                             hovertemplate="minute %{x:.0f}: %{y} arrivals<extra>" + t + "</extra>"))
    apply_layout(fig, title=f"Arrivals per {bin_min:.0f} min", height=340)
    fig.update_layout(barmode="stack")
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


def model_speed_figure(jobs: Sequence[Job], cluster: Cluster, speeds: GpuSpeeds | None) -> go.Figure:
    """A heatmap of the speed of each job model (rows, with its GPU count; jobs without a model by
    their type) on each GPU model of the cluster (columns), relative to the table's reference GPU:
    where each model runs fastest."""
    labels, gpu_models, z = model_speed_rows(jobs, cluster, speeds)
    fig = go.Figure(go.Heatmap(
        z=z, x=gpu_models, y=labels, colorscale="Viridis", zmin=0.0,
        texttemplate="%{z:.2f}", colorbar={"title": {"text": "speed"}},
        hovertemplate="%{y} on %{x}: speed %{z:.2f}<extra></extra>"))
    title = "Speed of each job model on each GPU model" + ("" if speeds else " (no speed table)")
    apply_layout(fig, title=title, height=min(200 + 22 * len(labels), 2000))
    fig.update_xaxes(title_text="GPU model")
    fig.update_yaxes(title_text="job model", autorange="reversed")
    return fig
