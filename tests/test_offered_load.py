"""The workload key ``load``: offered compute demand as a fraction of the cluster's capacity,
converted to a Poisson arrival rate from the workload's expected demand per job."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.errors import ScenarioError
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario_yaml import scenario_from_dict
from gpusched.workload.synthetic import (
    JOB_TYPES,
    arrival_rate_for_load,
    clipped_lognormal_mean,
    expected_gpu_minutes,
    generate_jobs,
)

BASE = {
    "name": "load-test",
    "cluster": {"nodes": [{"gpu_model": "A100-80GB", "vram_gb": 80, "gpus_per_node": 4, "count": 1}]},
    "workload": {"jobs": 50, "mix": {"training": 0.2, "inference": 0.6, "batch": 0.2}},
}


def test_the_clipped_lognormal_mean_matches_numerical_integration():
    median, sigma, lo, hi = 90.0, 0.6, 10.0, 1440.0
    z = np.linspace(-12, 12, 400_001)
    x = np.clip(median * np.exp(sigma * z), lo, hi)
    density = np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    numeric = float(np.sum(x * density) * (z[1] - z[0]))
    assert clipped_lognormal_mean(median, sigma, lo, hi) == pytest.approx(numeric, rel=1e-6)
    # Without clipping it is the log-normal mean.
    assert clipped_lognormal_mean(15, 0.5, 1e-9, 1e9) == pytest.approx(15 * math.exp(0.125), rel=1e-9)


def test_one_inference_job_by_hand():
    # One GPU, compute U(0.1, 0.3) (mean 0.2), duration log-normal median 15, sigma 0.5,
    # clipped to 2-120 min: E[gpus * compute * duration] = 1 * 0.2 * E[duration].
    spec = JOB_TYPES["inference"]
    want = 0.2 * clipped_lognormal_mean(15.0, 0.5, 2.0, 120.0)
    assert expected_gpu_minutes(spec, {1: 80.0}) == pytest.approx(want)
    # At load 0.5 on 4 GPUs: 0.5 * 4 GPU-minutes per minute / want per job, per hour.
    assert arrival_rate_for_load(0.5, {"inference": 1.0}, 4, {1: 80.0}) == pytest.approx(0.5 * 4 * 60 / want)


@pytest.mark.parametrize("job_type", list(JOB_TYPES))
def test_expected_demand_per_job_matches_the_generator(job_type):
    cluster = Cluster([NodeGroup("A100-80GB", 80, 8)])
    feasible = cluster.max_vram_gb_for_gpus()
    jobs = generate_jobs(60_000, 60.0, {job_type: 1.0}, np.random.default_rng(7), feasible)
    demand = np.array([j.gpus * j.compute * j.duration_min for j in jobs])
    stderr = demand.std() / math.sqrt(demand.size)
    assert abs(demand.mean() - expected_gpu_minutes(JOB_TYPES[job_type], feasible)) < 4 * stderr


def test_gpu_counts_the_cluster_cannot_hold_leave_the_expectation():
    spec = JOB_TYPES["training"]
    small = expected_gpu_minutes(spec, {1: 80.0, 2: 80.0})  # no node of 4 or 8 GPUs
    big = expected_gpu_minutes(spec, {1: 80.0, 2: 80.0, 4: 80.0, 8: 80.0})
    assert small < big
    ratio = (1 * 0.55 + 2 * 0.25) / 0.80 / (1 * 0.55 + 2 * 0.25 + 4 * 0.15 + 8 * 0.05)
    assert small / big == pytest.approx(ratio)


def test_a_scenario_with_load_draws_jobs_at_the_documented_rate():
    data = {**BASE, "workload": {**BASE["workload"], "load": 0.4, "jobs": 4000}}
    scenario = scenario_from_dict(data)
    cluster = scenario.build_cluster()
    rate = arrival_rate_for_load(0.4, data["workload"]["mix"], cluster.n_gpus,
                                 cluster.max_vram_gb_for_gpus())
    assert scenario.arrival_rate_per_hour() == pytest.approx(rate)
    jobs = scenario.jobs()
    gaps = np.diff([j.arrival_min for j in jobs])
    assert gaps.mean() == pytest.approx(60.0 / rate, rel=0.05)
    # The same jobs as the equivalent explicit rate.
    explicit = scenario_from_dict({**BASE, "workload": {**BASE["workload"], "jobs": 4000,
                                                         "arrival_rate_per_hour": rate}})
    assert explicit.jobs() == jobs
    assert "load 0.4" in scenario.summary()


def test_load_and_rate_together_are_refused():
    data = {**BASE, "workload": {**BASE["workload"], "load": 0.4, "arrival_rate_per_hour": 5}}
    with pytest.raises(ScenarioError, match="either 'arrival_rate_per_hour' or 'load'"):
        scenario_from_dict(data)


def test_load_on_a_trace_workload_is_refused():
    data = load_scenario("openb-sample").model_dump(mode="json", exclude_none=True)
    data["workload"]["load"] = 0.5
    with pytest.raises(ScenarioError, match="'load'"):
        scenario_from_dict(data)


def test_an_override_of_load_replaces_the_rate_and_back():
    scenario = load_scenario("phase1-8gpu")
    with_load = scenario.with_overrides(**{"workload.load": 0.3})
    assert with_load.workload.load == 0.3 and with_load.workload.arrival_rate_per_hour is None
    back = with_load.with_overrides(**{"workload.arrival_rate_per_hour": 5.0})
    assert back.workload.load is None and back.jobs() == scenario.jobs()


def test_the_same_load_offers_the_same_share_of_compute_on_clusters_of_any_size():
    mix = {"training": 0.2, "inference": 0.6, "batch": 0.2}
    one = load_scenario("homogeneous-8gpu").build_cluster()
    two = load_scenario("homogeneous-16gpu").build_cluster()
    r1 = arrival_rate_for_load(0.3, mix, one.n_gpus, one.max_vram_gb_for_gpus())
    r2 = arrival_rate_for_load(0.3, mix, two.n_gpus, two.max_vram_gb_for_gpus())
    assert r2 == pytest.approx(2 * r1)
