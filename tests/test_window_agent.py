"""The window agent: observation version 3 (a queue window of jobs, GPU speeds, job-GPU pairs),
its exact masks, the size-agnostic network, training, safe loading and the agent in runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch as th
from agent_support import assert_reloads_and_reproduces
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import node_groups

from gpusched.agent.config import TrainConfig
from gpusched.agent.network import WindowSetPolicy
from gpusched.cli import main
from gpusched.core.cluster import Cluster
from gpusched.core.speed import DEFAULT_SPEEDS
from gpusched.env import GPUSchedulerEnv
from gpusched.env.window import window_action_space, window_observation_space
from gpusched.experiment.runner import run_policy
from gpusched.workload.presets import load_scenario
from gpusched.workload.synthetic import generate_jobs


def _env(**kwargs) -> GPUSchedulerEnv:
    return GPUSchedulerEnv("fleet-16gpu", obs_version=4, max_window=16, **kwargs)


@pytest.mark.filterwarnings("ignore:.*(unconventional shape|image|resolution).*:UserWarning")
def test_gymnasium_and_sb3_env_checkers_pass():
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    gym_check(_env(), skip_render_check=True)
    sb3_check(_env(randomize=True, random_windows=(1, 16), speed_sigma=0.2, random_loads=(0.2, 0.4)))


def _check_window_mask(env: GPUSchedulerEnv) -> None:
    sim, mask = env.sim, env.action_masks()
    state, n, g_slots = sim.run_state.state, sim.setup.cluster.n_gpus, env.max_gpus
    window = sim.view.window_jobs()
    assert mask.shape == (env.max_window * g_slots + 1,)
    assert mask[-1] == (not sim.run_state.hold_would_dead_stall() or not mask[:-1].any())
    grid = mask[:-1].reshape(env.max_window, g_slots)
    assert not grid[:, n:].any() and not grid[len(window):].any(), "padding is never valid"
    for slot, job in enumerate(window):
        single = state.single_gpu_fit(job)
        for g in range(n):
            gang = state.gang_for(job, g)
            assert bool(grid[slot, g]) == bool(gang), (slot, g)  # valid exactly where it can start
            if gang:
                assert state.can_place(job, gang) and gang[0] == g
        for node in range(sim.setup.cluster.n_nodes):  # every legal gang uses GPUs marked valid
            first = int(sim.setup.cluster.node_first_gpu[node])
            count = int(sim.setup.cluster.node_gpu_count[node])
            local = [g for g in range(first, first + count) if single[g]]
            if len(local) >= job.gpus:
                assert all(grid[slot, g] for g in local)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_groups, st.integers(1, 40), st.floats(2.0, 80.0), st.integers(0, 2**31 - 1),
       st.sampled_from([1, 3, 8, 16]))
def test_window_masks_are_exact(groups, n_jobs, rate, seed, window):
    from gpusched.core.speed import GpuSpeeds

    cluster = Cluster(groups)
    jobs = generate_jobs(n_jobs, rate, {"training": 0.4, "inference": 0.3, "batch": 0.3},
                         np.random.default_rng(seed), cluster.max_vram_gb_for_gpus())
    env = GPUSchedulerEnv(load_scenario("fleet-16gpu").with_overrides(queue={"window": window}),
                          obs_version=4, max_window=16, max_gpus=max(cluster.n_gpus, 16) + 2)
    env.reset(seed=seed, options={"jobs": jobs, "cluster": cluster})
    assert isinstance(env.sim.setup.speeds, GpuSpeeds)
    rng = np.random.default_rng(seed)
    done = False
    while not done:
        _check_window_mask(env)
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, terminated, truncated, info = env.step(action)
        if action != env.hold_action:
            assert info["placed"], "a valid (slot, GPU) action always starts that job"
        done = terminated or truncated
    assert info["end_reason"] == "completed" and not env.sim.run_state.log.misroutes


def test_pair_features_follow_the_speeds_and_the_fit():
    env = _env()
    obs, _ = env.reset(seed=3, options={"workload_seed": 3})
    sim, n = env.sim, env.sim.setup.cluster.n_gpus
    job = sim.view.window_jobs()[0]
    fits = sim.run_state.state.fit_mask(job)
    pairs = obs["pairs"][0, :n]
    np.testing.assert_array_equal(pairs[:, 0] == 1.0, fits)
    speeds = [DEFAULT_SPEEDS.get(m, {}).get(job.type, 1.0) for m in sim.setup.cluster.gpu_model]
    np.testing.assert_allclose(pairs[:, 3], speeds, rtol=1e-6)
    assert obs["job_present"][: len(sim.view.window_jobs())].all() and not obs["pairs"][:, n:].any()


# ---------------------------------------------------------------------------- the network
def _policy(window: int, gpus: int, seed: int = 0) -> WindowSetPolicy:
    th.manual_seed(seed)
    return WindowSetPolicy(window_observation_space(window, gpus), window_action_space(window, gpus),
                           lambda _: 1e-4, trainable=False)


def _random_obs(window: int, gpus: int, rng: np.random.Generator, jobs: int, real_gpus: int):
    space = window_observation_space(window, gpus)
    obs = {k: rng.random(sp.shape).astype(np.float32) for k, sp in space.items()}
    obs["job_present"][:] = 0
    obs["job_present"][:jobs] = 1
    obs["gpu_present"][:] = 0
    obs["gpu_present"][:real_gpus] = 1
    obs["jobs"][jobs:] = 0
    obs["gpus"][real_gpus:] = 0
    obs["pairs"][jobs:] = 0
    obs["pairs"][:, real_gpus:] = 0
    return obs


def _logits(policy, obs) -> np.ndarray:
    with th.no_grad():
        tensors = {k: th.as_tensor(v).unsqueeze(0) for k, v in obs.items()}
        return policy.mlp_extractor.forward_actor(policy.features_extractor(tensors))[0].numpy()


def test_permuting_jobs_or_gpus_permutes_the_logits():
    rng = np.random.default_rng(1)
    w, g = 6, 10
    policy = _policy(w, g)
    obs = _random_obs(w, g, rng, jobs=w, real_gpus=g)
    base = _logits(policy, obs)
    pj, pg = rng.permutation(w), rng.permutation(g)
    moved = dict(obs, jobs=obs["jobs"][pj], job_present=obs["job_present"][pj],
                 gpus=obs["gpus"][pg], gpu_present=obs["gpu_present"][pg], pairs=obs["pairs"][pj][:, pg])
    permuted = _logits(policy, moved)
    grid, moved_grid = base[:-1].reshape(w, g), permuted[:-1].reshape(w, g)
    np.testing.assert_allclose(moved_grid, grid[pj][:, pg], rtol=1e-5, atol=1e-6)
    assert permuted[-1] == pytest.approx(base[-1], abs=1e-6)


def test_weights_fit_any_window_and_gpu_count_and_padding_changes_nothing():
    rng = np.random.default_rng(2)
    small, big = _policy(4, 8), _policy(32, 512, seed=9)
    big.load_state_dict(small.state_dict(), strict=True)  # no weight depends on the sizes
    obs = _random_obs(4, 8, rng, jobs=3, real_gpus=5)
    padded = _random_obs(32, 512, rng, jobs=3, real_gpus=5)
    for k in obs:
        padded[k][:] = 0
    padded["jobs"][:4], padded["job_present"][:4] = obs["jobs"], obs["job_present"]
    padded["gpus"][:8], padded["gpu_present"][:8] = obs["gpus"], obs["gpu_present"]
    padded["pairs"][:4, :8], padded["globals"][:] = obs["pairs"], obs["globals"]
    a, b = _logits(small, obs), _logits(big, padded)
    np.testing.assert_allclose(b[:-1].reshape(32, 512)[:3, :5], a[:-1].reshape(4, 8)[:3, :5], rtol=1e-5,
                               atol=1e-6)
    assert b[-1] == pytest.approx(a[-1], abs=1e-6)


# ---------------------------------------------------------------------------- training and loading
@pytest.fixture(scope="module")
def window_model(tmp_path_factory) -> Path:
    from gpusched.agent.train import train

    folder = tmp_path_factory.mktemp("models")
    config = TrainConfig(scenario="fleet-16gpu", obs_version=4, max_window=16, random_windows=(1, 16),
                         randomize=True, random_gpus=(4, 16), speed_sigma=0.2, random_loads=(0.2, 0.4),
                         n_jobs=60, timesteps=2048, n_envs=2, n_steps=256, batch_size=128, n_epochs=2,
                         bc_policy="sjf", bc_episodes=2, bc_epochs=2, eval_seeds=(500,), eval_freq=1024,
                         checkpoint_freq=4096, out=str(folder / "window.zip"), log_dir=str(folder / "runs"),
                         progress=False)
    meta = train(config, log=lambda _: None)
    assert meta["eval"]["avg"]["ppo"]["jobs_completed"] == 60
    return folder / "window.zip"


@pytest.fixture
def trusted_window(monkeypatch, window_model: Path) -> Path:
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(window_model.parent))
    return window_model


def test_a_window_model_saves_reloads_safely_and_reproduces_its_actions(trusted_window):
    meta = json.loads(trusted_window.with_suffix(".json").read_text())
    assert meta["obs_version"] == 4 and meta["max_window"] == 16 and meta["random_windows"] == [1, 16]
    assert meta["speed_sigma"] == 0.2 and meta["scenario_speed"] == "default"
    env = GPUSchedulerEnv("fleet-16gpu", obs_version=4, max_window=16, n_jobs=60)
    assert_reloads_and_reproduces(trusted_window, env, (16, 16), steps=150)


def test_a_model_trained_small_runs_on_window_32_and_512_gpus(trusted_window):
    scenario = load_scenario("fleet-16gpu").with_overrides(queue={"window": 32})
    big = {"name": "fleet-512", "cluster": {"nodes": [
        {"gpu_model": "A100-80GB", "vram_gb": 80, "gpus_per_node": 8, "count": 32},
        {"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 1, "count": 256}]},
        "workload": {"jobs": 80, "load": 0.3, "seed": 0}, "queue": {"window": 16}, "speed": "default"}
    from gpusched.workload.scenario_yaml import scenario_from_dict

    for sc in (scenario.with_overrides(**{"workload.jobs": 80}), scenario_from_dict(big)):
        result = run_policy(sc, f"ppo:{trusted_window}", seed=1)
        assert result.metrics["jobs_completed"] == 80
    assert scenario_from_dict(big).n_gpus == 512


def test_the_window_agent_and_its_rollouts_run_on_fifo_and_window_scenarios(trusted_window):
    for preset in ("phase1-4gpu", "fleet-16gpu"):
        sc = load_scenario(preset).with_overrides(**{"workload.jobs": 40})
        for name in (f"ppo:{trusted_window}", f"ppo_rollout:{trusted_window}"):
            result = run_policy(sc, name, seed=2)
            assert result.metrics["jobs_completed"] == 40
            if sc.window == 1:
                assert result.metrics["backfilled_jobs"] == 0


def test_compare_with_a_baseline_runs_the_agent_end_to_end(trusted_window, capsys):
    code = main(["compare", "--scenario", "fleet-16gpu", "--jobs", "60", "--seeds", "2",
                 "--policies", f"easy+best_fit,ppo:{trusted_window}", "--baseline", "easy+best_fit"])
    assert code == 0
    out = capsys.readouterr().out
    assert "paired against easy+best_fit" in out and f"ppo:{trusted_window}" in out


def _pair_speeds_match_the_speed_model(scenario, n_jobs: int) -> int:
    """Step a window observation through a Best-Fit run; at each decision every window job's pair
    speed feature is the view's speed model's speed of that GPU for that job. Returns the number
    of (window job, decision) pairs of jobs with a model."""
    from gpusched.env.window import WindowObservationBuilder
    from gpusched.policies import get_policy
    from gpusched.workload.build import make_simulator

    sim = make_simulator(scenario, seed=0, n_jobs=n_jobs)
    fixed = sim.setup
    builder = WindowObservationBuilder(fixed.cluster, fixed.cluster.n_gpus, fixed.window, fixed.speeds)
    policy = get_policy("best_fit")
    with_model = 0
    while not sim.run_state.done:
        view = sim.view
        obs = builder.observe(view)
        for k, idx in enumerate(view.window_indices()):
            job = view.jobs[idx]
            row = view.speed_model.row(job)
            expected = np.ones(sim.setup.cluster.n_gpus) if row is None else row
            pair_speed = obs["pairs"][k, :sim.setup.cluster.n_gpus, 3]
            np.testing.assert_array_equal(pair_speed, expected.astype(np.float32))
            with_model += job.model is not None
        sim.step(policy.select(view.state, view.head_job))
    return with_model


def test_the_window_observation_reads_each_jobs_own_speeds():
    """With Gavel's per-model speeds, a job's pair speeds are its model's (not its type's); on a
    preset they are its type's, as before."""
    from gpusched.workload.presets import load_scenario
    from gpusched.workload.scenario_yaml import scenario_from_dict

    cluster = {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 4, "count": 1}
                         for m in ("K80", "P100", "V100")]}
    gavel = scenario_from_dict({"name": "g", "cluster": cluster, "speed": "gavel", "queue": {"window": 4},
                                "workload": {"jobs": 40, "arrival_rate_per_hour": 6, "generator": "gavel"}})
    assert _pair_speeds_match_the_speed_model(gavel, 40) > 0
    assert _pair_speeds_match_the_speed_model(load_scenario("fleet-16gpu"), 60) == 0
