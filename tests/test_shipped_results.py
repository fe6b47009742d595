"""The shipped results (``benchmarks/results/window-agent.json``) are what the runs give: the
dashboard shows them at once, so each number it shows is checked here by running it again."""

from __future__ import annotations

import json

import pytest

from gpusched.agent import AGENT_POLICY
from gpusched.dashboard.headline import (
    HEADLINE_BASELINE,
    HEADLINE_SCENARIO,
    headline,
    shipped_for,
    shipped_mismatches,
    shipped_results,
)
from gpusched.experiment.runner import Comparison, compare
from gpusched.figures.compare import gini_beside_wait
from gpusched.paths import WINDOW_AGENT_RESULTS
from gpusched.workload.presets import load_scenario


def _again(name: str, policies: list[str], seeds: list[int]) -> Comparison:
    return compare(load_scenario(name), policies, seeds)


def test_the_headline_heuristics_give_the_shipped_numbers_on_every_seed():
    """FCFS First-Fit and the best heuristic, the two numbers Home leads with, on all 20 seeds."""
    h = headline()
    live = _again(h.scenario, [h.baseline, h.best], list(h.seeds))
    assert len(live.runs) == 2 * len(h.seeds) == 40
    assert shipped_mismatches(h.shipped.comparison, live) == []


@pytest.mark.parametrize("name", sorted(json.loads(WINDOW_AGENT_RESULTS.read_text(encoding="utf-8"))))
def test_every_shipped_heuristic_gives_its_shipped_numbers(name):
    """Every heuristic of every shipped preset, on the last of its seeds (the headline's two run on
    every seed above)."""
    shipped = shipped_results()[name]
    live = _again(name, shipped.heuristics, [shipped.seeds[-1]])
    assert shipped_mismatches(shipped.comparison, live) == []


@pytest.mark.parametrize("name", sorted(json.loads(WINDOW_AGENT_RESULTS.read_text(encoding="utf-8"))))
def test_every_shipped_preset_keeps_the_gini_that_compare_shows_beside_the_wait(name):
    """Every run of every shipped preset keeps its Gini coefficient (a number between 0 and 1), so
    Compare's shipped view puts it right after the average wait (its value on the last seed is
    checked against a run again above)."""
    shipped = shipped_results()[name]
    gini = shipped.comparison.runs.get("gini")
    assert gini is not None, f"{name}: the shipped runs keep no Gini"
    assert gini.notna().all() and gini.between(0.0, 1.0).all()
    metrics = gini_beside_wait(shipped.metrics)
    assert metrics[metrics.index("avg_wait_min") + 1] == "gini"


def test_the_agent_gives_its_shipped_numbers_on_the_headline():
    shipped = shipped_results()[HEADLINE_SCENARIO]
    live = _again(HEADLINE_SCENARIO, [AGENT_POLICY], [shipped.seeds[0]])
    assert shipped_mismatches(shipped.comparison, live) == []


def test_a_changed_number_or_a_missing_run_is_caught():
    shipped = shipped_results()[HEADLINE_SCENARIO]
    live = _again(HEADLINE_SCENARIO, [HEADLINE_BASELINE], [shipped.seeds[0], 7])
    runs = shipped.comparison.runs.copy()
    row = runs.index[(runs["policy"] == HEADLINE_BASELINE) & (runs["seed"] == shipped.seeds[0])][0]
    runs.loc[row, "p99_wait_min"] += 1e-3
    wrong = shipped_mismatches(Comparison(HEADLINE_SCENARIO, runs, {}), live)
    assert (HEADLINE_BASELINE, shipped.seeds[0], "p99_wait_min") in {w[:3] for w in wrong}
    assert {w[2] for w in wrong if w[1] == 7} == set(shipped.metrics)  # seed 7 was never shipped


def test_shipped_results_belong_to_the_unedited_preset_only():
    assert shipped_for(load_scenario(HEADLINE_SCENARIO).to_yaml()).scenario == HEADLINE_SCENARIO
    edited = load_scenario(HEADLINE_SCENARIO).with_overrides(**{"workload.jobs": 40}).to_yaml()
    assert shipped_for(edited) is None
