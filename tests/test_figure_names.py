"""The figure walk: every figure the pages build, on small real results, shows words, never a raw
metric key, policy key or parameter path, in its titles, axes, legend or menus."""

from __future__ import annotations

import json

import pytest
from raw_names import figure_texts, raw_in

from gpusched import compare, load_scenario
from gpusched.dashboard.headline import HEADLINE_METRICS
from gpusched.experiment.scorecard import scorecard
from gpusched.experiment.stall import analyse_stall, idle_steps
from gpusched.figures import (
    FAILURE_BAR_METRICS,
    arrivals_figure,
    conditions_heatmap_figure,
    duration_figure,
    gantt_figure,
    gpus_figure,
    metric_bars_figure,
    misroute_causes_figure,
    model_speed_figure,
    replay_figure,
    runtime_by_model_figure,
    side_by_side_figure,
    stall_figure,
    util_over_time_figure,
    vram_figure,
    wait_cdf_figure,
)
from gpusched.figures.compare import FOREST_METRICS, forest_figure, results_table, scorecard_table
from gpusched.figures.sweep import labelled_runs, sweep_figure
from gpusched.paths import STALL_CONDITIONS_RESULTS_DIR
from gpusched.sweep.analysis import discover_sweeps, load_sweep_results, metrics, parameters

POLICIES = ["first_fit", "least_loaded", "fcfs+first_fit", "sjf+best_fit"]


@pytest.fixture(scope="module")
def comparison():
    scenario = load_scenario("fleet-16gpu-failures").with_overrides(**{"workload.jobs": 40})
    return compare(scenario, POLICIES, [0, 1])


def _texts(fig) -> list[str]:
    return figure_texts(json.loads(fig.to_json()))


def _assert_words(fig, what: str) -> None:
    texts = _texts(fig)
    assert texts, what
    found = {t: raw_in(t) for t in texts if raw_in(t)}
    assert not found, f"{what}: raw names in {found}"


def test_comparison_figures_show_words(comparison):
    card = scorecard(comparison, "first_fit")
    runs = [comparison.results[(p, 0)] for p in POLICIES]
    figures = {
        "bars": metric_bars_figure(comparison),
        "failure bars": metric_bars_figure(comparison, FAILURE_BAR_METRICS),
        "headline bars": metric_bars_figure(comparison, HEADLINE_METRICS),
        "forest": forest_figure(card, FOREST_METRICS),
        "cdf": wait_cdf_figure(comparison),
        "util": util_over_time_figure(comparison, seed=0),
        "side by side": side_by_side_figure(runs[0], runs[1]),
    }
    for what, fig in figures.items():
        _assert_words(fig, what)
    assert any("Time to result" in t for t in _texts(figures["forest"]))


def test_comparison_tables_show_words(comparison):
    for table in (results_table(comparison), scorecard_table(scorecard(comparison, "first_fit"))):
        assert not raw_in(" ".join(map(str, table.columns))), list(table.columns)
        cells = [*map(str, table.index), *map(str, table.get("policy", [])),
                 *map(str, table.get("metric", []))]
        assert not raw_in(" ".join(cells)), cells


def test_scorecard_shows_fractions_in_percent(comparison):
    card = scorecard(comparison, "first_fit", metrics=("avg_util",))
    shown = scorecard_table(card)
    assert shown["metric"].iloc[0].endswith("(%)")
    mean = float(card["policy_mean"].iloc[0])
    assert shown["policy mean"].iloc[0] == f"{mean * 100:,.1f}"


def test_run_figures_show_words(comparison):
    result = comparison.results[("least_loaded", 0)]
    scenario = load_scenario("fleet-16gpu").with_overrides(**{"workload.jobs": 40})
    cluster = scenario.build_cluster()
    jobs = scenario.jobs(cluster=cluster)
    report = analyse_stall(result)
    figures = {
        "replay": replay_figure(result), "gantt": gantt_figure(result),
        "stall": stall_figure([comparison.results[(p, 0)] for p in POLICIES], report, idle_steps(result),
                              idle_steps(comparison.results[("first_fit", 0)]), "first_fit"),
        "arrivals": arrivals_figure(jobs), "duration": duration_figure(jobs), "vram": vram_figure(jobs),
        "gpus": gpus_figure(jobs),
        "runtime": runtime_by_model_figure(jobs, cluster, scenario.speed_table()),
        "model speeds": model_speed_figure(jobs, cluster, scenario.gpu_speeds(cluster)),
    }
    for what, fig in figures.items():
        _assert_words(fig, what)


def test_conditions_figures_show_words():
    results = load_sweep_results(STALL_CONDITIONS_RESULTS_DIR)
    _assert_words(conditions_heatmap_figure(results), "conditions heatmap")
    _assert_words(misroute_causes_figure(results), "misroute causes")


def test_every_sweep_figure_and_table_shows_words():
    """Every metric of every shipped sweep against every parameter, as the Sweeps page offers."""
    walked = 0
    for folder in discover_sweeps():
        table = load_sweep_results(folder)
        if (table.get("kind") == "allocation").all():
            continue
        params = [p for p in parameters(table) if p != "policy"]
        for y in metrics(table):
            for x in params:
                _assert_words(sweep_figure(table, x, y), f"{folder.name}: {y} against {x}")
                walked += 1
        assert not raw_in(" ".join(labelled_runs(table).columns))
    assert walked > 20
