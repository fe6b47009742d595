"""Home's picture and its sentence: the stall as it happens, Least-Loaded beside First-Fit on the
same jobs, as a small multiple (one column per rule; the queue above, the idle GPUs below, on
shared axes), with the stalls shaded.

The numbers come from :class:`gpusched.dashboard.story.StallStory`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gpusched.core.result import Result
from gpusched.experiment.stall import IdleSteps, StallReport
from gpusched.figures.replay import merged_intervals
from gpusched.figures.stall import cause_why
from gpusched.figures.style import STALL_FILL, apply_layout, policy_colors
from gpusched.policies import policy_label

if TYPE_CHECKING:  # figures do not import the dashboard's page data, only name its type
    from gpusched.dashboard.story import StallStory

STORY_HEIGHT_PX = 340
"""Height of Home's picture (pixels): with the title and the sentence, above the fold at 900 px."""

STALL_BAND_LEGEND = "stall: a job that fitted elsewhere held, everyone behind it waiting"
"""Legend name of the shaded stalls in Home's picture."""


def _steps(idle: IdleSteps, end: float) -> tuple[list[float], list[float]]:
    t = np.r_[idle.times_min, end] if idle.times_min.size else np.array([0.0, end])
    y = np.r_[idle.idle_gpus, idle.idle_gpus[-1:]] if idle.idle_gpus.size else np.zeros(2)
    return np.round(t, 1).tolist(), y.tolist()


def stall_story_figure(stalling: Result, reference: Result, report: StallReport, idle_stalling: IdleSteps,
                       idle_reference: IdleSteps) -> go.Figure:
    """Two columns, one per rule (the stalling one left), two rows: jobs waiting and GPUs idle
    over time, each row on one y-axis so that the columns compare at a glance; the stalls of the
    stalling rule shaded in its column.

    :param stalling: the run of the rule that stalls; ``reference`` the other rule's, same jobs.
    :param report: the stall analysis of ``stalling``.
    :param idle_stalling: idle GPUs over time of ``stalling``; ``idle_reference`` of ``reference``.
    """
    runs = (stalling, reference)
    palette = policy_colors([r.policy for r in runs])
    fig = make_subplots(rows=2, cols=2, shared_xaxes=True, shared_yaxes="rows", row_heights=[0.62, 0.38],
                        vertical_spacing=0.1, horizontal_spacing=0.04,
                        subplot_titles=[f"{policy_label(r.policy)}: jobs waiting" for r in runs]
                        + [f"{policy_label(r.policy)}: GPUs idle" for r in runs])
    end = max(float(r.timeline.end_min) for r in runs)
    top = 1
    for col, (r, idle) in enumerate(zip(runs, (idle_stalling, idle_reference), strict=True), start=1):
        t = r.timeline.event_times()
        label = policy_label(r.policy)
        queue = r.timeline.queue_length_at(t)
        top = max(top, int(queue.max(initial=0)))
        fig.add_trace(go.Scatter(
            x=np.round(t, 1).tolist(), y=queue.tolist(), mode="lines",
            name=label, line={"shape": "hv", "color": palette[r.policy], "width": 2}, legendgroup=label,
            hovertemplate="minute %{x:,.0f}: %{y} jobs waiting<extra>" + label + "</extra>"), row=1, col=col)
        x, y = _steps(idle, end)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", fill="tozeroy", name=label, showlegend=False, legendgroup=label,
            line={"shape": "hv", "color": palette[r.policy], "width": 1.2},
            fillcolor="rgba(100,116,139,0.18)",
            hovertemplate="minute %{x:,.0f}: %{y} GPUs idle<extra>" + label + "</extra>"), row=2, col=col)
    shapes = []
    if len(report.intervals):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=STALL_BAND_LEGEND,
                                 marker={"symbol": "square", "size": 12, "color": STALL_FILL},
                                 hoverinfo="skip"), row=1, col=1)
        for a, b in merged_intervals(report.intervals["start_min"], report.intervals["end_min"], end / 400):
            for yref in ("y domain", "y3 domain"):
                shapes.append({"type": "rect", "xref": "x", "yref": yref, "x0": round(a, 1),
                               "x1": round(b, 1), "y0": 0, "y1": 1, "fillcolor": STALL_FILL,
                               "line": {"width": 0}, "layer": "below", "name": "stall"})
    apply_layout(fig, height=STORY_HEIGHT_PX)
    fig.update_layout(shapes=shapes, margin={"l": 56, "r": 16, "t": 30, "b": 70},
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "y": -0.2, "yanchor": "top"})
    fig.update_annotations(font={"size": 13})
    fig.update_xaxes(range=[0, end], row=2)
    fig.update_xaxes(title_text="time (min)", title_standoff=4, row=2)
    fig.update_yaxes(title_text="jobs", range=[0, top * 1.08], row=1, col=1)
    fig.update_yaxes(title_text="GPUs", range=[0, stalling.cluster.n_gpus + 0.3], row=2, col=1)
    return fig


def story_sentence(story: StallStory) -> str:
    """Home's one sentence under its title (Markdown), from the story's numbers."""
    ll, ff = policy_label(story.stalling), policy_label(story.reference)
    why = (f" sends the first job in the queue to a GPU where {cause_why(story.dominant_cause)}, and holds "
           "every job behind it" if story.dominant_cause else " holds jobs that could run")
    return (f"Same {story.jobs:,} jobs, same {story.gpus} GPUs: {ll}{why}, so up to "
            f"**{story.peak_queue[story.stalling]} jobs wait** while on average **{story.mean_idle_gpus:.1f} "
            f"of the {story.gpus} GPUs sit idle** during these stalls (shaded); {ff}, which puts each job "
            f"on the first GPU with room, never has more than {story.peak_queue[story.reference]} waiting.")
