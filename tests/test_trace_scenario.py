"""Trace-driven scenarios: real openb jobs in the normal simulator."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gpusched.errors import GpuschedError, ScenarioError
from gpusched.experiment.runner import compare, run_policy
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario_yaml import scenario_from_dict


def _trace_scenario(**workload) -> dict:
    return {"name": "t", "cluster": {"trace": {"sample_nodes": 6}},
            "workload": {"jobs": 120, "seed": 0,
                         "trace": {"pods": "openb_pod_list_default", "time_compression": 300},
                         **workload}}


def test_preset_runs_real_jobs_with_shares_of_gpus():
    scenario = load_scenario("openb-sample")
    jobs, left_out = scenario.trace_jobs()
    assert len(jobs) + left_out["unhostable_pods"] == 600
    assert left_out["cpu_only_pods"] > 0
    assert all(j.type == "trace" and j.vram_frac == j.compute and 0 < j.compute <= 1 for j in jobs)
    assert all(b.arrival_min >= a.arrival_min for a, b in zip(jobs, jobs[1:], strict=False))
    result = run_policy(scenario, "first_fit", seed=0, n_jobs=150)
    assert result.metrics["jobs_submitted"] == len(scenario.jobs(seed=0, n_jobs=150))
    assert result.metrics["jobs_completed"] + result.metrics["jobs_unfinished"] == \
        result.metrics["jobs_submitted"]


def test_seed_changes_the_node_sample_deterministically():
    scenario = scenario_from_dict(_trace_scenario())
    a, b, c = scenario.build_cluster(1), scenario.build_cluster(1), scenario.build_cluster(2)
    assert a.node_name == b.node_name and a.node_name != c.node_name
    assert a.n_nodes == 6 and a.has_node_limits


def test_time_compression_scales_arrivals_and_durations():
    slow = scenario_from_dict(_trace_scenario()).jobs(seed=0)
    fast = scenario_from_dict(_trace_scenario(
        trace={"pods": "openb_pod_list_default", "time_compression": 600})).jobs(seed=0)
    assert [j.id for j in slow] == [j.id for j in fast]
    assert fast[-1].arrival_min == pytest.approx(slow[-1].arrival_min / 2, rel=1e-6)
    assert fast[5].duration_min == pytest.approx(slow[5].duration_min / 2, rel=1e-5)


def test_policies_compare_on_real_jobs():
    scenario = scenario_from_dict(_trace_scenario())
    summary = compare(scenario, ["first_fit", "least_loaded", "fgd"], [0]).summary()
    assert (summary["jobs_submitted"] > 0).all()
    assert summary.loc["least_loaded", "avg_wait_min"] >= summary.loc["first_fit", "avg_wait_min"]


def test_bad_trace_scenarios():
    with pytest.raises(ScenarioError, match="cluster: .*either 'nodes' or 'trace'"):
        scenario_from_dict({"name": "x", "cluster": {},
                            "workload": {"jobs": 5, "arrival_rate_per_hour": 1}})
    with pytest.raises(ScenarioError, match="workload: .*arrival_rate_per_hour is required"):
        scenario_from_dict({"name": "x", "cluster": {"trace": {}}, "workload": {"jobs": 5}})
    with pytest.raises(GpuschedError, match="no_such_pods"):
        scenario_from_dict(_trace_scenario(trace={"pods": "no_such_pods"})).jobs()


def test_cli_simulates_a_trace_scenario_and_reports_left_out_pods():
    out = subprocess.run([sys.executable, "-m", "gpusched", "simulate", "--scenario",
                          "openb-sample", "--policy", "best_fit", "--jobs", "100"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "CPU-only" in out.stdout and "avg_wait_min" in out.stdout
