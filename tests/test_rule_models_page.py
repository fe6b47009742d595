"""The rule models' results page (benchmarks/rule_models_page.py): its verdicts and the share of
the gap to the bound, computed from the shipped JSON, not written by hand."""

from __future__ import annotations

import json
import sys

import pandas as pd
import pytest

from gpusched.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import rule_models_page  # noqa: E402
import rule_models_shift  # noqa: E402

SHIFT = REPO_ROOT / "benchmarks" / "results" / "rule-models-shift.json"
BOUND = REPO_ROOT / "benchmarks" / "results" / "lookahead-bound.json"


def _model(name: str, jct: float, pct: float) -> dict:
    return {"model": name, "jct_min": jct, "diff_min": 0.0, "low_min": -1.0, "high_min": 1.0,
            "diff_pct": pct, "model_lower": 1, "ties": 0, "model_higher": 1, "p99_wait_min": 10.0,
            "within_target": pct <= rule_models_shift.TARGET_PCT}


def _setting(label: str, best_min: float, models: list[dict]) -> dict:
    return {"label": label, "scenario": "s", "overrides": {}, "best": "sjf+first_fit",
            "best_jct_min": best_min,
            "best_p99_wait_min": 20.0, "cpu_seconds": 1.0, "models": models}


def test_the_share_of_the_gap_is_measured_from_the_best_rule_towards_the_bound():
    assert rule_models_page.gap_closed(100.0, 100.0, 90.0) == 0.0
    assert rule_models_page.gap_closed(100.0, 95.0, 90.0) == 0.5
    assert rule_models_page.gap_closed(100.0, 90.0, 90.0) == 1.0
    assert rule_models_page.gap_closed(100.0, 105.0, 90.0) == -0.5


def test_verdicts_follow_the_numbers():
    bound = {"scenario": "s", "runs": [{"policy": "lookahead_jct", "seed": s, "avg_jct_min": 90.0}
                                        for s in (1, 2)]}
    shift = {"seeds": [1, 2], "target_pct": rule_models_shift.TARGET_PCT, "settings": [
        _setting("trained", 100.0, [_model("a", 94.0, -6.0), _model("b", 99.0, -1.0)]),
        _setting("shifted", 50.0, [_model("a", 51.0, 2.0), _model("b", 52.0, 4.0)])]}
    page = rule_models_page.rule_models_markdown(shift, bound)
    assert "| `a` | 94.0 | +60 % | 10 | met |" in page  # 60 % of a 10-min gap, p99 10 <= 20
    assert "| `b` | 99.0 | +10 % | 10 | missed |" in page
    assert "| shifted | `sjf+first_fit` 50.0 | `a` 51.0 |" in page
    rows = [line for line in page.splitlines() if line.startswith("| shifted")]
    assert [r.rsplit("|", 2)[1].strip() for r in rows] == ["met", "missed"]
    assert "Outside the target: b (shifted, +4.0 %)." in page


def test_without_the_bound_on_those_seeds_the_page_says_so():
    bound = {"scenario": "other", "runs": []}
    shift = {"seeds": [1], "target_pct": 3.0, "settings": [_setting("trained", 1.0, [])]}
    assert "The bound was not measured" in rule_models_page.rule_models_markdown(shift, bound)


@pytest.mark.parametrize("setting", json.loads(SHIFT.read_text(encoding="utf-8"))["settings"],
                         ids=lambda s: s["label"])
def test_the_shipped_shift_verdicts_hold_the_target(setting):
    for m in setting["models"]:
        assert m["within_target"] == (m["diff_pct"] <= rule_models_shift.TARGET_PCT)
        assert m["diff_pct"] == pytest.approx(100 * m["diff_min"] / setting["best_jct_min"])
        assert m["low_min"] <= m["diff_min"] <= m["high_min"]


