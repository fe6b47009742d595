"""Colours and layout shared by every figure: one colour per policy, per job type and per
utilisation band, the same on every page. Policy labels come from the policy registry
(:func:`gpusched.policies.policy_label`).

Utilisation bands (fraction of a GPU's compute, or of its VRAM): under 60 % is *low*, 60-80 % is
the *target* band, over 80 % is *hot*.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from gpusched.agent import AGENT_POLICY, ROLLOUT_AGENT_POLICY
from gpusched.policies.migration import MOVING_PLACEMENT
from gpusched.policies.registry import SAME_AS_PLACEMENT

POLICY_COLORS: dict[str, str] = {
    "first_fit": "#2563EB",
    "least_loaded": "#DC2626",
    "least_loaded_jobs": "#EC4899",
    "least_loaded_vram": "#7C2D12",
    "least_loaded_fit": "#D97706",
    "best_fit": "#059669",
    "random": "#6B7280",
    MOVING_PLACEMENT: "#4D7C0F",
    AGENT_POLICY: "#7C3AED",
    ROLLOUT_AGENT_POLICY: "#A855F7",
    "fgd": "#C026D3",
    "dot_product": "#0891B2",
    "gpu_clustering": "#92400E",
    "gpu_packing": "#4F46E5",
    "fgd_best_fit": "#059669",
    "fgd_random": "#6B7280",
}
"""One colour per registered policy name. Least-Loaded's variants are told apart by lightness and
hue (red, pink, dark rust), not three shades of one red."""

ORDER_COLORS: dict[str, str] = {
    "fitfirst": "#0D9488",
    "easy": "#EA580C",
    "sjf": "#65A30D",
    "priority": "#0369A1",
    "wfp3": "#DB2777",
    "las": "#B45309",
    "srtf": "#1E3A8A",
}
"""One colour per queue order (the orders are :data:`gpusched.policies.orders.ORDERS`; an order
without a colour here takes a spare one): an ``ORDER+PLACEMENT`` policy takes its order's colour,
and ``fcfs+PLACEMENT`` (the FIFO placement itself) its placement's."""

_EXTRA_COLORS: tuple[str, ...] = ("#0891B2", "#BE185D", "#65A30D", "#EA580C", "#0F766E", "#854D0E")

JOB_TYPE_COLORS: dict[str, str] = {
    "training": "#1D4ED8",
    "inference": "#F59E0B",
    "batch": "#14B8A6",
    "trace": "#64748B",
}
"""One colour per job type."""

BAND_COLORS: dict[str, str] = {
    "idle": "#E2E8F0",
    "low": "#94A3B8",
    "target": "#16A34A",
    "hot": "#EA580C",
}
"""Bar colours by utilisation band: idle (0), under 60 %, 60-80 % target, over 80 % hot."""

BAND_LABELS: dict[str, str] = {
    "idle": "idle",
    "low": "under 60 %",
    "target": "60–80 % target",
    "hot": "over 80 % hot",
}

STALL_FILL = "rgba(220, 38, 38, 0.13)"
"""Fill of the shaded stall intervals (the policy held a job that fitted)."""

BLOCKED_FILL = "rgba(217, 119, 6, 0.12)"
"""Fill of the shaded blocked intervals (the head job fitted nowhere)."""

MARK = "#111827"
"""Near-black, for marks that are no policy's and no job type's: the replay's "now" line and the
minute under its slider, a stopped run's end, a start out of order, the job a round run's Gantt
follows, the hatching of speed losses and capacity misroutes. On the dark theme the dashboard draws
them in :data:`MARK_ON_DARK` instead (:func:`gpusched.figures.theme.in_theme`)."""

MARK_ON_DARK = "#E5E7EB"
"""The colour of :data:`MARK`'s marks on the dark theme's near-black background."""

CAUSE_COLORS: dict[str, str] = {
    "capacity": MARK,
    "occupied": "#EAB308",
    "gang": "#A3A3A3",
}
"""One colour per misroute cause: near-black, yellow and neutral grey, hues no policy's line has
(:func:`marker_colors_clash` checks it), so a misroute marker never reads as a policy's."""

TARGET_BAND_FILL = "rgba(22, 163, 74, 0.08)"
"""Fill of the target utilisation band on utilisation axes."""

FONT_FAMILY = "Inter, Segoe UI, Helvetica, Arial, sans-serif"

INK = "#6B7280"
"""Error bars, guide lines and marks that are no policy's: a mid grey that reads on the light
theme's white and on the dark theme's near-black (the dashboard draws figures in Streamlit's theme,
which sets the background and the text colour)."""


