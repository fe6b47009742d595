"""What the scheduler knows (gpusched.experiment.knowledge): the same jobs under every setting,
refused rows, the paired cost of not knowing and the comparison against the best, the JSON round
trip."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from gpusched.experiment.knowledge import (
    COST_COLUMNS,
    SETTINGS,
    KnowledgeTable,
    knowledge_comparison,
    refused,
    shipped_knowledge,
)
from gpusched.experiment.paired import METHOD_NAMES
from gpusched.workload.scenario import told
from gpusched.workload.scenario_yaml import scenario_from_dict

TINY = {"name": "tiny-knowledge",
        "cluster": {"nodes": [{"gpu_model": "A100-80GB", "vram_gb": 80, "gpus_per_node": 2, "count": 1},
                              {"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 1, "count": 2}]},
        "workload": {"jobs": 40, "load": 0.9, "seed": 0},
        "queue": {"window": 8}}
POLICIES = ["las+fastest_fit", "sjf+fastest_fit"]
SEEDS = [0, 1]
METRICS = ["avg_jct_min", "p99_wait_min", "cost_usd"]


@pytest.fixture(scope="module")
def scenario():
    return scenario_from_dict(TINY, source="tiny")


@pytest.fixture(scope="module")
def table(scenario):
    calls = []
    out = knowledge_comparison(scenario, POLICIES, SEEDS, progress=lambda d, t: calls.append((d, t)),
                               metrics=METRICS)
    out.runs.attrs["calls"] = calls
    return out


def test_each_setting_replaces_only_what_the_scheduler_is_told(scenario):
    for seed in SEEDS:
        base = scenario.jobs(seed=seed)
        for _, value in SETTINGS:
            variant = told(scenario, value)
            assert variant.workload.declared_run_time == value
            jobs = variant.jobs(seed=seed)
            assert [j.arrival_min for j in jobs] == [j.arrival_min for j in base]
            assert [j.duration_min for j in jobs] == [j.duration_min for j in base]
            assert [j.gpus for j in jobs] == [j.gpus for j in base]
            assert variant.model_dump(exclude={"workload"}) == scenario.model_dump(exclude={"workload"})


def test_the_table_holds_one_row_per_setting_policy_and_seed(table):
    runs = table.runs
    assert table.settings == [label for label, _ in SETTINGS]
    assert len(runs) == len(SETTINGS) * len(POLICIES) * len(SEEDS)
    assert list(runs.columns) == ["setting", "policy", "seed", "refused", *METRICS]
    calls = runs.attrs["calls"]
    assert calls[-1] == (len(runs), len(runs)) and [d for d, _ in calls] == list(range(1, len(runs) + 1))


def test_a_policy_that_reads_run_times_is_refused_under_none_with_nan_metrics(table, scenario):
    runs = table.runs
    gone = runs[runs["refused"]]
    assert set(zip(gone["setting"], gone["policy"], strict=True)) == {("none", "sjf+fastest_fit")}
    assert gone[METRICS].isna().all().all()
    assert runs[~runs["refused"]][METRICS].notna().all().all()
    assert refused(told(scenario, "none"), "sjf+fastest_fit")
    assert not refused(told(scenario, "history"), "sjf+fastest_fit")
    cost = table.cost_of_not_knowing()
    row = cost[(cost["policy"] == "sjf+fastest_fit") & (cost["setting"] == "none")].iloc[0]
    assert math.isnan(row["mean"]) and math.isnan(row["diff"]) and row["n"] == 0


def test_the_cost_of_not_knowing_is_the_paired_difference_against_exact(table):
    cost = table.cost_of_not_knowing("avg_jct_min")
    assert list(cost.columns) == list(COST_COLUMNS)
    assert len(cost) == len(POLICIES) * (len(SETTINGS) - 1)
    for _, row in cost.dropna(subset=["diff"]).iterrows():
        now = table.values(row["setting"], row["policy"], "avg_jct_min")
        exact = table.values("exact", row["policy"], "avg_jct_min")
        by_seed = (now - exact).to_numpy()
        assert row["diff"] == pytest.approx(by_seed.mean())
        assert np.sign(row["diff"]) == np.sign(by_seed.mean())
        assert row["low"] <= row["diff"] <= row["high"] and row["n"] == len(SEEDS)
        assert row["mean"] == pytest.approx(now.mean()) and row["interval"] == METHOD_NAMES["t"]
    # las never reads a run time: what it is told costs it nothing, seed by seed
    las = cost[cost["policy"] == "las+fastest_fit"]
    assert (las["diff"] == 0.0).all() and (las["low"] == 0.0).all() and (las["high"] == 0.0).all()
    # sjf reads them: being told them with an error changes its runs
    sjf = cost[(cost["policy"] == "sjf+fastest_fit") & (cost["setting"] == "lognormal 1")].iloc[0]
    assert sjf["diff"] != 0.0
    p99 = table.cost_of_not_knowing("p99_wait_min")
    assert set(p99["interval"]) == {METHOD_NAMES["bootstrap"]}


def test_every_policy_is_paired_against_the_best_of_its_setting(table):
    best = table.against_best("avg_jct_min")
    for setting, part in best.groupby("setting"):
        top = part["best"].iloc[0]
        assert top == table.best(setting)
        ok = part.dropna(subset=["diff"])
        assert ok.loc[ok["policy"] == top, "diff"].iloc[0] == 0.0
        assert (ok["diff"] >= -1e-9).all()  # the best has the lowest mean: no one beats it on average
    assert best[best["setting"] == "none"]["best"].iloc[0] == "las+fastest_fit"


def test_the_table_round_trips_through_json(table):
    text = json.dumps(table.to_json(), allow_nan=False)
    back = KnowledgeTable.from_json(json.loads(text))
    assert (back.scenario, back.seeds, back.settings, back.policies) == \
        (table.scenario, table.seeds, table.settings, table.policies)
    assert back.runs["refused"].dtype == bool and back.runs["seed"].dtype.kind == "i"
    assert back.runs.equals(table.runs)
    assert back.cost_of_not_knowing().equals(table.cost_of_not_knowing())


def test_a_metric_the_runs_lack_is_refused_in_one_line(table):
    with pytest.raises(ValueError, match="no metric 'gini'"):
        table.cost_of_not_knowing("gini")


def test_an_unshipped_preset_has_no_shipped_table():
    assert shipped_knowledge("no-such-preset") is None


def test_a_setting_replaces_the_older_estimate_error_key_too(scenario):
    old = scenario.with_overrides(**{"workload.runtime_estimate_error": 0.5})
    variant = told(old, {"lognormal": 1.0})
    assert variant.workload.runtime_estimate_error is None
    assert variant.workload.declared_mode == {"lognormal": 1.0}


def test_the_best_of_a_setting_is_paired_against_the_best_told_exactly(table):
    gap = table.best_gap("none")
    assert gap["best"] == table.best("none") and gap["exact_best"] == table.best("exact")
    by_seed = (table.values("none", gap["best"], "avg_jct_min")
               - table.values("exact", gap["exact_best"], "avg_jct_min"))
    assert gap["diff"] == pytest.approx(by_seed.mean()) and gap["n"] == len(SEEDS)
    assert table.best_gap("exact")["diff"] == 0.0


def test_the_shipped_tables_are_read_back_for_every_measured_preset():
    from gpusched.experiment.knowledge import shipped_knowledge_names

    names = shipped_knowledge_names()
    assert {"gavel-108gpu-heavy", "openb-replay-heavy", "fleet-16gpu"} <= set(names)
    for name in names:
        t = shipped_knowledge(name)
        assert t.scenario == name and len(t.seeds) >= 10
        assert t.settings == [label for label, _ in SETTINGS]
        assert len(t.runs) == len(t.settings) * len(t.policies) * len(t.seeds)
        assert t.runs.loc[t.runs["refused"], "avg_jct_min"].isna().all()
