"""The stall explorer and the conditions map: figures and the texts that explain them.

- :func:`stall_figure`: the queue length of several policies on one time axis, the analysed
  policy's stall intervals (held a job that fitted) and blocked intervals (the head fitted
  nowhere) shaded, its misroutes marked by cause, and the idle GPUs below.
- :func:`stall_explanation`: one run's stall or blocking, in sentences with its measured numbers.
- :func:`conditions_heatmap_figure`, :func:`misroute_causes_figure` and :func:`conditions_summary`:
  where the Least-Loaded stall happens, from a sweep of cluster families and offered loads.

Every sentence about *when* something happens is built here from measured numbers
(:mod:`gpusched.experiment.stall`), never written by hand.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gpusched.core.cluster import MISROUTE_CAUSES
from gpusched.core.result import Result
from gpusched.experiment.stall import (
    FAMILY,
    NO_FIT_CHECK_VARIANTS,
    REFERENCE_POLICY,
    FamilyFinding,
    IdleSteps,
    StallReport,
    misroute_cause_shares,
    wait_diff_grid,
    wait_ratio_grid,
)
from gpusched.figures.style import (
    BLOCKED_FILL,
    CAUSE_COLORS,
    STALL_FILL,
    apply_layout,
    legend_below,
    policy_colors,
)
from gpusched.figures.words import longer_or_shorter, signed
from gpusched.policies import policy_label

CAUSE_LABELS: dict[str, str] = {
    "capacity": "capacity: the GPU could never hold the job",
    "occupied": "occupied: the GPU was too full at the time",
    "gang": "gang: its node could not form the gang at the time",
}
"""Legend names of the misroute causes."""

_CAUSE_WHY: dict[str, str] = {
    "capacity": "it could never hold the job",
    "occupied": "it was too full for it at the time",
    "gang": "its node could not form the gang at the time",
}

STALL_LEGEND = "stall: the first job in the queue held although it fitted elsewhere"
"""Legend name of the shaded stall intervals (tests look for it)."""
BLOCKED_LEGEND = "blocked: the first job in the queue fitted nowhere"
"""Legend name of the shaded blocked intervals."""


_CAUSE_WHY_NO_MEMORY = ("it could never take the job (too few GPUs there for its gang, or a GPU model "
                        "it cannot run on)")
"""Why a capacity misroute happened, for a job that declares no memory (Gavel's jobs)."""


def cause_why(cause: str, has_memory: bool = True) -> str:
    """Why a misroute of ``cause`` did not fit, in words; a capacity misroute of a job that
    declares no memory is not about memory."""
    return _CAUSE_WHY_NO_MEMORY if cause == "capacity" and not has_memory else _CAUSE_WHY[cause]


def _times(ratio: float) -> str:
    """A ratio as ``0.85×`` or ``1.2×`` (a share above 100 % reads as a multiple)."""
    return f"{ratio:.2g}×"


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n:,} {word}"
    return f"{n:,} {word[:-1]}ies" if word.endswith("y") else f"{n:,} {word}s"


def _causes_text(causes: dict[str, int]) -> str:
    """``"12 capacity, 3 gang"``: the causes that occurred, most frequent first."""
    parts = [f"{n:,} {c}" for c, n in sorted(causes.items(), key=lambda kv: -kv[1]) if n]
    return ", ".join(parts)