def policy_color(name: str) -> str:
    """The colour of a policy; ``ppo:PATH`` variants share the ``ppo`` colour, queue-aware
    policies take their order's (:data:`ORDER_COLORS`), and unknown names get a stable colour from
    a spare palette (never an agent's purple)."""
    base = name.split(":", 1)[0]
    if base in POLICY_COLORS:
        return POLICY_COLORS[base]
    order, _, placement = base.partition("+")
    if order == SAME_AS_PLACEMENT and placement:
        return policy_color(placement)
    if order in ORDER_COLORS:
        return ORDER_COLORS[order]
    return _EXTRA_COLORS[sum(map(ord, name)) % len(_EXTRA_COLORS)]


SPARE_COLORS: tuple[str, ...] = ("#0F172A", "#F43F5E", "#84CC16", "#06B6D4", "#F59E0B", "#8B5CF6",
                                  "#14B8A6", "#E11D48", "#3B82F6", "#A16207", "#10B981", "#9333EA")
"""Colours a chart gives a policy whose own colour another policy in it already has."""


def policy_colors(names) -> dict[str, str]:
    """One colour per policy of one chart, all different: each policy's own
    (:func:`policy_color`) unless an earlier one in ``names`` has it (``best_fit`` and
    ``fcfs+best_fit`` are the same rule and share a colour), then the first spare colour no policy
    of the chart has."""
    names = list(dict.fromkeys(names))
    own = {n: policy_color(n) for n in names}
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        color = own[name]
        if color in used:
            taken = used | set(own.values())
            color = next((c for c in (*SPARE_COLORS, *_EXTRA_COLORS) if c not in taken),
                         SPARE_COLORS[len(out) % len(SPARE_COLORS)])
        out[name] = color
        used.add(color)
    return out


def palette_colors() -> set[str]:
    """Every colour a policy's line can take (its own, its order's, or a spare one), upper case."""
    return {c.upper() for c in (*POLICY_COLORS.values(), *ORDER_COLORS.values(), *_EXTRA_COLORS,
                                *SPARE_COLORS)}


def marker_colors_clash() -> set[str]:
    """The misroute causes whose marker colour a policy's line could also have (empty: none)."""
    return {cause for cause, c in CAUSE_COLORS.items() if c.upper() in palette_colors()}


def job_type_color(job_type: str) -> str:
    """The colour of a job type."""
    return JOB_TYPE_COLORS.get(job_type, JOB_TYPE_COLORS["trace"])


def band_of(frac: float, band: tuple[float, float] = (0.6, 0.8)) -> str:
    """The band of a utilisation (fraction 0-1): ``idle``, ``low``, ``target`` or ``hot``."""
    lo, hi = band
    if frac <= 1e-9:
        return "idle"
    if frac < lo:
        return "low"
    if frac <= hi:
        return "target"
    return "hot"


def band_color(frac: float, band: tuple[float, float] = (0.6, 0.8)) -> str:
    """The bar colour of a utilisation (fraction 0-1)."""
    return BAND_COLORS[band_of(frac, band)]


BAND_ORDER: tuple[str, ...] = ("idle", "low", "target", "hot")
"""The bands by code: a bar's colour value is its band's index here (:func:`band_codes`)."""

BAND_COLORSCALE: list[list] = [
    [0.0, BAND_COLORS["idle"]], [0.25, BAND_COLORS["idle"]],
    [0.25, BAND_COLORS["low"]], [0.5, BAND_COLORS["low"]],
    [0.5, BAND_COLORS["target"]], [0.75, BAND_COLORS["target"]],
    [0.75, BAND_COLORS["hot"]], [1.0, BAND_COLORS["hot"]],
]
"""A stepwise colour scale over the band codes 0-3 (with ``cmin=0, cmax=3``): each code gets its
band's colour. Numbers instead of one colour string per bar and frame make an animation's frames
much cheaper to build and to send."""


def band_codes(fracs, band: tuple[float, float] = (0.6, 0.8)):
    """The band code (index in :data:`BAND_ORDER`) of each utilisation (fractions 0-1), as
    :func:`band_of` bands them."""
    f = np.asarray(fracs, dtype=float)
    lo, hi = band
    return np.select([f <= 1e-9, f < lo, f <= hi], [0, 1, 2], default=3).astype(np.int8)


def band_marker(fracs, band: tuple[float, float] = (0.6, 0.8)) -> dict:
    """A bar trace's ``marker`` coloured by band: codes on :data:`BAND_COLORSCALE`."""
    return {"color": band_codes(fracs, band), "colorscale": BAND_COLORSCALE, "cmin": 0, "cmax": 3}


def apply_layout(fig: go.Figure, *, title: str | None = None, height: int = 420) -> go.Figure:
    """The house layout: white template, readable fonts, legend on top, tight margins. No text or
    background colour is fixed: on the dashboard, Streamlit's light or dark theme sets them."""
    fig.update_layout(
        template="plotly_white",
        font={"family": FONT_FAMILY, "size": 13},
        height=height,
        margin={"l": 60, "r": 24, "t": 64 if title else 36, "b": 52},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "right", "x": 1},
        hoverlabel={"font": {"family": FONT_FAMILY}},
    )
    if title:
        fig.update_layout(title={"text": title, "x": 0, "xanchor": "left", "font": {"size": 16}})
    return fig


