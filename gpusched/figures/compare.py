"""Comparison figures: metric bars with error bars over seeds, wait-time CDFs and cluster
utilisation over time, one colour per policy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gpusched.core.metrics import FAIRNESS_METRIC_KEYS
from gpusched.experiment.paired import METHOD_NAMES, interval_method, mean_interval
from gpusched.experiment.runner import Comparison
from gpusched.experiment.scorecard import TAIL_WAIT_METRIC
from gpusched.figures.style import (
    INK,
    TARGET_BAND_FILL,
    apply_layout,
    legend_below,
    policy_colors,
    subplot_rows,
    title_block,
    wrap_title,
)
from gpusched.figures.words import signed as signed_number
from gpusched.policies import policy_label
from gpusched.words.metric_names import (
    format_metric,
    format_spread,
    metric_label,
    metric_name,
    metric_title,
)

BAR_METRICS: tuple[str, ...] = (
    "avg_jct_min", "avg_wait_min", "gini", TAIL_WAIT_METRIC, "avg_slowdown", "speed_loss_min",
    "avg_bsld", "weighted_wait_min", "avg_util", "util_in_band_frac", "jobs_completed",
)
"""The metrics shown as bars, in order (titles, units and scales from
:data:`gpusched.words.metric_names.METRIC_NAMES`)."""

FAILURE_BAR_METRICS: tuple[str, ...] = (
    "goodput", "lost_gpu_hours", "restore_gpu_hours", "preemptions", "jobs_interrupted", "node_failures",
)
"""The bars of failures and preemption (shown when some run has a failure or a preemption)."""

MOVE_BAR_METRICS: tuple[str, ...] = ("migrations", "migration_restore_gpu_hours")
"""The bars of moves (a placement that moves running jobs to faster GPUs,
:mod:`gpusched.policies.migration`), shown when some run moved a job."""


FAIRNESS_BAR_METRICS: tuple[str, ...] = FAIRNESS_METRIC_KEYS
"""The bars of fairness (mean and max finish-time fairness ρ, the share of jobs with ρ > 1, Jain's
index, GPU-type changes per job; :mod:`gpusched.core.run_fairness`), shown for every comparison."""


def _any_positive(comparison: Comparison, key: str) -> bool:
    runs = comparison.runs
    return key in runs.columns and bool((runs[key] > 0).any())


def moved_jobs(comparison: Comparison) -> bool:
    """Whether some run of the comparison moved a running job to other GPUs."""
    return _any_positive(comparison, "migrations")


def has_disruptions(comparison: Comparison) -> bool:
    """Whether some run of the comparison had a node failure, a preemption or a move."""
    return any(_any_positive(comparison, k) for k in ("node_failures", "preemptions", "migrations"))


def disruption_metrics(comparison: Comparison) -> tuple[str, ...]:
    """The bars of a comparison's disruptions: :data:`FAILURE_BAR_METRICS`, and
    :data:`MOVE_BAR_METRICS` when some run moved a job."""
    return FAILURE_BAR_METRICS + (MOVE_BAR_METRICS if moved_jobs(comparison) else ())


OCCUPANCY_NOTE = ("GPU occupancy is the share of the cluster's GPU compute held by running jobs. Slow "
                  "runs raise it: a job on a slow GPU holds it longer, so a busier cluster is not a "
                  "more productive one. Judge a schedule by its time to result (JCT).")
"""The one line every page shows beside GPU occupancy (``avg_util``)."""


def policies_of(comparison: Comparison) -> list[str]:
    """The policies of a comparison, in the order they were given."""
    return list(dict.fromkeys(comparison.runs["policy"]))


def interval_note(metrics: Sequence[str], what: str = "error bars") -> str:
    """What the intervals of a figure of ``metrics`` are: a 95 % interval of the mean over seeds,
    bootstrap for the skewed metrics among them and Student t for the others (their subtitle
    says it)."""
    boot = [metric_label(k) for k in metrics if interval_method(k) == "bootstrap"]
    t = [k for k in metrics if interval_method(k) == "t"]
    if not boot:
        kinds = METHOD_NAMES["t"]
    elif not t:
        kinds = METHOD_NAMES["bootstrap"]
    else:
        kinds = f"{METHOD_NAMES['bootstrap']} for {', '.join(boot)}, {METHOD_NAMES['t']} for the others"
    return f"{what}: 95 % interval of the mean over seeds ({kinds}), never below 0"
SUBTITLE_CHARS = 110
BAR_PANEL_PX = 230
"""Height of one bar panel (pixels)."""
BAR_GAP_PX = 70
"""Gap between two rows of bar panels, their titles included (pixels)."""
"""Longest line of the metric bars' subtitle (characters): longer notes wrap, as Plotly never does."""


