"""Training smoke run, safe loading, refusal of bad files, and a model on a larger cluster."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from agent_support import assert_reloads_and_reproduces

from gpusched.agent.config import TrainConfig
from gpusched.agent.models import ModelError, load_agent
from gpusched.env import GPUSchedulerEnv
from gpusched.experiment.runner import run_policy
from gpusched.policies import get_policy
from gpusched.workload.scenario_yaml import scenario_from_dict

SCENARIO_48 = {
    "name": "hetero-48gpu-test",
    "cluster": {"nodes": [
        {"gpu_model": "A100-80GB", "vram_gb": 80, "gpus_per_node": 8, "count": 2},
        {"gpu_model": "V100-32GB", "vram_gb": 32, "gpus_per_node": 4, "count": 4},
        {"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 1, "count": 16},
    ]},
    "workload": {"jobs": 60, "arrival_rate_per_hour": 30, "seed": 0},
}


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A model from a tiny training run (a few thousand steps), in a trusted model folder."""
    from stable_baselines3.common.callbacks import BaseCallback

    from gpusched.agent.train import train

    class Count(BaseCallback):
        calls = 0

        def _on_step(self) -> bool:
            Count.calls += 1
            return True

    folder = tmp_path_factory.mktemp("models")
    config = TrainConfig(scenario="phase1-8gpu", randomize=True, max_gpus=16, n_jobs=40, timesteps=2048,
                         n_envs=2, n_steps=256, batch_size=128, n_epochs=2, bc_episodes=2, bc_epochs=2,
                         eval_seeds=(500,), eval_freq=1024, checkpoint_freq=1024,
                         out=str(folder / "smoke.zip"), log_dir=str(folder / "runs"), progress=False)
    meta = train(config, log=lambda _: None, callbacks=[Count()])
    assert Count.calls >= 2048 // 2  # extra callbacks run at every vectorised step
    assert meta["eval"]["avg"]["ppo"]["jobs_completed"] == 40
    assert (folder / "runs").is_dir()
    return folder / "smoke.zip"


@pytest.fixture
def trusted(monkeypatch, trained: Path) -> Path:
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(trained.parent))
    return trained


def test_sidecar_has_the_run_facts(trusted):
    meta = json.loads(trusted.with_suffix(".json").read_text())
    for key in ("scenario", "timesteps", "seed", "obs_version", "max_gpus", "reward_spec",
                "training_time_s", "eval", "sha256"):
        assert key in meta
    assert meta["max_gpus"] == 16 and meta["timesteps"] == 2048


def test_reload_reproduces_deterministic_actions(trusted):
    assert_reloads_and_reproduces(trusted, GPUSchedulerEnv("phase1-8gpu", max_gpus=16, n_jobs=40), (16,),
                                  steps=100)


def test_registry_runs_the_model_and_16_gpu_model_runs_on_48_gpus(trusted):
    scenario = scenario_from_dict(SCENARIO_48)
    assert scenario.n_gpus == 48
    result = run_policy(scenario, f"ppo:{trusted}", seed=0)
    assert result.metrics["jobs_completed"] == 60
    # The same weights in a 48-slot environment.
    policy = load_agent(trusted).policy(48)
    env = GPUSchedulerEnv(scenario, max_gpus=48)
    obs, _ = env.reset(seed=0)
    action, _ = policy.predict(obs, deterministic=True, action_masks=env.action_masks())
    assert env.action_masks()[int(action)]


def test_tampered_model_is_refused(trusted, tmp_path):
    bad = trusted.parent / "tampered.zip"
    shutil.copy(trusted, bad)
    shutil.copy(trusted.with_suffix(".json"), bad.with_suffix(".json"))
    with bad.open("ab") as f:
        f.write(b"\0")
    with pytest.raises(ModelError, match="sha256"):
        load_agent(bad)
    with pytest.raises(ModelError, match="sha256"):
        get_policy(f"ppo:{bad}")


