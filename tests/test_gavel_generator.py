"""``workload.generator: gavel``: its distributions against Gavel's ``generate_job``, by
goodness-of-fit tests over many draws. Gavel's numbers are written out here as its generator states
them, not read from the module under test."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import stats

from gpusched.errors import ScenarioError
from gpusched.workload.gavel import generate_gavel_jobs
from gpusched.workload.scenario_yaml import scenario_from_dict

N = 200_000
RATE_PER_HOUR = 30.0
ALPHA = 1e-3  # a correct generator fails one test in a thousand seeds
GAVEL_SCALE = {1: 0.7, 2: 0.1, 4: 0.15, 8: 0.05}  # r < 0.7, < 0.8, < 0.95, else
DISTRIBUTED = ("ResNet-18", "ResNet-50", "Transformer", "LM")


@functools.lru_cache(maxsize=1)
def draws():
    jobs = generate_gavel_jobs(N, RATE_PER_HOUR, np.random.default_rng(2026), multi_gpu=True,
                               weights=True, deadlines=True)
    return {
        "arrival": np.array([j.arrival_min for j in jobs]),
        "duration": np.array([j.duration_min for j in jobs]),
        "gpus": np.array([j.gpus for j in jobs]),
        "model": np.array([j.model for j in jobs]),
        "weight": np.array([j.weight for j in jobs]),
        "deadline": np.array([j.deadline_min for j in jobs]),
        "jobs": jobs,
    }


def philly_cdf(minutes):
    """Gavel's duration: 60 * 10^U(1.5, 3) s with p = 0.8, else 60 * 10^U(3, 4) s, in minutes."""
    x = np.log10(minutes)
    return 0.8 * np.clip((x - 1.5) / 1.5, 0, 1) + 0.2 * np.clip(x - 3.0, 0, 1)


def test_arrivals_are_poisson_at_the_rate():
    gaps = np.diff(draws()["arrival"])
    result = stats.kstest(gaps, stats.expon(scale=60.0 / RATE_PER_HOUR).cdf)
    assert result.pvalue > ALPHA, result
    assert draws()["arrival"][0] == 0.0


def test_durations_follow_the_philly_mixture():
    duration = draws()["duration"]
    result = stats.kstest(duration, philly_cdf)
    assert result.pvalue > ALPHA, result
    assert duration.min() >= 10 ** 1.5 and duration.max() <= 10 ** 4
    long = (duration > 1000).mean()
    assert long == pytest.approx(0.2, abs=4 * math.sqrt(0.16 / N))


def test_scale_factors_follow_gavels():
    gpus = draws()["gpus"]
    observed = [int((gpus == g).sum()) for g in GAVEL_SCALE]
    assert sum(observed) == N
    result = stats.chisquare(observed, [p * N for p in GAVEL_SCALE.values()])
    assert result.pvalue > ALPHA, result


def test_models_are_uniform_and_gangs_get_distributed_ones():
    d = draws()
    names = sorted({j.model for j in d["jobs"]})
    assert len(names) == 26
    single = d["model"][d["gpus"] == 1]
    result = stats.chisquare([int((single == m).sum()) for m in names])  # uniform over 26
    assert result.pvalue > ALPHA, result
    gang = d["model"][d["gpus"] > 1]
    distributed = [m for m in names if m.startswith(DISTRIBUTED)]
    assert len(distributed) == 19
    assert set(gang) <= set(distributed)
    result = stats.chisquare([int((gang == m).sum()) for m in distributed])  # uniform over 19
    assert result.pvalue > ALPHA, result


def test_weights_and_deadlines_follow_gavels():
    d = draws()
    assert set(np.unique(d["weight"])) == {1.0, 5.0}
    high = int((d["weight"] == 5.0).sum())
    result = stats.chisquare([high, N - high], [0.2 * N, 0.8 * N])
    assert result.pvalue > ALPHA, result
    factor = np.round(d["deadline"] / d["duration"], 3)
    assert set(np.unique(factor)) == {1.2, 2.0, 10.0}
    result = stats.chisquare([int((factor == f).sum()) for f in (1.2, 2.0, 10.0)])
    assert result.pvalue > ALPHA, result


def test_jobs_are_whole_gpu_training_jobs_without_vram():
    job = draws()["jobs"][0]
    assert (job.type, job.compute, job.vram_gb, job.priority) == ("training", 1.0, 0.0, 2)


def test_switches_off_give_one_gpu_unit_weights_and_no_deadlines():
    jobs = generate_gavel_jobs(2000, RATE_PER_HOUR, np.random.default_rng(0))
    assert {j.gpus for j in jobs} == {1}
    assert {j.weight for j in jobs} == {1.0} and {j.deadline_min for j in jobs} == {None}
    assert len({j.model for j in jobs}) == 26


def _scenario(**workload):
    nodes = [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 8, "count": 2} for m in ("K80", "V100")]
    return scenario_from_dict({"name": "g", "cluster": {"nodes": nodes},
                               "workload": {"jobs": 100, "generator": "gavel", **workload}})


def test_the_workload_seed_draws_the_jobs():
    a = _scenario(arrival_rate_per_hour=3, seed=4, multi_gpu=True).jobs()
    assert a == _scenario(arrival_rate_per_hour=3, seed=4, multi_gpu=True).jobs()
    assert a != _scenario(arrival_rate_per_hour=3, seed=5, multi_gpu=True).jobs()
    assert a != _scenario(arrival_rate_per_hour=3, seed=4, multi_gpu=True).jobs(seed=5)


def test_load_offers_that_share_of_the_gpus():
    scenario = _scenario(load=0.6, multi_gpu=True, jobs=N)
    jobs = scenario.jobs()
    span = jobs[-1].arrival_min - jobs[0].arrival_min
    demand = sum(j.gpus * j.compute * j.duration_min for j in jobs) / span
    assert demand / scenario.n_gpus == pytest.approx(0.6, rel=0.03)


def test_load_counts_the_measured_speeds():
    plain = _scenario(load=0.5).arrival_rate_per_hour()
    gavel = scenario_from_dict({**_scenario(load=0.5).model_dump(), "speed": "gavel"})
    # Half the GPUs are K80s, slower than the V100 for every model: less capacity, fewer jobs.
    assert gavel.arrival_rate_per_hour() < plain


def test_gangs_wider_than_every_node_are_refused():
    nodes = [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 4, "count": 2}]
    scenario = scenario_from_dict({"name": "g", "cluster": {"nodes": nodes}, "workload": {
        "jobs": 10, "arrival_rate_per_hour": 1, "generator": "gavel", "multi_gpu": True}})
    with pytest.raises(ScenarioError, match=r"workload\.multi_gpu: .* up to 8 GPUs .* holds 4"):
        scenario.jobs()