def varied_metrics(comparison: Comparison, metrics: Sequence[str]) -> tuple[list[str], list[str]]:
    """``metrics`` split into those whose mean differs between the compared policies and those
    where every policy has the same mean (a panel of equal bars says nothing). With one policy,
    every metric counts as varied.

    :return: ``(varied, constant)``, each in the order given.
    """
    policies = policies_of(comparison)
    mean = comparison.summary().loc[policies]
    if len(policies) < 2:
        return list(metrics), []
    varied, constant = [], []
    for key in metrics:
        values = mean[key].to_numpy(float)
        spread = float(np.nanmax(values) - np.nanmin(values)) if values.size else 0.0
        (varied if spread > 1e-9 * max(1.0, float(np.nanmax(np.abs(values)))) else constant).append(key)
    return varied, constant


def gini_beside_wait(metrics: Sequence[str]) -> list[str]:
    """``metrics`` with the Gini coefficient right after the average wait, when both are there:
    how long jobs wait, and how unevenly the cluster's GPUs are shared, read together."""
    out = [m for m in metrics if m != "gini"]
    if "gini" in metrics and "avg_wait_min" in out:
        out.insert(out.index("avg_wait_min") + 1, "gini")
    elif "gini" in metrics:
        out.append("gini")
    return out


WIDE_INTERVAL = 1.0
"""An interval of a mean wider than this share of the mean (1.0: as wide as the mean itself) is
called out under the bars: with so few seeds, the bars alone cannot tell the policies apart."""


def wide_interval_note(comparison: Comparison, metrics: Sequence[str]) -> str | None:
    """A sentence when some bar's 95 % interval (:func:`bar_intervals`) is wider than
    :data:`WIDE_INTERVAL` times its mean: the widest one, what makes it so, and what to read
    instead; ``None`` when every interval is narrower (or there is one seed, and no interval)."""
    n_seeds = comparison.runs["seed"].nunique()
    if n_seeds < 2:
        return None
    widest = None
    for key in metrics:
        scale = metric_name(key).scale
        bars = bar_intervals(comparison, key, scale)
        for policy, row in bars.iterrows():
            if row["mean"] <= 0:
                continue
            ratio = (row["high"] - row["low"]) / row["mean"]
            if widest is None or ratio > widest[0]:
                widest = (ratio, policy, key, row)
    if widest is None or widest[0] <= WIDE_INTERVAL:
        return None
    _, policy, key, row = widest
    mean, low, high = (format_metric(key, row[c] / metric_name(key).scale, True)
                       for c in ("mean", "low", "high"))
    return (f"With {n_seeds} seeds some intervals are as wide as the means themselves: "
            f"{policy_label(policy)}'s {metric_label(key)} is {mean} on average, its 95 % interval "
            f"{low} to {high}. Each seed draws other jobs, "
            "so a few seeds leave a mean uncertain: add seeds for narrower bars, or read the paired "
            "differences below, which compare the policies on the same jobs, seed by seed.")


def bar_intervals(comparison: Comparison, key: str, scale: float = 1.0) -> pd.DataFrame:
    """Per policy, the mean of ``key`` over seeds (times ``scale``) and the 95 % interval of that
    mean (:func:`~gpusched.experiment.paired.interval_method` says which kind), cut at 0 (every bar
    metric is 0 or more): columns ``mean``, ``low``, ``high``."""
    runs = comparison.runs
    rows = {p: mean_interval(runs.loc[runs["policy"] == p, key].to_numpy(float) * scale, floor=0.0,
                             method=interval_method(key))
            for p in policies_of(comparison)}
    return pd.DataFrame.from_dict(rows, orient="index", columns=["mean", "low", "high"])


