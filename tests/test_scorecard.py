"""The scorecard: every policy against a baseline, paired over the same seeds, and its command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from gpusched.cli import main
from gpusched.experiment.paired import bootstrap_interval, paired_difference
from gpusched.experiment.runner import Comparison
from gpusched.experiment.scorecard import LOWER_IS_BETTER, scorecard


def test_paired_difference_by_hand():
    a, b = [10.0, 12.0, 8.0, 11.0, 7.0], [11.0, 13.0, 9.5, 11.5, 7.0]
    d = paired_difference(a, b)
    diffs = np.array(a) - np.array(b)
    half = 2.7764 * diffs.std(ddof=1) / np.sqrt(5)  # t(0.975, 4 df) from a printed table
    assert d.mean == pytest.approx(diffs.mean())
    assert (d.low, d.high) == pytest.approx((diffs.mean() - half, diffs.mean() + half), abs=1e-4)
    assert (d.a_lower, d.ties, d.a_higher) == (4, 1, 0)
    assert d.excludes_zero


def test_the_t_interval_is_scipys():
    from scipy import stats

    from gpusched.experiment.paired import t_interval

    x = np.array([3.0, 9.5, 4.25, 7.0, 1.0, 12.0])
    want = stats.t.interval(0.9, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert t_interval(x, 0.9) == pytest.approx(want, rel=1e-12)
    assert np.isnan(t_interval([4.0])).all() and t_interval([2.0, 2.0]) == (2.0, 2.0)


def test_a_skewed_never_negative_difference_gets_a_bootstrap_interval_that_stays_at_or_above_0():
    """Stall time: 0 on most seeds, thousands on a few. A t interval reaches below 0; the scorecard
    gives it a seeded BCa bootstrap, which stays within what the seeds measured."""
    stall = np.array([0, 0, 0, 0, 7000, 0, 0, 0, 0, 5000, 0, 0], dtype=float)
    assert paired_difference(stall, np.zeros_like(stall)).low < 0  # what a t interval says
    runs = pd.DataFrame([{"policy": p, "seed": s, "stall_min": v if p == "a" else 0.0}
                         for s, v in enumerate(stall) for p in ("a", "b")])
    row = scorecard(Comparison("x", runs, {}), "b", metrics=("stall_min",)).iloc[0]
    assert row["interval"] == "bootstrap"
    assert 0.0 <= row["low"] < row["diff"] < row["high"] <= stall.max()
    again = scorecard(Comparison("x", runs, {}), "b", metrics=("stall_min",)).iloc[0]
    assert (again["low"], again["high"]) == (row["low"], row["high"])  # seeded: the same interval
    low, high = bootstrap_interval(stall)
    assert 0.0 <= low < stall.mean() < high


def test_scorecard_counts_wins_in_the_right_direction():
    runs = pd.DataFrame([
        {"policy": p, "seed": s, "avg_wait_min": w, "jobs_completed": c}
        for s, (wa, wb, ca, cb) in enumerate([(5, 9, 10, 9), (6, 7, 10, 10), (9, 8, 9, 10)])
        for p, w, c in (("a", wa, ca), ("b", wb, cb))])
    card = scorecard(Comparison("x", runs, {}), "b", metrics=("avg_wait_min", "jobs_completed"))
    wait = card[card["metric"] == "avg_wait_min"].iloc[0]
    done = card[card["metric"] == "jobs_completed"].iloc[0]
    assert "avg_wait_min" in LOWER_IS_BETTER and "jobs_completed" not in LOWER_IS_BETTER
    assert (wait["wins"], wait["ties"], wait["losses"]) == (2, 0, 1)  # lower wait wins
    assert (done["wins"], done["ties"], done["losses"]) == (1, 1, 1)  # more completed wins
    assert wait["diff"] == pytest.approx(np.mean([5 - 9, 6 - 7, 9 - 8]))
    with pytest.raises(ValueError, match="baseline 'c'"):
        scorecard(Comparison("x", runs, {}), "c")


def test_compare_baseline_prints_and_writes_the_scorecard(tmp_path, capsys):
    out = tmp_path / "cmp.json"
    code = main(["compare", "--scenario", "fleet-16gpu", "--policies", "easy+best_fit,sjf,first_fit",
                 "--seeds", "3", "--jobs", "120", "--baseline", "easy+best_fit", "--json", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "paired against easy+best_fit" in text and "won/tied/lost" in text
    doc = json.loads(out.read_text())
    assert doc["baseline"] == "easy+best_fit"
    assert {r["policy"] for r in doc["scorecard"]} == {"sjf", "first_fit"}


def test_a_baseline_outside_the_policies_is_refused(capsys):
    assert main(["compare", "--scenario", "ll-stall-mini", "--policies", "first_fit", "--baseline",
                 "best_fit"]) == 2
    err = capsys.readouterr().err
    assert "--baseline 'best_fit'" in err and err.count("\n") == 1
