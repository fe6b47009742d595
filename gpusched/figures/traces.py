"""Figures of the allocation experiment on real traces: allocation (or fragmentation) against the
arrived workload, and a heatmap of every GPU's free share at the end of a run.

Pure functions: data in, ``go.Figure`` out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gpusched.fgd.allocation import AllocationRun
from gpusched.figures.style import apply_layout
from gpusched.figures.sweep import sweep_figure
from gpusched.words.metric_names import metric_title
from gpusched.workload.openb import MILLI_PER_GPU, OpenbNodes

FULL_COLOR = "#1E3A8A"
"""A fully allocated GPU (0 milli-GPU free)."""
SLIVER_COLOR = "#DC2626"
"""A partly allocated GPU with almost nothing left (1 milli-GPU free)."""
HALF_COLOR = "#F59E0B"
"""A partly allocated GPU with half of it free."""
MOSTLY_FREE_COLOR = "#FEF08A"
"""A partly allocated GPU with 999 milli-GPU free."""
IDLE_COLOR = "#CBD5E1"
"""An idle GPU (1000 milli-GPU free)."""

FULL_SHADE = -100.0
"""Colour value of a fully allocated GPU: below the partial range, so it gets its own band."""
IDLE_SHADE = MILLI_PER_GPU + 100.0
"""Colour value of an idle GPU: above the partial range."""
SHADE_MIN, SHADE_MAX = -200.0, MILLI_PER_GPU + 200.0


def _at(value: float) -> float:
    """Position of a colour value on the colour scale (0-1)."""
    return (value - SHADE_MIN) / (SHADE_MAX - SHADE_MIN)


FREE_COLORSCALE: list[list] = [
    [0.0, FULL_COLOR],
    [_at(0.5), FULL_COLOR],
    [_at(0.5), SLIVER_COLOR],
    [_at(MILLI_PER_GPU / 2), HALF_COLOR],
    [_at(MILLI_PER_GPU - 0.5), MOSTLY_FREE_COLOR],
    [_at(MILLI_PER_GPU - 0.5), IDLE_COLOR],
    [1.0, IDLE_COLOR],
]
"""Colour value to colour: a dark blue band for full GPUs, red (little left) through amber to pale
yellow (mostly free) for partly allocated GPUs, and a grey band for idle GPUs, so that fragments
stand out and the colour bar shows all three states."""

GPU_ROW_PX = 10
"""Height of one GPU row in the heatmap (pixels)."""


def free_shade(free_milli: np.ndarray) -> np.ndarray:
    """Colour values of free milli-GPU: :data:`FULL_SHADE` for 0, :data:`IDLE_SHADE` for 1000, the
    free milli-GPU itself in between, NaN for padding (negative).

    :param free_milli: free milli-GPU per GPU (-1 pads).
    """
    free = np.asarray(free_milli, dtype=float)
    shade = np.where(free <= 0, FULL_SHADE, np.where(free >= MILLI_PER_GPU, IDLE_SHADE, free))
    return np.where(free < 0, np.nan, shade)


def allocation_curves_figure(
    curves: pd.DataFrame,
    published: pd.DataFrame | None = None,
    metric: str = "alloc_pct",
    title: str | None = None,
    x_from_pct: float | None = None,
) -> go.Figure:
    """A metric against the arrived workload, one line per policy (mean over seeds, with a ±1 std
    band when there are several), the published curves dashed.

    :param curves: long-form runs (:func:`gpusched.fgd.report.curves_frame`).
    :param published: long-form published runs with the same columns, or ``None``.
    :param metric: ``alloc_pct`` or ``frag_pct`` (% of cluster GPU capacity).
    :param title: figure title.
    :param x_from_pct: if given, the initial view starts at this arrived load (% of capacity) and
        the y axis fits the values from there on (±1 point); the full curves stay in the figure.
    """
    fig = sweep_figure(curves, "arrived_pct", metric, published=published, title=title)
    fig.update_yaxes(title=metric_title(metric))
    fig.add_vline(x=100, line={"color": "#94A3B8", "width": 1, "dash": "dot"},
                  annotation_text="arrived = capacity", annotation_position="bottom left",
                  annotation_font={"size": 11, "color": "#64748B"})
    frames = [curves] if published is None else [curves, published]
    if x_from_pct is None:
        fig.update_xaxes(range=[0, 131])
        fig.update_yaxes(rangemode="tozero")
        return fig
    values = pd.concat([f.loc[f["arrived_pct"] >= x_from_pct, metric] for f in frames if metric in f])
    values = pd.to_numeric(values, errors="coerce").dropna()
    fig.update_xaxes(range=[x_from_pct, 131])
    if not values.empty:
        fig.update_yaxes(range=[float(values.min()) - 1, float(values.max()) + 1])
    return fig


def node_order(final_rem: np.ndarray, nodes: OpenbNodes) -> dict[str, np.ndarray]:
    """Indices of the GPU nodes of each model in heatmap order.

    Models with the most GPUs come first; inside a model, nodes with more GPUs first, then the least
    free milli-GPU first, then by name.

    :param final_rem: free milli-GPU per GPU, one row per node (-1 pads).
    :param nodes: the node list.
    :return: model name to node indices (CPU-only nodes are left out).
    """
    _check_shape(final_rem, nodes)
    gpus_per_model: dict[str, int] = {}
    for model, gpus in zip(nodes.model, nodes.gpus.tolist(), strict=True):
        if gpus > 0:
            gpus_per_model[model] = gpus_per_model.get(model, 0) + gpus
    free = np.where(final_rem >= 0, final_rem, 0).sum(axis=1)
    out: dict[str, np.ndarray] = {}
    for model in sorted(gpus_per_model, key=lambda m: (-gpus_per_model[m], m)):
        keep = [i for i in range(len(nodes)) if nodes.model[i] == model and nodes.gpus[i] > 0]
        keep.sort(key=lambda i: (-int(nodes.gpus[i]), int(free[i]), nodes.name[i]))
        out[model] = np.array(keep, dtype=np.int64)
    return out


MIN_PANEL_PX = 56
"""Least height of a GPU model's panel in the heatmap (pixels), however few GPUs its nodes have."""


