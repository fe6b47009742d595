"""Figures of the allocation experiment: the GPU heatmap (panels per model, colour bands, hover,
ordering, padding) and the allocation curves (one line per policy, published dashed, zoom)."""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import plotly.colors
import pytest

from gpusched.fgd.allocation import N_COLUMNS, AllocationRun
from gpusched.fgd.report import curves_frame
from gpusched.figures.style import policy_color
from gpusched.figures.traces import (
    FREE_COLORSCALE,
    FULL_COLOR,
    FULL_SHADE,
    IDLE_COLOR,
    IDLE_SHADE,
    MIN_PANEL_PX,
    SHADE_MAX,
    SHADE_MIN,
    SLIVER_COLOR,
    allocation_curves_figure,
    free_shade,
    gpu_heatmap_figure,
    node_order,
)
from gpusched.policies import policy_label
from gpusched.words.metric_names import metric_title
from gpusched.workload.openb import OpenbNodes


def values(encoded) -> np.ndarray:
    """A figure-JSON array as numbers: plotly writes numpy arrays as typed arrays (base64), lists
    as lists (``None`` for a gap, read as NaN)."""
    if isinstance(encoded, dict) and "bdata" in encoded:
        flat = np.frombuffer(base64.b64decode(encoded["bdata"]), dtype=encoded["dtype"])
        shape = [int(n) for n in str(encoded.get("shape", len(flat))).split(",")]
        return flat.astype(float).reshape(shape)
    return np.array(encoded, dtype=float)


def tiny_nodes() -> OpenbNodes:
    """n-a (A, 2 GPUs), n-b (B, 1 GPU), n-c (A, 2 GPUs), n-d (A, 1 GPU): model A has 5 GPUs, B 1."""
    return OpenbNodes(
        source="tiny.csv",
        name=("n-a", "n-b", "n-c", "n-d"),
        cpu_milli=np.full(4, 64_000),
        memory_mib=np.full(4, 262_144),
        gpus=np.array([2, 1, 2, 1]),
        model=("A", "B", "A", "A"),
    )


def tiny_run(final_rem: np.ndarray, policy: str = "fgd_best_fit", seed: int = 42,
             alloc: list[float | None] | None = None) -> AllocationRun:
    alloc = alloc if alloc is not None else [float(min(k, 90)) for k in range(N_COLUMNS)]
    return AllocationRun(policy=policy, seed=seed, alloc_pct=alloc, frag_pct=[5.0] * N_COLUMNS,
                         failed_pods=3, unhostable_pods=0, scheduled_pods=10, seconds=0.5,
                         final_rem=final_rem)


# Free milli-GPU per GPU: n-a full + half free, n-b idle, n-c idle + idle, n-d a 1-milli sliver.
REM = np.array([[0, 500], [1000, -1], [1000, 1000], [1, -1]])


def test_nodes_are_grouped_by_model_most_gpus_first_then_least_free():
    order = node_order(REM, tiny_nodes())
    assert list(order) == ["A", "B"]
    # Inside A: the 2-GPU nodes first (n-a with 500 free before n-c with 2000), then n-d.
    assert order["A"].tolist() == [0, 2, 3]
    assert order["B"].tolist() == [1]


def test_heatmap_has_one_panel_per_model_with_free_milli_and_blank_padding():
    spec = json.loads(gpu_heatmap_figure(tiny_run(REM), tiny_nodes()).to_json())
    heatmaps = [t for t in spec["data"] if t["type"] == "heatmap"]
    assert [t["name"] for t in heatmaps] == ["A", "B"]
    a = heatmaps[0]
    # Rows are GPU indices, columns the nodes n-a, n-c, n-d; n-d's second GPU does not exist.
    np.testing.assert_array_equal(values(a["z"]),
                                  [[FULL_SHADE, IDLE_SHADE, 1.0], [500.0, IDLE_SHADE, np.nan]])
    assert [row[0] for row in a["customdata"][0]] == ["n-a", "n-c", "n-d"]
    assert a["customdata"][1][0] == ["n-a", "A", 500]
    assert a["hoverongaps"] is False
    assert "thousandths" in a["hovertemplate"] and "GPU %{y}" in a["hovertemplate"]
    np.testing.assert_array_equal(values(heatmaps[1]["z"]), [[IDLE_SHADE]])
    # Both panels share one colour axis, so one colour bar explains them.
    assert {t["coloraxis"] for t in heatmaps} == {"coloraxis"}
    bar = spec["layout"]["coloraxis"]["colorbar"]
    assert "thousandths" in bar["title"]["text"] and "milli" not in bar["title"]["text"]
    assert bar["ticktext"][0].startswith("0") and bar["ticktext"][-1].startswith("1000")
    assert "nodes" in spec["layout"]["xaxis2"]["title"]["text"]
    texts = [a["text"] for a in spec["layout"]["annotations"]]
    assert any("GPU index" in t for t in texts)
    assert "<b>A</b> · 3 nodes of 1/2 GPUs" in texts and "<b>B</b> · 1 node of 1 GPU" in texts
    # a panel of 1-GPU nodes is no sliver
    layout = spec["layout"]
    plot_px = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    lo, hi = layout["yaxis2"]["domain"]
    assert (hi - lo) * plot_px >= MIN_PANEL_PX - 1


