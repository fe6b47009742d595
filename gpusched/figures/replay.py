"""Replay figures: the animated cluster state, the per-GPU Gantt chart, and a synchronised
side-by-side replay of two policies.

Frames are derived from the run's event record (:class:`gpusched.core.timeline.Timeline`), thinned to
at most ``max_frames`` so that a 250-job replay stays smooth and its JSON small.

The two animations come back frozen (:func:`gpusched.figures.frozen.freeze`): their frames and
slider steps are plain dicts in the figure's dict, not Plotly objects (``fig.frames`` is empty;
read them with :func:`~gpusched.figures.frozen.frames_of`), and the figure must not be changed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gpusched.core.cluster import MISROUTE_CAUSES
from gpusched.core.result import Result
from gpusched.core.timeline import Timeline, even_times
from gpusched.experiment.stall import StallReport
from gpusched.figures.frozen import freeze
from gpusched.figures.gpu_axis import (
    CHAR_WIDTH_EM,
    GPU_TICK_FONT_PX,
    GpuTicks,
    gpu_ticks,
    run_edges,
)
from gpusched.figures.stall import (
    CAUSE_SHORT,
    MISROUTE_HOVER,
    TICKS_ACROSS,
    misroute_marker,
    ticks_by_cause,
)
from gpusched.figures.style import (
    BAND_COLORS,
    BAND_LABELS,
    MARK,
    STALL_FILL,
    TARGET_BAND_FILL,
    apply_layout,
    band_marker,
    job_type_color,
    policy_colors,
)
from gpusched.policies import policy_label

REPLAY_PANELS_PX = 392
"""Height of the replay's bar panels and time panel together (pixels)."""

SIDE_BY_SIDE_PANELS_PX = 360
"""Height of the side-by-side replay's bar panels and queue panel together (pixels)."""

DEFAULT_MAX_FRAMES = 250
"""Frame cap of the animations."""

FRAME_MS = 110
"""Time each frame is shown while playing (milliseconds)."""


def common_frame_times(timelines: Sequence[Timeline], max_frames: int) -> np.ndarray:
    """Frame times (minutes) shared by several runs: evenly spaced over the span of their events."""
    return even_times(np.concatenate([t.event_times() for t in timelines]), max_frames)


SUBPLOT_TITLE_PX = 36
"""Height a subplot title needs above its panel, with a little air (pixels)."""


def gpu_label_px(labels: Sequence[str]) -> float:
    """Height of upright GPU labels under a bar panel (pixels): the longest label's length, plus
    the tick's offset."""
    longest = max((len(label) for label in labels), default=0)
    return longest * CHAR_WIDTH_EM * GPU_TICK_FONT_PX + 10


def gap_below_gpu_bars(ticks: GpuTicks) -> float:
    """Vertical space between the bar panels and the panel under them (pixels): the GPU labels
    and the lower panel's title, which then never overlap."""
    return ticks.px + SUBPLOT_TITLE_PX


def _style_gpu_axes(fig: go.Figure, cols: Sequence[int], ticks: GpuTicks) -> None:
    """The GPU labels of the bar panels (:func:`~gpusched.figures.gpu_axis.gpu_ticks`) at a fixed
    size."""
    for col in cols:
        fig.update_xaxes(tickangle=ticks.angle, tickfont={"size": GPU_TICK_FONT_PX}, automargin=False,
                         tickmode="array", tickvals=list(ticks.tickvals), ticktext=list(ticks.ticktext),
                         row=1, col=col)


def _axis_shapes(ticks: GpuTicks, cluster, axes: Sequence[int]) -> list[dict]:
    """The shapes of the bar panels numbered ``axes`` (``x2``/``y2`` for 2): the 60-80 % target
    band, and on a grouped GPU axis a thin line between two GPU models. Built as plain dicts and
    set once: adding shapes one by one re-validates every shape each time."""
    out = []
    for k in axes:
        x, y = f"x{k}" if k > 1 else "x", f"y{k}" if k > 1 else "y"
        out.append({"type": "rect", "xref": f"{x} domain", "yref": y, "x0": 0, "x1": 1, "y0": 60, "y1": 80,
                    "fillcolor": TARGET_BAND_FILL, "line": {"width": 0}, "layer": "below"})
        if ticks.grouped:
            out += [{"type": "line", "xref": x, "yref": f"{y} domain", "x0": e, "x1": e, "y0": 0, "y1": 1,
                     "line": {"color": "#94A3B8", "width": 1, "dash": "dot"}} for e in run_edges(cluster)]
    return out


def merged_intervals(starts, ends, gap: float) -> list[tuple[float, float]]:
    """Intervals ``(start, end)`` (minutes, ascending) with those less than ``gap`` apart merged:
    a shaded band per stall that a viewer can tell apart, not thousands of slivers."""
    out: list[tuple[float, float]] = []
    for a, b in zip(starts, ends, strict=True):
        if out and a - out[-1][1] < gap:
            out[-1] = (out[-1][0], max(out[-1][1], float(b)))
        else:
            out.append((float(a), float(b)))
    return out


def _r(values: np.ndarray, digits: int = 2) -> list[float]:
    """Rounded floats for compact figure JSON."""
    return np.round(np.asarray(values, dtype=float), digits).tolist()


def _a(values: np.ndarray, digits: int = 2) -> np.ndarray:
    """Rounded floats as an array: Plotly takes a numpy array whole, where it walks a list item
    by item (thousands of Gantt bars: seconds)."""
    return np.round(np.asarray(values, dtype=float), digits)


INTERRUPTED_ANIMATION_SCRIPT = """<script>
if (!window.gpuschedQuietInterrupts) {
  window.gpuschedQuietInterrupts = true;
  window.addEventListener("unhandledrejection", (event) => {
    if (event.reason === undefined) { event.preventDefault(); }
  });
}
</script>"""
"""Browser script for pages that show an animated figure. Plotly rejects the promise of an
animation that a later one interrupts (Pause, or a slider step while playing), with no reason,
and its buttons and sliders leave that rejection unhandled: the browser then logs an uncaught
error although the figure does what was asked. The script marks those reason-less rejections
handled; every other rejection still reaches the console."""

