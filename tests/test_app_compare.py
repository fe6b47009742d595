"""Compare page: chosen policies over N seeds, charts naming every policy, CSV download."""

from __future__ import annotations

import json
import time

import pytest
from apptest_support import assert_clean, open_page, plotly_specs

from gpusched.policies import policy_label


def _live():
    """The Compare page, switched from the shipped results to live runs on the current scenario."""
    at = open_page("views/compare.py")
    at.radio(key="compare_source").set_value("live").run()
    return at


def test_the_default_view_is_the_shipped_headline_with_each_interval_named():
    at = open_page("views/compare.py")
    assert_clean(at)
    assert at.radio(key="compare_source").value == "shipped"
    assert at.selectbox(key="compare_shipped_scenario").value == "fleet-16gpu"
    table = next(df.value for df in at.dataframe if "won / tied / lost" in df.value.columns)
    kinds = dict(zip(table["metric"], table["interval"], strict=False))
    assert kinds["p99 wait (min)"] == "bootstrap" and kinds["Time to result (min)"] == "t interval"
    forest = next(spec for spec in plotly_specs(at)
                  if "Paired differences" in spec["layout"]["title"]["text"])
    assert "bootstrap for p99 wait" in forest["layout"]["title"]["subtitle"]["text"]


def test_compare_charts_name_every_chosen_policy():
    at = _live()
    chosen = ["first_fit", "least_loaded", "best_fit"]
    at.multiselect(key="compare_policies").set_value(chosen).run()
    at.number_input(key="compare_seeds").set_value(2).run()
    assert_clean(at)
    specs = plotly_specs(at)
    assert len(specs) >= 4
    for spec in specs[:3]:
        text = json.dumps(spec, ensure_ascii=False)
        for p in chosen:
            assert policy_label(p) in text, (p, spec["layout"].get("title"))
    assert at.get("download_button")


def test_changing_the_policies_updates_the_charts():
    at = _live()
    at.multiselect(key="compare_policies").set_value(["first_fit", "random"]).run()
    assert_clean(at)
    text = json.dumps(plotly_specs(at)[0], ensure_ascii=False)
    assert "Random" in text and "Least-Loaded" not in text


@pytest.mark.parametrize(("policy", "label"), [("ppo", "PPO agent"), ("ppo_rollout", "PPO agent + rollouts")])
def test_the_agent_joins_the_charts_when_its_background_runs_finish(policy, label):
    at = _live()
    at.multiselect(key="compare_policies").set_value(["first_fit", policy]).run()
    at.number_input(key="compare_seeds").set_value(1).run()
    assert_clean(at)
    deadline = time.monotonic() + 120
    while label not in json.dumps(plotly_specs(at)[0], ensure_ascii=False):
        assert time.monotonic() < deadline, "the agent's runs never joined the charts"
        assert at.get("progress") or plotly_specs(at), "no progress shown while the agent runs"
        time.sleep(1.0)
        at.run()
        assert_clean(at)


def test_compare_pairs_every_policy_against_a_baseline():
    at = _live()
    at.multiselect(key="compare_policies").set_value(["first_fit", "best_fit", "sjf"]).run()
    at.number_input(key="compare_seeds").set_value(3).run()
    at.selectbox(key="compare_baseline").set_value("best_fit").run()
    assert_clean(at)
    table = next(df.value for df in at.dataframe if "won / tied / lost" in df.value.columns)
    assert set(table["policy"]) == {policy_label("first_fit"), policy_label("sjf")}
    forest = next(spec for spec in plotly_specs(at)
                  if "Paired differences" in spec["layout"]["title"]["text"])
    assert any(t.get("error_x") for t in forest["data"])


def test_home_compare_and_replay_show_one_percentile_of_the_wait():
    """The tail of the wait is one fact (:data:`~gpusched.experiment.scorecard.TAIL_WAIT_METRIC`):
    Home's cards, Compare's bars (shipped and live) and Replay's cards show it, never another."""
    from gpusched.experiment.scorecard import TAIL_WAIT_METRIC
    from gpusched.words.metric_names import metric_title

    tail, other = metric_title(TAIL_WAIT_METRIC), metric_title("p95_wait_min")
    assert TAIL_WAIT_METRIC == "p99_wait_min"

    def titles(at) -> list[str]:
        cards = [m.label for m in at.metric]
        panels = [a["text"] for spec in plotly_specs(at) for a in spec["layout"].get("annotations", [])]
        headers = [str(c) for df in at.dataframe for c in df.value.columns]
        return cards + panels + headers

    home = open_page()
    live = _live()
    for at in (home, open_page("views/compare.py"), live, open_page("views/replay.py")):
        assert_clean(at)
        shown = titles(at)
        assert tail in shown and other not in shown
    assert tail in [m.label for m in home.metric]
    bars = next(spec for spec in plotly_specs(live) if spec["layout"].get("annotations"))
    assert tail in [a["text"] for a in bars["layout"]["annotations"]]


def test_a_large_scenario_searches_for_its_best_heuristic_in_the_background():
    """Above INLINE_SEARCH_MAX_JOBS jobs the page does not wait for the 90 runs of the search: it
    draws the chosen policies and says how far the search is."""
    import sys
    from pathlib import Path

    from gpusched import load_scenario

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "app"))  # the pages' shared module
    from shared import INLINE_SEARCH_MAX_JOBS

    large = load_scenario("phase1-4gpu").with_overrides(**{"workload.jobs": INLINE_SEARCH_MAX_JOBS + 50})
    at = open_page("views/compare.py", small=False)
    at.session_state["scenario_yaml"] = large.to_yaml()
    at.run()
    at.radio(key="compare_source").set_value("live").run()
    assert_clean(at)
    progress = [p.proto.text for p in at.get("progress")]
    assert any("Finding the best of the 30 queue-aware heuristics" in t for t in progress), progress
    assert plotly_specs(at), "the chosen policies are drawn meanwhile"
