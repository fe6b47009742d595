"""Colours and layout shared by every figure: one colour per policy, per job type and per
utilisation band, the same on every page. Policy labels come from the policy registry
(:func:`gpusched.policies.policy_label`).

Utilisation bands (fraction of a GPU's compute, or of its VRAM): under 60 % is *low*, 60-80 % is
the *target* band, over 80 % is *hot*.
"""

from __future__ import annotations

import plotly.graph_objects as go

from gpusched.agent import AGENT_POLICY, ROLLOUT_AGENT_POLICY

POLICY_COLORS: dict[str, str] = {
    "first_fit": "#2563EB",
    "least_loaded": "#DC2626",
    "least_loaded_jobs": "#BE185D",
    "least_loaded_vram": "#9F1239",
    "least_loaded_fit": "#D97706",
    "best_fit": "#059669",
    "random": "#6B7280",
    AGENT_POLICY: "#7C3AED",
    ROLLOUT_AGENT_POLICY: "#A855F7",
    "fgd": "#C026D3",
    "dot_product": "#0891B2",
    "gpu_clustering": "#92400E",
    "gpu_packing": "#4F46E5",
    "fgd_best_fit": "#059669",
    "fgd_random": "#6B7280",
}
"""One colour per registered policy name."""

ORDER_COLORS: dict[str, str] = {
    "fitfirst": "#0D9488",
    "easy": "#EA580C",
    "sjf": "#65A30D",
    "priority": "#0369A1",
    "wfp3": "#DB2777",
    "las": "#B45309",
    "srtf": "#1E3A8A",
}
"""One colour per queue order: an ``ORDER+PLACEMENT`` policy takes its order's colour, and
``fcfs+PLACEMENT`` (the FIFO placement itself) its placement's."""

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

CAUSE_COLORS: dict[str, str] = {
    "capacity": "#7F1D1D",
    "occupied": "#D97706",
    "gang": "#6D28D9",
}
"""One colour per misroute cause."""

TARGET_BAND_FILL = "rgba(22, 163, 74, 0.08)"
"""Fill of the target utilisation band on utilisation axes."""

FONT_FAMILY = "Inter, Segoe UI, Helvetica, Arial, sans-serif"


def policy_color(name: str) -> str:
    """The colour of a policy; ``ppo:PATH`` variants share the ``ppo`` colour, queue-aware
    policies take their order's (:data:`ORDER_COLORS`), and unknown names get a stable colour from
    a spare palette (never an agent's purple)."""
    base = name.split(":", 1)[0]
    if base in POLICY_COLORS:
        return POLICY_COLORS[base]
    order, _, placement = base.partition("+")
    if order == "fcfs" and placement:
        return policy_color(placement)
    if order in ORDER_COLORS:
        return ORDER_COLORS[order]
    return _EXTRA_COLORS[sum(map(ord, name)) % len(_EXTRA_COLORS)]


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


def apply_layout(fig: go.Figure, *, title: str | None = None, height: int = 420) -> go.Figure:
    """The house layout: white template, readable fonts, legend on top, tight margins."""
    fig.update_layout(
        template="plotly_white",
        font={"family": FONT_FAMILY, "size": 13, "color": "#1F2937"},
        height=height,
        margin={"l": 60, "r": 24, "t": 64 if title else 36, "b": 52},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "right", "x": 1},
        hoverlabel={"font": {"family": FONT_FAMILY}},
    )
    if title:
        fig.update_layout(title={"text": title, "x": 0, "xanchor": "left", "font": {"size": 16}})
    return fig


def legend_below(fig: go.Figure, below_axis_px: float = 64.0) -> go.Figure:
    """Put the legend under the plot, clear of the x-axis title, where it grows downwards and
    the figure's margin grows with it: it never covers a title, however many entries wrap.

    :param below_axis_px: distance from the bottom of the plot area to the legend's top (pixels).
    """
    plot_px = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    fig.update_layout(legend={"orientation": "h", "x": 0.0, "xanchor": "left", "yanchor": "top",
                              "y": -below_axis_px / max(plot_px, 1.0)})
    return fig


def wrap_title(text: str, width: int) -> str:
    """``text`` broken into lines of at most about ``width`` characters at spaces (``<br>``)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)