def _colour_at(value: float) -> str:
    """The colour :data:`FREE_COLORSCALE` gives a colour value (rgb string)."""
    pos = (value - SHADE_MIN) / (SHADE_MAX - SHADE_MIN)
    stops = [p for p, _ in FREE_COLORSCALE]
    i = max(j for j, p in enumerate(stops) if p <= pos)
    if i == len(stops) - 1 or stops[i + 1] == stops[i]:
        return plotly.colors.hex_to_rgb(FREE_COLORSCALE[i][1])
    lo, hi = FREE_COLORSCALE[i], FREE_COLORSCALE[i + 1]
    t = (pos - lo[0]) / (hi[0] - lo[0])
    a, b = plotly.colors.hex_to_rgb(lo[1]), plotly.colors.hex_to_rgb(hi[1])
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(("free", "colour"), [(0, FULL_COLOR), (1000, IDLE_COLOR), (1, SLIVER_COLOR)])
def test_full_idle_and_sliver_gpus_get_their_own_colours(free, colour):
    shade = float(free_shade(np.array([free]))[0])
    assert _colour_at(shade) == plotly.colors.hex_to_rgb(colour)


def test_partly_allocated_gpus_are_never_coloured_full_or_idle():
    for free in (1, 100, 500, 900, 999):
        rgb = _colour_at(float(free_shade(np.array([free]))[0]))
        assert rgb not in (plotly.colors.hex_to_rgb(FULL_COLOR), plotly.colors.hex_to_rgb(IDLE_COLOR))


def test_heatmap_rejects_a_state_that_does_not_match_the_nodes():
    with pytest.raises(ValueError, match="one row per node"):
        gpu_heatmap_figure(tiny_run(REM[:3]), tiny_nodes())


def test_full_cluster_heatmap_stays_small():
    rem = np.tile(np.array([0, 250, 1000, 1000, -1, -1, -1, -1]), (1213, 1))
    nodes = OpenbNodes("big.csv", tuple(f"node-{i:04d}" for i in range(1213)), np.zeros(1213),
                       np.zeros(1213), np.full(1213, 4), ("G2",) * 600 + ("T4",) * 613)
    fig = gpu_heatmap_figure(tiny_run(rem), nodes)
    assert len(fig.to_json()) < 1_000_000
    assert sum(len(t.x) for t in fig.data) == 1213


def test_curves_name_each_policy_and_overlay_published_dashed():
    runs = [tiny_run(REM, "fgd_best_fit"), tiny_run(REM, "fgd",
                                               alloc=[float(min(k, 95)) for k in range(N_COLUMNS)])]
    curves = curves_frame(runs, "openb_pod_list_default")
    published = curves.assign(alloc_pct=curves["alloc_pct"] - 1)
    spec = json.loads(allocation_curves_figure(curves, published).to_json())
    lines = {t["name"]: t for t in spec["data"]}
    for policy in ("fgd_best_fit", "fgd"):
        ours, pub = lines[policy_label(policy)], lines[f"{policy_label(policy)} (published)"]
        assert ours["line"].get("dash") in (None, "solid") and pub["line"]["dash"] == "dash"
        assert ours["line"]["color"] == pub["line"]["color"] == policy_color(policy)
    assert values(lines[policy_label("fgd")]["y"])[-1] == 95.0
    assert values(lines[f"{policy_label('fgd')} (published)"]["y"])[-1] == 94.0
    assert "% of cluster GPUs" in spec["layout"]["yaxis"]["title"]["text"]
    assert spec["layout"]["xaxis"]["title"]["text"] == metric_title("arrived_pct")


def test_zoom_fits_the_y_axis_to_the_window():
    curves = curves_frame([tiny_run(REM)], "x")
    fig = allocation_curves_figure(curves, None, x_from_pct=80)
    assert tuple(fig.layout.xaxis.range) == (80, 131)
    assert tuple(fig.layout.yaxis.range) == (79.0, 91.0)


def test_fragmentation_curves_get_their_own_axis_title():
    curves = curves_frame([tiny_run(REM)], "x")
    fig = allocation_curves_figure(curves, pd.DataFrame(columns=curves.columns), metric="frag_pct")
    assert "fragmentation" in fig.layout.yaxis.title.text
    assert [t.name for t in fig.data] == [policy_label("fgd_best_fit")]
