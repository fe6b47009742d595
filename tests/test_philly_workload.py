"""A Philly CSV as a scenario's workload (``workload.trace.philly``,
gpusched/workload/philly_workload.py) and the ``philly-replay`` preset: jobs in submission order
with their real times, the virtual cluster as the job model (so history keys on it and the GPU
count), the seed's window, one-line errors, and the preset's size as ``benchmarks/philly_load.py``
chose it on the tuning seeds."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpusched.errors import ScenarioError
from gpusched.experiment.runner import run_policy
from gpusched.paths import BENCHMARK_RESULTS_DIR, PHILLY_DIR
from gpusched.workload.philly import read_philly
from gpusched.workload.presets import load_scenario, preset_names
from gpusched.workload.scenario_yaml import scenario_from_dict

NAME = "philly-replay"

CSV = ("timestamp,duration,num_gpus,gpu_time,cluster\n"
       "2017-10-01 00:10:00,600.0,1,600.0,aa\n"
       "2017-10-01 00:00:00,1200.0,2,2400.0,bb\n"
       "2017-10-01 00:05:00,60.0,4,240.0,aa\n"
       "2017-10-03 00:00:00,30.0,1,30.0,aa\n")


def _scenario(path, **philly) -> object:
    return scenario_from_dict({
        "name": "p",
        "cluster": {"nodes": [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 4, "count": 1}]},
        "workload": {"jobs": 100, "trace": {"philly": {"file": str(path), **philly}}}})


def test_jobs_follow_submission_order_with_real_times(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(CSV, encoding="utf-8")
    jobs = _scenario(path).jobs()
    assert [j.id for j in jobs] == [0, 1, 2, 3]
    assert [j.arrival_min for j in jobs] == [0.0, 5.0, 10.0, 2 * 1440.0]
    assert [j.duration_min for j in jobs] == [20.0, 1.0, 10.0, 0.5]
    assert [j.gpus for j in jobs] == [2, 4, 1, 1]
    assert [j.model for j in jobs] == ["bb", "aa", "aa", "aa"]


def test_clusters_keep_only_the_named_virtual_clusters(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(CSV, encoding="utf-8")
    jobs = _scenario(path, clusters=["aa"]).jobs()
    assert [j.model for j in jobs] == ["aa"] * 3 and jobs[0].arrival_min == 0.0
    with pytest.raises(ScenarioError, match=r"workload\.trace\.philly.*'cc' is no virtual cluster"):
        _scenario(path, clusters=["cc"]).jobs()


def test_a_window_is_drawn_by_the_seed_and_keeps_only_its_jobs(tmp_path):
    path = tmp_path / "p.csv"  # one job every two hours for four days, job i runs i + 1 seconds
    rows = "".join(f"2017-10-0{1 + i // 12} {2 * (i % 12):02d}:00:00,{i + 1},1,aa\n" for i in range(48))
    path.write_text("timestamp,duration,num_gpus,cluster\n" + rows, encoding="utf-8")
    scenario = _scenario(path, window_days=1)
    stretches = set()
    for seed in range(6):
        jobs = scenario.jobs(seed)
        assert len(jobs) == 12 and [j.id for j in jobs] == list(range(12))
        assert all(0 <= j.arrival_min < 1440.0 for j in jobs)
        assert np.allclose(np.diff([j.duration_min for j in jobs]), 1 / 60)  # consecutive rows
        stretches.add(jobs[0].duration_min)
    assert len(stretches) > 1  # the seeds replay different stretches


def test_a_window_in_a_gap_of_the_trace_is_refused_in_one_line(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(CSV, encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"p\.csv.*window of 0\.1 days holds no job"):
        [_scenario(path, window_days=0.1).jobs(seed) for seed in range(20)]


def test_bad_input_is_one_line_naming_the_key_and_the_file(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(CSV.replace("60.0,4,240.0", "60.0,4,24.0"), encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        _scenario(path).jobs()
    message = str(err.value)
    assert "\n" not in message and "workload.trace.philly" in message and "p.csv" in message
    assert "line 4" in message and "'gpu_time'" in message
    path.write_text(CSV.replace("60.0,4,240.0", "60.0,8,480.0"), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"p\.csv.*8 GPU\(s\).*largest node: 4 GPUs"):
        _scenario(path).jobs()


def test_the_shipped_file_holds_every_row_of_its_two_virtual_clusters():
    trace = read_philly(PHILLY_DIR / "philly-2vc.csv")
    assert trace.count_by_cluster() == {"103959": 1934, "0e4a51": 1435}
    assert max(trace.num_gpus) == 4


def test_the_preset_loads_is_listed_and_is_sized_as_the_tuning_seeds_chose():
    scenario = load_scenario(NAME)
    assert NAME in preset_names() and scenario.is_trace and scenario.window == 16
    tuning = json.loads((BENCHMARK_RESULTS_DIR / "philly-load-tuning.json").read_text(encoding="utf-8"))
    chosen = tuning["chosen_nodes"]
    assert scenario.cluster.nodes[0].count == chosen
    rows = {r["nodes"]: r for r in tuning["rows"]}
    assert rows[chosen]["drains"] and not any(r["drains"] for n, r in rows.items() if n < chosen)
    assert "seeds 900-904" in scenario.description and f"{chosen} servers" in scenario.description


def test_history_keys_on_the_virtual_cluster_and_gpus():
    scenario = load_scenario(NAME).with_overrides(**{"workload.declared_run_time": "history"})
    result = run_policy(scenario, "qssf+first_fit", seed=1000)
    jobs = result.jobs
    assert int(result.metrics["jobs_unfinished"]) == 0 and len(jobs) > 100
    assert set(jobs["model"]) == {"103959", "0e4a51"}
    predicted, true = jobs["predicted_min"].to_numpy(), jobs["true_duration_min"].to_numpy()
    assert np.all(predicted > 0) and not np.allclose(predicted, true)
    assert jobs["prediction_basis"].iloc[0] == 0 and jobs["prediction_basis"].max() > 10
