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


def test_a_mean_in_the_background_is_the_mean_of_the_runs_and_picks_the_same_best():
    """The best-heuristic search of a large scenario runs as one mean per pair in the worker; it
    names the pair the comparison of the same runs names."""
    from gpusched.dashboard.headline import BEST_BY, best_heuristic, best_of_means
    from gpusched.experiment.runner import compare

    scenario = load_scenario("ll-stall-mini")
    text, seeds, pairs = scenario.to_yaml(), (0, 1), ("fcfs+first_fit", "sjf+best_fit", "fitfirst+best_fit")
    bg = BackgroundRuns()
    means = {p: bg.submit_mean(text, p, seeds, BEST_BY) for p in pairs}
    assert bg.submit_mean(text, pairs[0], seeds, BEST_BY) is means[pairs[0]]
    got = {p: f.result(timeout=120) for p, f in means.items()}
    comparison = compare(scenario, list(pairs), list(seeds))
    want = comparison.summary()[BEST_BY]
    assert all(abs(got[p] - want[p]) <= 1e-9 * max(1.0, abs(want[p])) for p in pairs)
    assert best_of_means(got) == best_heuristic(comparison, pairs)


def test_the_best_of_equal_means_is_the_first_given():
    from gpusched.dashboard.headline import best_of_means

    assert best_of_means({"b": 2.0, "a": 1.0, "c": 1.0}) == "a"
    assert best_of_means({"c": 1.0, "a": 1.0}) == "c"
