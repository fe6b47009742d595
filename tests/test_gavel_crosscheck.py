"""gpusched against the stored outputs of Gavel's simulator (``benchmarks/gavel/``).

Tiers 1 and 3 of the cross-check run here, live, on the stored job lists, and are checked against
their criteria as ``docs/results/gavel-crosscheck.md`` states them (each criterion restated here
from its words, not taken from the script):

- tier 1 (V100 only): ``fcfs+first_fit`` against ``fifo_perf`` at 60 s rounds with no wait between
  allocation resets: mean JCT within 2 % and at least 90 % of jobs within 5 %, on both lists;
- tier 3 (4:4:4): ``random`` against ``fifo_fixed``, 10 seeds: the paired 95 % Student-t interval of
  the per-seed difference of mean JCT contains 0, against each round setting.

The page is checked against the JSON it is rendered from, cell by cell, and the JSON against what
gpusched gives now. Gavel never runs here.
"""

from __future__ import annotations

import json
import re
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from gpusched.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import gavel_crosscheck as crosscheck  # noqa: E402
import render_results  # noqa: E402

GAVEL_DIR = REPO_ROOT / "benchmarks" / "gavel"
RUNS = json.loads((GAVEL_DIR / "references.json").read_text(encoding="utf-8"))["runs"]
RESULTS = REPO_ROOT / "benchmarks" / "results" / "gavel-crosscheck.json"
PAGE = REPO_ROOT / "docs" / "results" / "gavel-crosscheck.md"
TIER1_FINE = ["t1-v100-100-s0-r60w0", "t1-v100-300-s0-r60w0"]
TIER3_SEEDS = range(10)


def gavel_jct_s(name: str) -> pd.Series:
    """Gavel's stored per-job JCT (s), read here from the file."""
    frame = pd.read_csv(GAVEL_DIR / RUNS[name]["jct"])
    return frame.set_index("id")["jct_s"].sort_index()


def ours_jct_s(name: str, policy: str) -> pd.Series:
    return crosscheck.gpusched_run(name, policy).jct_s


