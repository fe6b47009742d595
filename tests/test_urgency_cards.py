"""Deadlines met and GPU cost beside time to result, only where they mean something: deadlines
where jobs carry them, cost where every GPU has a price (gpusched.dashboard.cards), on Replay,
Compare and Home."""

from __future__ import annotations

import pytest
from apptest_support import assert_clean, open_page, plotly_specs

from gpusched import load_scenario, run_policy
from gpusched.dashboard.cards import (
    COST_METRIC,
    DEADLINE_METRIC,
    cards_for,
    fully_priced,
    scenario_cards,
    urgency_cards,
)
from gpusched.words.metric_names import metric_title

GAVEL = load_scenario("gavel-108gpu").with_overrides(**{"workload.jobs": 100})
"""K80, P100 and V100 GPUs, each with a shipped price; 100 jobs keep the pages quick."""
GAVEL_DEADLINES = GAVEL.with_overrides(**{"workload.deadlines": True})


def test_deadlines_where_jobs_carry_them_and_cost_where_every_gpu_has_a_price():
    assert fully_priced(GAVEL)
    assert not fully_priced(load_scenario("fleet-16gpu"))  # the A100-80GB and the L4 have no price
    assert scenario_cards(GAVEL) == (COST_METRIC,)
    assert scenario_cards(GAVEL_DEADLINES) == (DEADLINE_METRIC, COST_METRIC)
    assert scenario_cards(load_scenario("fleet-16gpu")) == ()
    run = run_policy(GAVEL_DEADLINES, "first_fit", seed=0)
    assert urgency_cards(GAVEL_DEADLINES, [run]) == (DEADLINE_METRIC, COST_METRIC)
    assert 0 < run.metrics[DEADLINE_METRIC] <= 1 and run.metrics[COST_METRIC] > 0
    assert urgency_cards(GAVEL, [run_policy(GAVEL, "first_fit", seed=0)]) == (COST_METRIC,)


def test_a_price_table_that_prices_every_gpu_earns_the_cost_card():
    fleet = load_scenario("fleet-16gpu")
    models = sorted({n.gpu_model for n in fleet.cluster.nodes})
    priced = fleet.with_overrides(prices={m: 1.0 for m in models})
    assert cards_for(priced, deadlines=False) == (COST_METRIC,)


def _on(page: str, scenario):
    at = open_page(page, small=False)
    at.session_state["scenario_yaml"] = scenario.to_yaml()
    at.run()
    return at


def test_replay_shows_deadlines_and_cost_right_after_time_to_result():
    at = _on("views/replay.py", GAVEL_DEADLINES)
    assert_clean(at)
    labels = [m.label for m in at.metric]
    jct = labels.index(metric_title("avg_jct_min"))
    assert labels[jct + 1:jct + 3] == [metric_title(DEADLINE_METRIC), metric_title(COST_METRIC)]


@pytest.mark.parametrize("page", ["views/replay.py", None])
def test_neither_card_where_it_would_mislead(page):
    """The small FIFO scenario (unpriced GPUs, no deadlines) on Replay, and Home's fleet."""
    at = open_page(page)
    assert_clean(at)
    labels = [m.label for m in at.metric]
    assert metric_title("avg_jct_min") in labels
    assert metric_title(DEADLINE_METRIC) not in labels and metric_title(COST_METRIC) not in labels


def test_compare_draws_deadlines_and_cost_beside_time_to_result():
    at = _on("views/compare.py", GAVEL_DEADLINES)
    at.radio(key="compare_source").set_value("live").run()
    at.multiselect(key="compare_policies").set_value(["first_fit", "fastest_fit"]).run()
    at.number_input(key="compare_seeds").set_value(2).run()
    assert_clean(at)
    bars = next(spec for spec in plotly_specs(at)
                if metric_title("avg_jct_min") in [a["text"] for a in spec["layout"].get("annotations", [])])
    panels = [a["text"] for a in bars["layout"]["annotations"]]
    jct = panels.index(metric_title("avg_jct_min"))
    assert panels[jct + 1:jct + 3] == [metric_title(DEADLINE_METRIC), metric_title(COST_METRIC)]