def stall_explanation(report: StallReport, baseline: Result | None = None) -> str:
    """A short explanation of one run's stall (or, without one, its blocking), with its measured
    numbers (Markdown).

    :param report: the stall analysis of one run.
    :param baseline: another run on the same jobs to compare the average wait with.
    """
    name = policy_label(report.policy)
    where = f"On `{report.scenario}` (seed {report.seed}), {name}"
    versus = ""
    if baseline is not None:
        versus = (f" Its average wait is **{report.avg_wait_min:,.0f} min**, against "
                  f"**{baseline.metrics['avg_wait_min']:,.0f} min** for "
                  f"{policy_label(baseline.policy)} on the same jobs.")
    misroutes = len(report.misroutes)
    mis_text = (f" It sent the first job in the queue to a GPU where it did not fit "
                f"**{_plural(misroutes, 'time')}** ({_causes_text(report.causes)})." if misroutes else "")
    blocked = ""
    if report.blocked_min > 0:
        blocked = (f" The first job in the queue fitted nowhere for **{report.blocked_min:,.0f} min** "
                   f"(blocked), with {report.idle_gpu_min_blocked:,.0f} idle GPU-minutes meanwhile.")
    if not report.has_stall:
        return (f"{where} never held a job that could have run: **no stall**.{mis_text}{blocked}"
                f"{versus}")
    w = report.worst_job
    memory = w["vram_gb"] > 0
    picked = ""
    if w.get("gpu_label"):
        size = f" ({w['gpu_vram_gb']:g} GB)" if memory else ""
        picked = (f"; {name} sent it to **{w['gpu_label']}**{size}, where "
                  f"{cause_why(w['cause'], memory)}, **{_plural(w['picks'], 'time')}**")
    on = "1 GPU" if w["gpus"] == 1 else f"each of {w['gpus']} GPUs"
    needs = (f"needs **{w['vram_gb']:g} GB** on {on}" if memory else
             f"needs **{_plural(w['gpus'], 'GPU')}** (it declares no memory)")
    return (
        f"{where} held the first job in the queue for **{report.stall_min:,.0f} min** in "
        f"{_plural(len(report.intervals), 'stall')}, although the job could have run on another GPU."
        f"{mis_text} For example **job {w['job']}** ({w['type']}) {needs}{picked}, and it was held "
        f"for {w['held_min']:,.0f} min. During the stalls the queue "
        f"grew to **{_plural(report.peak_queue, 'job')}** (minute {report.peak_queue_min:,.0f}) while "
        f"on average **{report.mean_idle_gpus:.1f} GPUs sat idle** — {report.idle_gpu_min:,.0f} idle "
        f"GPU-minutes.{blocked}{versus}")


def _interval_shapes(intervals: pd.DataFrame, fill: str, name: str) -> list[dict]:
    return [{"type": "rect", "xref": "x", "yref": "paper", "x0": round(float(a), 2),
             "x1": round(float(b), 2), "y0": 0, "y1": 1, "fillcolor": fill,
             "line": {"width": 0}, "layer": "below", "name": name}
            for a, b in zip(intervals["start_min"], intervals["end_min"], strict=True)]


def _legend_square(fig: go.Figure, name: str, fill: str, line: str) -> None:
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                             marker={"symbol": "square", "size": 14, "color": fill,
                                     "line": {"color": line, "width": 1}},
                             hoverinfo="skip"), row=1, col=1)


CAUSE_SHORT: dict[str, str] = {
    "capacity": "GPU too small",
    "occupied": "GPU too full",
    "gang": "gang could not form",
}
"""Row names of the misroute strip, one per cause."""

MISROUTE_STRIP_TITLE = "Misroutes: the first job in the queue sent to a GPU where it did not fit"
"""Title of the stall figure's strip of misroute markers (tests look for it)."""


def misroute_hover(misroutes: pd.DataFrame) -> list[str]:
    """One hover line per misroute: the job, what it asks for, the GPU it was sent to and why it
    did not fit there (no memory named for a job that declares none)."""
    out = []
    for j, v, k, g, c, cause in zip(misroutes["job"], misroutes["job_vram_gb"], misroutes["job_gpus"],
                                    misroutes["gpu_label"], misroutes["gpu_vram_gb"], misroutes["cause"],
                                    strict=True):
        ask = f"{v:g} GB × {k} GPU(s)" if v > 0 else f"{k} GPU(s), no memory declared"
        to = f"{g} ({c:g} GB)" if v > 0 else str(g)
        out.append(f"job {j} needs {ask} → sent to {to}: {cause_why(cause, v > 0)}")
    return out


TICKS_ACROSS = 1000
"""How many ticks a time axis of misroutes holds at most, per cause: misroutes closer together
than the axis span divided by this merge into one tick (:func:`misroute_ticks`), as the stall
intervals closer than that merge into one band. A chart some 1,300 pixels wide cannot tell ticks
that close apart, and each tick drawn is an SVG element of its own: a 2,000-job run of Least-Loaded
on ``gavel-108gpu-heavy`` has 1,875 misroutes, and its replay drew every one."""

MERGED_HOVER_LINES = 3
"""Most misroutes a merged tick's hover names one by one; it counts the rest."""


