"""What the scheduler knows: the same jobs when the scheduler is told each job's run time exactly,
told it with an error, not told it, or predicts it from history, and what not knowing costs each
rule (:mod:`gpusched.experiment.knowledge` measures it; :mod:`gpusched.dashboard.knowledge` turns
its table into the frames drawn here).

The frames: ``means`` has one row per (policy, setting) with ``mean``, ``low``, ``high`` (the 95 %
interval of the mean over seeds, never below 0) and ``refused`` (the rule reads run times and the
setting declares none); ``cost`` has one row per (policy, setting other than exact) with ``diff``
(the setting minus exact, paired seed by seed), ``low``, ``high``, ``n`` (seeds) and ``interval``
(its kind: ``t`` or ``bootstrap``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from gpusched.experiment.paired import METHOD_NAMES
from gpusched.figures.style import INK, apply_layout, legend_below, outlier_cap, title_block, wrap_title
from gpusched.figures.words import signed
from gpusched.policies import policy_label
from gpusched.words.metric_names import metric_name, metric_title

SETTING_WORDS: dict[str, str] = {
    "exact": "told exactly",
    "lognormal 1": "told with an error",
    "none": "not told",
    "history": "predicted from history",
}
"""Each setting of what the scheduler is told, in words (the keys are the settings' labels of
:data:`gpusched.experiment.knowledge.SETTINGS`)."""

SETTING_NOTES: dict[str, str] = {
    "exact": "the scheduler reads each job's true run time",
    "lognormal 1": "each declared run time is the true one times a random factor (lognormal, "
                   "σ = 1: within a factor of 2.7 for two jobs in three)",
    "none": "no run time is declared; rules that read run times are refused",
    "history": "each job's run time is predicted from similar jobs that finished before it arrived",
}
"""What each setting means, one line each (the page's tooltips and captions)."""

SETTING_COLORS: dict[str, str] = {"exact": "#1D4ED8", "lognormal 1": "#D97706", "none": "#6B7280",
                                  "history": "#059669"}
"""One colour per setting (the bars of one rule are its settings)."""

REFUSED = "refused: reads run times"
"""What a cell of a rule that needs run times says under a setting that declares none."""


def setting_word(setting: str) -> str:
    """A setting in words (its label itself when it has no words)."""
    return SETTING_WORDS.get(setting, setting)


def _color(setting: str, k: int) -> str:
    spare = ("#7C3AED", "#DB2777", "#0891B2", "#92400E")
    return SETTING_COLORS.get(setting, spare[k % len(spare)])


def _values(series: pd.Series) -> list[float | None]:
    """A series as plot values: rounded, ``None`` (no bar) where it is NaN."""
    return [None if pd.isna(v) else round(float(v), 3) for v in series]


def knowledge_means_figure(means: pd.DataFrame, metric: str = "avg_jct_min",
                           n_seeds: int | None = None) -> go.Figure:
    """One group of bars per rule, one bar per setting: the mean of ``metric`` over the seeds,
    with its 95 % interval (never below 0). A refused combination has no bar; its rule's label
    says which settings refused it.

    :param means: the means frame of the module docstring.
    :param metric: the metric drawn (its title and scale from the names table).
    :param n_seeds: seeds behind each mean (for the subtitle).
    """
    name = metric_name(metric)
    policies = list(dict.fromkeys(means["policy"]))
    settings = list(dict.fromkeys(means["setting"]))
    refused = {p: [setting_word(s) for s in settings
                   if bool(means[(means["policy"] == p) & (means["setting"] == s)]["refused"].any())]
               for p in policies}
    labels = [policy_label(p) + (f"<br>(refused when {', '.join(refused[p])})" if refused[p] else "")
              for p in policies]
    fig = go.Figure()
    columns = []
    for setting in settings:
        part = means[means["setting"] == setting].set_index("policy").reindex(policies)
        ok = ~part["refused"].fillna(True).astype(bool)
        columns.append(tuple((part[c] * name.scale).where(ok) for c in ("mean", "low", "high")))
    flat = [(k, i) for k in range(len(settings)) for i in range(len(policies))]
    cap, outliers = outlier_cap([columns[k][0].iloc[i] for k, i in flat],
                                [(columns[k][1].iloc[i], columns[k][2].iloc[i]) for k, i in flat])
    cut = {flat[j] for j in outliers}
    for k, setting in enumerate(settings):
        y, low, high = columns[k]
        over = [(k, i) in cut for i in range(len(policies))]
        shown = y.where(~pd.Series(over, index=y.index), cap)
        up = (high - y).where(~pd.Series(over, index=y.index), 0.0)
        down = (y - low).where(~pd.Series(over, index=y.index), 0.0)
        fig.add_trace(go.Bar(
            x=labels, y=_values(shown), name=setting_word(setting), marker_color=_color(setting, k),
            error_y={"type": "data", "symmetric": False, "array": _values(up),
                     "arrayminus": _values(down), "color": INK, "thickness": 1.2,
                     "visible": (n_seeds or 0) > 1},
            text=[f"{v:,.0f} ↑" if o else "" for v, o in zip(y.fillna(0.0), over, strict=True)],
            textposition="inside", insidetextanchor="end", textangle=-90, textfont={"size": 12},
            customdata=_values(y),
            hovertemplate="%{x}<br>" + setting_word(setting) + ": %{customdata:,.1f}<extra></extra>"))
    seeds = f" over {n_seeds} seeds" if n_seeds and n_seeds > 1 else " on one seed" if n_seeds else ""
    note = "Bars: mean over the seeds; error bars: its 95 % interval, never below 0."
    if cap is not None:
        names = "; ".join(f"{policy_label(policies[i])} {setting_word(settings[k])}, "
                          f"{columns[k][0].iloc[i]:,.0f}" for k, i in sorted(cut, key=lambda c: c[1]))
        note += (f"<br>Axis cut at {cap:,.0f}, so the others stay readable: {names} run past it "
                 "(bars marked ↑, their means written on them).")
    apply_layout(fig, height=100)
    top = title_block(fig, f"{metric_title(metric)} of each rule by what it is told{seeds}",
                      "<br>".join(wrap_title(line, SUBTITLE_CHARS) for line in note.split("<br>")))
    fig.update_layout(barmode="group", bargap=0.25, height=int(top + 340), margin={"b": 110})
    legend_below(fig, below_axis_px=100.0)
    fig.update_yaxes(title_text=metric_title(metric), rangemode="tozero",
                     **({"range": [0, cap]} if cap is not None else {}))
    return fig


def cost_of_not_knowing_figure(cost: pd.DataFrame, metric: str = "avg_jct_min") -> go.Figure:
    """What not knowing costs each rule: per rule, one dot per setting other than exact at the
    mean paired difference (setting minus exact, seed by seed) with its 95 % interval; a
    difference may be negative (a guess that happens to help), so the axis is not cut at 0.

    :param cost: the cost frame of the module docstring.
    """
    name = metric_name(metric)
    policies = list(dict.fromkeys(cost["policy"]))
    labels = {p: policy_label(p) for p in policies}
    fig = go.Figure()
    settings = list(dict.fromkeys(cost["setting"]))
    rows = {p: i for i, p in enumerate(policies)}
    parts = [cost[cost["setting"] == s].set_index("policy").reindex(policies).dropna(subset=["diff"])
             for s in settings]
    flat = [(k, p) for k, part in enumerate(parts) for p in part.index]
    cap, outliers = outlier_cap([parts[k].at[p, "diff"] * name.scale for k, p in flat],
                                [(parts[k].at[p, "low"] * name.scale, parts[k].at[p, "high"] * name.scale)
                                 for k, p in flat])
    cut = {flat[j] for j in outliers}
    for k, (setting, part) in enumerate(zip(settings, parts, strict=True)):
        diff, low, high = (part[c].to_numpy(float) * name.scale for c in ("diff", "low", "high"))
        over = np.array([(k, p) in cut for p in part.index], dtype=bool)
        x = np.where(over, np.sign(diff) * (cap or 0.0), diff)  # at the axis' edge
        kinds = [METHOD_NAMES.get(str(i), str(i)) for i in part["interval"]]
        offset = (k - (len(settings) - 1) / 2) * SETTING_OFFSET
        fig.add_trace(go.Scatter(
            x=x.round(3).tolist(), y=[rows[p] + offset for p in part.index], mode="markers+text",
            name=setting_word(setting),
            marker={"size": 11, "color": _color(setting, k + 1),
                    "symbol": ["triangle-right" if o and d > 0 else "triangle-left" if o else "circle"
                               for o, d in zip(over, diff, strict=True)]},
            text=[f"{d:+,.0f}" if o else "" for o, d in zip(over, diff, strict=True)],
            textposition=["middle left" if d > 0 else "middle right" for d in diff],
            error_x={"type": "data", "symmetric": False,
                     "array": np.where(over, 0.0, high - diff).round(3).tolist(),
                     "arrayminus": np.where(over, 0.0, diff - low).round(3).tolist(), "thickness": 1.4},
            customdata=np.c_[diff.round(1), low.round(2), high.round(2), kinds,
                             [labels[p] for p in part.index]].tolist(),
            hovertemplate="%{customdata[4]}<br>" + setting_word(setting) + ": %{customdata[0]:+,.1f} "
                          "against told exactly<br>95 % interval (%{customdata[3]}): %{customdata[1]} to "
                          "%{customdata[2]}<extra></extra>"))
    kinds = sorted({METHOD_NAMES.get(str(i), str(i)) for i in cost["interval"]})
    note = (f"Dots: mean difference on the same jobs, seed by seed (right of the line: worse); bars: "
            f"95 % interval ({', '.join(kinds)}); each rule's settings side by side.")
    if cap is not None:
        names = "; ".join(f"{labels[p]} {setting_word(settings[k])}, "
                          f"{parts[k].at[p, 'diff'] * name.scale:+,.0f}"
                          for k, p in sorted(cut, key=lambda c: rows[c[1]]))
        note += (f"<br>Axis cut at ±{cap:,.0f}, so the others stay readable: {names} run past it "
                 "(triangles at the edge, their differences written beside them).")
    apply_layout(fig, height=100)
    top = title_block(fig, f"What not knowing costs: {metric_title(metric)}, against told exactly",
                      "<br>".join(wrap_title(line, SUBTITLE_CHARS) for line in note.split("<br>")))
    fig.add_vline(x=0, line={"color": INK, "dash": "dot"})
    fig.update_layout(height=int(top + 110 + 46 * len(policies)), margin={"l": 200, "b": 90})
    legend_below(fig, below_axis_px=56.0)
    fig.update_xaxes(title_text=f"difference ({name.unit or 'units'})", zeroline=False,
                     **({"range": [-cap * 1.08, cap * 1.08]} if cap is not None else {}))
    fig.update_yaxes(autorange="reversed", tickmode="array", tickvals=list(rows.values()),
                     ticktext=[labels[p] for p in policies], showgrid=False)
    return fig


SUBTITLE_CHARS = 120
"""Longest line of a subtitle here (characters): longer notes wrap, as Plotly never does."""

SETTING_OFFSET = 0.22
"""Vertical distance between the dots of one rule's settings (in rows): side by side, never on top
of each other at 0."""


def knowledge_table(means: pd.DataFrame, metric: str = "avg_jct_min") -> pd.DataFrame:
    """The means as a table: one row per rule, one column per setting (in words), each cell the
    mean with its 95 % interval (its bounds one digit coarser than the mean), or :data:`REFUSED`."""
    name = metric_name(metric)
    digits = name.decimals

    def cell(row) -> str:
        if bool(row["refused"]):
            return REFUSED
        m, lo, hi = (row[c] * name.scale for c in ("mean", "low", "high"))
        if np.isnan(lo) or np.isnan(hi):
            return f"{m:,.{digits}f}"
        bound = max(digits - 1, 0)  # the bounds one digit coarser: four settings fit a 1280 px page
        return f"{m:,.{digits}f} [{lo:,.{bound}f}, {hi:,.{bound}f}]"

    shown = means.assign(cell=means.apply(cell, axis=1), setting=means["setting"].map(setting_word))
    table = shown.pivot(index="policy", columns="setting", values="cell")
    table = table.reindex(index=list(dict.fromkeys(means["policy"])),
                          columns=[setting_word(s) for s in dict.fromkeys(means["setting"])])
    table.index = [policy_label(p) for p in table.index]
    table.columns.name = None
    return table


def cost_table(cost: pd.DataFrame, metric: str = "avg_jct_min") -> pd.DataFrame:
    """The cost of not knowing as a table: rule, setting (in words), the mean paired difference
    with its 95 % interval, the interval's kind and the seeds."""
    name = metric_name(metric)
    d = name.decimals

    def diff(row) -> str:
        v = [row[c] * name.scale for c in ("diff", "low", "high")]
        return f"{signed(v[0], d)} [{signed(v[1], d)}, {signed(v[2], d)}]"

    return pd.DataFrame({
        "rule": [policy_label(p) for p in cost["policy"]],
        "told": [setting_word(s) for s in cost["setting"]],
        "against told exactly [95 % interval]": cost.apply(diff, axis=1).tolist(),
        "interval": [METHOD_NAMES.get(str(i), str(i)) for i in cost["interval"]],
        "seeds": cost["n"].astype(int).tolist(),
    })
