"""The Gymnasium environment: checkers, registration, reward bookkeeping and fixed workloads."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from gpusched import ENV_ID
from gpusched.env import GPUSchedulerEnv, ObservationBuilder
from gpusched.errors import GpuschedError
from gpusched.experiment.runner import run_policy
from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario


@pytest.mark.parametrize("kwargs", [{}, {"randomize": True}, {"scenario": "ll-stall-mini"},
                                    {"randomize": True, "obs_version": 2}])
def test_gymnasium_check_env(kwargs):
    check_env(GPUSchedulerEnv(n_jobs=30, **kwargs), skip_render_check=True)


@pytest.mark.parametrize("kwargs", [{}, {"randomize": True}, {"obs_version": 2}])
def test_sb3_check_env(kwargs):
    sb3_check_env(GPUSchedulerEnv(n_jobs=30, **kwargs), warn=False)


def test_registered_id_makes_the_env():
    env = gym.make(ENV_ID, scenario="phase1-4gpu", n_jobs=10)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert env.unwrapped.action_masks().shape == (5,)


def _random_episode(env: GPUSchedulerEnv, seed: int, **reset_kwargs) -> tuple[float, dict]:
    rng = np.random.default_rng(seed)
    env.reset(seed=seed, **reset_kwargs)
    total, done, info = 0.0, False, {}
    while not done:
        mask = env.action_masks()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.observation_space.contains(obs)
        fresh = ObservationBuilder(env.sim.setup.cluster, env.max_gpus, env.queue_window, env.vram_scale_gb)
        for key, value in fresh.observe(env.sim.view, env._fits).items():  # the cached block is never stale
            assert np.array_equal(obs[key], value), key
        total += reward
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize("randomize", [False, True])
def test_episode_reward_sums_to_the_simulators_total_reward(randomize):
    env = GPUSchedulerEnv(randomize=randomize, n_jobs=60, max_gpus=16)
    for seed in range(3):
        total, info = _random_episode(env, seed)
        assert total == pytest.approx(info["metrics"]["total_reward"], abs=1e-6)
        assert info["metrics"]["jobs_completed"] == 60


def test_fixed_workload_seed_replays_the_cli_run():
    """``options={"workload_seed": s}`` gives the same jobs as ``gpusched simulate --seed s``."""
    scenario = load_scenario("phase1-8gpu")
    env = GPUSchedulerEnv(scenario, n_jobs=50)
    env.reset(seed=123, options={"workload_seed": 7})
    policy = get_policy("best_fit")
    done = False
    while not done:
        sim = env.sim
        choice = policy.select(sim.run_state.state, sim.view.head_job)
        _, _, terminated, truncated, info = env.step(env.hold_action if choice == -1 else choice)
        done = terminated or truncated
    expected = run_policy(scenario, "best_fit", seed=7, n_jobs=50).metrics
    assert info["metrics"]["avg_wait_min"] == pytest.approx(expected["avg_wait_min"])
    assert info["metrics"]["total_reward"] == pytest.approx(expected["total_reward"])


def test_explicit_job_list_and_cluster():
    scenario = load_scenario("phase1-4gpu")
    sim = make_simulator(scenario, seed=3, n_jobs=20)
    env = GPUSchedulerEnv(max_gpus=8)
    obs, _ = env.reset(options={"jobs": sim.run_state.jobs, "cluster": sim.setup.cluster})
    assert env.sim.setup.cluster.n_gpus == 4
    assert obs["gpu_present"].sum() == 4 and obs["gpus"][4:].sum() == 0
    assert len(env.sim.run_state.jobs) == 20


def test_same_seed_same_episode_and_training_seeds_are_high():
    env = GPUSchedulerEnv(randomize=True, n_jobs=20)
    a, _ = env.reset(seed=5)
    seed_a = env.workload_seed
    b, _ = env.reset(seed=5)
    assert env.workload_seed == seed_a >= 10_000
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])


def test_workload_seeds_cycle():
    env = GPUSchedulerEnv(workload_seeds=[3, 4], n_jobs=5)
    seen = []
    for _ in range(3):
        env.reset()
        seen.append(env.workload_seed)
    assert seen == [3, 4, 3]


def test_max_gpus_too_small_is_refused():
    from gpusched.errors import GpuschedError

    with pytest.raises(GpuschedError, match="max_gpus"):
        GPUSchedulerEnv("phase1-8gpu", max_gpus=4)


def test_render_ansi():
    env = GPUSchedulerEnv("ll-stall-mini", render_mode="ansi")
    env.reset(seed=0)
    assert "head job" in env.render()


def test_version_2_adds_release_times_and_the_next_jobs_one_by_one():
    from conftest import make_job

    from gpusched.core.cluster import Cluster, NodeGroup
    from gpusched.env.observation import GPU_FEATURES, QUEUE_FEATURES

    cluster = Cluster([NodeGroup("A100", 80.0, 2), NodeGroup("T4", 16.0, 1)])
    jobs = [make_job(0, duration=30.0, vram=60.0, compute=0.4),  # on GPU 0 until t=30
            make_job(1, duration=90.0, vram=10.0, compute=0.4),  # on GPU 0 too, until t=90
            make_job(2, arrival=0.0, duration=50.0, vram=70.0, compute=0.9),  # the head after two steps
            make_job(3, arrival=0.0, duration=20.0, gpus=2, vram=8.0, compute=0.1)]
    env = GPUSchedulerEnv("phase1-4gpu", max_gpus=4, obs_version=2)
    env.reset(options={"jobs": jobs, "cluster": cluster})
    env.step(0)
    obs, *_ = env.step(0)
    assert env.observation_space.contains(obs)
    assert env.sim.view.head_job.id == 2
    g, log_day = len(GPU_FEATURES), np.log1p(1440.0)
    assert obs["gpus"][0, g] == np.float32(np.log1p(30.0) / log_day)  # first release on GPU 0
    assert obs["gpus"][0, g + 1] == np.float32(np.log1p(90.0) / log_day)  # last release on GPU 0
    assert (obs["gpus"][1:, g:] == 0).all()  # idle GPUs and padding
    q = len(QUEUE_FEATURES)
    assert obs["queue"][q:q + 4].tolist() == pytest.approx([2 / 8, 8.0 / 80, 0.1, np.log1p(20.0) / log_day])
    assert (obs["queue"][q + 4:] == 0).all()  # only one job behind the head
    v1, _ = GPUSchedulerEnv("phase1-4gpu", max_gpus=4).reset(options={"jobs": jobs, "cluster": cluster})
    assert v1["gpus"].shape == (4, g) and v1["queue"].shape == (q,)


def test_unknown_observation_version_is_refused():
    with pytest.raises(GpuschedError, match="obs_version"):
        GPUSchedulerEnv(obs_version=6)