def test_missing_sidecar_and_unknown_version_are_refused(trusted):
    lone = trusted.parent / "lone.zip"
    shutil.copy(trusted, lone)
    with pytest.raises(ModelError, match="no sidecar"):
        load_agent(lone)
    old = trusted.parent / "old.zip"
    shutil.copy(trusted, old)
    meta = json.loads(trusted.with_suffix(".json").read_text())
    meta["obs_version"] = 0
    old.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="observation version"):
        load_agent(old)


def test_model_outside_the_model_folders_is_refused(trained, tmp_path, monkeypatch):
    monkeypatch.delenv("GPUSCHED_MODELS_DIR", raising=False)
    outside = tmp_path / "elsewhere.zip"
    shutil.copy(trained, outside)
    shutil.copy(trained.with_suffix(".json"), outside.with_suffix(".json"))
    with pytest.raises(ModelError, match="outside the model folders"):
        load_agent(outside)


def test_a_missing_model_names_each_folder_once(monkeypatch):
    from gpusched.agent.models import model_dirs, resolve_model
    from gpusched.paths import REPO_ROOT

    monkeypatch.delenv("GPUSCHED_MODELS_DIR", raising=False)
    monkeypatch.chdir(REPO_ROOT)  # the cwd's models/ is the repository's
    dirs = model_dirs()
    assert len(dirs) == len(set(dirs)) == 2
    with pytest.raises(ModelError, match="not found") as info:
        resolve_model("nope.zip")
    assert str(info.value).count(str(REPO_ROOT / "models")) == 1


def test_actions_are_masked_in_simulator_runs(trusted):
    result = run_policy(scenario_from_dict(SCENARIO_48), f"ppo:{trusted}", seed=1)
    assert np.isfinite(result.metrics["avg_wait_min"])


def test_warm_start_can_imitate_the_lookahead_planner():
    """A teacher that reads the simulator (``bind``) is bound to each episode's simulator."""
    from gpusched.agent.train import collect_heuristic

    config = TrainConfig(scenario="phase1-4gpu", bc_policy="lookahead", bc_episodes=1, n_jobs=15)
    data = collect_heuristic(config, seed=3)
    env = GPUSchedulerEnv("phase1-4gpu", max_gpus=config.max_gpus, n_jobs=15)
    env.reset(seed=3)
    teacher = get_policy("lookahead")
    teacher.bind(env.sim.view)
    expected = []
    while not env.sim.run_state.done:
        choice = teacher.select(env.sim.view.state, env.sim.view.head_job)
        action = env.hold_action if choice == -1 else int(choice)
        expected.append(action)
        env.step(action)
    assert data["actions"].tolist() == expected


def test_a_version_2_model_with_dagger_trains_saves_loads_and_runs(tmp_path, monkeypatch):
    from gpusched.agent.train import train
    from gpusched.env.observation import GPU_FEATURES_V2, feature_names
    from gpusched.workload.presets import load_scenario

    config = TrainConfig(scenario="phase1-4gpu", max_gpus=8, n_jobs=20, timesteps=256, n_envs=1, n_steps=128,
                         batch_size=64, n_epochs=1, bc_policy="queue_lookahead", bc_episodes=1, bc_epochs=1,
                         dagger_rounds=1, dagger_episodes=1, dagger_epochs=1, eval_seeds=(500,),
                         eval_freq=10**6, checkpoint_freq=10**6, obs_version=2, out=str(tmp_path / "v2.zip"),
                         log_dir=str(tmp_path / "runs"), progress=False)
    lines: list[str] = []
    meta = train(config, log=lines.append)
    assert meta["obs_version"] == 2
    assert any(line.startswith("DAgger round 1:") for line in lines)
    assert meta["warm_start"]["decisions"] > 20  # teacher episode plus the student's
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(tmp_path))
    agent = load_agent(tmp_path / "v2.zip")
    width = len(feature_names(2)["gpus"])
    assert width == len(feature_names(1)["gpus"]) + len(GPU_FEATURES_V2)
    assert agent.policy(24).observation_space["gpus"].shape == (24, width)
    result = run_policy(load_scenario("phase1-4gpu"), f"ppo:{tmp_path / 'v2.zip'}", seed=1, n_jobs=20)
    assert result.metrics["jobs_completed"] == 20