@pytest.fixture(scope="module")
def data() -> dict:
    return json.loads(RESULTS.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", TIER1_FINE)
def test_tier1_first_fit_meets_the_criterion_against_fifo_perf_at_fine_rounds(name):
    ours, gavel = ours_jct_s(name, "fcfs+first_fit"), gavel_jct_s(name)
    assert list(ours.index) == list(gavel.index)
    assert abs(ours.mean() / gavel.mean() - 1.0) <= 0.02
    assert (np.abs(ours - gavel) <= 0.05 * gavel).mean() >= 0.90


@pytest.mark.parametrize("fine", TIER1_FINE)
def test_tier1_the_driver_rounds_only_delay_jobs(fine):
    """The page's explanation: Gavel's rounds delay jobs and never speed one up, and the driver's
    coarser rounds move more jobs out of 5 % than the fine ones."""
    ours = ours_jct_s(fine, "fcfs+first_fit")
    driver = fine.replace("-r60w0", "-r360w1920")
    within = {}
    for name in (fine, driver):
        gavel = gavel_jct_s(name)
        assert (gavel - ours >= 0.0).all(), name
        within[name] = int((np.abs(ours - gavel) <= 0.05 * gavel).sum())
    assert within[driver] < within[fine]
    assert (gavel_jct_s(driver) - ours).mean() > (gavel_jct_s(fine) - ours).mean()


@pytest.mark.parametrize("rounds", ["r60w0", "r360w1920"])
def test_tier3_random_has_fifo_fixeds_mean_over_ten_seeds(rounds):
    diffs = []
    for seed in TIER3_SEEDS:
        name = f"t3-4-4-4-100-s{seed}-{rounds}"
        assert RUNS[name]["policy"] == "fifo_fixed" and RUNS[name]["seed"] == seed
        diffs.append(ours_jct_s(name, "random").mean() - gavel_jct_s(name).mean())
    d = np.asarray(diffs)
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
    assert d.size >= 10
    assert d.mean() - half <= 0.0 <= d.mean() + half


def test_the_json_is_what_gpusched_gives_now(data):
    rows = [*data["tier1"], *data["tier2"]["rows"], *data["tier3"]["rows"]]
    assert {r["run"] for r in rows} == {n for n, r in RUNS.items() if r["tier"] in ("1", "2", "3")}
    for r in rows:
        ours, gavel = ours_jct_s(r["run"], r["policy"]), gavel_jct_s(r["run"])
        assert r["gpusched_mean_jct_s"] == pytest.approx(ours.mean(), rel=1e-12), (r["run"], r["policy"])
        assert r["gavel_mean_jct_s"] == pytest.approx(gavel.mean(), rel=1e-12)
        assert r["jobs_within"] == int((np.abs(ours - gavel) <= 0.05 * gavel).sum())


def test_tier2_runs_fastest_move_exactly_when_it_is_registered(data):
    t2 = data["tier2"]
    registered = crosscheck.policy_available("fcfs+fastest_move")
    assert t2["moving_available"] == registered, "rerun benchmarks/gavel_crosscheck.py"
    moved = {r["run"] for r in t2["rows"] if r["policy"] == "fcfs+fastest_move"}
    tier2 = {n for n, r in RUNS.items() if r["tier"] == "2"}
    assert moved == (tier2 if registered else set())
    page = PAGE.read_text(encoding="utf-8")
    assert ("**`fcfs+fastest_move`: not available.**" in page) == (not registered)


def test_the_non_moving_baselines_are_above_gavel_on_every_mixed_run(data):
    base = [r for r in data["tier2"]["rows"] if r["policy"] in ("fcfs+fastest_fit", "fcfs+eft")]
    assert len(base) == 2 * sum(r["tier"] == "2" for r in RUNS.values())
    assert all(r["gpusched_mean_jct_s"] > r["gavel_mean_jct_s"] for r in base)


def test_the_page_is_rendered_from_the_json(data):
    assert PAGE.read_text(encoding="utf-8") == render_results.gavel_crosscheck_markdown(data)


ROW = re.compile(r"^\| `(?P<run>[\w-]+)` \| (?P<cluster>\d+:\d+:\d+) \| (?P<rounds>[^|]+) \| "
                 r"(?P<seed>\d+) \| "
                 r"`(?P<policy>[\w+]+)` \| (?P<gavel>[\d,]+) \| (?P<ours>[\d,]+) \| (?P<diff>[−+\d.]+) % \| "
                 r"(?P<within>\d+) / (?P<jobs>\d+) \| (?P<verdict>[^|]+) \|$", re.MULTILINE)


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-"))


def test_every_comparison_row_of_the_page_is_the_json_and_its_verdict_the_criterion(data):
    rows = {(r["run"], r["policy"]): r for r in [*data["tier1"], *data["tier2"]["rows"]]}
    found = ROW.findall(PAGE.read_text(encoding="utf-8"))
    assert len(found) == len(rows)
    for m in ROW.finditer(PAGE.read_text(encoding="utf-8")):
        r = rows[m["run"], m["policy"]]
        gavel, ours = gavel_jct_s(m["run"]).mean(), r["gpusched_mean_jct_s"]
        assert _number(m["gavel"]) == round(gavel) and _number(m["ours"]) == round(ours)
        assert _number(m["diff"]) == round(100 * (ours / gavel - 1), 2)
        assert (int(m["within"]), int(m["jobs"])) == (r["jobs_within"], len(gavel_jct_s(m["run"])))
        fine = m["rounds"] == "60 s / 0 s"
        if m["policy"] == "fcfs+first_fit":
            expect = (abs(ours / gavel - 1) <= 0.02 and r["jobs_within"] >= 0.9 * r["jobs"]) if fine else None
        elif m["policy"] == "fcfs+fastest_move":
            expect = abs(ours / gavel - 1) <= 0.03
        else:
            assert m["verdict"] == "baseline"
            continue
        assert m["verdict"] == {None: "—", True: "**pass**", False: "**fail**"}[expect]


def test_the_paired_rows_of_tier3_are_the_per_seed_means(data):
    means = {(r["seed"], r["rounds"]): (r["gpusched_mean_jct_s"], r["gavel_mean_jct_s"])
             for r in data["tier3"]["rows"]}
    page = PAGE.read_text(encoding="utf-8")
    for rounds in ("r60w0", "r360w1920"):
        d = np.asarray([means[s, rounds][0] - means[s, rounds][1] for s in TIER3_SEEDS])
        half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
        row = re.search(rf"^\| gpusched random − Gavel fifo_fixed {rounds} \| [\d,]+ \| [\d,]+ \| "
                        r"(\S+) \[(\S+), (\S+)\] \|.*\| (\*\*pass\*\*|\*\*fail\*\*) \|$", page, re.MULTILINE)
        assert row, rounds
        assert [_number(x) for x in row.groups()[:3]] == [round(d.mean()), round(d.mean() - half),
                                                          round(d.mean() + half)]
        assert row[4] == ("**pass**" if d.mean() - half <= 0 <= d.mean() + half else "**fail**")


def test_tier2_runs_and_renders_the_moving_placement():
    """Tier 2 with ``fastest_move``: every tier-2 run gets a moving row, its scenario restores in 0
    minutes, moving beats the non-moving Fastest-Fit on every run, the verdict is the criterion,
    and the page reports it."""
    name = "t2-4-4-4-300-s0-r60w0"
    assert crosscheck.scenario_for(name, "fcfs+fastest_move").checkpoint.restore_min == 0
    assert crosscheck.scenario_for(name, "fcfs+fastest_fit").checkpoint is None
    t2 = crosscheck.tier2()
    assert t2["moving_available"]
    moved = {r["run"]: r for r in t2["rows"] if r["policy"] == "fcfs+fastest_move"}
    fit = {r["run"]: r for r in t2["rows"] if r["policy"] == "fcfs+fastest_fit"}
    assert set(moved) == {n for n, r in RUNS.items() if r["tier"] == "2"}
    for run, r in moved.items():
        assert r["gpusched_mean_jct_s"] < fit[run]["gpusched_mean_jct_s"]
        assert r["criterion"] == (abs(r["gpusched_mean_jct_s"] / gavel_jct_s(run).mean() - 1) <= 0.03)
    assert t2["passes"] == all(r["criterion"] for r in moved.values())
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    page = render_results.gavel_crosscheck_markdown({**data, "tier2": t2})
    assert "not available" not in page
    ok = sum(r["criterion"] for r in moved.values())
    assert f"**{'Met' if t2['passes'] else 'Not met'}**: {ok} of {len(moved)} runs" in page
