"""The real-cluster page (docs/results/real-cluster.md, benchmarks/real_cluster.py): one policy
rerun now gives the stored numbers, the references are what Shockwave's files give, the preset
carries the calibrated constant, and the page and its scatter are what the stored results render."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from gpusched.experiment.real_cluster import SHOCKWAVE_FILES, restore_s, shockwave_policy, tacc_scenario
from gpusched.paths import REAL_CLUSTER_RESULTS, REPO_ROOT
from gpusched.policies.rounds import round_policy_names
from gpusched.workload.shockwave_results import shipped_result_policies

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import real_cluster  # noqa: E402

STORED = json.loads(REAL_CLUSTER_RESULTS.read_text(encoding="utf-8"))


def test_max_min_fairness_rerun_gives_the_stored_numbers():
    run = real_cluster.measure("max_min_fairness")
    stored = STORED["runs"]["max_min_fairness"]
    np.testing.assert_allclose(run["jct_s"], stored["jct_s"], rtol=1e-9)
    for key in ("avg_jct_s", "makespan_s", "rho_mean"):
        assert run[key] == pytest.approx(stored[key], rel=1e-9), key
    assert (run["rounds"], run["preemptions"]) == (stored["rounds"], stored["preemptions"])
    real = STORED["references"]["max_min_fairness"]["real"]
    jct, measured = np.array(run["jct_s"]), np.array(real["jct_s"])
    within = 100 * np.mean(np.abs(jct - measured) <= 0.1 * measured)
    assert within == pytest.approx(stored["within_pct"])
    assert 100 * (jct.mean() / real["avg_jct_s"] - 1) == pytest.approx(stored["jct_error_pct"])


def test_the_stored_references_are_shockwaves_files():
    assert STORED["shared"] == list(shipped_result_policies())
    for policy in STORED["shared"]:
        assert json.loads(json.dumps(real_cluster.reference(policy))) == STORED["references"][policy]


def test_allox_runs_as_shockwave_built_it_and_rerun_gives_the_stored_numbers():
    assert STORED["runs"]["allox"]["policy"] == shockwave_policy("allox") == "allox_shockwave"
    run = real_cluster.measure(shockwave_policy("allox"))
    np.testing.assert_allclose(run["jct_s"], STORED["runs"]["allox"]["jct_s"], rtol=1e-9)
    gavel = real_cluster.measure("allox")  # Gavel's file, shown beside it
    np.testing.assert_allclose(gavel["jct_s"], STORED["gavel_files"]["allox"]["jct_s"], rtol=1e-9)


def test_every_round_policy_is_on_the_page_and_the_preset_carries_the_calibrated_constant():
    # the shared names run Shockwave's readings where its files differ; Gavel's files run beside
    assert set(STORED["runs"]) | set(SHOCKWAVE_FILES.values()) == set(round_policy_names())
    assert set(STORED["gavel_files"]) == set(SHOCKWAVE_FILES) & set(STORED["shared"])
    for policy in STORED["shared"]:
        assert STORED["runs"][policy]["policy"] == shockwave_policy(policy)
    calibration = STORED["calibration"]
    assert calibration["policies"] == STORED["shared"]  # calibrated on the shared policies only
    best = min(calibration["grid"], key=lambda row: row["mean_abs_pct"])
    assert calibration["chosen_s"] == best["restore_s"]
    assert restore_s(tacc_scenario()) == pytest.approx(calibration["chosen_s"]) == STORED["restore_s"]


def test_the_page_and_its_scatter_are_what_the_stored_results_render():
    assert real_cluster.PAGE.read_text(encoding="utf-8") == real_cluster.render_markdown(STORED)
    assert real_cluster.SVG.read_text(encoding="utf-8") == real_cluster.render_svg(STORED)
