"""Sweep results: any metric against any parameter, one line (or bar group) per policy.

The same function draws a policy study (``avg_wait_min`` against
``workload.arrival_rate_per_hour``) and the FGD allocation curves (``alloc_pct`` against
``arrived_pct`` from :func:`gpusched.sweep.runner.alloc_curves`), with published curves overlaid
as dashed lines.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from gpusched.figures.style import apply_layout, policy_color, policy_colors
from gpusched.policies import policy_label
from gpusched.words.metric_names import METRIC_NAMES, parameter_label

MAX_ERROR_BARS = 40
"""Above this many x values per line, the spread is shown as a band instead of error bars."""

DASHES: tuple[str, ...] = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
"""Line styles taken in turn by a chart's lines, so that lines of close colours stay apart."""

MAX_WHOLE_TICKS = 15
"""Most whole-number x values labelled one by one (more: Plotly's ticks, whole numbers only)."""


def _whole(values: pd.Series) -> bool:
    v = pd.to_numeric(values, errors="coerce").dropna().to_numpy(float)
    return bool(v.size) and bool(np.all(np.isclose(v, np.round(v))))


def clipped_spread(stats: pd.DataFrame, floor: float | None) -> tuple[pd.Series, pd.Series]:
    """The error bars of :func:`sweep_stats` rows (one standard deviation up and down), the lower
    one cut at ``floor`` (``None``: not cut): a metric that is never below 0 gets no bar below 0.

    :return: ``(up, down)``, lengths in the metric's units.
    """
    down = stats["std"] if floor is None else np.minimum(stats["std"], (stats["mean"] - floor).clip(lower=0))
    return stats["std"], down

def axis_title(name: str) -> str:
    """A readable axis or menu title with its unit, for a metric or a sweep parameter (from
    :mod:`gpusched.words.metric_names`)."""
    return parameter_label(name)


def labelled_runs(table: pd.DataFrame, columns: list[str] | None = None) -> pd.DataFrame:
    """A results table for display: policies by their labels, metrics scaled for display (×100
    for a fraction shown in %), and every column headed by its title in words.

    :param columns: keep these columns only, in this order (those the table has); ``None``: all.
    """
    out = table.drop(columns=[c for c in ("run_id", "kind") if c in table])
    if columns is not None:
        out = out[[c for c in dict.fromkeys(columns) if c in out]]
    if "policy" in out:
        out = out.assign(policy=out["policy"].map(lambda p: policy_label(str(p))))
    for column in out.columns:
        if column in METRIC_NAMES and pd.api.types.is_numeric_dtype(out[column]):
            out[column] = out[column] * METRIC_NAMES[column].scale
    return out.rename(columns=axis_title)


def sweep_stats(table: pd.DataFrame, x: str, y: str, group: str = "policy") -> pd.DataFrame:
    """Mean, standard deviation and count of ``y`` per (group, x), over successful runs."""
    data = table[table["error"] == ""] if "error" in table else table
    data = data.dropna(subset=[y])
    stats = data.groupby([group, x], sort=True)[y].agg(["mean", "std", "count"]).reset_index()
    stats["std"] = stats["std"].fillna(0.0)
    return stats


def sweep_figure(table: pd.DataFrame, x: str, y: str, group: str = "policy",
                 published: pd.DataFrame | None = None, title: str | None = None) -> go.Figure:
    """Mean of ``y`` against ``x`` per ``group`` (± one standard deviation over the other
    parameters, usually seeds; never below 0 for a metric whose runs are all 0 or more), each line
    in its policy's colour and a dash of its own (solid when published curves are drawn: dashes
    are theirs); whole-number parameters get whole-number ticks.

    :param table: one row per run (a sweep's results, or :func:`alloc_curves` output).
    :param published: optional rows with the same ``group``, ``x`` and ``y`` columns, drawn as
        dashed lines (e.g. the FGD artifact's published means).
    """

    def dash(k: int) -> str:
        return "solid" if published is not None else DASHES[k % len(DASHES)]

    stats = sweep_stats(table, x, y, group)
    numeric_x = pd.api.types.is_numeric_dtype(stats[x])
    ran = table[table["error"] == ""] if "error" in table else table
    floor = 0.0 if len(ran) and bool((pd.to_numeric(ran[y], errors="coerce").dropna() >= 0).all()) else None
    fig = go.Figure()
    palette = policy_colors([str(n) for n in stats[group].unique()])
    for k, (name, part) in enumerate(stats.groupby(group, sort=False)):
        color, label = palette[str(name)], policy_label(str(name))
        up, down = clipped_spread(part, floor)
        bars = {"type": "data", "symmetric": False, "array": up.round(6).tolist(),
                "arrayminus": down.round(6).tolist(), "visible": True}
        if not numeric_x:
            fig.add_bar(x=part[x].astype(str).tolist(), y=part["mean"].round(6).tolist(), name=label,
                        marker_color=color, error_y=bars)
            continue
        many = len(part) > MAX_ERROR_BARS
        if many and (part["std"] > 0).any():
            fig.add_scatter(x=pd.concat([part[x], part[x][::-1]]),
                            y=pd.concat([part["mean"] + up, (part["mean"] - down)[::-1]]),
                            fill="toself", fillcolor=color, opacity=0.15, line={"width": 0},
                            hoverinfo="skip", showlegend=False, legendgroup=label)
        fig.add_scatter(
            x=part[x].tolist(), y=part["mean"].round(6).tolist(), name=label,
            mode="lines" if many else "lines+markers",
            line={"color": color, "width": 2, "dash": dash(k)}, legendgroup=label,
            error_y=None if many else bars,
            hovertemplate=f"{label}<br>{axis_title(x)}: %{{x}}<br>{axis_title(y)}: %{{y:.3f}}"
                          "<extra></extra>")
    if numeric_x and _whole(stats[x]):
        values = sorted(stats[x].unique().tolist())
        fig.update_xaxes(**({"tickmode": "array", "tickvals": values} if len(values) <= MAX_WHOLE_TICKS
                            else {"tickformat": ",d"}))
    if published is not None and not published.empty:
        for name, part in sweep_stats(published, x, y, group).groupby(group, sort=False):
            fig.add_scatter(x=part[x], y=part["mean"], mode="lines",
                            name=f"{policy_label(str(name))} (published)",
                            line={"color": palette.get(str(name), policy_color(str(name))), "dash": "dash",
                                  "width": 1.5},
                            legendgroup=policy_label(str(name)))
    fig.update_layout(barmode="group")
    fig.update_xaxes(title=axis_title(x))
    fig.update_yaxes(title=axis_title(y), **({"rangemode": "tozero"} if floor is not None else {}))
    return apply_layout(fig, title=title, height=460)