TITLE_PX = 34
"""Height of a figure's title line with the padding above it (pixels)."""
SUBTITLE_LINE_PX = 16
"""Height of one line of a subtitle in 12 px type (pixels)."""
PANEL_TITLE_LINE_PX = 19
"""Height of one line of a subplot's own title above its panel (pixels)."""


def title_block(fig: go.Figure, title: str, subtitle: str = "", panel_titles: int = 0) -> float:
    """Pin ``title`` and its ``subtitle`` (lines joined by ``<br>``) to the top of the figure and
    give them room: the top margin grows with the subtitle's lines, and with the subplot titles'
    row (``panel_titles``: its lines, 0 without subplot titles), so no subtitle line runs over a
    panel's title (Plotly itself centres a title in the margin, where a long subtitle spills onto
    the panels).

    :return: the top margin set (pixels).
    """
    lines = subtitle.count("<br>") + 1 if subtitle else 0
    top = TITLE_PX + SUBTITLE_LINE_PX * lines + 14 + PANEL_TITLE_LINE_PX * panel_titles
    fig.update_layout(
        margin={"t": top},
        title={"text": title, "x": 0, "xanchor": "left", "y": 1, "yref": "container",
               "yanchor": "top", "pad": {"t": 10}, "font": {"size": 16},
               "subtitle": {"text": subtitle, "font": {"size": 12}}})
    return top


OUTLIER_FACTOR = 2.0
"""A value more than this many times the farthest reach of the others (its interval's ends
included) is an outlier: drawn to the axis' end with its value written on it, so that one run
away from the rest does not flatten them."""


def outlier_cap(values, extents, factor: float = OUTLIER_FACTOR) -> tuple[float | None, set[int]]:
    """Where to cut a value axis so one or two runaway values do not flatten the others.

    Values are taken from the largest magnitude down; each is an outlier while it exceeds
    ``factor`` times the largest magnitude among the remaining values and their interval ends
    (``extents``: per value, an iterable of its interval's ends). At most a third of the values
    are outliers.

    :return: the axis' end (1.1 × the farthest reach of the values that are not outliers, or
        ``None`` when there is no outlier) and the indices of the outliers.
    """
    vals = [None if v is None or not math.isfinite(float(v)) else abs(float(v)) for v in values]
    reach = [max([abs(float(e)) for e in ends if e is not None and math.isfinite(float(e))] + [v or 0.0])
             for v, ends in zip(vals, extents, strict=True)]
    order = sorted((i for i, v in enumerate(vals) if v is not None), key=lambda i: -vals[i])
    out: set[int] = set()
    for i in order:
        if len(out) + 1 > len(order) // 3:
            break
        rest = [reach[j] for j in order if j != i and j not in out]
        if not rest or vals[i] <= factor * max(rest):
            break
        out.add(i)
    if not out:
        return None, set()
    return 1.1 * max(reach[j] for j in order if j not in out), out


def legend_below(fig: go.Figure, below_axis_px: float = 64.0) -> go.Figure:
    """Put the legend under the plot, clear of the x-axis title, where it grows downwards and
    the figure's margin grows with it: it never covers a title, however many entries wrap.

    :param below_axis_px: distance from the bottom of the plot area to the legend's top (pixels).
    """
    plot_px = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    fig.update_layout(legend={"orientation": "h", "x": 0.0, "xanchor": "left", "yanchor": "top",
                              "y": -below_axis_px / max(plot_px, 1.0)})
    return fig


def subplot_rows(rows: int, panel_px: float, gap_px: float) -> tuple[float, float]:
    """The plot area of ``rows`` stacked panels of ``panel_px`` pixels with ``gap_px`` between
    them: its height (pixels) and the ``vertical_spacing`` (a fraction of it) that
    :func:`plotly.subplots.make_subplots` takes, so panels keep their height however many rows."""
    plot_px = rows * panel_px + (rows - 1) * gap_px
    return plot_px, (gap_px / plot_px if rows > 1 else 0.0)


def wrap_title(text: str, width: int) -> str:
    """``text`` broken into lines of at most about ``width`` characters at spaces (``<br>``)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def log_axis_ticks(low: float, high: float) -> dict:
    """Tick settings of a log axis from ``low`` to ``high`` (both > 0): ticks at 1, 2 and 5 times
    each power of ten, each labelled in full (``1``, ``2``, ``5``, ``10``, ``20``, … ``1,000``),
    where Plotly's own would label the 2 and 5 of each decade alone (``5 10 2 5 100``)."""
    low, high = max(float(low), 1e-9), max(float(high), 1e-9)
    ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
             for m in (1, 2, 5)]
    ticks = [t for t in ticks if low / 1.001 <= t <= high * 1.001] or [low]
    return {"tickmode": "array", "tickvals": ticks, "ticktext": [f"{t:,.10g}" for t in ticks]}
