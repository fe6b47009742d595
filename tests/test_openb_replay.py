"""The ``openb-replay-heavy`` preset: it loads and validates, is listed, its cluster size is the one
``benchmarks/openb_load.py`` chose on the tuning seeds, and it runs with run times from history;
a history key may name a trace pod's request signature."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpusched.core.history_estimator import KEY_FIELDS, HistoryEstimator
from gpusched.core.jobs import Job
from gpusched.experiment.runner import run_policy
from gpusched.paths import BENCHMARK_RESULTS_DIR
from gpusched.workload.declared import check_declared
from gpusched.workload.presets import load_scenario, preset_names

NAME = "openb-replay-heavy"


def test_the_preset_loads_validates_and_is_listed():
    scenario = load_scenario(NAME)
    assert NAME in preset_names()
    assert scenario.is_trace and scenario.workload.jobs == 2000 and scenario.window == 16
    assert scenario.workload.trace.pods == "openb_pod_list_default"
    assert scenario.workload.trace.time_compression == 1.0


def test_its_cluster_is_the_size_the_tuning_seeds_chose():
    tuning = json.loads((BENCHMARK_RESULTS_DIR / "openb-load-tuning.json").read_text(encoding="utf-8"))
    scenario = load_scenario(NAME)
    assert scenario.cluster.trace.sample_nodes == tuning["chosen_nodes"]
    rows = {r["nodes"]: r for r in tuning["rows"]}
    chosen = tuning["chosen_nodes"]
    assert rows[chosen]["drains"] and not any(r["drains"] for n, r in rows.items() if n < chosen)
    assert "seeds 900-904" in scenario.description and str(chosen) in scenario.description


def test_it_runs_told_run_times_only_by_history():
    scenario = load_scenario(NAME).with_overrides(**{"workload.declared_run_time": "history"})
    result = run_policy(scenario, "qssf+first_fit", seed=0)
    jobs = result.jobs
    assert int(result.metrics["jobs_unfinished"]) == 0 and len(jobs) > 1900
    predicted, true = jobs["predicted_min"].to_numpy(), jobs["true_duration_min"].to_numpy()
    assert np.all(predicted > 0) and not np.allclose(predicted, true)
    assert result.metrics["prediction_error_log"] > 0
    # the first pod has no history: the prior; later pods rest on completed ones
    assert jobs["prediction_basis"].iloc[0] == 0 and jobs["prediction_basis"].max() > 100


def _pod(i: int, arrival: float, duration: float, share: float, cpu: float) -> Job:
    return Job(i, "trace", arrival, duration, 1, 0.0, share, vram_frac=share, cpu_milli=cpu,
               memory_mib=1024.0)


def test_a_history_key_may_name_a_pods_request_signature():
    pods = [_pod(0, 0.0, 10.0, 0.5, 4000.0), _pod(1, 0.0, 1000.0, 1.0, 4000.0),
            _pod(2, 2000.0, 1.0, 0.5, 4000.0), _pod(3, 2000.0, 1.0, 1.0, 8000.0)]
    est = HistoryEstimator(pods, keys=[("gpus", "compute", "cpu_milli", "memory_mib"),
                                       ("gpus", "compute"), ()])
    for i in (0, 1):
        est.fix_at_arrival(i, pods[i])
        est.observe_completion(i, pods[i], pods[i].duration_min)
    for i in (2, 3):
        est.fix_at_arrival(i, pods[i])
    assert est.declared_min[2] == pytest.approx(10.0) and est.level[2] == 0     # same signature
    assert est.declared_min[3] == pytest.approx(1000.0) and est.level[3] == 1   # same GPU share only
    assert "compute" in KEY_FIELDS and check_declared(
        {"history": {"keys": [["gpus", "compute", "cpu_milli", "memory_mib"], []]}})


def test_on_the_replay_the_signature_predicts_better_than_the_default_keys():
    base = load_scenario(NAME)
    keys = {"history": {"keys": [["gpus", "compute", "cpu_milli", "memory_mib"], ["gpus", "compute"],
                                 ["gpus"], []]}}
    error = {label: run_policy(base.with_overrides(**{"workload.declared_run_time": value}),
                               "qssf+first_fit", seed=1000).metrics["prediction_error_log"]
             for label, value in (("default", "history"), ("signature", keys))}
    assert error["signature"] < error["default"]
