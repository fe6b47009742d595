"""``docs/results/philly.md`` reruns: one row of its target table (``qssf+first_fit`` told run times
exactly and from history, and FIFO, on the seed where qssf gains most) gives the stored numbers of
``benchmarks/results/philly-pairs.json``, and the page shows the recovered share those numbers
give; a round policy that reads no run time, stored from one run told nothing, gives the same
number told exactly, and the round table's differences against FIFO are those of the stored runs
(``benchmarks/results/philly-rounds.json``); the history investigation's evaluation runs
(``benchmarks/results/philly-history.json``) are the pairs' stored runs."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from gpusched.experiment.knowledge import KnowledgeTable
from gpusched.experiment.runner import run_policy
from gpusched.paths import PHILLY_HISTORY_RESULTS, PHILLY_PAIRS_RESULTS, PHILLY_ROUNDS_RESULTS, REPO_ROOT
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import told

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import philly  # noqa: E402  (the benchmark's own definitions: one source of truth)
import render_results  # noqa: E402  (the page's renderer)

STORED = KnowledgeTable.from_json(
    json.loads(PHILLY_PAIRS_RESULTS.read_text(encoding="utf-8"))["table"])


@pytest.mark.parametrize(("setting", "policy"), [("history", "qssf+first_fit"), ("exact", "fcfs+first_fit"),
                                                 ("exact", "qssf+first_fit")])
def test_a_row_reruns_to_the_stored_numbers(setting, policy):
    gain = (STORED.values("exact", "fcfs+first_fit", "avg_jct_min")
            - STORED.values("exact", "qssf+first_fit", "avg_jct_min"))
    seed = int(gain.idxmax())  # the seed whose queue the order matters most on
    scenario = told(load_scenario(philly.PRESET), dict(philly.SETTINGS)[setting])
    result = run_policy(scenario, policy, seed=seed)
    stored = STORED.values(setting, policy, "avg_jct_min")[seed]
    assert float(result.metrics["avg_jct_min"]) == pytest.approx(stored, rel=1e-9)


def test_the_page_states_the_recovered_share_of_the_stored_runs():
    fifo = STORED.values("exact", "fcfs+first_fit", "avg_jct_min").to_numpy()
    exact = STORED.values("exact", "qssf+first_fit", "avg_jct_min").to_numpy()
    hist = STORED.values("history", "qssf+first_fit", "avg_jct_min").to_numpy()
    share = render_results.philly_recovered(fifo, exact, hist)
    assert share["share"] == pytest.approx((fifo - hist).mean() / (fifo - exact).mean())
    assert share["low"] <= share["share"] <= share["high"]
    page = (render_results.DOCS_RESULTS_DIR / "philly.md").read_text(encoding="utf-8")  # current:
    # tests/test_docs_results.py checks every page render_results.py renders
    assert f"recovers **{100 * share['share']:.0f} %**" in page
    assert np.all(np.isfinite(fifo)) and len(fifo) == len(philly.PAIR_SEEDS)


def test_a_round_policy_that_reads_no_run_time_reruns_told_exactly_to_its_stored_run():
    rounds = json.loads(PHILLY_ROUNDS_RESULTS.read_text(encoding="utf-8"))
    stored = KnowledgeTable.from_json(rounds["table"])
    policy, seed = "max_min_fairness", min(stored.seeds)
    assert policy in rounds["run_once"]  # stored from its run told nothing
    result = run_policy(told(load_scenario(philly.PRESET), "exact"), policy, seed=seed)
    for setting in stored.settings:
        assert float(result.metrics["avg_jct_min"]) == pytest.approx(
            stored.values(setting, policy, "avg_jct_min")[seed], rel=1e-9)


def test_the_round_table_differences_are_the_seed_by_seed_ones_of_the_stored_runs():
    rounds = KnowledgeTable.from_json(json.loads(PHILLY_ROUNDS_RESULTS.read_text(encoding="utf-8"))["table"])
    page = (render_results.DOCS_RESULTS_DIR / "philly.md").read_text(encoding="utf-8")
    table = page[page.index("### Against FIFO and the best pair"):page.index("### What not knowing costs")]
    fifo = STORED.values("exact", "fcfs+first_fit", "avg_jct_min")
    for policy in rounds.policies:
        mine = rounds.values("exact", policy, "avg_jct_min")
        diff = float((mine - fifo.loc[mine.index]).mean())
        row = next(line for line in table.splitlines() if line.startswith(f"| `{policy}` |"))
        assert row.split(" | ")[2].split(" [")[0] == f"{diff:+,.1f}", row


def test_the_history_investigation_reruns_the_stored_pairs_on_the_evaluation_seeds():
    evaluation = json.loads(PHILLY_HISTORY_RESULTS.read_text(encoding="utf-8"))["evaluation"]
    for key, setting, policy in (("fifo", "exact", "fcfs+first_fit"), ("exact", "exact", "qssf+first_fit")):
        stored = STORED.values(setting, policy, "avg_jct_min")
        assert evaluation[key] == pytest.approx([stored[s] for s in evaluation["seeds"]], rel=1e-9)
    stored = STORED.values("history", "qssf+first_fit", "avg_jct_min")
    assert evaluation["variants"][render_results.PHILLY_HISTORY] == pytest.approx(
        [stored[s] for s in evaluation["seeds"]], rel=1e-9)
