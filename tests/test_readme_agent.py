"""The README's window-agent tables are the measured runs in ``benchmarks/results/window-agent.json``
(written by ``benchmarks/window_agent_table.py``): every mean ± std, and every paired row."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from gpusched.experiment.runner import Comparison
from gpusched.experiment.scorecard import scorecard
from gpusched.paths import REPO_ROOT

RESULTS = REPO_ROOT / "benchmarks" / "results" / "window-agent.json"
SECTION = "### The window agent on seeds never used in training"


def _section() -> str:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(SECTION)
    return text[start:text.index("\n### ", start + len(SECTION))]


def _tables() -> dict[str, str]:
    """README text of each scenario's block, keyed by scenario name."""
    parts = re.split(r"^\*\*([\w-]+)\*\* \(", _section(), flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _runs(name: str) -> pd.DataFrame:
    return pd.DataFrame(json.loads(RESULTS.read_text(encoding="utf-8"))[name]["runs"])


@pytest.mark.parametrize("name", ["fleet-16gpu", "fleet-64gpu", "phase1-8gpu", "phase1-4gpu"])
def test_every_row_is_the_measured_mean_and_std(name):
    block = _tables()[name]
    runs = _runs(name)
    mean = runs.groupby("policy")["avg_jct_min"].mean()
    std = runs.groupby("policy")["avg_jct_min"].std(ddof=0)  # as Comparison.spread
    rows = re.findall(r"^\| ([\w:+./-]+)(?: \(best heuristic\))? \| ([\d.]+) ± ([\d.]+) \|", block,
                      flags=re.MULTILINE)
    assert {p for p, _, _ in rows} == set(mean.index)
    for policy, m, s in rows:
        assert float(m) == pytest.approx(mean[policy], abs=0.051), policy
        assert float(s) == pytest.approx(std[policy], abs=0.051), policy


@pytest.mark.parametrize("name", ["fleet-16gpu", "phase1-4gpu"])
def test_every_paired_row_is_the_scorecard_of_the_measured_runs(name):
    block = _tables()[name]
    comparison = Comparison(name, _runs(name), {})
    rows = re.findall(r"^\| ([\w:+./-]+) \| ([\w:+./-]+) \| (\w+) \| [\d.]+ \| [\d.]+ \| ([+-][\d.]+) "
                      r"\[([+-][\d.]+), ([+-][\d.]+)\] \| .* \| (\d+)/(\d+)/(\d+) \|$", block,
                      flags=re.MULTILINE)
    assert rows
    for agent, baseline, metric, diff, low, high, won, tied, lost in rows:
        card = scorecard(comparison, baseline, [metric])
        row = card[card["policy"] == agent].iloc[0]
        assert (float(diff), float(low), float(high)) == pytest.approx(
            (row["diff"], row["low"], row["high"]), abs=0.006)
        assert (int(won), int(tied), int(lost)) == (row["wins"], row["ties"], row["losses"])


def test_the_best_heuristic_is_the_measured_one():
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    for name, block in _tables().items():
        marked = re.search(r"^\| ([\w:+./-]+) \(best heuristic\)", block, flags=re.MULTILINE).group(1)
        assert marked == data[name]["best_heuristic"]
        runs = _runs(name)
        heuristics = runs[~runs["policy"].str.startswith("ppo")]
        assert heuristics.groupby("policy")["avg_jct_min"].mean().idxmin() == marked


def test_the_opening_claim_about_the_window_agent_holds_on_both_fleets():
    """README: "the shipped window agent ... waits less but finishes jobs later than the best
    speed-aware heuristic" (by mean over the held-out seeds)."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "waits less but finishes jobs later\nthan the best speed-aware heuristic" in text
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    for name in ("fleet-16gpu", "fleet-64gpu"):
        mean = _runs(name).groupby("policy")[["avg_wait_min", "avg_jct_min"]].mean()
        best = data[name]["best_heuristic"]
        assert mean.loc["ppo", "avg_wait_min"] < mean.loc[best, "avg_wait_min"]
        assert mean.loc["ppo", "avg_jct_min"] > mean.loc[best, "avg_jct_min"]


def test_the_clairvoyant_bound_in_the_readme_is_the_measured_one():
    """README: lookahead_jct's mean JCT, the best heuristic's, and the paired difference, from
    ``benchmarks/results/lookahead-bound.json``."""
    bound = REPO_ROOT / "benchmarks" / "results" / "lookahead-bound.json"
    data = json.loads(bound.read_text(encoding="utf-8"))
    runs = pd.DataFrame(data["runs"])
    mean = runs.groupby("policy")["avg_jct_min"].mean()
    best = data["best_heuristic"]
    assert best == mean.drop("lookahead_jct").idxmin()
    card = scorecard(Comparison("fleet-16gpu", runs, {}), best, ["avg_jct_min"])
    row = card[card["policy"] == "lookahead_jct"].iloc[0]
    assert row["wins"] == row["seeds"]  # "winning all"
    text = " ".join((REPO_ROOT / "README.md").read_text(encoding="utf-8").split())
    claim = (f"average JCT of {mean['lookahead_jct']:.1f} min against {mean[best]:.1f} for the best "
             f"heuristic (`{best}`): {row['diff']:+.2f} min [{row['low']:+.2f}, {row['high']:+.2f}] paired, "
             f"{100 * row['diff'] / row['baseline_mean']:+.1f} %, winning all {row['wins']} seeds")
    assert claim.replace("-", "−") in text
