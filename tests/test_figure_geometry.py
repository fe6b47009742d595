"""Encodings and layout of the figures, read from their JSON: error bars that stay at or above 0,
panels without variation left out, the conditions heatmap in minutes, upright GPU labels clear of
the title below them up to 64 GPUs, a slider that spans the time axis, and legends clear of
titles."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched import compare, load_scenario, run_policy
from gpusched.experiment.stall import (
    NO_FIT_CHECK_VARIANTS,
    analyse_stall,
    idle_steps,
    wait_diff_grid,
    wait_ratio_grid,
)
from gpusched.figures import conditions_heatmap_figure, metric_bars_figure, replay_figure, stall_figure
from gpusched.figures.compare import BAR_METRICS, bar_intervals, varied_metrics
from gpusched.figures.frozen import frames_of
from gpusched.figures.gpu_axis import GPU_TICK_ANGLE, LABELLED_GPUS_MAX, gpu_ticks
from gpusched.figures.replay import (
    MARGIN_BOTTOM_PX,
    MARGIN_TOP_PX,
    gpu_label_px,
    side_by_side_figure,
)
from gpusched.figures.style import wrap_title
from gpusched.paths import STALL_CONDITIONS_RESULTS_DIR
from gpusched.sweep.analysis import load_sweep_results
from gpusched.words.metric_names import metric_title


@pytest.fixture(scope="module")
def comparison():
    scenario = load_scenario("phase1-4gpu").with_overrides(**{"workload.jobs": 40})
    return compare(scenario, ["first_fit", "least_loaded", "best_fit"], [0, 1, 2])


def _bar_traces(fig):
    return [t for t in fig.data if t.type == "bar" and t.error_y and t.error_y.array is not None]


def test_error_bars_never_go_below_zero_and_say_what_they_are(comparison):
    fig = metric_bars_figure(comparison)
    traces = _bar_traces(fig)
    assert traces
    for t in traces:
        low = np.asarray(t.y, float) - np.asarray(t.error_y.arrayminus, float)
        assert (low >= -1e-9).all(), (t.name, low)
        assert (np.asarray(t.error_y.array, float) >= 0).all()
    assert "95 % interval of the mean" in fig.layout.title.subtitle.text


def test_interval_is_the_t_interval_of_the_mean_cut_at_zero(comparison):
    runs = comparison.runs
    bars = bar_intervals(comparison, "avg_wait_min")
    for policy, row in bars.iterrows():
        values = runs.loc[runs["policy"] == policy, "avg_wait_min"].to_numpy(float)
        assert row["mean"] == pytest.approx(values.mean())
        half = 4.302652729911275 * values.std(ddof=1) / np.sqrt(values.size)  # t(0.975, df=2)
        assert row["high"] == pytest.approx(values.mean() + half, rel=1e-6)
        assert row["low"] == pytest.approx(max(values.mean() - half, 0.0), rel=1e-6, abs=1e-9)


def test_a_metric_equal_for_every_policy_gets_a_line_not_a_panel(comparison):
    metrics = (*BAR_METRICS, "jobs_submitted")
    varied, constant = varied_metrics(comparison, list(metrics))
    assert "jobs_submitted" in constant  # the same jobs for every policy
    fig = metric_bars_figure(comparison, metrics)
    titles = [a.text for a in fig.layout.annotations]
    for key in constant:
        assert metric_title(key) not in titles
        assert metric_title(key) in fig.layout.title.subtitle.text.replace("<br>", " ")
    assert [metric_title(k) for k in varied] == titles
    one_policy = compare(load_scenario("phase1-4gpu").with_overrides(**{"workload.jobs": 20}),
                         ["first_fit"], [0])
    assert varied_metrics(one_policy, list(BAR_METRICS)) == (list(BAR_METRICS), [])


def test_conditions_heatmap_is_coloured_by_extra_minutes_with_the_ratio_in_the_hover():
    results = load_sweep_results(STALL_CONDITIONS_RESULTS_DIR)
    fig = conditions_heatmap_figure(results)
    for variant, trace in zip(NO_FIT_CHECK_VARIANTS, fig.data, strict=True):
        diff = wait_diff_grid(results, variant)
        ratio = wait_ratio_grid(results, variant)
        np.testing.assert_allclose(np.asarray(trace.z, float), diff.to_numpy(float), atol=0.01)
        np.testing.assert_allclose(np.asarray(trace.customdata, float), ratio.to_numpy(float),
                                   atol=0.01)
        assert trace.zmid == 0 and "min" in trace.hovertemplate and "×" in trace.hovertemplate
    # A larger extra wait is never drawn paler than a smaller one: the scale is linear in minutes.
    top = max(abs(float(np.nanmax(np.abs(np.asarray(t.z, float))))) for t in fig.data)
    assert fig.data[0].zmax == pytest.approx(max(top, 1.0), abs=0.01)


@pytest.mark.parametrize("preset", ["fleet-16gpu", "hetero-bigfirst-16gpu", "fleet-64gpu",
                                    "gavel-108gpu-heavy"])
def test_gpu_labels_clear_the_title_below_them(preset):
    """Up to :data:`LABELLED_GPUS_MAX` GPUs, one upright label each; above, one level label per
    run of one GPU model, each naming its model and count."""
    scenario = load_scenario(preset).with_overrides(**{"workload.jobs": 30})
    result = run_policy(scenario, "first_fit", seed=0)
    labels = [result.cluster.gpu_label(g) for g in range(result.cluster.n_gpus)]
    many = len(labels) > LABELLED_GPUS_MAX
    ticks = gpu_ticks(result.cluster)
    for fig in (replay_figure(result, max_frames=20), side_by_side_figure(result, result, max_frames=20)):
        layout = fig.layout
        plot_px = layout.height - layout.margin.t - layout.margin.b
        assert (layout.margin.t, layout.margin.b) == (MARGIN_TOP_PX, MARGIN_BOTTOM_PX)
        gap_px = (layout.yaxis.domain[0] - layout.yaxis3.domain[1]) * plot_px
        shown = list(layout.xaxis2.ticktext)
        label_px = 11 * 1.2 if many else max(len(x) for x in shown) * 11 * 0.68  # 11 px text
        title_px = 18  # one line of the subplot title
        assert gap_px >= label_px + title_px, (preset, gap_px, label_px)
        if many:
            assert layout.xaxis2.tickangle == 0 and len(shown) < len(labels) // 8, shown
            counts = sum(int(t.split("×")[1]) for t in shown)
            assert counts == len(labels), shown  # the groups cover every GPU once
        else:
            assert shown == labels and gpu_label_px(labels) >= label_px
            assert layout.xaxis2.tickangle == GPU_TICK_ANGLE
        assert tuple(layout.xaxis2.tickvals) == ticks.tickvals


def test_slider_spans_the_time_axis_and_frames_are_even_in_time():
    result = run_policy(load_scenario("phase1-8gpu"), "least_loaded", seed=0)
    fig = replay_figure(result, max_frames=60)
    slider = fig.layout.sliders[0]
    assert (slider.x, slider.len) == (0.0, 1.0) and tuple(fig.layout.xaxis3.domain) == (0.0, 1.0)
    assert slider.pad.l == 0 and slider.pad.r == 0
    times = np.array([f["data"][2]["x"][0] for f in frames_of(fig)])
    steps = np.diff(times)
    assert np.allclose(steps, steps[0], atol=0.02), "frames are not evenly spaced in time"
    assert times[0] == pytest.approx(fig.layout.xaxis3.range[0], abs=0.01)
    assert times[-1] == pytest.approx(fig.layout.xaxis3.range[1], abs=0.01)


def test_stall_legend_sits_under_the_plot_clear_of_every_title():
    scenario = load_scenario("phase1-8gpu")
    runs = [run_policy(scenario, p, seed=0) for p in ("least_loaded", "first_fit")]
    fig = stall_figure(runs, analyse_stall(runs[0]), idle_steps(runs[0]))
    assert fig.layout.legend.yanchor == "top" and fig.layout.legend.y < 0


def test_long_titles_wrap_at_spaces():
    text = "Time to result: average JCT (min) · difference"
    wrapped = wrap_title(text, 20)
    assert wrapped.replace("<br>", " ") == text
    assert all(len(line) <= 20 for line in wrapped.split("<br>"))