def misroute_ticks(misroutes: pd.DataFrame, gap_min: float) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The misroutes of one cause as ticks: those in one ``gap_min``-wide slot of time (slots
    counted from minute 0) merged into a tick at the slot's first misroute.

    :param misroutes: rows of :attr:`StallReport.misroutes <gpusched.experiment.stall.StallReport>`.
    :param gap_min: the slot width (minutes); 0 gives a tick per misroute.
    :returns: each tick's minute, its hover text (a misroute's :func:`misroute_hover` line; for a
        merged tick its count and span, then its first :data:`MERGED_HOVER_LINES` lines and how many
        more) and the misroutes it stands for.
    """
    part = misroutes.sort_values("time_min", kind="stable")
    times = part["time_min"].to_numpy(dtype=float)
    lines = misroute_hover(part)
    slot = np.floor(times / gap_min) if gap_min > 0 else np.arange(len(times), dtype=float)
    first = np.flatnonzero(np.r_[True, slot[1:] != slot[:-1]]) if len(times) else np.zeros(0, dtype=np.int64)
    counts = np.diff(np.r_[first, len(times)])
    text = []
    for start, n in zip(first.tolist(), counts.tolist(), strict=True):
        if n == 1:
            text.append(lines[start])
            continue
        shown = "<br>".join(lines[start:start + MERGED_HOVER_LINES])
        more = f"<br>and {n - MERGED_HOVER_LINES:,} more" if n > MERGED_HOVER_LINES else ""
        text.append(f"{n:,} misroutes, minutes {times[start]:,.0f}–{times[start + n - 1]:,.0f}:<br>"
                    f"{shown}{more}")
    return times[first], text, counts


MISROUTE_HOVER = "minute %{x:.0f}<br>%{text}<extra>misroute</extra>"
"""The hover of a misroute tick (its text is :func:`misroute_ticks`')."""


def misroute_marker(cause: str, size: int) -> dict:
    """The tick marker of one cause's misroutes, in its colour
    (:data:`~gpusched.figures.style.CAUSE_COLORS`), ``size`` pixels tall."""
    return {"symbol": "line-ns", "size": size, "color": CAUSE_COLORS[cause],
            "line": {"width": 1.6, "color": CAUSE_COLORS[cause]}}


def ticks_by_cause(misroutes: pd.DataFrame,
                   gap_min: float) -> Iterator[tuple[int, str, np.ndarray, list[str]]]:
    """For each cause with misroutes: its index in ``MISROUTE_CAUSES``, the cause, and its ticks'
    minutes and hover texts (:func:`misroute_ticks`)."""
    for k, cause in enumerate(MISROUTE_CAUSES):
        part = misroutes[misroutes["cause"] == cause]
        if not part.empty:
            x, text, _ = misroute_ticks(part, gap_min)
            yield k, cause, x, text


def add_misroute_markers(fig: go.Figure, misroutes: pd.DataFrame, row: int, col: int = 1,
                         showlegend: bool = True, gap_min: float = 0.0) -> None:
    """The misroutes of a run as markers on a strip of their own (one line per cause), coloured
    by cause (:data:`~gpusched.figures.style.CAUSE_COLORS`): they never cover a policy's line.
    Misroutes in one ``gap_min``-wide slot share a tick (:func:`misroute_ticks`)."""
    for _, cause, x, text in ticks_by_cause(misroutes, gap_min):
        fig.add_trace(go.Scatter(
            x=np.round(x, 2).tolist(), y=[CAUSE_SHORT[cause]] * len(x), mode="markers",
            name=f"misroute, {CAUSE_LABELS[cause]}", showlegend=showlegend,
            marker=misroute_marker(cause, 11), text=text, hovertemplate=MISROUTE_HOVER),
            row=row, col=col)
    fig.update_yaxes(type="category", categoryorder="array",
                     categoryarray=[CAUSE_SHORT[c] for c in reversed(MISROUTE_CAUSES)],
                     range=[-0.6, len(MISROUTE_CAUSES) - 0.4], showgrid=False, tickfont={"size": 10},
                     row=row, col=col)


def stall_figure(runs: Sequence[Result], report: StallReport, idle: IdleSteps,
                 baseline_idle: IdleSteps | None = None, baseline: str | None = None) -> go.Figure:
    """Queue length per policy (top), the analysed policy's misroutes on a strip of their own
    (middle) and idle GPUs (bottom) on one time axis.

    :param runs: the runs to draw, on the same jobs; the analysed policy is ``report.policy``.
    :param report: the stall analysis of the analysed policy's run.
    :param idle: idle GPUs of the analysed policy's run.
    :param baseline_idle: idle GPUs of another run to draw for contrast (dashed).
    :param baseline: the policy name of ``baseline_idle``.
    """
    name = policy_label(report.policy)
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, row_heights=[0.56, 0.12, 0.32],
                        vertical_spacing=0.07,
                        subplot_titles=("Queue length (jobs)", f"{MISROUTE_STRIP_TITLE} · {name}",
                                        "Idle capacity: GPUs running no job"))
    end = 0.0
    palette = policy_colors([*(r.policy for r in runs), report.policy, baseline or ""])
    for r in runs:
        t = r.timeline.event_times()
        q = r.timeline.queue_length_at(t)
        end = max(end, float(r.timeline.end_min))
        bold = r.policy == report.policy
        fig.add_trace(go.Scatter(
            x=np.round(t, 2).tolist(), y=q.tolist(), mode="lines", name=policy_label(r.policy),
            line={"shape": "hv", "color": palette[r.policy], "width": 2.6 if bold else 1.8},
            opacity=1.0 if bold else 0.85,
            hovertemplate="minute %{x:.0f}: %{y} queued<extra>" + policy_label(r.policy)
                          + "</extra>"), row=1, col=1)

    # Shaded intervals across every panel, with a legend entry each. One batch of shapes
    # (adding them one by one re-validates the layout every time).
    shapes = (_interval_shapes(report.blocked, BLOCKED_FILL, "blocked")
              + _interval_shapes(report.intervals, STALL_FILL, "stall"))
    _legend_square(fig, STALL_LEGEND, STALL_FILL, "rgba(220,38,38,0.5)")
    if not report.blocked.empty:
        _legend_square(fig, BLOCKED_LEGEND, BLOCKED_FILL, "rgba(217,119,6,0.5)")
    add_misroute_markers(fig, report.misroutes, row=2, gap_min=end / TICKS_ACROSS)

    dur_t = np.r_[idle.times_min, end] if idle.times_min.size else np.array([0.0, end])
    dur_y = np.r_[idle.idle_gpus, idle.idle_gpus[-1:]] if idle.idle_gpus.size else np.zeros(2)
    fig.add_trace(go.Scatter(
        x=np.round(dur_t, 2).tolist(), y=dur_y.tolist(), mode="lines", fill="tozeroy",
        name=f"idle GPUs · {name}",
        line={"shape": "hv", "color": palette[report.policy], "width": 1.4},
        fillcolor="rgba(100, 116, 139, 0.18)",
        hovertemplate="minute %{x:.0f}: %{y} idle GPU(s)<extra>" + name + "</extra>"), row=3, col=1)
    if baseline_idle is not None and baseline_idle.times_min.size:
        bt = np.r_[baseline_idle.times_min, end]
        by = np.r_[baseline_idle.idle_gpus, baseline_idle.idle_gpus[-1:]]
        label = policy_label(baseline or "baseline")
        fig.add_trace(go.Scatter(
            x=np.round(bt, 2).tolist(), y=by.tolist(), mode="lines", name=f"idle GPUs · {label}",
            line={"shape": "hv", "color": palette[baseline or ""], "width": 1.2, "dash": "dot"},
            hovertemplate="minute %{x:.0f}: %{y} idle GPU(s)<extra>" + label + "</extra>"),
            row=3, col=1)

    apply_layout(fig, height=720)
    fig.update_layout(shapes=shapes)
    fig.update_layout(margin={"l": 60, "r": 24, "t": 48, "b": 52})
    legend_below(fig)
    fig.update_xaxes(title_text="time (min)", range=[0, end or 1], row=3, col=1)
    fig.update_yaxes(title_text="jobs queued", rangemode="tozero", row=1, col=1)
    n_gpus = runs[0].cluster.n_gpus if runs else 1
    fig.update_yaxes(title_text="idle GPUs", range=[0, n_gpus * 1.04 + 0.3], row=3, col=1)
    return fig


