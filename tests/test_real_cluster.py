"""The real-cluster page (docs/results/real-cluster.md, benchmarks/real_cluster.py): one policy
rerun now gives the stored numbers, the references are what Shockwave's files give, the preset
carries the calibrated constant, and the page and its scatter are what the stored results render."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from gpusched.experiment.real_cluster import (
    SHOCKWAVE_FILES,
    SHOCKWAVE_SIM_RESUME_S,
    restore_s,
    run_tacc,
    shockwave_policy,
    shockwave_sim_scenario,
    tacc_scenario,
)
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
    for policy in STORED["runs"]:  # a policy kept back runs as Shockwave's reading too
        assert STORED["runs"][policy]["policy"] == shockwave_policy(policy)
    assert STORED["runs"]["min_total_duration"]["policy"] == "min_total_duration_shockwave"
    assert STORED["runs"]["max_sum_throughput_perf"]["policy"] == "max_sum_throughput_shockwave"
    calibration = STORED["calibration"]
    assert calibration["policies"] == STORED["shared"]  # calibrated on the shared policies only
    best = min(calibration["grid"], key=lambda row: row["mean_abs_pct"])
    assert calibration["chosen_s"] == best["restore_s"]
    assert restore_s(tacc_scenario()) == pytest.approx(calibration["chosen_s"]) == STORED["restore_s"]


def test_the_page_and_its_scatter_are_what_the_stored_results_render():
    assert real_cluster.PAGE.read_text(encoding="utf-8") == real_cluster.render_markdown(STORED)
    assert real_cluster.SVG.read_text(encoding="utf-8") == real_cluster.render_svg(STORED)


def test_told_shockwaves_costs_a_rerun_gives_the_stored_numbers():
    # Shockwave's simulator's rule: 20 s after a round off, nothing for a move
    scenario = shockwave_sim_scenario()
    assert scenario.checkpoint.restore_min * 60 == pytest.approx(SHOCKWAVE_SIM_RESUME_S)
    assert scenario.checkpoint.move_min == 0.0
    assert scenario.checkpoint.interval_min == tacc_scenario().checkpoint.interval_min
    costs = STORED["shockwave_costs"]
    assert list(costs["runs"]) == STORED["shared"]
    stored = costs["runs"]["finish_time_fairness"]["shockwave"]
    run = real_cluster.measure(shockwave_policy("finish_time_fairness"), scenario=scenario)
    np.testing.assert_allclose(run["jct_s"], stored["jct_s"], rtol=1e-9)
    sim = STORED["references"]["finish_time_fairness"]["shockwave_sim"]
    assert 100 * (run["avg_jct_s"] / sim["avg_jct_s"] - 1) == pytest.approx(stored["sim_jct_error_pct"])
    # told no cost, the run is the preset's with no restore at all
    none = real_cluster.measure(shockwave_policy("max_min_fairness"), restore=0.0)
    np.testing.assert_allclose(none["jct_s"], costs["runs"]["max_min_fairness"]["none"]["jct_s"], rtol=1e-9)


def test_under_shockwaves_costs_a_move_is_free_and_a_resumption_pays_20_s():
    result, _ = run_tacc("max_min_fairness", scenario=shockwave_sim_scenario())
    table = result.jobs
    assert table["migrations"].sum() > 0  # jobs do move from one round to the next
    moved = result.timeline.stops.query("kind == 'migration'")[["time_min", "job"]]
    resumes = result.timeline.resumes.merge(moved, on=["time_min", "job"], how="left", indicator=True)
    after_move = resumes["_merge"] == "both"
    assert (resumes.loc[after_move, "restore_min"] == 0.0).all()
    assert after_move.any() and (~after_move).any()
    np.testing.assert_allclose(resumes.loc[~after_move, "restore_min"], SHOCKWAVE_SIM_RESUME_S / 60)


def test_min_total_duration_kept_back_runs_as_shockwaves_file_and_rerun_gives_the_stored_numbers():
    run = real_cluster.measure(shockwave_policy("min_total_duration"))
    stored = STORED["runs"]["min_total_duration"]
    np.testing.assert_allclose(run["jct_s"], stored["jct_s"], rtol=1e-9)
    assert (run["rounds"], run["preemptions"]) == (stored["rounds"], stored["preemptions"])
    # Gavel's later file, one program and no bisection, is another run: the two must differ
    gavel = real_cluster.measure("min_total_duration")
    assert not np.allclose(gavel["jct_s"], stored["jct_s"])