MARGIN_TOP_PX = 150
"""Top margin of the animated figures (pixels): the title, the legend under it (two rows, left
aligned, clear of the toolbar on the right) and the panels' titles."""

MARGIN_BOTTOM_PX = 170
"""Bottom margin of the animated figures: the time axis's title, the slider and the buttons."""

SLIDER_TOP_PX = 52
"""How far below the time axis the slider starts (pixels): clear of the axis title."""

BUTTONS_TOP_PX = 122
"""How far below the time axis the Play/Pause buttons start (pixels): under the slider."""


def animated_geometry(ticks: GpuTicks, panels_px: float) -> tuple[int, float]:
    """Height (pixels) and vertical spacing (fraction of the plot area) of an animated figure with
    per-GPU bars above a time panel, so that the GPU labels clear the time panel's title.

    :param ticks: the GPU axis under the bars.
    :param panels_px: height of the two panels together (pixels).
    """
    gap = gap_below_gpu_bars(ticks)
    plot_px = panels_px + gap
    return int(round(plot_px + MARGIN_TOP_PX + MARGIN_BOTTOM_PX)), gap / plot_px


def _animation_controls(frame_names: list[str], plot_px: float) -> tuple[dict, list[dict]]:
    """Play/Pause buttons and a time slider for ``frame_names``: the layout's ``updatemenus`` and
    ``sliders`` (the slider without its steps), and the slider's steps, which go into the figure as
    plain dicts (:func:`~gpusched.figures.frozen.freeze`). The steps carry no label and the slider
    no current value: each figure's "now" line reads the frame shown (:func:`_now_line`).

    The slider spans the whole width of the time axis and the frames are evenly spaced in time
    (:func:`gpusched.core.timeline.even_times`), so the slider's handle sits under the time marker
    it sets. Pausing stops the animation and leaves the frame shown.

    :param plot_px: height of the plot area (pixels), to place the controls below the time axis.
    """
    play = {"frame": {"duration": FRAME_MS, "redraw": True}, "fromcurrent": True,
            "transition": {"duration": 0}, "mode": "immediate"}
    pause = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate",
             "transition": {"duration": 0}}
    steps = [{"method": "animate", "label": "",
              "args": [[name], {"frame": {"duration": 0, "redraw": True}, "mode": "immediate",
                                "transition": {"duration": 0}}]}
             for name in frame_names]
    return {
        "updatemenus": [{
            "type": "buttons", "direction": "left", "showactive": False,
            "x": 0.0, "y": -BUTTONS_TOP_PX / plot_px, "xanchor": "left", "yanchor": "top",
            "pad": {"r": 8, "t": 0},
            "buttons": [{"label": "▶ Play", "method": "animate", "args": [None, play]},
                        {"label": "❚❚ Pause", "method": "animate", "args": [[None], pause]}],
        }],
        "sliders": [{
            "active": 0, "x": 0.0, "len": 1.0, "y": -SLIDER_TOP_PX / plot_px,
            "xanchor": "left", "yanchor": "top", "pad": {"t": 0, "b": 0, "l": 0, "r": 0},
            "currentvalue": {"visible": False},
            "transition": {"duration": 0},
            # Hundreds of steps, without labels: hide the ticks too.
            "font": {"color": "rgba(0,0,0,0)"}, "ticklen": 0, "minorticklen": 0,
        }],
    }, steps


def _band_legend(fig: go.Figure, row: int, col: int) -> None:
    """Legend-only entries explaining the band colours."""
    for band in ("low", "target", "hot"):
        fig.add_trace(go.Bar(x=[None], y=[None], name=BAND_LABELS[band],
                             marker_color=BAND_COLORS[band], hoverinfo="skip"), row=row, col=col)


MODEL_PANEL_TITLE = "GPUs busy, by GPU model (%)"
"""Title of the panel that replaces VRAM where no job declares memory (Gavel's jobs)."""

VRAM_PANEL_TITLE = "VRAM used per GPU (GB) against capacity"
"""Title of the VRAM panel, for jobs that declare memory."""

MISROUTE_MARK_LEGEND = "misroute"
"""Legend name prefix of Replay's misroute markers on the time panel."""


