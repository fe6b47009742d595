"""Figures of the demo's pages, read from their JSON: a Gavel workload drawn for what it holds,
titles clear of the panels, Gini beside the wait, runaway values cut honestly, sweep bars above 0,
no fixed text colour (the dashboard's light and dark themes set it)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from gpusched import compare, load_scenario
from gpusched.dashboard.workload import has_job_type_shares, workload_panels
from gpusched.experiment.scorecard import scorecard
from gpusched.figures.compare import (
    BAR_METRICS,
    FOREST_METRICS,
    forest_figure,
    forest_panels,
    gini_beside_wait,
    metric_bars_figure,
    wide_interval_note,
)
from gpusched.figures.knowledge import cost_of_not_knowing_figure, knowledge_means_figure
from gpusched.figures.style import (
    PANEL_TITLE_LINE_PX,
    SUBTITLE_LINE_PX,
    TITLE_PX,
    outlier_cap,
)
from gpusched.figures.sweep import sweep_figure
from gpusched.figures.workload import (
    HEATMAP_ROWS,
    MAX_ARRIVAL_BINS,
    arrivals_figure,
    job_models_figure,
    model_speed_figure,
)


@pytest.fixture(scope="module")
def gavel():
    scenario = load_scenario("gavel-108gpu-heavy")
    cluster = scenario.build_cluster()
    return scenario, cluster, scenario.jobs(cluster=cluster)


def test_a_gavel_workload_gets_job_models_and_each_jobs_speed_not_vram_or_shares(gavel):
    scenario, _, jobs = gavel
    panels = workload_panels(scenario, jobs)
    assert "vram" not in panels and "runtime_by_type" not in panels
    assert {"job_models", "runtime_by_gpu", "model_speeds"} <= set(panels)
    assert not has_job_type_shares(scenario)
    synthetic = load_scenario("fleet-16gpu")
    syn_panels = workload_panels(synthetic, synthetic.jobs(cluster=synthetic.build_cluster()))
    assert "vram" in syn_panels and "job_models" not in syn_panels and has_job_type_shares(synthetic)


def test_the_job_models_chart_counts_every_job(gavel):
    _, _, jobs = gavel
    bar = job_models_figure(jobs).data[0]
    assert sum(bar.x) == len(jobs) and len(set(bar.y)) == len({j.model for j in jobs})


def test_arrivals_keep_at_most_the_bins_that_stay_readable(gavel):
    _, _, jobs = gavel
    fig = arrivals_figure(jobs)
    assert sum(len(t.x) for t in fig.data) <= MAX_ARRIVAL_BINS * len(fig.data)
    assert sum(sum(t.y) for t in fig.data) == len(jobs)
    width = fig.data[0].width
    assert width >= 60 and "min" not in fig.layout.title.text  # Gavel's months of arrivals: days


def test_the_speed_heatmap_of_ninety_kinds_stays_about_a_screen_tall(gavel):
    scenario, cluster, jobs = gavel
    fig = model_speed_figure(jobs, cluster, scenario.gpu_speeds(cluster))
    rows = len(fig.data[0].y)
    assert rows <= HEATMAP_ROWS and fig.layout.height <= 200 + 22 * HEATMAP_ROWS
    assert all("×" in c for c in fig.data[0].x)  # a column per GPU model and gang size


@pytest.fixture(scope="module")
def three_seeds():
    return compare(load_scenario("phase1-8gpu"), ["first_fit", "least_loaded", "best_fit"], [0, 1, 2])


def _title_bottom(layout) -> float:
    lines = layout.title.subtitle.text.count("<br>") + 1 if layout.title.subtitle.text else 0
    return TITLE_PX + SUBTITLE_LINE_PX * lines


def test_the_bar_titles_leave_room_for_every_subtitle_line_above_the_panel_titles(three_seeds):
    fig = metric_bars_figure(three_seeds, BAR_METRICS)
    layout = fig.layout
    assert layout.title.yref == "container" and layout.title.yanchor == "top"
    # the panel titles sit in the top margin, above the top row of panels
    assert layout.margin.t >= _title_bottom(layout) + PANEL_TITLE_LINE_PX
    names = [a.text for a in layout.annotations]
    if "Jobs completed" not in names:  # every policy completes every job: named, not drawn
        subtitle = layout.title.subtitle.text.replace("<br>", " ")
        assert "the same for every policy, so not drawn:" in subtitle and "Jobs completed 250" in subtitle
    assert names[:3] == ["Time to result (min)", "Average wait (min)", "Imbalance between GPUs (Gini, 0–1)"]


def test_gini_sits_beside_the_wait():
    assert BAR_METRICS[:3] == ("avg_jct_min", "avg_wait_min", "gini")
    assert FOREST_METRICS[:3] == ("avg_jct_min", "avg_wait_min", "gini")
    assert gini_beside_wait(["avg_jct_min", "avg_wait_min", "p99_wait_min", "gini"]) == \
        ["avg_jct_min", "avg_wait_min", "gini", "p99_wait_min"]


def test_the_paired_table_lists_the_panels_the_forest_draws(three_seeds):
    card = scorecard(three_seeds, "first_fit", FOREST_METRICS)
    drawn, flat = forest_panels(card, FOREST_METRICS)
    fig = forest_figure(card, FOREST_METRICS)
    assert len(drawn) + len(flat) == len(FOREST_METRICS)
    for m in flat:
        assert np.allclose(card[card["metric"] == m][["diff", "low", "high"]].to_numpy(float), 0.0)
    panels = [a.text for a in fig.layout.annotations if "difference" in a.text]
    assert len(panels) == len(drawn)


def test_three_seeds_say_their_intervals_are_wide(three_seeds):
    note = wide_interval_note(three_seeds, BAR_METRICS)
    assert note is not None and "With 3 seeds" in note and "paired differences" in note
    one = compare(load_scenario("phase1-8gpu"), ["first_fit", "best_fit"], [0])
    assert wide_interval_note(one, BAR_METRICS) is None


def test_outlier_cap_cuts_a_runaway_value_and_keeps_ordinary_ones():
    values = [1500.0, 1480.0, 2508.0, 9671.0, 1490.0, 1762.0]
    extents = [(1400, 1600), (1400, 1550), (1634, 3381), (4485, 14857), (1400, 1580), (1507, 2018)]
    cap, out = outlier_cap(values, extents)
    assert out == {3} and cap == pytest.approx(1.1 * 3381)
    assert outlier_cap([1.0, 1.2, 0.9], [(0.5, 1.5)] * 3) == (None, set())


def _means(rows):
    return pd.DataFrame(rows, columns=["policy", "setting", "mean", "low", "high", "refused"])


def test_the_knowledge_bars_cut_their_axis_past_a_runaway_mean_and_write_its_value():
    rows = []
    for p, base in (("fcfs+first_fit", 1762.0), ("sjf+fastest_fit", 1482.0), ("srtf+eft", 1433.0)):
        for s in ("exact", "history"):
            m = 9671.0 if (p, s) == ("srtf+eft", "history") else base
            rows.append((p, s, m, m * 0.9, m * 1.1, False))
    fig = knowledge_means_figure(_means(rows), "avg_jct_min", n_seeds=10)
    top = fig.layout.yaxis.range[1]
    assert top < 3000  # not 15,000: the ordinary bars keep the axis
    history = fig.data[1]
    assert max(v for v in history.y if v is not None) == pytest.approx(top)
    assert "9,671 ↑" in history.text and "9,671" in fig.layout.title.subtitle.text
    assert history.customdata[2] == pytest.approx(9671.0)  # the hover keeps the true mean


def test_the_cost_dots_of_one_rule_sit_side_by_side_not_on_top_of_each_other():
    cost = pd.DataFrame([
        {"policy": p, "setting": s, "diff": 0.0, "low": 0.0, "high": 0.0, "n": 10, "interval": "t"}
        for p in ("fcfs+first_fit", "las+fastest_fit") for s in ("lognormal 1", "none", "history")])
    fig = cost_of_not_knowing_figure(cost)
    points = {(x, y) for t in fig.data for x, y in zip(t.x, t.y, strict=True)}
    assert len(points) == len(cost)


def test_sweep_error_bars_stay_above_0_and_whole_parameters_tick_whole():
    runs = pd.DataFrame({"policy": ["a"] * 6, "load": [4, 4, 5, 5, 6, 6],
                         "avg_wait_min": [0.0, 10.0, 0.0, 30.0, 5.0, 6.0], "error": [""] * 6})
    spec = json.loads(sweep_figure(runs, "load", "avg_wait_min").to_json())
    trace = spec["data"][0]
    lows = np.array(trace["y"]) - np.array(trace["error_y"]["arrayminus"])
    assert lows.min() >= 0 and spec["layout"]["xaxis"]["tickvals"] == [4, 5, 6]


def test_no_figure_fixes_its_text_colour(three_seeds):
    for fig in (metric_bars_figure(three_seeds, BAR_METRICS),):
        assert fig.layout.font.color is None
        assert fig.layout.paper_bgcolor is None and fig.layout.plot_bgcolor is None


def test_a_traces_pods_get_their_share_of_a_gpu_not_a_vram_bar_at_0_gb():
    from gpusched.figures.workload import compute_figure

    scenario = load_scenario("openb-sample")
    jobs = scenario.jobs(cluster=scenario.build_cluster())
    panels = workload_panels(scenario, jobs)
    assert "compute" in panels and "vram" not in panels and not has_job_type_shares(scenario)
    fig = compute_figure(jobs)
    assert sum(sum(t.y) for t in fig.data) == len(jobs)
    assert "100" in fig.data[0].x  # the whole-GPU pods