def metric_bars_figure(comparison: Comparison, metric_keys: Sequence[str] | None = None) -> go.Figure:
    """One panel per metric: a bar per policy at the mean over seeds, with the 95 % interval of
    that mean as error bars (:func:`bar_intervals`; never below 0). Metrics on which every policy
    has the same mean get no panel: the figure's subtitle names them and their value.

    :param metric_keys: the metrics to draw (default :data:`BAR_METRICS`), titled and scaled as
        :data:`gpusched.words.metric_names.METRIC_NAMES` says.
    """
    metrics = {k: (metric_title(k), metric_name(k).scale) for k in (metric_keys or BAR_METRICS)}
    policies = policies_of(comparison)
    n_seeds = comparison.runs["seed"].nunique()
    shown, constant = varied_metrics(comparison, list(metrics))
    cols = 3
    rows = max(int(np.ceil(len(shown) / cols)), 1)
    plot_px, spacing = subplot_rows(rows, BAR_PANEL_PX, BAR_GAP_PX)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[metrics[k][0] for k in shown],
                        vertical_spacing=spacing, horizontal_spacing=0.08)
    labels = [policy_label(p) for p in policies]
    palette = policy_colors(policies)
    colors = [palette[p] for p in policies]
    for k, key in enumerate(shown):
        title, scale = metrics[key]
        row, col = divmod(k, cols)
        bars = bar_intervals(comparison, key, scale)
        fig.add_trace(go.Bar(
            x=labels, y=bars["mean"].round(3).tolist(),
            error_y={"type": "data", "symmetric": False,
                     "array": (bars["high"] - bars["mean"]).round(3).tolist(),
                     "arrayminus": (bars["mean"] - bars["low"]).round(3).tolist(),
                     "visible": n_seeds > 1, "color": INK, "thickness": 1.2},
            marker_color=colors, showlegend=False, name=title,
            customdata=np.c_[policies, bars["low"].round(2), bars["high"].round(2)].tolist(),
            hovertemplate="%{x} (%{customdata[0]})<br>" + title + ": %{y:,.2f}"
                          + ("<br>95 % interval of the mean (" + METHOD_NAMES[interval_method(key)]
                             + "): %{customdata[1]:,.2f} to "
                             "%{customdata[2]:,.2f}" if n_seeds > 1 else "")
                          + "<br>over " + ("1 seed" if n_seeds == 1 else f"{n_seeds} seeds")
                          + "<extra></extra>"),
            row=row + 1, col=col + 1)
        fig.update_xaxes(showticklabels=False, row=row + 1, col=col + 1)
        fig.update_yaxes(rangemode="tozero", row=row + 1, col=col + 1)
    # Legend-only entries: one per policy, in its colour.
    for p in policies:
        fig.add_trace(go.Bar(x=[None], y=[None], name=policy_label(p), marker_color=palette[p],
                             legendgroup=p, hoverinfo="skip"), row=1, col=1)
    notes = [interval_note(shown)] if n_seeds > 1 else []
    if constant:
        mean = comparison.summary()
        notes.append("the same for every policy, so not drawn: " + "; ".join(
            f"{metrics[k][0]} {format_metric(k, float(mean[k].iloc[0]))}" for k in constant))
    subtitle = "<br>".join(wrap_title(note, SUBTITLE_CHARS) for note in notes)
    apply_layout(fig, height=100)
    top_px = title_block(fig, f"Mean over {n_seeds} seeds" if n_seeds > 1 else "One seed", subtitle,
                         panel_titles=1)
    fig.update_layout(height=int(top_px + plot_px + 52), barmode="group", bargap=0.25,
                      margin={"b": 52})
    return legend_below(fig, below_axis_px=12.0)


TABLE_METRICS: tuple[str, ...] = (
    "avg_jct_min", "avg_wait_min", TAIL_WAIT_METRIC, "max_wait_min", "avg_slowdown",
    "speed_loss_min", "avg_bsld", "weighted_wait_min", "backfilled_jobs", "avg_util",
    "util_in_band_frac", "gini", "stall_min", "makespan_min", "jobs_completed", "jobs_unfinished",
    "goodput", "lost_gpu_hours", "restore_gpu_hours", "node_failures", "jobs_interrupted",
    "preemptions", *MOVE_BAR_METRICS, "total_reward", *FAIRNESS_BAR_METRICS,
)
"""Columns of the results table, in order (headers from :func:`metric_title`)."""


