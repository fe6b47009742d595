"""Scenario validation, presets and the synthetic workload."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.errors import ScenarioError
from gpusched.workload.presets import load_scenario, preset_names
from gpusched.workload.scenario_yaml import scenario_from_dict, scenario_from_yaml

BASE = {
    "name": "t",
    "cluster": {"nodes": [{"gpu_model": "A100-80GB", "vram_gb": 80, "gpus_per_node": 4},
                          {"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 2, "count": 2}]},
    "workload": {"jobs": 50, "arrival_rate_per_hour": 20,
                 "mix": {"training": 0.3, "inference": 0.4, "batch": 0.3}, "seed": 0},
}


def _with(path: str, value):
    import copy

    data = copy.deepcopy(BASE)
    target = data
    *parts, last = path.split(".")
    for part in parts:
        target = target[int(part)] if part.isdigit() else target[part]
    target[last] = value
    return data


def test_presets_exist_and_validate():
    assert {"phase1-4gpu", "phase1-8gpu", "ll-stall-mini", "homogeneous-8gpu"} <= set(
        preset_names())
    assert load_scenario("phase1-8gpu").n_gpus == 8
    assert load_scenario("phase1-4gpu").n_gpus == 4
    assert load_scenario("phase1-8gpu").workload.jobs == 250
    assert load_scenario("ll-stall-mini").workload.jobs < 40


@pytest.mark.parametrize("path,value,message", [
    ("cluster.nodes.1.vram_gb", -16, r"cluster\.nodes\[1\]\.vram_gb: must be > 0 \(got -16\)"),
    ("workload.arrival_rate_per_hour", "fast", r"workload\.arrival_rate_per_hour: must be a number"),
    ("workload.mix", {"training": 0.5, "inference": 0.4}, r"workload\.mix: shares must sum to 1"),
    ("workload.mix", {"gaming": 1.0}, r"unknown job type 'gaming'"),
    ("cluster.nodes.0.gpus_per_node", 0, r"cluster\.nodes\[0\]\.gpus_per_node: must be > 0"),
    ("workload.colour", "red", r"workload\.colour: unknown key"),
])
def test_bad_scenarios_name_the_key(path, value, message):
    with pytest.raises(ScenarioError, match=message) as info:
        scenario_from_dict(_with(path, value), source="x.yaml")
    assert str(info.value).startswith("scenario 'x.yaml', ")
    assert "\n" not in str(info.value)


def test_missing_and_unknown_files():
    with pytest.raises(ScenarioError, match="not found"):
        load_scenario("no/such/file.yaml")
    with pytest.raises(ScenarioError, match="unknown scenario 'nope'"):
        load_scenario("nope")
    with pytest.raises(ScenarioError, match="not valid YAML"):
        scenario_from_yaml("a: [1, 2", source="bad.yaml")


def test_yaml_round_trip():
    scenario = scenario_from_dict(BASE)
    again = scenario_from_yaml(scenario.to_yaml())
    assert again == scenario


def test_workload_is_seeded_and_feasible():
    scenario = scenario_from_dict(BASE)
    a, b, c = scenario.jobs(seed=1), scenario.jobs(seed=1), scenario.jobs(seed=2)
    assert a == b and a != c
    cluster = scenario.build_cluster()
    assert all(cluster.could_ever_hold(j) for j in a)
    arrivals = np.array([j.arrival_min for j in a])
    assert (np.diff(arrivals) >= 0).all() and arrivals[0] == 0
    # Mean gap matches the Poisson rate within sampling error (20/h -> 3 min).
    many = scenario.jobs(seed=3, n_jobs=4000)
    gaps = np.diff([j.arrival_min for j in many])
    assert gaps.mean() == pytest.approx(3.0, rel=0.08)


def test_generator_never_draws_shapes_the_cluster_cannot_hold():
    small = _with("cluster.nodes", [{"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 1}])
    jobs = scenario_from_dict(small).jobs(n_jobs=500)
    assert max(j.gpus for j in jobs) == 1
    assert max(j.vram_gb for j in jobs) <= 16


def test_overrides_revalidate():
    scenario = scenario_from_dict(BASE)
    assert scenario.with_overrides(**{"workload.jobs": 7}).workload.jobs == 7
    with pytest.raises(ScenarioError, match="workload.jobs"):
        scenario.with_overrides(**{"workload.jobs": -1})


def test_the_note_names_the_shapes_a_cluster_can_never_hold():
    t4 = {"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 1, "count": 2}
    two_t4s = _with("cluster.nodes", [t4])
    two_t4s["workload"]["mix"] = {"training": 1.0}
    scenario = scenario_from_dict(two_t4s)
    note = scenario.left_out_note()
    assert note.startswith("note: ") and "\n" not in note
    assert "training jobs with 2, 4 or 8 GPUs, or 24, 32, 40 or 80 GB per GPU" in note
    jobs = scenario.jobs(n_jobs=300)  # the behaviour the note describes: only shapes that fit
    assert {j.gpus for j in jobs} == {1} and {j.vram_gb for j in jobs} == {16.0}
    homogeneous = load_scenario("homogeneous-8gpu")
    assert homogeneous.left_out_note() is None
    assert load_scenario("openb-sample").left_out_note() is None  # trace pods are counted instead


def test_a_zero_share_type_is_not_in_the_note():
    data = _with("cluster.nodes", [{"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 1}])
    data["workload"]["mix"] = {"training": 0.0, "inference": 1.0}
    note = scenario_from_dict(data).left_out_note()
    assert "training" not in note and "inference jobs with 24 or 40 GB per GPU" in note


def test_overriding_a_key_that_is_not_there_is_a_scenario_error():
    scenario = scenario_from_dict(BASE)
    with pytest.raises(ScenarioError, match=r"workload\.trace\.pods: no such key to override"):
        scenario.with_overrides(**{"workload.trace.pods": "x"})
    with pytest.raises(ScenarioError, match="no such key"):
        scenario.with_overrides(**{"nope.deeper": 1})
