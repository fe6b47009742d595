"""The ``gavel-12gpu-rounds`` preset: Gavel's shared round-based setup (4 V100, 4 P100, 4 K80, one
GPU a server, Gavel's speeds and generator, single-GPU jobs, Gavel's round defaults), and its shipped
results (``benchmarks/results/window-agent.json``, seeds 1000-1019) as the docs state them."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from gpusched.core.metrics import FAIRNESS_METRIC_KEYS
from gpusched.core.rounds.mechanism import RoundSpec
from gpusched.paths import REPO_ROOT, WINDOW_AGENT_RESULTS
from gpusched.policies import queue_policy_names
from gpusched.policies.rounds.registry import ROUND_POLICIES
from gpusched.workload.presets import load_scenario, preset_names

PRESET = "gavel-12gpu-rounds"
SEEDS = list(range(1000, 1020))


@pytest.fixture(scope="module")
def runs():
    import pandas as pd

    return pd.DataFrame(json.loads(WINDOW_AGENT_RESULTS.read_text(encoding="utf-8"))[PRESET]["runs"])


def test_the_preset_is_gavels_shared_setup_with_its_round_defaults():
    scenario = load_scenario(PRESET)
    assert PRESET in preset_names()
    assert Counter(scenario.build_cluster().gpu_model) == {"V100": 4, "P100": 4, "K80": 4}
    assert {n.gpus_per_node for n in scenario.cluster.nodes} == {1}
    assert scenario.speed == "gavel" and scenario.workload.generator == "gavel"
    assert not scenario.workload.multi_gpu and scenario.workload.jobs == 300
    assert scenario.workload.arrival_rate_per_hour == pytest.approx(3600 / 12_000)
    assert scenario.rounds == RoundSpec()  # Gavel's 360 s rounds and 1,920 s between resets
    assert {j.gpus for j in scenario.jobs(seed=SEEDS[0])} == {1}


def test_the_docs_list_the_preset():
    assert f"`{PRESET}`" in (REPO_ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")


def test_every_policy_ran_on_every_seed_with_its_fairness(runs):
    policies = set(runs["policy"])
    assert set(queue_policy_names()) <= policies
    assert {"max_min_fairness", "max_min_fairness_perf"} <= policies & set(ROUND_POLICIES)
    counts = runs.groupby("policy")["seed"].apply(sorted)
    assert all(list(c) == SEEDS for c in counts)
    assert runs[list(FAIRNESS_METRIC_KEYS)].notna().all().all()
    assert (runs["jobs_completed"] == 300).all()


def test_reading_speeds_pays_on_every_seed_as_the_docs_say(runs):
    """The agnostic max-min fairness changes GPU model more often and takes longer than its
    ``_perf`` twin on every seed, by the figures ``docs/scenarios.md`` states."""
    wide = runs.pivot(index="seed", columns="policy")
    jct, changes = wide["avg_jct_min"], wide["type_changes_per_job"]
    assert (jct["max_min_fairness"] > jct["max_min_fairness_perf"]).all()
    assert (changes["max_min_fairness"] > changes["max_min_fairness_perf"]).all()
    assert np.allclose(changes["fcfs+first_fit"], 0.0)
    text = " ".join((REPO_ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8").split())
    agn, perf = jct["max_min_fairness"].mean(), jct["max_min_fairness_perf"].mean()
    diff = jct["max_min_fairness_perf"] - jct["max_min_fairness"]
    low, high = stats.t.interval(0.95, len(diff) - 1, loc=diff.mean(), scale=stats.sem(diff))
    stated = (f"changes a job's GPU model {changes['max_min_fairness'].mean():.1f} times on average and "
              f"averages {agn:,.0f} min JCT, against {changes['max_min_fairness_perf'].mean():.1f} changes "
              f"and {perf:,.0f} min for `max_min_fairness_perf`: {agn / perf:.2f}× (paired difference "
              f"−{-diff.mean():.0f} min, 95 % interval −{-low:.0f} to −{-high:.0f}, shorter on 20 of 20 "
              "seeds")
    assert stated in text
    best = runs.groupby("policy")["avg_jct_min"].mean()
    assert f"`fifo_perf` has the lowest mean JCT there, {best['fifo_perf']:.0f} min, against " \
           f"{best['fcfs+first_fit']:,.0f} for `fcfs+first_fit`" in text
    assert best.idxmin() == "fifo_perf"


def test_compare_opens_the_preset_on_the_agnostic_policy_beside_its_perf_twin():
    from gpusched.dashboard.headline import shipped_defaults, shipped_results

    shipped = shipped_results()[PRESET]
    defaults = shipped_defaults(shipped)
    assert defaults[0] == shipped.best
    assert defaults.index("max_min_fairness") + 1 == defaults.index("max_min_fairness_perf")
    assert set(defaults) <= set(shipped.policies)