def results_table(comparison: Comparison, metrics: Sequence[str] = TABLE_METRICS) -> pd.DataFrame:
    """Mean ± standard deviation over seeds per policy (rows) and metric (columns), as text
    (``metrics``: the columns; those the comparison does not hold are left out); on one seed, the
    value alone (a spread of one run would read ``± 0.0``)."""
    mean, std = comparison.summary(), comparison.spread()
    one_seed = comparison.runs["seed"].nunique() == 1
    table = pd.DataFrame({
        metric_title(k): [format_metric(k, m) if one_seed else format_spread(k, m, s)
                          for m, s in zip(mean[k], std[k], strict=True)]
        for k in metrics if k in mean.columns})
    table.index = [policy_label(p) for p in mean.index]
    return table


RESULT_SECTIONS: dict[str, tuple[str, ...]] = {
    "Time to result and waits": ("avg_jct_min", "avg_wait_min", TAIL_WAIT_METRIC, "max_wait_min"),
    "Slowdown and order": ("avg_slowdown", "avg_bsld", "speed_loss_min", "weighted_wait_min",
                           "backfilled_jobs"),
    "Use of the cluster": ("avg_util", "util_in_band_frac", "gini", "stall_min", "makespan_min"),
    "Jobs and reward": ("jobs_completed", "jobs_unfinished", "total_reward"),
    "Failures and preemption": ("goodput", "lost_gpu_hours", "restore_gpu_hours", "node_failures",
                                "jobs_interrupted", "preemptions"),
    "Moves": MOVE_BAR_METRICS,
    "Fairness": FAIRNESS_BAR_METRICS,
}
"""The results table's columns in sections of at most six, each shown as a table of its own: one
table of all 25 would run far past the page's edge."""


def results_sections(comparison: Comparison) -> dict[str, pd.DataFrame]:
    """:func:`results_table` cut into :data:`RESULT_SECTIONS` (a section whose every value is the
    same for every policy, such as failures without failures, is left out)."""
    table = results_table(comparison)
    out = {}
    for section, keys in RESULT_SECTIONS.items():
        part = table[[metric_title(k) for k in keys if metric_title(k) in table.columns]]
        if part.columns.empty:
            continue
        if section == "Failures and preemption" and not has_disruptions(comparison):
            continue
        if section == "Moves" and not moved_jobs(comparison):
            continue
        out[section] = part
    return out


_LEGEND_BELOW = {"legend": {"orientation": "h", "yanchor": "top", "y": -0.2, "xanchor": "left", "x": 0},
                 "margin": {"b": 110}}
"""Half-width charts with many policies: the legend goes under the plot, clear of the title."""


def ecdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Empirical CDF: sorted values and the fraction of values ≤ each (0-1)."""
    x = np.sort(np.asarray(values, dtype=float))
    return x, np.arange(1, x.size + 1) / max(x.size, 1)


def wait_cdf_figure(comparison: Comparison) -> go.Figure:
    """Wait-time CDF per policy, pooling the jobs of every seed."""
    fig = go.Figure()
    palette = policy_colors(policies_of(comparison))
    for p in policies_of(comparison):
        waits = np.concatenate([r.jobs["wait_min"].to_numpy()
                                for (name, _), r in comparison.results.items() if name == p])
        x, y = ecdf(waits)
        fig.add_trace(go.Scatter(x=np.round(x, 2).tolist(), y=np.round(y * 100, 2).tolist(),
                                 mode="lines", name=policy_label(p),
                                 line={"color": palette[p], "width": 2.2, "shape": "hv"},
                                 hovertemplate="%{y:.0f} % of jobs waited ≤ %{x:.0f} min"
                                               "<extra>" + policy_label(p) + "</extra>"))
    apply_layout(fig, title="Wait-time CDF (all jobs of all seeds)", height=440)
    fig.update_layout(**_LEGEND_BELOW)
    fig.update_xaxes(title_text="wait (min)", rangemode="tozero")
    fig.update_yaxes(title_text="jobs waiting at most this long (%)", range=[0, 101])
    return fig


def rolling_util(times_min: np.ndarray, util: np.ndarray, grid_min: np.ndarray,
                 window_min: float) -> np.ndarray:
    """Time-weighted mean of a step function over the window ending at each grid time.

    :param times_min: step start times (minutes, ascending); ``util[i]`` holds until the next.
    :param util: step values (fraction 0-1).
    :param grid_min: where to evaluate (minutes).
    :param window_min: averaging window (minutes).
    """
    t = np.asarray(times_min, dtype=float)
    u = np.asarray(util, dtype=float)
    area = np.r_[0.0, np.cumsum(u[:-1] * np.diff(t))]

    def integral(x: np.ndarray) -> np.ndarray:
        i = np.clip(np.searchsorted(t, x, side="right") - 1, 0, t.size - 1)
        return area[i] + u[i] * (x - t[i])

    hi = np.asarray(grid_min, dtype=float)
    lo = np.maximum(hi - window_min, t[0])
    width = np.maximum(hi - lo, 1e-9)
    return np.where(hi - lo > 1e-9, (integral(hi) - integral(lo)) / width, u[0])


def util_over_time_figure(comparison: Comparison, seed: int | None = None,
                          window_min: float = 60.0, points: int = 400) -> go.Figure:
    """Cluster utilisation over time per policy for one seed (a rolling mean over
    ``window_min`` minutes), with the 60-80 % target band shaded."""
    seeds = sorted(comparison.runs["seed"].unique())
    seed = seeds[0] if seed is None else seed
    fig = go.Figure()
    end = 0.0
    palette = policy_colors(policies_of(comparison))
    for p in policies_of(comparison):
        r = comparison.results[(p, seed)]
        t, u = r.timeline.cluster_util_steps()
        if t.size < 2:
            continue
        grid = np.linspace(t[0], t[-1], points)
        y = rolling_util(t, u, grid, window_min) * 100
        end = max(end, float(t[-1]))
        fig.add_trace(go.Scatter(x=np.round(grid, 1).tolist(), y=np.round(y, 2).tolist(),
                                 mode="lines", name=policy_label(p),
                                 line={"color": palette[p], "width": 2},
                                 hovertemplate="minute %{x:.0f}: %{y:.0f} %<extra>"
                                               + policy_label(p) + "</extra>"))
    fig.add_hrect(y0=60, y1=80, fillcolor=TARGET_BAND_FILL, line_width=0,
                  annotation_text="target band", annotation_position="top left",
                  annotation_font_color="#15803D")
    apply_layout(fig, title=f"GPU occupancy over time (seed {seed}, {window_min:.0f}-min "
                            "rolling mean)", height=440)
    fig.update_layout(**_LEGEND_BELOW)
    fig.update_xaxes(title_text="time (min)", range=[0, end or 1])
    fig.update_yaxes(title_text="cluster compute used (%)", range=[0, 100])
    return fig


def forest_figure(card: pd.DataFrame, metrics: Sequence[str] | None = None) -> go.Figure:
    """The scorecard as a forest plot: one panel per metric, each policy's mean paired difference
    against the baseline with its 95 % interval, and a line at 0 (no difference).

    :param card: a :func:`gpusched.experiment.scorecard.scorecard` table.
    :param metrics: the metrics to draw (default: every metric of the card).
    """
    metrics, flat = forest_panels(card, metrics)
    policies = list(dict.fromkeys(card["policy"]))
    palette = policy_colors(policies)
    cols = min(3, max(len(metrics), 1))
    rows = int(np.ceil(len(metrics) / cols)) or 1
    titles = [wrap_title(f"{metric_title(m)}: difference", FOREST_TITLE_CHARS) for m in metrics]
    title_lines = max(t.count("<br>") + 1 for t in titles)
    plot_px, spacing = subplot_rows(rows, FOREST_PANEL_PX, FOREST_GAP_PX + 19 * title_lines)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.04,
                        vertical_spacing=spacing, shared_yaxes=True)
    for k, metric in enumerate(metrics):
        row, col = divmod(k, cols)
        part = card[card["metric"] == metric].set_index("policy").reindex(policies)
        part[["diff", "low", "high"]] *= metric_name(metric).scale
        y = [policy_label(p) for p in policies]
        fig.add_trace(go.Scatter(
            x=part["diff"].round(3).tolist(), y=y, mode="markers",
            marker={"size": 10, "color": [palette[p] for p in policies]},
            error_x={"type": "data", "symmetric": False,
                     "array": (part["high"] - part["diff"]).round(3).tolist(),
                     "arrayminus": (part["diff"] - part["low"]).round(3).tolist(), "color": INK},
            customdata=np.c_[part["wins"], part["ties"], part["losses"]].tolist(), showlegend=False,
            hovertemplate="%{y}: %{x:+.2f} (95 % " + METHOD_NAMES[interval_method(metric)]
                          + " interval shown)<br>won %{customdata[0]}, tied "
                          "%{customdata[1]}, lost %{customdata[2]} seeds"
                          "<extra>" + metric_label(metric) + "</extra>"),
            row=row + 1, col=col + 1)
        fig.add_vline(x=0, line={"color": "#9CA3AF", "dash": "dash"}, row=row + 1, col=col + 1)
    baseline = ""
    if "baseline" in card.attrs:
        baseline = f" against {policy_label(card.attrs['baseline'])}"
    apply_layout(fig, height=100)
    note = interval_note(metrics, "bars").replace(" of the mean over seeds", " of the mean paired "
                                                  "difference").replace(", never below 0", "")
    if flat:  # panels whose every dot would sit on 0 are named instead of drawn
        note += "; no difference on any seed, so not drawn: " + "; ".join(metric_title(m) for m in flat)
    top = title_block(fig, f"Paired differences{baseline} over the same seeds (policy − baseline, "
                           "95 % interval)", wrap_title(note, SUBTITLE_CHARS), panel_titles=title_lines)
    fig.update_layout(height=int(top + plot_px + 40), margin={"b": 40})
    fig.update_yaxes(autorange="reversed")
    return fig


def forest_panels(card: pd.DataFrame, metrics: Sequence[str] | None = None) -> tuple[list[str], list[str]]:
    """The forest plot's panels: ``metrics`` (default: every metric of ``card``) split into those
    drawn and those left out because no policy differs from the baseline on any seed (every
    difference and interval end 0). The paired table lists the drawn ones only, and names the
    others as the plot does.

    :return: ``(drawn, left_out)``, each in the order given (the first metric is drawn when all
        are flat, so the plot is never empty).
    """
    metrics = list(metrics or dict.fromkeys(card["metric"]))
    flat = [m for m in metrics if _all_zero(card[card["metric"] == m])]
    drawn = [m for m in metrics if m not in flat] or metrics[:1]
    return drawn, [m for m in flat if m not in drawn]


def _all_zero(part: pd.DataFrame) -> bool:
    """Whether every difference and interval end of a scorecard's rows is 0 (or there are none)."""
    values = part[["diff", "low", "high"]].to_numpy(float)
    return bool(np.all(np.abs(values) < 1e-9))


