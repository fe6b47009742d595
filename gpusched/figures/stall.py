"""The stall explorer: its figure (queue length of several policies on one time axis, the stall
intervals of the stalling policy shaded, its misroutes marked, and the idle GPUs below) and the
short text that explains a stall report with its measured numbers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gpusched.core.result import Result
from gpusched.figures.style import STALL_FILL, apply_layout, policy_color
from gpusched.policies import policy_label

if TYPE_CHECKING:
    from gpusched.experiment.stall import IdleSteps, StallReport

def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def stall_explanation(report: StallReport, baseline: Result | None = None) -> str:
    """A short explanation of a stall report with its measured numbers (Markdown).

    :param report: the stall analysis of one run.
    :param baseline: a fit-aware run on the same jobs to compare the average wait with.
    """
    name = policy_label(report.policy)
    versus = ""
    if baseline is not None:
        versus = (f" Its average wait is **{report.avg_wait_min:,.0f} min**, against "
                  f"**{baseline.metrics['avg_wait_min']:,.0f} min** for "
                  f"{policy_label(baseline.policy)} on the same jobs.")
    if not report.has_stall:
        return (f"On `{report.scenario}` (seed {report.seed}), {name} never held a job that "
                f"could have run: **no stall**. Every GPU can hold every job, so sending the "
                f"head job to the least-loaded GPU always works.{versus}")
    w = report.worst_job
    picked = ""
    if w.get("gpu_label"):
        why = ("too small for it" if w["gpu_vram_gb"] < w["vram_gb"]
               else "already too full for it")
        picked = (f"; {name} picked **{w['gpu_label']}** ({w['gpu_vram_gb']:g} GB, {why}) "
                  f"**{_plural(w['picks'], 'time')}**")
    on = "1 GPU" if w["gpus"] == 1 else f"each of {w['gpus']} GPUs"
    return (
        f"On `{report.scenario}` (seed {report.seed}), {name} held the head of the queue for "
        f"**{report.stall_min:,.0f} min** in {_plural(len(report.intervals), 'stall')}, although "
        f"the job could have run on another GPU. For example **job {w['job']}** ({w['type']}) "
        f"needs **{w['vram_gb']:g} GB** on {on}{picked}, and it was held for "
        f"{w['held_min']:,.0f} min. During the stalls the queue grew to "
        f"**{_plural(report.peak_queue, 'job')}** (minute {report.peak_queue_min:,.0f}) while on average "
        f"**{report.mean_idle_gpus:.1f} GPUs sat idle** — "
        f"{report.idle_gpu_min:,.0f} idle GPU-minutes.{versus}")


STALL_LEGEND = "stall: head job held although it fitted elsewhere"
"""Legend name of the shaded stall intervals (tests look for it)."""


def stall_figure(runs: Sequence[Result], report: StallReport, idle: IdleSteps,
                 baseline_idle: IdleSteps | None = None, baseline: str | None = None) -> go.Figure:
    """Queue length per policy (top) and idle GPUs (bottom) on one time axis.

    :param runs: the runs to draw, on the same jobs; the stalling policy is ``report.policy``.
    :param report: the stall analysis of the stalling policy's run.
    :param idle: idle GPUs of the stalling policy's run.
    :param baseline_idle: idle GPUs of a fit-aware run to draw for contrast (dashed).
    :param baseline: the policy name of ``baseline_idle``.
    """
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.64, 0.36],
                        vertical_spacing=0.08,
                        subplot_titles=("Queue length (jobs)",
                                        "Idle capacity: GPUs running no job"))
    end = 0.0
    stalled = next((r for r in runs if r.policy == report.policy), None)
    for r in runs:
        t = r.timeline.event_times()
        q = r.timeline.queue_length_at(t)
        end = max(end, float(r.timeline.end_min))
        bold = r.policy == report.policy
        fig.add_trace(go.Scatter(
            x=np.round(t, 2).tolist(), y=q.tolist(), mode="lines", name=policy_label(r.policy),
            line={"shape": "hv", "color": policy_color(r.policy), "width": 2.6 if bold else 1.8},
            opacity=1.0 if bold else 0.85,
            hovertemplate="minute %{x:.0f}: %{y} queued<extra>" + policy_label(r.policy)
                          + "</extra>"), row=1, col=1)

    # Shaded stall intervals, across both panels, plus a legend entry for them.
    # One batch of shapes (adding them one by one re-validates the layout every time).
    shapes = [{"type": "rect", "xref": "x", "yref": "paper", "x0": round(float(a), 2),
               "x1": round(float(b), 2), "y0": 0, "y1": 1, "fillcolor": STALL_FILL,
               "line": {"width": 0}, "layer": "below", "name": "stall"}
              for a, b in zip(report.intervals["start_min"], report.intervals["end_min"],
                              strict=True)]
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=STALL_LEGEND,
                             marker={"symbol": "square", "size": 14, "color": STALL_FILL,
                                     "line": {"color": "rgba(220,38,38,0.5)", "width": 1}},
                             hoverinfo="skip"), row=1, col=1)

    mis = report.misroutes
    if stalled is not None and len(mis):
        q_at = stalled.timeline.queue_length_at(mis["time_min"].to_numpy())
        why = np.where(mis["gpu_vram_gb"] < mis["job_vram_gb"], "too small", "too full")
        text = [f"job {j} needs {v:g} GB × {k} → sent to {g} ({c:g} GB, {w})"
                for j, v, k, g, c, w in zip(mis["job"], mis["job_vram_gb"], mis["job_gpus"],
                                            mis["gpu_label"], mis["gpu_vram_gb"], why, strict=True)]
        fig.add_trace(go.Scatter(
            x=np.round(mis["time_min"], 2).tolist(), y=q_at.tolist(), mode="markers",
            name=f"misroute: {policy_label(report.policy)} sent the head job where it did not fit",
            marker={"symbol": "x-thin", "size": 7, "color": "#7F1D1D", "opacity": 0.8,
                    "line": {"width": 1.6, "color": "#7F1D1D"}},
            text=text, hovertemplate="minute %{x:.0f}<br>%{text}<extra>misroute</extra>"),
            row=1, col=1)

    dur_t = np.r_[idle.times_min, end] if idle.times_min.size else np.array([0.0, end])
    dur_y = np.r_[idle.idle_gpus, idle.idle_gpus[-1:]] if idle.idle_gpus.size else np.zeros(2)
    fig.add_trace(go.Scatter(
        x=np.round(dur_t, 2).tolist(), y=dur_y.tolist(), mode="lines", fill="tozeroy",
        name=f"idle GPUs · {policy_label(report.policy)}",
        line={"shape": "hv", "color": policy_color(report.policy), "width": 1.4},
        fillcolor="rgba(220, 38, 38, 0.18)",
        hovertemplate="minute %{x:.0f}: %{y} idle GPU(s)<extra>" + policy_label(report.policy)
                      + "</extra>"), row=2, col=1)
    if baseline_idle is not None and baseline_idle.times_min.size:
        bt = np.r_[baseline_idle.times_min, end]
        by = np.r_[baseline_idle.idle_gpus, baseline_idle.idle_gpus[-1:]]
        label = policy_label(baseline or "baseline")
        fig.add_trace(go.Scatter(
            x=np.round(bt, 2).tolist(), y=by.tolist(), mode="lines", name=f"idle GPUs · {label}",
            line={"shape": "hv", "color": policy_color(baseline or ""), "width": 1.2, "dash": "dot"},
            hovertemplate="minute %{x:.0f}: %{y} idle GPU(s)<extra>" + label + "</extra>"),
            row=2, col=1)

    apply_layout(fig, height=640)
    fig.update_layout(shapes=shapes)
    fig.update_layout(margin={"l": 60, "r": 24, "t": 96, "b": 52}, legend={"y": 1.06})
    fig.update_xaxes(title_text="time (min)", range=[0, end or 1], row=2, col=1)
    fig.update_yaxes(title_text="jobs queued", rangemode="tozero", row=1, col=1)
    n_gpus = runs[0].cluster.n_gpus if runs else 1
    fig.update_yaxes(title_text="idle GPUs", range=[0, n_gpus + 0.3], row=2, col=1)
    return fig
