"""Background runs: shared futures per (scenario, policy, seed) and merged comparisons."""

from __future__ import annotations

from gpusched import load_scenario, run_policy
from gpusched.dashboard.background import BackgroundRuns
from gpusched.experiment.runner import comparison_from_results


def test_runs_are_shared_and_match_a_direct_run():
    text = load_scenario("ll-stall-mini").to_yaml()
    bg = BackgroundRuns()
    first = bg.submit(text, "first_fit", 1)
    assert bg.submit(text, "first_fit", 1) is first
    result = first.result(timeout=60)
    direct = run_policy(load_scenario("ll-stall-mini"), "first_fit", seed=1)
    assert result.metrics == direct.metrics
    assert bg.ready(text, "first_fit", [1])


def test_failed_runs_keep_their_error():
    text = load_scenario("ll-stall-mini").to_yaml()
    bg = BackgroundRuns()
    future = bg.submit(text, "no_such_policy", 0)
    assert future.exception(timeout=60) is not None
    assert bg.submit(text, "no_such_policy", 0) is future


def test_comparison_from_results_keeps_the_order():
    text = load_scenario("ll-stall-mini").to_yaml()
    bg = BackgroundRuns()
    a = bg.results(text, "least_loaded", [0, 1])
    b = bg.results(text, "first_fit", [0, 1])
    comparison = comparison_from_results("ll-stall-mini", a, b)
    assert list(comparison.summary().index) == ["least_loaded", "first_fit"]
    assert len(comparison.runs) == 4