FOREST_PANEL_PX = 170
"""Height of one forest-plot panel (pixels)."""
FOREST_GAP_PX = 40
"""Gap between two rows of forest-plot panels, beside their titles' lines (pixels)."""

FOREST_TITLE_CHARS = 34
"""Longest line of a forest-plot panel's title (characters): a third of a 1,280 px page holds it."""

FOREST_METRICS: tuple[str, ...] = ("avg_jct_min", "avg_wait_min", "gini", TAIL_WAIT_METRIC,
                                   "avg_slowdown", "speed_loss_min", "jobs_completed")
"""The metrics the Compare page pairs, draws in its forest plot and lists in its paired table (the
Gini coefficient of the GPU shares beside the wait)."""


def scorecard_table(card: pd.DataFrame) -> pd.DataFrame:
    """A scorecard for display: labels, the metric's title, both means, the difference with its
    95 % interval and the interval's kind (Student t or bootstrap), and wins/ties/losses, every
    value scaled and formatted as its metric says (a fraction in % is shown ×100)."""
    keys = card["metric"].tolist()

    def signed(key: str, value: float) -> str:
        return signed_number(value * metric_name(key).scale, metric_name(key).decimals)

    return pd.DataFrame({
        "policy": [policy_label(p) for p in card["policy"]],
        "metric": [metric_title(m) for m in keys],
        "policy mean": [format_metric(k, v) for k, v in zip(keys, card["policy_mean"], strict=True)],
        "baseline mean": [format_metric(k, v) for k, v in zip(keys, card["baseline_mean"], strict=True)],
        "difference [95 % interval]": [f"{signed(k, d)} [{signed(k, lo)}, {signed(k, hi)}]"
                                       for k, d, lo, hi in zip(keys, card["diff"], card["low"],
                                                               card["high"], strict=True)],
        "interval": [METHOD_NAMES[m] for m in card["interval"]],
        "won / tied / lost": [f"{w} / {t} / {lo}" for w, t, lo in zip(card["wins"], card["ties"],
                                                                     card["losses"], strict=True)],
    })