# ---------------------------------------------------------------------------- conditions map
def conditions_heatmap_figure(results: pd.DataFrame,
                              variants: Sequence[str] = NO_FIT_CHECK_VARIANTS,
                              reference: str = REFERENCE_POLICY) -> go.Figure:
    """One heatmap per Least-Loaded variant, coloured by its extra minutes of mean wait over
    ``reference`` on the same jobs (:func:`~gpusched.experiment.stall.wait_diff_grid`), per cluster
    family (rows) and offered load (columns), on one colour scale centred on 0; the hover adds
    the wait ratio (:func:`~gpusched.experiment.stall.wait_ratio_grid`)."""
    diffs = {v: wait_diff_grid(results, v, reference) for v in variants}
    ratios = {v: wait_ratio_grid(results, v, reference) for v in variants}
    fig = make_subplots(rows=1, cols=len(variants), shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=[policy_label(v) for v in variants])
    top = max(float(np.nanmax(np.abs(g.to_numpy()))) for g in diffs.values())
    top = max(top, 1.0)
    ref = policy_label(reference)
    for k, (variant, grid) in enumerate(diffs.items(), start=1):
        z = grid.to_numpy(float)
        ratio = ratios[variant].reindex(index=grid.index, columns=grid.columns).to_numpy(float)
        text = [[signed(d) for d in row] for row in z]
        fig.add_trace(go.Heatmap(
            z=np.round(z, 2).tolist(), x=[f"{c:g}" for c in grid.columns], y=list(grid.index),
            text=text, texttemplate="%{text}", zmin=-top, zmax=top, zmid=0.0,
            customdata=np.round(ratio, 2).tolist(), colorscale="RdBu_r", showscale=k == len(variants),
            colorbar={"title": {"text": f"extra wait vs {ref} (min)"}},
            hovertemplate="%{y}, load %{x}: %{z:+,.1f} min of wait against " + ref
                          + " (%{customdata:.2f}× its wait)<extra>" + policy_label(variant)
                          + "</extra>"), row=1, col=k)
    # one x-axis title under the middle panel: one per panel would overlap its neighbours'
    fig.update_xaxes(title_text="offered load (fraction of the cluster's compute)", row=1,
                     col=(len(variants) + 1) // 2)
    apply_layout(fig, title=f"Extra minutes of mean wait against {ref} on the same jobs "
                            "(paired; red: longer, blue: shorter)",
                 height=140 + 44 * len(next(iter(diffs.values())).index))
    fig.update_yaxes(autorange="reversed")
    return fig


def misroute_causes_figure(results: pd.DataFrame,
                           variants: Sequence[str] = NO_FIT_CHECK_VARIANTS) -> go.Figure:
    """Stacked bars per cluster family: each variant's misroutes per run, by cause."""
    shares = misroute_cause_shares(results, tuple(variants))
    runs = results[results["policy"].isin(variants)].groupby([FAMILY, "policy"]).size()
    families = list(dict.fromkeys(results[FAMILY]))
    fig = make_subplots(rows=1, cols=len(variants), shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=[policy_label(v) for v in variants])
    for k, variant in enumerate(variants, start=1):
        part = shares[shares["policy"] == variant]
        for cause in MISROUTE_CAUSES:
            rows = part[part["cause"] == cause].set_index(FAMILY).reindex(families)
            per_run = (rows["misroutes"] / runs.xs(variant, level="policy").reindex(families)).fillna(0.0)
            fig.add_trace(go.Bar(
                x=families, y=np.round(per_run.to_numpy(), 2).tolist(), name=CAUSE_LABELS[cause],
                marker_color=CAUSE_COLORS[cause], legendgroup=cause, showlegend=k == 1,
                customdata=np.round(rows["share"].fillna(0.0).to_numpy() * 100, 1).tolist(),
                hovertemplate="%{x}: %{y:.1f} per run (%{customdata} %)<extra>" + cause + "</extra>"),
                row=1, col=k)
    apply_layout(fig, title="Why each variant misroutes: misroutes per run, by cause", height=460)
    fig.update_layout(barmode="stack", margin={"t": 90, "b": 110})
    legend_below(fig, below_axis_px=96.0)
    fig.update_yaxes(title_text="misroutes per run", row=1, col=1)
    return fig


def _family_list(names: Sequence[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def conditions_summary(findings: Sequence[FamilyFinding], variant: str = "least_loaded",
                       reference: str = REFERENCE_POLICY) -> list[str]:
    """Sentences (Markdown) that say, from the measured findings, where ``variant`` stalls, why,
    which variant stalls most, and where ``reference`` blocks as badly."""
    if not findings:
        return ["No conditions have been measured yet."]
    ll, ff = policy_label(variant), policy_label(reference)
    runs = sum(f.runs for f in findings)
    stalls = [f for f in findings if f.stalls]
    calm = [f for f in findings if not f.stalls]
    out = [f"Measured on {_plural(len(findings), 'cluster family')}, {_plural(runs, 'paired run')} "
           f"(offered loads × seeds, the same jobs for every policy)."]
    if stalls:
        worst = max(stalls, key=lambda f: f.wait_diff.mean)
        out.append(
            f"{ll} stalls on {_family_list([f.family for f in stalls])}: it held jobs that could have "
            f"run and waited longer than {ff}, by {min(f.wait_diff.mean for f in stalls):,.1f} to "
            f"{max(f.wait_diff.mean for f in stalls):,.1f} min on average (most on `{worst.family}`: "
            f"+{worst.wait_diff.mean:,.1f} min, 95 % interval {worst.wait_diff.low:,.1f} to "
            f"{worst.wait_diff.high:,.1f}).")
    if calm:
        out.append(
            f"It does not wait measurably longer than {ff} on {_family_list([f.family for f in calm])} "
            f"(the paired 95 % interval of the difference includes 0: "
            + "; ".join(f"`{f.family}` {signed(f.wait_diff.mean, 1)} min [{signed(f.wait_diff.low, 1)}, "
                        f"{signed(f.wait_diff.high, 1)}]" for f in calm) + ").")
    by_cause: dict[str, list[str]] = {}
    for f in findings:
        if f.dominant_cause is not None:
            by_cause.setdefault(f.dominant_cause, []).append(f.family)
    for cause, families in by_cause.items():
        share = [f.causes[cause] / max(sum(f.causes.values()), 1) for f in findings if f.family in families]
        shares = f"{min(share):.0%}–{max(share):.0%}" if len(families) > 1 else f"{share[0]:.0%}"
        out.append(f"Most of its misroutes are **{cause}** misroutes ({_CAUSE_WHY[cause]}) on "
                   f"{_family_list(families)} ({shares} of them).")
    worst_by: dict[str, list[str]] = {}
    for f in findings:
        worst_by.setdefault(f.worst_variant, []).append(f.family)
    out.append("The variant with the longest stall: " + "; ".join(
        f"{policy_label(v)} on {_family_list(fams)}" for v, fams in worst_by.items()) + ".")
    as_badly = [f for f in findings if f.ff_blocks_as_badly]
    if as_badly:
        out.append(f"{ff} leaves as many GPUs idle while jobs wait (blocked: the head fits nowhere) "
                   f"as {ll} does on {_family_list([f.family for f in as_badly])}.")
    stalled_only = [f for f in stalls if not f.ff_blocks_as_badly and f.ll_queued_min > 0]
    if stalled_only:
        close = max(stalled_only, key=lambda f: f.ff_blocked_min / f.ll_queued_min)
        ratio = close.ff_blocked_min / close.ll_queued_min
        out.append(f"Where {ll} stalls, {ff} comes closest on `{close.family}`: it leaves "
                   f"{_times(ratio)} as many GPU-minutes idle while blocked as {ll} leaves idle "
                   f"while its queue waited.")
    return out


def stall_blurb(findings: Sequence[FamilyFinding], variant: str = "least_loaded",
                reference: str = REFERENCE_POLICY) -> str:
    """Two sentences for the front page: on how many measured cluster families ``variant`` waits
    longer than ``reference``, and the misroute cause that dominates on most of them."""
    ll, ff = policy_label(variant), policy_label(reference)
    stalls = [f for f in findings if f.stalls]
    measured = _plural(len(findings), "measured cluster family")
    if not stalls:
        return f"On the {measured} {ll} never waited measurably longer than {ff}."
    calm = [f.family for f in findings if not f.stalls]
    but = f" (all but {_family_list(calm)})" if calm else ""
    counts: dict[str, int] = {}
    for f in stalls:
        if f.dominant_cause is not None:
            counts[f.dominant_cause] = counts.get(f.dominant_cause, 0) + 1
    first = f"{ll} waits longer than {ff} on {len(stalls)} of {measured}{but}."
    if not counts:
        return first
    top = max(counts, key=counts.get)
    return (f"{first} On {counts[top]} of them most of its misroutes are **{top}** misroutes: it "
            f"sends the head job to a GPU where {_CAUSE_WHY[top]}, and the whole queue waits behind it.")


def control_table(reports: Sequence[StallReport], baselines: Sequence[Result]) -> pd.DataFrame:
    """What each (control) cluster measured for the analysed policy, beside the average wait of a
    baseline run on the same jobs: one row per measure, one column per cluster (a table a few
    columns wide, which fits its box however long the measures' names)."""
    columns = {}
    for report, base in zip(reports, baselines, strict=True):
        columns[report.scenario] = {
            "policy": policy_label(report.policy),
            "stall (min)": f"{report.stall_min:,.0f}",
            "misroutes": f"{len(report.misroutes):,}",
            **{f"misroutes: {CAUSE_SHORT[c]}": f"{report.causes[c]:,}" for c in MISROUTE_CAUSES},
            "idle GPU-minutes while stalled": f"{report.idle_gpu_min:,.0f}",
            "average wait (min)": f"{report.avg_wait_min:,.1f}",
            f"{policy_label(base.policy)}'s average wait (min)": f"{base.metrics['avg_wait_min']:,.1f}",
        }
    return pd.DataFrame(columns).rename_axis("measure").reset_index()


def findings_table(findings: Sequence[FamilyFinding]) -> pd.DataFrame:
    """The conditions map's findings, one row per family, as a table with units (how First-Fit
    blocks beside it is in :func:`conditions_summary`'s sentences)."""
    return pd.DataFrame([{
        "family": f.family,
        "extra wait vs First-Fit (min)": f"{signed(f.wait_diff.mean, 1)} [{signed(f.wait_diff.low, 1)}, "
                                         f"{signed(f.wait_diff.high, 1)}]",
        "wait ratio": round(f.wait_ratio, 2),
        "stalls": "yes" if f.stalls else "no",
        "stall (min a run)": round(f.stall_min, 1),
        "main cause": f.dominant_cause or "—",
        "longest stall": policy_label(f.worst_variant),
    } for f in findings])


def control_note(report: StallReport, baseline: Result, finding: FamilyFinding | None) -> str:
    """What the control shown measured on its seed, beside what the conditions map measured on
    the same cluster over its loads and seeds, worded by the numbers (Markdown): a family the map
    lists as stalling may show no stall on one seed, and the note says so instead of leaving the
    two to contradict each other.

    :param report: the stall analysis of the control's run on the seed shown.
    :param baseline: the reference run on the same jobs.
    :param finding: the map's finding for this cluster and the analysed variant (``None`` when the
        map has not measured it).
    """
    name, ref = policy_label(report.policy), policy_label(baseline.policy)
    diff = report.avg_wait_min - baseline.metrics["avg_wait_min"]
    stall = (f"stalls for {report.stall_min:,.0f} min" if report.has_stall else "never stalls")
    seed = (f"On `{report.scenario}`, seed {report.seed}, {name} {stall} and waits "
            f"**{longer_or_shorter(diff, ref)}**.")
    if finding is None:
        return seed
    d = finding.wait_diff
    over = (f"over the conditions map's {finding.runs:,} runs on this cluster (offered loads "
            f"{min(finding.loads):g}–{max(finding.loads):g}, several seeds) it waits "
            f"**{signed(d.mean, 1)} min** on average (95 % interval {signed(d.low, 1)} to "
            f"{signed(d.high, 1)})")
    longer = round(diff) > 0  # as the seed's line shows it, in whole minutes
    if finding.stalls and longer:
        return f"{seed} The map agrees: {over}."
    if finding.stalls:
        return (f"{seed} The map still lists it where {name} stalls, because {over}: the extra wait "
                "shows at other loads and seeds than this one.")
    if longer:
        return (f"{seed} The map does not list it where {name} stalls: {over}, an interval that "
                "includes 0, so this seed's extra wait is not typical of the cluster.")
    return (f"{seed} The map does not list it where {name} stalls either: {over}, an interval that "
            "includes 0.")