def test_the_shipped_bound_is_read_on_the_shipped_seeds():
    shift = json.loads(SHIFT.read_text(encoding="utf-8"))
    runs = pd.DataFrame(json.loads(BOUND.read_text(encoding="utf-8"))["runs"])
    mine = runs[(runs.policy == "lookahead_jct") & runs.seed.isin(shift["seeds"])]
    assert rule_models_page.bound_jct_min(json.loads(BOUND.read_text(encoding="utf-8")), "fleet-16gpu",
                                          shift["seeds"]) == pytest.approx(mine.avg_jct_min.mean())


def _rounds(diff: float, low: float, high: float) -> dict:
    return {"scenario": "s", "seeds": [1, 2, 3], "base": "max_min_fairness_perf",
            "policy": "max_min_fairness_perf:tuned:m", "model": "tuned:m", "spread": 5.0,
            "base_jct_min": 100.0, "jct_min": 100.0 + diff, "diff_min": diff, "low_min": low,
            "high_min": high,
            "diff_pct": diff, "model_lower": 2, "ties": 0, "model_higher": 1, "base_p99_wait_min": 10.0,
            "p99_wait_min": 11.0, "cpu_seconds": 1.0}


@pytest.mark.parametrize(("diff", "low", "high", "word"), [
    (-2.0, -3.0, -1.0, "lower mean JCT"), (2.0, 1.0, 3.0, "higher mean JCT"),
    (-1.0, -3.0, 1.0, "no difference")])
def test_the_rounds_verdict_follows_the_interval(diff, low, high, word):
    shift = {"seeds": [1], "target_pct": 3.0, "settings": [_setting("trained", 1.0, [])]}
    bound = {"scenario": "other", "runs": []}
    page = rule_models_page.rule_models_markdown(shift, bound, _rounds(diff, low, high))
    section = page[page.index("## In rounds"):]
    assert f"has {word}" in section
    row = f"| `max_min_fairness_perf:tuned:m` | {100 + diff:.1f} | {diff:+.2f} [{low:+.2f}, {high:+.2f}] |"
    assert row in section
    assert "## In rounds" not in rule_models_page.rule_models_markdown(shift, bound)
    control = {"policy": "control", "jct_min": 99.0, "p99_wait_min": 9.0, "diff_min": diff, "low_min": low,
               "high_min": high, "model_lower": 1, "ties": 1, "model_higher": 1}
    with_control = {**_rounds(diff, low, high), "control": control}
    page = rule_models_page.rule_models_markdown(shift, bound, with_control)
    expected = {"lower mean JCT": "lower than", "higher mean JCT": "higher than",
                "no difference": "not different from"}[word]
    assert f"{expected} the control's" in page and "| control (control) | 99.0 |" in page


def test_the_shipped_rounds_figures_are_the_paired_difference_of_their_seeds():
    from gpusched.experiment.paired import paired_difference

    path = REPO_ROOT / "benchmarks" / "results" / "rule-models-rounds.json"
    rounds = json.loads(path.read_text(encoding="utf-8"))
    per_seed = rounds["per_seed"]
    ours, base = per_seed[rounds["policy"]]["avg_jct_min"], per_seed[rounds["base"]]["avg_jct_min"]
    assert len(ours) == len(base) == len(rounds["seeds"])
    d = paired_difference(ours, base)
    figures = (rounds["diff_min"], rounds["low_min"], rounds["high_min"])
    assert (d.mean, d.low, d.high) == pytest.approx(figures)
    assert (d.a_lower, d.ties, d.a_higher) == (rounds["model_lower"], rounds["ties"], rounds["model_higher"])
    assert rounds["diff_pct"] == pytest.approx(100 * d.mean / rounds["base_jct_min"])
    assert min(rounds["seeds"]) >= 1000  # held out: the model trained on seeds 20000 upwards
    control = rounds["control"]
    c = paired_difference(ours, per_seed[control["policy"]]["avg_jct_min"])
    figures = (control["diff_min"], control["low_min"], control["high_min"])
    assert (c.mean, c.low, c.high) == pytest.approx(figures)
