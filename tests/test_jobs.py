"""The synthetic workload generator's draws."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.jobs import Job, check_jobs_feasible
from gpusched.errors import InfeasibleJobError
from gpusched.workload.synthetic import JOB_TYPES, _Categorical, generate_jobs


@settings(max_examples=60, deadline=None)
@given(weights=st.lists(st.floats(0.0, 10.0), min_size=1, max_size=6).filter(lambda w: sum(w) > 1e-3),
       seed=st.integers(0, 2**32 - 1))
def test_categorical_draws_what_rng_choice_draws(weights, seed):
    """One draw consumes one ``rng.random()`` and picks the key ``rng.choice(p=...)`` would."""
    keys = [f"k{i}" for i in range(len(weights))]
    sampler = _Categorical(keys, weights)
    p = np.asarray(weights) / np.sum(weights)
    ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
    for _ in range(50):
        assert sampler.draw(ours) == keys[int(numpys.choice(len(keys), p=p))]
    assert ours.random() == numpys.random()  # both streams are at the same place


def test_jobs_follow_the_cluster_and_the_type_tables():
    limits = {1: 80.0, 2: 24.0}  # 1-GPU jobs up to 80 GB, 2-GPU jobs up to 24 GB, nothing larger
    jobs = generate_jobs(2000, 30.0, {"training": 0.5, "inference": 0.3, "batch": 0.2},
                         np.random.default_rng(7), limits)
    assert [j.id for j in jobs] == list(range(2000))
    assert all(b.arrival_min >= a.arrival_min for a, b in zip(jobs, jobs[1:], strict=False))
    assert {j.gpus for j in jobs} == {1, 2}
    for j in jobs:
        spec = JOB_TYPES[j.type]
        assert j.vram_gb <= limits[j.gpus]
        assert j.vram_gb in spec.vram_gb_choices
        assert spec.duration_range_min[0] <= j.duration_min <= spec.duration_range_min[1]
        assert spec.compute_range[0] <= j.compute <= spec.compute_range[1]
        assert j.priority in spec.priority_choices
    shares = {t: sum(j.type == t for j in jobs) / len(jobs) for t in ("training", "inference", "batch")}
    assert abs(shares["training"] - 0.5) < 0.05 and abs(shares["batch"] - 0.2) < 0.05


def test_the_first_job_that_could_never_fit_is_refused_in_the_jobs_order():
    """Feasibility is checked once per job shape; the refusal still names the first such job."""
    cluster = Cluster([NodeGroup("T4-16GB", 16.0, 2)])
    fits = Job(1, "batch", 0.0, 5.0, 1, 8.0, 0.5)
    too_big, too_many = Job(5, "batch", 1.0, 5.0, 1, 40.0, 0.5), Job(3, "batch", 2.0, 5.0, 4, 8.0, 0.5)
    check_jobs_feasible([fits, Job(2, "batch", 0.5, 7.0, 1, 8.0, 0.2)], cluster)
    with pytest.raises(InfeasibleJobError, match="job 5 "):
        check_jobs_feasible([fits, too_big, too_many, Job(7, "batch", 3.0, 1.0, 1, 40.0, 0.5)], cluster)
    with pytest.raises(InfeasibleJobError, match="job 3 "):
        check_jobs_feasible([fits, too_many, too_big], cluster)
