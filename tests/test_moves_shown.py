"""Moves show where a run moved jobs: the migrations of ``fastest_move``
(:mod:`gpusched.policies.migration`) join Compare's disruption bars and results, and Replay's
cards, and stay out of runs that moved nothing."""

from __future__ import annotations

import pytest
from apptest_support import assert_clean, open_page, plotly_specs

from gpusched import compare, load_scenario
from gpusched.figures.compare import (
    FAILURE_BAR_METRICS,
    MOVE_BAR_METRICS,
    disruption_metrics,
    has_disruptions,
    metric_bars_figure,
    moved_jobs,
    results_sections,
)
from gpusched.words.metric_names import metric_title

MOVING = "fastest_move"
SCENARIO = "fleet-16gpu"  # GPU speeds, so Fastest-Fit has faster GPUs to move jobs to


@pytest.fixture(scope="module")
def moved():
    return compare(load_scenario(SCENARIO), ["first_fit", MOVING], [0, 1])


def _titles(fig) -> list[str]:
    return [a.text for a in fig.layout.annotations]


def test_a_comparison_that_moved_jobs_shows_its_moves(moved):
    assert moved.runs.loc[moved.runs["policy"] == MOVING, "migrations"].min() > 0
    assert moved_jobs(moved) and has_disruptions(moved)
    assert disruption_metrics(moved) == FAILURE_BAR_METRICS + MOVE_BAR_METRICS
    assert metric_title("migrations") in _titles(metric_bars_figure(moved, disruption_metrics(moved)))
    sections = results_sections(moved)
    assert list(sections["Moves"].columns) == [metric_title(k) for k in MOVE_BAR_METRICS]


def test_a_comparison_that_moved_nothing_has_no_moves():
    still = compare(load_scenario(SCENARIO), ["first_fit", "best_fit"], [0])
    assert not moved_jobs(still) and not has_disruptions(still)
    assert disruption_metrics(still) == FAILURE_BAR_METRICS
    assert "Moves" not in results_sections(still)


def _on_fleet(page: str):
    at = open_page(page, small=False)
    at.session_state["scenario_yaml"] = load_scenario(SCENARIO).to_yaml()
    at.run()
    return at


def test_replay_shows_the_moves_of_a_run_that_moved_jobs():
    at = _on_fleet("views/replay.py")
    assert metric_title("migrations") not in [m.label for m in at.metric]  # Least-Loaded moves nothing
    at.selectbox(key="replay_policy").set_value(MOVING).run()
    assert_clean(at)
    cards = {m.label: m.value for m in at.metric}
    assert int(cards[metric_title("migrations")].replace(",", "")) > 0


def test_compare_draws_the_moves_of_a_run_that_moved_jobs():
    at = _on_fleet("views/compare.py")
    at.radio(key="compare_source").set_value("live").run()
    at.multiselect(key="compare_policies").set_value(["first_fit", MOVING]).run()
    at.number_input(key="compare_seeds").set_value(2).run()
    assert_clean(at)
    panels = [a["text"] for spec in plotly_specs(at) for a in spec["layout"].get("annotations", [])]
    assert metric_title("migrations") in panels
    assert any("moves" in m.value for m in at.markdown if m.value.startswith("#####"))