def _model_busy(cluster, jobs_running: np.ndarray, models: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per model: the share of its GPUs running at least one job (fraction 0-1) and their count."""
    model = np.asarray(cluster.gpu_model).astype(str)
    busy = np.array([(jobs_running[model == m] > 0).mean() for m in models])
    count = np.array([(model == m).sum() for m in models])
    return busy, count


def replay_figure(result: Result, max_frames: int = DEFAULT_MAX_FRAMES, start_min: float | None = None,
                  stall: StallReport | None = None) -> go.Figure:
    """The run as an animation: per-GPU VRAM used against capacity (or, where no job declares
    memory, the share of each GPU model's GPUs that are busy) and compute utilisation (coloured by
    band), queue length and running jobs over time, with Play/Pause and a slider.

    :param result: one run.
    :param max_frames: the frame cap (events are thinned evenly to at most this many frames).
    :param start_min: the minute to open at (the first frame at or after it; default the start).
    :param stall: the run's stall analysis: its stall intervals are shaded on the time panel and
        its misroutes marked there, by cause.
    :return: the figure, frozen (see the module's docstring).
    """
    tl, cluster = result.timeline, result.cluster
    times = tl.frame_times(max_frames)
    frames = tl.gpu_frames(times)
    ticks = gpu_ticks(cluster)
    labels = list(ticks.labels)
    cap = cluster.gpu_vram_gb
    memory = bool(frames.vram_used_gb.max(initial=0.0) > 0)
    models = list(dict.fromkeys(np.asarray(cluster.gpu_model).astype(str)))
    queue = tl.queue_length_at(times)
    running = tl.running_jobs_at(times)
    line_t = tl.event_times()
    line_q = tl.queue_length_at(line_t)
    line_r = tl.running_jobs_at(line_t)
    y_max = float(max(line_q.max(initial=0), line_r.max(initial=0), 1)) * 1.08
    marks = stall is not None and len(stall.misroutes) > 0
    y_marks = y_max * (1.22 if marks else 1.0)
    y_top = y_marks / (1.0 - READOUT_BAND)
    k0 = 0 if start_min is None else int(min(np.searchsorted(times, start_min - 1e-9), len(times) - 1))

    height, spacing = animated_geometry(ticks, REPLAY_PANELS_PX)
    fig = make_subplots(
        rows=2, cols=2, specs=[[{}, {}], [{"colspan": 2}, None]], row_heights=[0.56, 0.44],
        vertical_spacing=spacing, horizontal_spacing=0.08,
        column_widths=[0.5, 0.5] if memory else [0.22, 0.78],
        subplot_titles=(VRAM_PANEL_TITLE if memory else MODEL_PANEL_TITLE,
                        "Compute utilisation per GPU (%)",
                        "Queue length and running jobs"))

    def bar_state(i: int) -> tuple[dict, dict]:
        util = frames.compute_used[i]
        jobs = frames.jobs_running[i]
        if memory:
            vram = frames.vram_used_gb[i]
            left = {"y": np.round(vram, 1), "marker": band_marker(vram / np.maximum(cap, 1e-9)),
                    "customdata": np.c_[cap, jobs]}
        else:
            busy, count = _model_busy(cluster, jobs, models)
            left = {"y": np.round(busy * 100, 1), "marker": band_marker(busy),
                    "customdata": np.c_[np.rint(busy * count), count]}
        right = {"y": np.round(util * 100, 1), "marker": band_marker(util),
                 "customdata": jobs.reshape(-1, 1)}
        return left, right

    left0, util0 = bar_state(k0)
    if memory:
        fig.add_trace(go.Bar(x=labels, y=_r(cap, 1), name="VRAM capacity", marker_color="#EEF2F7",
                             marker_line={"color": "#CBD5E1", "width": 1}, hoverinfo="skip",
                             showlegend=False), row=1, col=1)
        fig.add_trace(go.Bar(x=labels, name="VRAM used", showlegend=False, width=0.6,
                             hovertemplate="%{x}<br>VRAM %{y:.1f} / %{customdata[0]:.0f} GB"
                                           "<br>%{customdata[1]} job(s)<extra></extra>", **left0),
                      row=1, col=1)
    else:
        fig.add_trace(go.Bar(x=models, y=[100.0] * len(models), name="all GPUs of the model",
                             marker_color="#EEF2F7", marker_line={"color": "#CBD5E1", "width": 1},
                             hoverinfo="skip", showlegend=False), row=1, col=1)
        fig.add_trace(go.Bar(x=models, name="GPUs busy", showlegend=False, width=0.6,
                             hovertemplate="%{x}: %{customdata[0]:.0f} of %{customdata[1]:.0f} GPUs "
                                           "busy (%{y:.0f} %)<extra></extra>", **left0), row=1, col=1)
    fig.add_trace(go.Bar(x=labels, name="utilisation", showlegend=False,
                         hovertemplate="%{x}<br>compute %{y:.0f} %<br>%{customdata[0]} job(s)"
                                       "<extra></extra>", **util0), row=1, col=2)
    fig.add_trace(go.Scatter(x=_a(line_t), y=line_q, name="queue length (jobs)",
                             mode="lines", line={"shape": "hv", "color": "#DC2626", "width": 2}),
                  row=2, col=1)
    fig.add_trace(go.Scatter(x=_a(line_t), y=line_r, name="running jobs",
                             mode="lines", line={"shape": "hv", "color": "#2563EB", "width": 2}),
                  row=2, col=1)
    t0 = round(float(times[k0]), 2)
    readouts = [_frame_label(t, queue[i], running[i]) for i, t in enumerate(times)]
    fig.add_trace(_now_line(float(times[k0]), y_top, readouts[k0], tl.start_min, tl.end_min), row=2, col=1)
    fig.add_trace(go.Scatter(x=[t0] * 2, y=[int(queue[k0]), int(running[k0])], mode="markers",
                             marker={"size": 9, "color": ["#DC2626", "#2563EB"],
                                     "line": {"color": "white", "width": 1.5}},
                             showlegend=False, hoverinfo="skip"), row=2, col=1)
    _band_legend(fig, 1, 2)
    animated = [1, 2, 5, 6]
    down = tl.nodes_down_at(times) if len(tl.node_down) else None
    if down is not None:  # a node under repair: a grey bar over its GPUs
        animated += _add_down_bars(fig, labels, cap, down[k0], memory)
        _mark_failures(fig, tl, y_max)
    shapes = _axis_shapes(ticks, cluster, (2,))
    if stall is not None:
        shapes += _mark_stall(fig, stall, y_max, y_marks, gap=(tl.end_min - tl.start_min) / TICKS_ACROSS)

    names, fig_frames = [], []
    for i, t in enumerate(times):
        left, util_bar = (_colours_only(b) for b in bar_state(i))
        name = f"f{i}"
        names.append(name)
        data = [{"type": "bar", **left}, {"type": "bar", **util_bar},
                _now_state(t, readouts[i], tl.start_min, tl.end_min),
                {"type": "scatter", "x": [round(float(t), 2)] * 2, "y": [int(queue[i]), int(running[i])]}]
        if down is not None:
            left_down = _down_state(cap, down[i]) if memory else {"y": []}
            data += [{"type": "bar", **left_down},
                     {"type": "bar", **_down_state(np.full(cap.size, 100.0), down[i])}]
        fig_frames.append({"name": name, "traces": animated, "data": data})

    apply_layout(fig, title=f"{policy_label(result.policy)} on {result.scenario}", height=height)
    plot_px = height - MARGIN_TOP_PX - MARGIN_BOTTOM_PX
    controls, steps = _animation_controls(names, plot_px)
    controls["sliders"][0]["active"] = k0
    fig.update_layout(barmode="overlay", bargap=0.25, **controls,
                      margin={"l": 60, "r": 24, "t": MARGIN_TOP_PX, "b": MARGIN_BOTTOM_PX},
                      # below the toolbar, which shows in the top right corner on hover
                      legend={"y": 1.0 - LEGEND_BELOW_TOOLBAR_PX / height, "yref": "container",
                              "yanchor": "top", "x": 0.0, "xanchor": "left"},
                      title={"y": 1.0 - TITLE_TOP_PX / height, "yanchor": "top"})
    _style_gpu_axes(fig, (2,) if not memory else (1, 2), ticks)
    if memory and ticks.grouped:
        shapes += _axis_shapes(ticks, cluster, (1,))[1:]
    fig.update_layout(shapes=shapes)
    if memory:
        fig.update_yaxes(title_text="VRAM (GB)", range=[0, float(cap.max()) * 1.05], row=1, col=1)
    else:
        fig.update_xaxes(tickfont={"size": GPU_TICK_FONT_PX}, row=1, col=1)
        fig.update_yaxes(title_text="GPUs busy (%)", range=[0, 105], row=1, col=1)
    fig.update_yaxes(title_text="compute used (%)", range=[0, 105], row=1, col=2)
    fig.update_xaxes(title_text="time (min)", range=[tl.start_min, tl.end_min], row=2, col=1)
    fig.update_yaxes(title_text="jobs", range=[0, y_top], row=2, col=1)
    return freeze(fig, fig_frames, steps)


TITLE_TOP_PX = 10
"""How far below the figure's top edge the animated figures' title starts (pixels)."""

def _colours_only(bar: dict) -> dict:
    """A bar's state for a frame: its band codes without the colour scale, which the trace keeps
    (a frame's data merges into the trace), so 250 frames do not each carry and copy it."""
    return {**bar, "marker": {"color": bar["marker"]["color"]}}


LEGEND_BELOW_TOOLBAR_PX = 40
"""How far below the figure's top edge the animated figures' legend starts (pixels): under the
title, clear of Plotly's toolbar, which appears in the top right corner on hover."""


READOUT_BAND = 0.12
"""Share of the replay's time panel, at its top, where the "now" line reads the frame's minute,
queue and running jobs (:func:`_frame_label`)."""

READOUT_FONT_PX = 13
"""Font size of that reading (pixels)."""


def _frame_label(t: float, queue: int, running: int) -> str:
    """What the "now" line reads at a frame, at the top of the time panel: the one place the
    minute of the frame shown is written.

    The replay's slider carries no labels: Plotly measures every step's label, and its current
    value for every step, in the browser before it draws the figure, which for 250 frames cost
    about a third of a second of the first drawing of ``gavel-108gpu-heavy``'s replay."""
    return f"Minute {t:,.0f} · {int(queue):,} queued · {int(running):,} running"


def _readout_side(t: float, start: float, end: float) -> str:
    """Where the reading sits beside the "now" line at minute ``t``: on its right in the first
    60 % of the time axis, on its left after, so that it stays inside the panel."""
    return "bottom right" if t <= start + 0.6 * (end - start) else "bottom left"


def _now_line(t: float, y_top: float, readout: str, start: float, end: float) -> go.Scatter:
    """The dotted "now" line of an animated figure's time panel (from 0 to ``y_top``) at minute
    ``t``, its ``readout`` at the top (:func:`_now_state` moves it, frame by frame)."""
    state = _now_state(t, readout, start, end)
    return go.Scatter(x=state["x"], y=[0, y_top], mode="lines+text", text=state["text"],
                      textposition=state["textposition"], cliponaxis=False,
                      textfont={"size": READOUT_FONT_PX, "color": MARK},
                      line={"color": MARK, "width": 1.5, "dash": "dot"},
                      name="now", showlegend=False, hoverinfo="skip")


def _now_state(t: float, readout: str, start: float, end: float) -> dict:
    """The "now" line's state in a frame at minute ``t`` of a time axis from ``start`` to ``end``."""
    x = round(float(t), 2)
    return {"type": "scatter", "x": [x, x], "text": ["", readout],
            "textposition": _readout_side(t, start, end)}


STALL_MARK_LEGEND = "stall (a job held that fitted elsewhere)"
"""Legend name of Replay's shaded stall intervals."""


def _mark_stall(fig: go.Figure, stall: StallReport, y_max: float, y_top: float, gap: float) -> list[dict]:
    """Mark the run's misroutes above the lines of the time panel, one row per cause
    (:data:`~gpusched.figures.style.CAUSE_COLORS`; those in one ``gap``-minute slot share a tick,
    :func:`~gpusched.figures.stall.misroute_ticks`); return the shapes that shade its stall
    intervals there (those less than ``gap`` minutes apart merged)."""
    shapes = []
    if len(stall.intervals):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=STALL_MARK_LEGEND,
                                 marker={"symbol": "square", "size": 12, "color": STALL_FILL},
                                 hoverinfo="skip"), row=2, col=1)
        shapes = [{"type": "rect", "xref": "x3", "yref": "y3", "x0": round(a, 2), "x1": round(b, 2),
                   "y0": 0, "y1": y_top, "fillcolor": STALL_FILL, "line": {"width": 0}, "layer": "below",
                   "name": "stall"}
                  for a, b in merged_intervals(stall.intervals["start_min"], stall.intervals["end_min"], gap)]
    for k, cause, x, text in ticks_by_cause(stall.misroutes, gap):
        y = y_max + (y_top - y_max) * (k + 1) / (len(MISROUTE_CAUSES) + 1)
        fig.add_trace(go.Scatter(
            x=_a(x), y=np.full(len(x), round(y, 2)), mode="markers",
            name=f"{MISROUTE_MARK_LEGEND}: {CAUSE_SHORT[cause]}",
            marker=misroute_marker(cause, 9), text=text, hovertemplate=MISROUTE_HOVER),
            row=2, col=1)
    return shapes


DOWN_LEGEND = "node down (failed, under repair)"
"""Legend name of the grey bars over the GPUs of a node under repair."""

FAILURE_LEGEND = "node failure"
"""Legend name of the markers at each node failure."""

DOWN_COLOR = "#6B7280"
"""Grey of a node under repair."""


def _down_state(height: np.ndarray, down: np.ndarray) -> dict:
    """The grey bars of one frame: full height over the GPUs that are down, none elsewhere."""
    return {"y": np.where(down, np.round(height, 1), 0.0).tolist()}


def _add_down_bars(fig: go.Figure, labels: list[str], cap: np.ndarray, down0: np.ndarray,
                   memory: bool = True) -> list[int]:
    """Add the two animated grey bars (VRAM and compute panels; the first empty without the VRAM
    panel); return their trace indices."""
    first = len(fig.data)
    for col, height in ((1, cap), (2, np.full(cap.size, 100.0))):
        state = _down_state(height, down0) if memory or col == 2 else {"y": []}
        fig.add_trace(go.Bar(x=labels if memory or col == 2 else [], name=DOWN_LEGEND,
                             marker={"color": DOWN_COLOR, "opacity": 0.55},
                             width=0.9, showlegend=col == 2, legendgroup="down",
                             hovertemplate="%{x}: node down (under repair)<extra></extra>",
                             **state), row=1, col=col)
    return [first, first + 1]


def _mark_failures(fig: go.Figure, tl: Timeline, y_max: float) -> None:
    """A marker on the time axis at each node failure, naming the node and its repair time."""
    d = tl.node_down
    end = np.minimum(d["end_min"].to_numpy(float), tl.end_min)
    fig.add_trace(go.Scatter(
        x=_r(d["start_min"]), y=[y_max * 0.96] * len(d), mode="markers", name=FAILURE_LEGEND,
        marker={"symbol": "x", "size": 10, "color": "#B91C1C"},
        customdata=np.c_[[tl.cluster.node_name[int(n)] for n in d["node"]],
                         _r(end - d["start_min"], 0)].tolist(),
        hovertemplate="%{customdata[0]} failed at minute %{x:.0f}; down %{customdata[1]} min"
                      "<extra></extra>"), row=2, col=1)


# ------------------------------------------------------------------------------- Gantt
def gpu_lanes(placements: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Stack jobs that share a GPU into lanes so that none hides another.

    :return: ``(lane, lanes_on_gpu)`` per placement row: its lane (0-based) and the number of
        lanes its GPU needs.
    """
    lane = np.zeros(len(placements), dtype=np.int64)
    n_lanes = np.ones(len(placements), dtype=np.int64)
    for _, rows in placements.groupby("gpu").groups.items():
        idx = np.asarray(rows)
        sub = placements.loc[idx].sort_values(["start_min", "job"])
        lane_end: list[float] = []
        for row, start, end in zip(sub.index, sub["start_min"], sub["end_min"], strict=True):
            free = next((k for k, e in enumerate(lane_end) if e <= start + 1e-9), None)
            if free is None:
                free = len(lane_end)
                lane_end.append(end)
            else:
                lane_end[free] = end
            lane[placements.index.get_loc(row)] = free
        n_lanes[[placements.index.get_loc(r) for r in idx]] = max(len(lane_end), 1)
    return lane, n_lanes


GANTT_ROW_PX = 46
"""Height of one GPU's row in the Gantt chart (pixels), on a small cluster."""

GANTT_ROWS_PX = 1_600
"""Most height the GPU rows of a large cluster's Gantt chart take together (pixels)."""

GANTT_MIN_ROW_PX = 14
"""Least height of one GPU's row (pixels): an 11-px GPU label still fits."""


def gantt_row_px(n_gpus: int) -> float:
    """Height of one GPU's row (pixels): :data:`GANTT_ROW_PX`, less on a large cluster so that the
    rows fit :data:`GANTT_ROWS_PX`, never under :data:`GANTT_MIN_ROW_PX` (108 GPUs: 14.8 px)."""
    return max(GANTT_MIN_ROW_PX, min(GANTT_ROW_PX, GANTT_ROWS_PX / max(n_gpus, 1)))


GANTT_BARS_AT_ONCE = 2_000
"""The most runs a Gantt chart is drawn with when its page opens; a larger one is drawn when asked.
A browser draws the bars one by one: ``gavel-108gpu-heavy``'s 3,741 runs (and 2,099 hatched
speed losses) took 0.8-1.0 s of Plotly's drawing alone and 2.5-3.1 s in the page, on a loaded
2-core machine (``benchmarks/bench_pages.py --replay-preset``)."""


def gantt_bars(result: Result) -> int:
    """The bars of the run's Gantt chart: one per GPU of each run of a job."""
    return len(result.timeline.placements)


def gantt_on_request(bars: int) -> bool:
    """Whether a Gantt chart of ``bars`` bars is drawn only when asked
    (more than :data:`GANTT_BARS_AT_ONCE`)."""
    return bars > GANTT_BARS_AT_ONCE


def gantt_figure(result: Result) -> go.Figure:
    """Per-GPU timeline of jobs on a numeric minutes axis, coloured by job type.

    Jobs sharing a GPU are stacked in lanes; hover shows the job, its GPU, start, end, wait,
    VRAM (GB), compute share, ideal run time and speed loss. The part of a run beyond its ideal
    run time (the minutes lost to a GPU slower than the best the cluster could give the job) is
    hatched. With failures or preemption, each run of a job is a bar of its own: a run stopped
    by a node failure ends with a red ✕ and its thrown-away work shaded red, a preempted run ends
    with a ⏸, a run that moved to other GPUs ends with a blue arrow, a resumed run begins with a
    ▶ and its restore shaded, and a node under repair is a grey band across its GPUs.
    """
    tl, cluster = result.timeline, result.cluster
    p = tl.placements.reset_index(drop=True)
    jobs = result.jobs.set_index("id")
    fig = go.Figure()
    if not p.empty:
        lane, n_lanes = gpu_lanes(p)
        height = 0.84 / n_lanes
        y = p["gpu"].to_numpy() - 0.42 + (lane + 0.5) * height
        end = np.minimum(p["end_min"].to_numpy(), tl.end_min)
        wait = jobs.loc[p["job"], "wait_min"].to_numpy()
        gpus = jobs.loc[p["job"], "gpus"].to_numpy()
        finished = np.isfinite(p["end_min"].to_numpy())
        ideal = jobs.loc[p["job"], "ideal_run_min"].to_numpy(float)
        run = jobs.loc[p["job"], "run_min"].to_numpy(float)
        loss = np.maximum(run - ideal, 0.0)
        custom = np.c_[p["job"], [cluster.gpu_label(g) for g in p["gpu"]], _r(p["start_min"], 1),
                       _r(end, 1), _r(wait, 1), _r(p["vram_gb"], 1), _r(p["compute"] * 100, 0),
                       gpus, np.where(finished, "", " (unfinished)"), _r(ideal, 1), _r(loss, 1)]
        for job_type in dict.fromkeys(p["type"]):
            m = (p["type"] == job_type).to_numpy()
            fig.add_trace(go.Bar(
                orientation="h", base=_a(p["start_min"][m]), x=_a(end[m] - p["start_min"][m]),
                y=_a(y[m], 3), width=_a(height[m] * 0.92, 3),
                name=job_type, marker={"color": job_type_color(job_type),
                                       "line": {"color": "white", "width": 0.5}},
                customdata=custom[m],
                hovertemplate=("job %{customdata[0]} · " + job_type + "%{customdata[8]}"
                               "<br>%{customdata[1]} (×%{customdata[7]} GPUs)"
                               "<br>start %{customdata[2]} → end %{customdata[3]} min"
                               "<br>waited %{customdata[4]} min"
                               "<br>VRAM %{customdata[5]} GB · compute %{customdata[6]} %"
                               "<br>ideal run %{customdata[9]} min · speed loss %{customdata[10]} min"
                               "<extra></extra>")))
        stopped = [c for c in ("interruptions", "preemptions", "migrations") if c in jobs]
        whole = ~jobs.loc[p["job"], stopped].to_numpy().any(axis=1) \
            if stopped else np.ones(len(p), dtype=bool)
        _hatch_speed_loss(fig, p[whole], y[whole], height[whole], end[whole], ideal[whole], loss[whole])
        _mark_out_of_order(fig, result, p, y)
        _follow_round_job(fig, result, p, y)
        if len(tl.stops) or len(tl.node_down):
            _mark_stops(fig, tl, p, y, height, end)
            _shade_down_nodes(fig, tl)
    labels = [cluster.gpu_label(g) for g in range(cluster.n_gpus)]
    tick_px = min(12, int(gantt_row_px(cluster.n_gpus)) - 3)
    apply_layout(fig, title=f"Jobs on each GPU over time · {policy_label(result.policy)}",
                 height=max(320, int(60 + gantt_row_px(cluster.n_gpus) * cluster.n_gpus)))
    fig.update_layout(barmode="overlay", bargap=0, legend_title_text="job type",
                      margin={"l": gantt_left_margin_px(labels, tick_px)})
    # The margins are sized here (the left one for the longest GPU label), so that Plotly neither
    # measures every label to grow them (automargin: a second full drawing of every bar) nor checks
    # each label for overflow: on 108 GPUs those passes were most of the chart's drawing time in
    # the browser, and the chart shows the same.
    fig.update_xaxes(title_text="time (min)", range=[tl.start_min, tl.end_min], zeroline=False,
                     automargin=False)
    fig.update_yaxes(title_text="GPU", tickvals=list(range(cluster.n_gpus)), ticktext=labels,
                     range=[cluster.n_gpus - 0.5, -0.5], showgrid=False, zeroline=False,
                     tickfont={"size": tick_px}, automargin=False, ticklabeloverflow="allow")
    return fig


GANTT_AXIS_TITLE_PX = 28
"""Room for the Gantt's rotated "GPU" axis title and the gap to the tick labels (pixels)."""


def gantt_left_margin_px(labels: Sequence[str], tick_px: float) -> int:
    """The Gantt's left margin (pixels): the longest GPU label at ``tick_px`` type (an upper bound
    on its width, :data:`~gpusched.figures.gpu_axis.CHAR_WIDTH_EM` per character), the tick's
    offset and the axis title."""
    longest = max((len(label) for label in labels), default=0)
    return int(np.ceil(longest * CHAR_WIDTH_EM * tick_px + 6 + GANTT_AXIS_TITLE_PX))


SPEED_LOSS_LEGEND = "speed loss (beyond the ideal run on the best GPU)"
"""Legend name of the hatched part of a run that a faster GPU would have saved."""


def _hatch_speed_loss(fig: go.Figure, placements: pd.DataFrame, y: np.ndarray, height: np.ndarray,
                      end: np.ndarray, ideal: np.ndarray, loss: np.ndarray) -> None:
    """Hatch each run from its start plus its ideal run time to its end (as far as the run went)."""
    start = placements["start_min"].to_numpy(float)
    stretched = (loss > 1e-6) & (end > start + ideal)
    if not stretched.any():
        return
    base = start[stretched] + ideal[stretched]
    fig.add_trace(go.Bar(
        orientation="h", base=_a(base), x=_a(end[stretched] - base), y=_a(y[stretched], 3),
        width=_a(height[stretched] * 0.92, 3), name=SPEED_LOSS_LEGEND,
        marker={"color": "rgba(255,255,255,0.35)", "pattern": {"shape": "/", "fgcolor": MARK,
                                                                "size": 6, "solidity": 0.3},
                "line": {"width": 0}},
        customdata=np.c_[placements["job"].to_numpy()[stretched], _a(loss[stretched], 1)],
        hovertemplate="job %{customdata[0]}: %{customdata[1]} min lost to a slower GPU than the best "
                      "this cluster could give it<extra></extra>"))


LOST_LEGEND = "work lost to a node failure"
"""Legend name of the shaded end of a run whose progress a failure threw away."""

RESTORE_LEGEND = "restore after a stop"
"""Legend name of the shaded start of a resumed run."""

STOP_LEGENDS = {"failure": "stopped by a node failure", "preemption": "preempted",
                "migration": "moved to other GPUs"}
"""Legend names of the markers at the end of a stopped run, by kind."""

RESUME_LEGEND = "resumed"
"""Legend name of the markers at the start of a resumed run."""


def _mark_stops(fig: go.Figure, tl: Timeline, p: pd.DataFrame, y: np.ndarray, height: np.ndarray,
                end: np.ndarray) -> None:
    """Shade the lost work and the restores, and mark every stop and resumption."""
    start = p["start_min"].to_numpy(float)
    lost = p["lost_min"].to_numpy(float)
    restore = p["restore_min"].to_numpy(float)
    job = p["job"].to_numpy()
    for name, m, base, width, color, shape in (
            (LOST_LEGEND, lost > 1e-9, end - lost, lost, "rgba(220,38,38,0.55)", "x"),
            (RESTORE_LEGEND, restore > 1e-9, start, np.minimum(restore, end - start), "rgba(17,24,39,0.35)",
             ".")):
        if m.any():
            fig.add_trace(go.Bar(
                orientation="h", base=_r(base[m]), x=_r(width[m]), y=np.round(y[m], 3).tolist(),
                width=np.round(height[m] * 0.92, 3).tolist(), name=name,
                marker={"color": color, "pattern": {"shape": shape, "fgcolor": MARK, "size": 5,
                                                    "solidity": 0.3}, "line": {"width": 0}},
                customdata=np.c_[job[m], _r(width[m], 1)].tolist(),
                hovertemplate="job %{customdata[0]}: " + name + " · %{customdata[1]} min<extra></extra>"))
    kind = p["stop"].to_numpy(str)
    for stop, symbol, color in (("failure", "x", "#B91C1C"), ("preemption", "line-ns", MARK),
                                ("migration", "arrow-right", "#1D4ED8")):
        m = kind == stop
        if m.any():
            fig.add_trace(go.Scatter(
                x=_r(end[m]), y=np.round(y[m], 3).tolist(), mode="markers", name=STOP_LEGENDS[stop],
                marker={"symbol": symbol, "size": 10, "color": color, "line": {"width": 2, "color": color}},
                customdata=np.c_[job[m], _r(lost[m], 1)].tolist(),
                hovertemplate="job %{customdata[0]} " + STOP_LEGENDS[stop] + " at minute %{x:.1f}"
                              " (%{customdata[1]} min of work lost)<extra></extra>"))
    resumes = set(zip(tl.resumes["job"].tolist(), tl.resumes["time_min"].tolist(), strict=True))
    resumed = np.array([(j, s) in resumes for j, s in zip(job.tolist(), start.tolist(), strict=True)],
                       dtype=bool)
    if resumed.any():
        fig.add_trace(go.Scatter(
            x=_r(start[resumed]), y=np.round(y[resumed], 3).tolist(), mode="markers", name=RESUME_LEGEND,
            marker={"symbol": "triangle-right-open", "size": 9, "color": "#047857"},
            customdata=np.c_[job[resumed], _r(restore[resumed], 1)].tolist(),
            hovertemplate="job %{customdata[0]} resumed at minute %{x:.1f} (restore %{customdata[1]} min)"
                          "<extra></extra>"))


def _shade_down_nodes(fig: go.Figure, tl: Timeline) -> None:
    """A grey band across the GPUs of each node while it is down."""
    cluster = tl.cluster
    for node, t0, t1 in tl.node_down[["node", "start_min", "end_min"]].itertuples(index=False):
        first = int(cluster.node_first_gpu[int(node)])
        last = first + int(cluster.node_gpu_count[int(node)]) - 1
        fig.add_shape(type="rect", x0=float(t0), x1=float(min(t1, tl.end_min)), y0=first - 0.5, y1=last + 0.5,
                      fillcolor=DOWN_COLOR, opacity=0.25, line_width=0, layer="below")
    if len(tl.node_down):
        fig.add_trace(go.Bar(x=[None], y=[None], name=DOWN_LEGEND, marker_color=DOWN_COLOR, hoverinfo="skip"))


OUT_OF_ORDER_LEGEND = "started out of arrival order (backfilled)"
"""Legend name of the Gantt chart's markers on jobs started ahead of an earlier arrival."""


def _mark_out_of_order(fig: go.Figure, result: Result, placements: pd.DataFrame, y: np.ndarray) -> None:
    """A marker at the start of every job that started ahead of an earlier arrival, with the
    window slot it was taken from."""
    jobs = result.jobs.set_index("id")
    if "backfilled" not in jobs or not jobs["backfilled"].any():
        return
    backfilled = jobs.loc[placements["job"], "backfilled"].to_numpy(dtype=bool)
    if not backfilled.any():
        return
    slots = jobs.loc[placements["job"], "start_slot"].to_numpy()[backfilled]
    fig.add_trace(go.Scatter(
        x=_r(placements["start_min"].to_numpy()[backfilled]), y=np.round(y[backfilled], 3).tolist(),
        mode="markers", name=OUT_OF_ORDER_LEGEND,
        marker={"symbol": "triangle-right", "size": 9, "color": MARK, "line": {"width": 0}},
        customdata=np.c_[placements["job"].to_numpy()[backfilled], slots].tolist(),
        hovertemplate="job %{customdata[0]} started from window slot %{customdata[1]}, ahead of an "
                      "earlier arrival<extra></extra>"))


FOLLOWED_JOB_COLOR = MARK
"""Colour of the line that follows one job of a round run over its GPUs."""


def followed_round_job(result: Result) -> int | None:
    """The job a round run's Gantt chart follows: the one that changed GPU model most often (the
    first such by id), or ``None`` for an event-driven run or one where no job changed model."""
    jobs = result.jobs
    if "rounds" not in result.metrics or "type_changes" not in jobs or jobs.empty:
        return None
    changes = jobs["type_changes"].to_numpy(dtype=float)
    if not np.nanmax(changes, initial=0.0) > 0:
        return None
    return int(jobs["id"].to_numpy()[int(np.nanargmax(changes))])


def _follow_round_job(fig: go.Figure, result: Result, placements: pd.DataFrame, y: np.ndarray) -> None:
    """In a round run, a line through every run of :func:`followed_round_job`, round by round from
    GPU to GPU, so that its moves between GPU models read at a glance (each run drawn from its
    start to its end at its bar's height, joined to the next)."""
    job = followed_round_job(result)
    if job is None:
        return
    mine = np.flatnonzero(placements["job"].to_numpy() == job)
    mine = mine[np.argsort(placements["start_min"].to_numpy()[mine], kind="stable")]
    start = placements["start_min"].to_numpy(float)[mine]
    end = np.minimum(placements["end_min"].to_numpy(float)[mine], result.timeline.end_min)
    xs = np.column_stack([start, end]).ravel()
    ys = np.repeat(y[mine], 2)
    gpus = placements["gpu"].to_numpy()[mine]
    labels = np.repeat([result.cluster.gpu_label(int(g)) for g in gpus], 2)
    changes = int(result.jobs.set_index("id").loc[job, "type_changes"])
    fig.add_trace(go.Scatter(
        x=_r(xs, 1), y=np.round(ys, 3).tolist(), mode="lines+markers",
        name=f"job {job} round by round ({changes:,} GPU-model changes)",
        line={"color": FOLLOWED_JOB_COLOR, "width": 1.5}, marker={"size": 4, "color": FOLLOWED_JOB_COLOR},
        customdata=labels.tolist(),
        hovertemplate=f"job {job}" + " on %{customdata} at minute %{x}<extra></extra>"))


# ------------------------------------------------------------------- side by side
def side_by_side_figure(a: Result, b: Result, max_frames: int = DEFAULT_MAX_FRAMES) -> go.Figure:
    """Two policies on the same jobs, replayed on one shared clock: per-GPU utilisation bars of
    each (coloured by band) above both queue lengths, driven by one slider; frozen (see the
    module's docstring)."""
    times = common_frame_times([a.timeline, b.timeline], max_frames)
    frames = [r.timeline.gpu_frames(times) for r in (a, b)]
    queues = [r.timeline.queue_length_at(times) for r in (a, b)]
    ticks = gpu_ticks(a.cluster)
    labels = list(ticks.labels)
    height, spacing = animated_geometry(ticks, SIDE_BY_SIDE_PANELS_PX)
    fig = make_subplots(
        rows=2, cols=2, specs=[[{}, {}], [{"colspan": 2}, None]], row_heights=[0.55, 0.45],
        vertical_spacing=spacing, horizontal_spacing=0.06, shared_yaxes=True,
        subplot_titles=(f"{policy_label(a.policy)}: compute per GPU (%)",
                        f"{policy_label(b.policy)}: compute per GPU (%)",
                        "Queue length (jobs)"))

    def bars(k: int, i: int) -> dict:
        util = frames[k].compute_used[i]
        return {"y": np.round(util * 100, 1), "marker": band_marker(util),
                "customdata": frames[k].jobs_running[i].reshape(-1, 1)}

    for k, r in enumerate((a, b)):
        fig.add_trace(go.Bar(x=labels, name=policy_label(r.policy), showlegend=False,
                             hovertemplate="%{x}<br>compute %{y:.0f} %<br>%{customdata[0]} job(s)"
                                           "<extra>" + policy_label(r.policy) + "</extra>",
                             **bars(k, 0)), row=1, col=k + 1)
    y_max = 1.0  # the highest queue of either run (jobs)
    palette = policy_colors([a.policy, b.policy])
    for r in (a, b):
        t = r.timeline.event_times()
        q = r.timeline.queue_length_at(t)
        y_max = max(y_max, float(q.max(initial=0)))
        fig.add_trace(go.Scatter(x=_r(t), y=q.tolist(), mode="lines", name=policy_label(r.policy),
                                 line={"shape": "hv", "color": palette[r.policy], "width": 2}),
                      row=2, col=1)
    y_top = y_max * 1.08 / (1.0 - READOUT_BAND)
    start = min(a.timeline.start_min, b.timeline.start_min)
    end = max(a.timeline.end_min, b.timeline.end_min)
    readouts = [_pair_frame_label(t, (a.policy, b.policy), (queues[0][i], queues[1][i]))
                for i, t in enumerate(times)]
    fig.add_trace(_now_line(float(times[0]), y_top, readouts[0], start, end), row=2, col=1)
    _band_legend(fig, 1, 2)

    names, fig_frames = [], []
    for i, t in enumerate(times):
        names.append(f"f{i}")
        fig_frames.append({"name": f"f{i}", "traces": [0, 1, 4],
                           "data": [{"type": "bar", **_colours_only(bars(0, i))},
                                    {"type": "bar", **_colours_only(bars(1, i))},
                                    _now_state(t, readouts[i], start, end)]})
    apply_layout(fig, title=f"{policy_label(a.policy)} and {policy_label(b.policy)} on {a.scenario}",
                 height=height)
    plot_px = height - MARGIN_TOP_PX - MARGIN_BOTTOM_PX
    controls, steps = _animation_controls(names, plot_px)
    fig.update_layout(**controls,
                      margin={"l": 60, "r": 24, "t": MARGIN_TOP_PX, "b": MARGIN_BOTTOM_PX},
                      legend={"y": 1.0 - LEGEND_BELOW_TOOLBAR_PX / height, "yref": "container",
                              "yanchor": "top", "x": 0.0, "xanchor": "left"},
                      title={"y": 1.0 - TITLE_TOP_PX / height, "yanchor": "top"})
    _style_gpu_axes(fig, (1, 2), ticks)
    fig.update_layout(shapes=_axis_shapes(ticks, a.cluster, (1, 2)))
    fig.update_yaxes(range=[0, 105], row=1, col=1, title_text="compute used (%)")
    fig.update_yaxes(range=[0, 105], row=1, col=2)
    fig.update_xaxes(title_text="time (min)", range=[start, end], row=2, col=1)
    fig.update_yaxes(title_text="jobs", range=[0, y_top], row=2, col=1)
    return freeze(fig, fig_frames, steps)


def _pair_frame_label(t: float, policies: tuple[str, str], queues: tuple[int, int]) -> str:
    """What the side-by-side's "now" line reads at a frame: the minute and each policy's queue
    (as :func:`_frame_label` does for one run, and for the same reason)."""
    return f"Minute {t:,.0f} · " + " · ".join(f"{policy_label(p)}: {int(q):,} queued"
                                               for p, q in zip(policies, queues, strict=True))
