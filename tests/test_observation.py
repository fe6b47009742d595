"""The compiled observation kernel computes exactly the documented features.

The reference below reads the feature definitions of :mod:`gpusched.env.observation` with plain
numpy, one feature at a time, and the environment's observation must match it at every step of
random episodes on random clusters (with multi-GPU jobs, VRAM shares and both layout versions).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import node_groups

from gpusched.core import cluster as cluster_module
from gpusched.core.cluster import Cluster
from gpusched.core.jobs import Job
from gpusched.env import GPUSchedulerEnv, kernels
from gpusched.env.observation import GPU_FEATURES, JOB_FEATURES, QUEUE_FEATURES, TIME_FEATURES
from gpusched.workload.synthetic import generate_jobs

LOG_DAY = math.log1p(1440.0)


def reference_observation(sim, max_gpus: int, queue_window: int = 8,
                          scale: float = 80.0) -> dict[str, np.ndarray]:
    """The version-1 observation, feature by feature, from the definitions in GPU_FEATURES etc."""
    c, state, job = sim.setup.cluster, sim.run_state.state, sim.view.head_job
    n = c.n_gpus
    node_size = c.node_gpu_count[c.gpu_node].astype(float)
    block = np.zeros((max_gpus, len(GPU_FEATURES)))
    g = block[:n]
    g[:, 0] = 1.0
    g[:, 1] = c.gpu_vram_gb / scale
    g[:, 2] = state.vram_free_gb / scale
    g[:, 3] = state.compute_used
    g[:, 4] = np.minimum(state.jobs_running / 8.0, 1.0)
    g[:, 9] = np.minimum(node_size / 8.0, 1.0)
    g[:, 10] = state.jobs_running == 0
    job_vec = np.zeros(len(JOB_FEATURES))
    if job is not None:
        fits, single = state.fit_mask(job), state.single_gpu_fit(job)
        need = job.vram_gb + job.vram_frac * c.gpu_vram_gb
        g[:, 5] = fits
        g[:, 6] = np.where(fits, np.maximum((state.vram_free_gb - need) / scale, 0.0), 0.0)
        g[:, 7] = np.where(fits, np.maximum(1.0 - job.compute - state.compute_used, 0.0), 0.0)
        if job.gpus > 1:
            per_node = np.bincount(c.gpu_node[single], minlength=c.n_nodes)
            g[:, 8] = per_node[c.gpu_node] / node_size
        else:
            g[:, 8] = fits
        g[:, 11] = (c.gpu_vram_gb + cluster_module.EPS >= need) & (node_size >= job.gpus)
        job_vec[:] = [job.gpus / 8, float(np.mean(need)) / scale, job.compute,
                      math.log1p(job.declared_min) / LOG_DAY, job.priority / 3,
                      job.type == "training", job.type == "inference", job.type == "batch",
                      min(math.log1p(sim.run_state.time_min - job.arrival_min) / LOG_DAY, 1.0), fits.mean()]
    queue = list(sim.run_state.queue)
    window = [sim.run_state.jobs[i] for i in queue[1:1 + queue_window]]
    total_vram = c.gpu_vram_gb.sum()
    queue_vec = [min(math.log1p(len(queue)) / math.log1p(1000.0), 1.0),
                 len(window) / queue_window,
                 min(sum(j.gpus * j.vram_gb for j in window) / total_vram, 2.0),
                 min(sum(j.gpus * j.compute for j in window) / n, 2.0),
                 max((j.vram_gb for j in window), default=0.0) / scale,
                 state.compute_used.mean(), state.vram_used_gb.sum() / total_vram,
                 min(sim.view.running_count / n, 2.0)]
    time_vec = [min((sim.run_state.time_min - sim.run_state.start_time_min) / (7 * 1440.0), 1.0),
                1.0 - sim.run_state.arrivals_left / len(sim.run_state.jobs)]
    present = np.zeros(max_gpus)
    present[:n] = 1.0
    return {"gpus": block, "gpu_present": present, "job": job_vec, "queue": np.array(queue_vec),
            "time": np.array(time_vec)}


def _check_episode(env: GPUSchedulerEnv, seed: int, **reset_kwargs) -> int:
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed, **reset_kwargs)
    steps, done = 0, False
    while not done:
        expected = reference_observation(env.sim, env.max_gpus, env.queue_window, env.vram_scale_gb)
        for key, value in expected.items():
            got = obs[key]
            if env.obs_version >= 2 and key in ("gpus", "queue"):  # version 2 appends columns
                got = got[:, :len(GPU_FEATURES)] if key == "gpus" else got[:len(QUEUE_FEATURES)]
            assert got.dtype == np.float32 and got.shape == value.shape, key
            np.testing.assert_allclose(got, value.astype(np.float32), rtol=1e-6, atol=1e-7, err_msg=key)
        assert obs["time"].shape == (len(TIME_FEATURES),)
        obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        steps += 1
        done = terminated or truncated
    return steps


def test_kernel_constants_match_the_layout():
    assert kernels.EPS == cluster_module.EPS
    assert (len(JOB_FEATURES), len(QUEUE_FEATURES)) == (kernels.N_JOB_FEATURES, kernels.N_QUEUE_FEATURES)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_groups, st.integers(1, 40), st.floats(2.0, 60.0), st.integers(0, 2**31 - 1),
       st.sampled_from([1, 2]))
def test_observation_matches_the_feature_definitions(groups, n_jobs, rate, seed, obs_version):
    cluster = Cluster(groups)
    jobs = generate_jobs(n_jobs, rate, {"training": 0.4, "inference": 0.3, "batch": 0.3},
                         np.random.default_rng(seed), cluster.max_vram_gb_for_gpus())
    env = GPUSchedulerEnv("phase1-8gpu", max_gpus=max(cluster.n_gpus, 8) + 2, obs_version=obs_version)
    assert _check_episode(env, seed, options={"jobs": jobs, "cluster": cluster}) >= n_jobs


@pytest.mark.parametrize("obs_version", [1, 2])
def test_observation_matches_on_trace_jobs_with_vram_shares(obs_version):
    env = GPUSchedulerEnv("openb-sample", n_jobs=80, obs_version=obs_version)
    env.reset(seed=0)
    jobs: list[Job] = env.sim.run_state.jobs
    assert any(j.vram_frac for j in jobs), "the sample trace asks for shares of a GPU"
    _check_episode(env, 1)