def gpu_heatmap_figure(run: AllocationRun, nodes: OpenbNodes, title: str | None = None) -> go.Figure:
    """Every GPU's free share at the end of a run: one panel per GPU model, one column per node,
    one row per GPU index.

    Each panel spans the figure's width with all the nodes of its model, sorted as :func:`node_order`
    says; panels share one colour bar (see :data:`FREE_COLORSCALE`). Rows past a node's GPU count are
    blank. Hover names the node, its model, the GPU index and the free milli-GPU.

    :param run: an allocation run (its ``final_rem``: free milli-GPU per GPU, one row per node).
    :param nodes: the node list the run used.
    :param title: figure title.
    """
    rem = run.final_rem
    groups = node_order(rem, nodes)
    heights = [int(nodes.gpus[idx].max()) for idx in groups.values()]
    panel_px = [max(GPU_ROW_PX * h, MIN_PANEL_PX) for h in heights]  # no sliver for 1-GPU nodes
    rows = max(len(groups), 1)
    spacing_px = 24
    plot_px = max(sum(panel_px), GPU_ROW_PX) + spacing_px * (rows - 1)
    fig = make_subplots(rows=rows, cols=1, row_heights=panel_px or None,
                        vertical_spacing=spacing_px / plot_px if rows > 1 else 0.0)
    for row, ((model, idx), n_gpus) in enumerate(zip(groups.items(), heights, strict=True), start=1):
        block = rem[idx, :n_gpus].T
        custom = np.empty(block.shape + (3,), dtype=object)
        custom[..., 0] = np.array(nodes.name, dtype=object)[idx]
        custom[..., 1] = model
        custom[..., 2] = block
        fig.add_heatmap(
            z=free_shade(block), x=np.arange(len(idx)), y=np.arange(n_gpus), customdata=custom,
            coloraxis="coloraxis", hoverongaps=False, name=model,
            hovertemplate=("node %{customdata[0]}<br>model %{customdata[1]}<br>GPU %{y}"
                           "<br>free %{customdata[2]} of 1,000 thousandths<extra></extra>"),
            row=row, col=1)
        fig.update_xaxes(range=[-0.5, len(idx) - 0.5], showticklabels=False, showgrid=False,
                         zeroline=False, row=row, col=1)
        fig.update_yaxes(autorange="reversed", showgrid=False, zeroline=False,
                         tickvals=sorted({0, n_gpus - 1}), tickfont={"size": 10}, row=row, col=1)
        counts = sorted(set(nodes.gpus[idx].tolist()))
        gpus = "/".join(map(str, counts)) + (" GPUs" if counts != [1] else " GPU")
        plural = "s" if len(idx) != 1 else ""
        fig.add_annotation(text=f"<b>{model}</b> · {len(idx)} node{plural} of {gpus}", x=0,
                           xref="paper", xanchor="left", y=1, yref=f"y{'' if row == 1 else row} domain",
                           yanchor="bottom", showarrow=False, font={"size": 11})
    fig.update_xaxes(title="nodes of each model, least free first (each panel spans all its nodes)",
                     row=rows, col=1)
    fig.update_layout(
        plot_bgcolor="rgba(0,0,0,0)",  # blank cells show the theme's background, light or dark
        coloraxis={
            "colorscale": FREE_COLORSCALE, "cmin": SHADE_MIN, "cmax": SHADE_MAX,
            "colorbar": {
                "title": {"text": "free share per GPU<br>(thousandths)", "side": "top"},
                "tickvals": [FULL_SHADE, 1, MILLI_PER_GPU / 2, MILLI_PER_GPU - 1, IDLE_SHADE],
                "ticktext": ["0 (full)", "1", str(MILLI_PER_GPU // 2), str(MILLI_PER_GPU - 1),
                             f"{MILLI_PER_GPU} (idle)"],
                "thickness": 14, "len": 1.0, "y": 0.5, "yanchor": "middle",
            },
        },
    )
    fig = apply_layout(fig, title=title, height=plot_px + 150)
    fig.update_layout(margin={"l": 64, "r": 24, "t": 84 if title else 52, "b": 56})
    fig.add_annotation(text="GPU index in node", textangle=-90, x=-0.03, xref="paper", xanchor="right",
                       y=0.5, yref="paper", showarrow=False, font={"size": 12})
    return fig


def _check_shape(final_rem: np.ndarray, nodes: OpenbNodes) -> None:
    if final_rem.ndim != 2 or final_rem.shape[0] != len(nodes):
        raise ValueError(f"final_rem has shape {final_rem.shape}; expected one row per node ({len(nodes)})")
