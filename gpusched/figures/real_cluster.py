"""Figures of gpusched against a real cluster (Shockwave's 32 V100s at TACC, NSDI '23): each
policy's average JCT and makespan on the real cluster, in Shockwave's simulator and in gpusched,
side by side; and each job's JCT in gpusched against the one measured, with the ±10 % band.

Pure functions: the frames of :mod:`gpusched.dashboard.real_cluster` in, ``go.Figure`` out. No
background or text colour is fixed (the dashboard's theme sets them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gpusched.experiment.real_cluster import WITHIN
from gpusched.figures.style import INK, apply_layout, legend_below, policy_color, title_block, wrap_title
from gpusched.policies import policy_label

SOURCE_COLORS: tuple[str, ...] = ("#64748B", "#D97706", "#2563EB")
"""The sides' colours in the frame's order: slate for the reference (the real cluster), amber
for Shockwave's simulator, blue for gpusched."""

BAND_FILL = "rgba(22, 163, 74, 0.12)"
"""Fill of the band within :data:`~gpusched.experiment.real_cluster.WITHIN` of the real JCT."""

PANELS: tuple[tuple[str, str], ...] = (("avg_jct_min", "Average JCT (min)"),
                                       ("makespan_min", "Makespan (min)"))
"""The bar chart's panels: column of the comparison frame, panel title."""

LABEL_CHARS = 18
"""A policy's label on the bar chart's axis wraps at about this many characters, so it reads
level under its group."""


def real_cluster_bars(frame: pd.DataFrame) -> go.Figure:
    """Average JCT and makespan per policy, one bar per side (real cluster, Shockwave's
    simulator, gpusched), grouped by policy; the simulators' bars carry their signed error.

    :param frame: :func:`gpusched.dashboard.real_cluster.real_cluster_frame` (its first source is
        the reference, drawn without an error label).
    """
    policies = list(dict.fromkeys(frame["policy"]))
    sources = list(dict.fromkeys(frame["source"]))
    fig = make_subplots(rows=1, cols=len(PANELS), subplot_titles=[t for _, t in PANELS],
                        horizontal_spacing=0.08)
    errors = {"avg_jct_min": "jct_error_pct", "makespan_min": "makespan_error_pct"}
    for col, (metric, title) in enumerate(PANELS, start=1):
        for i, source in enumerate(sources):
            rows = frame[frame["source"] == source].set_index("policy").loc[policies]
            err = rows[errors[metric]].to_numpy(dtype=float)
            text = ["" if i == 0 else f"{e:+.1f} %".replace("-", "−") for e in err]
            fig.add_trace(go.Bar(
                x=[wrap_title(policy_label(p), LABEL_CHARS) for p in policies],
                y=rows[metric].to_numpy(dtype=float),
                name=source, legendgroup=source,
                showlegend=col == 1, marker_color=SOURCE_COLORS[i % len(SOURCE_COLORS)], text=text,
                textposition="outside", cliponaxis=False,
                customdata=np.stack([err], axis=-1),
                hovertemplate=(f"{source}<br>%{{x}}<br>{title}: %{{y:,.1f}}"
                               + ("" if i == 0 else "<br>error: %{customdata[0]:+.1f} %")
                               + "<extra></extra>")), row=1, col=col)
        fig.update_yaxes(title_text="min", rangemode="tozero", row=1, col=col)
        fig.update_xaxes(tickangle=0, row=1, col=col)
    apply_layout(fig, height=460)
    fig.update_layout(barmode="group", bargap=0.25)
    title_block(fig, "Real cluster, Shockwave's simulator and gpusched",
                "Shockwave's trace on 32 real V100s; labels: error against the real cluster",
                panel_titles=1)
    return legend_below(fig, below_axis_px=72.0)


def real_cluster_scatter(per_job: pd.DataFrame) -> go.Figure:
    """Each job's JCT in gpusched (y) against the one measured on the real cluster (x), one colour
    per policy, over the diagonal and the band within
    :data:`~gpusched.experiment.real_cluster.WITHIN` of it.

    :param per_job: :func:`gpusched.dashboard.real_cluster.real_cluster_jobs` (any subset of policies).
    """
    fig = go.Figure()
    top = float(max(per_job["real_jct_min"].max(), per_job["ours_jct_min"].max())) * 1.05 if len(per_job) \
        else 1.0
    fig.add_trace(go.Scatter(x=[0, top, top, 0], y=[0, (1 + WITHIN) * top, (1 - WITHIN) * top, 0],
                             mode="lines", fill="toself", fillcolor=BAND_FILL, line={"width": 0},
                             hoverinfo="skip",
                             name=f"within {100 * WITHIN:.0f} %"))
    fig.add_trace(go.Scatter(x=[0, top], y=[0, top], mode="lines", line={"color": INK, "dash": "dot"},
                             hoverinfo="skip", name="same JCT"))
    for policy, rows in per_job.groupby("policy", sort=False):
        share = 100 * rows["within"].mean()
        fig.add_trace(go.Scatter(
            x=rows["real_jct_min"], y=rows["ours_jct_min"], mode="markers",
            name=f"{policy_label(str(policy))} ({share:.0f} % within)",
            marker={"color": policy_color(str(policy)), "size": 7, "opacity": 0.8},
            customdata=rows["job"],
            hovertemplate=(f"{policy_label(str(policy))}<br>job %{{customdata}}<br>real: %{{x:,.1f}} min"
                           "<br>gpusched: %{y:,.1f} min<extra></extra>")))
    apply_layout(fig, height=520)
    fig.update_xaxes(title_text="JCT on the real cluster (min)", range=[0, top])
    fig.update_yaxes(title_text="JCT in gpusched (min)", range=[0, top])
    title_block(fig, "Each job: gpusched against the real cluster",
                f"Shaded: within {100 * WITHIN:.0f} % of the measured JCT")
    return legend_below(fig)
