"""Expert iteration: labels from the rollout search on the local and Ray backends, a tiny training
run that saves, reloads through the safe loader and reproduces its actions, and the sidecar's
record of every round."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from agent_support import assert_reloads_and_reproduces

from gpusched.agent.config import TrainConfig
from gpusched.agent.expert import LabelTask, label_episode, label_round, weights_of
from gpusched.env.env import GPUSchedulerEnv


def tiny_config(folder: Path, **changes) -> TrainConfig:
    """A window agent's run small enough for a test: 30-job episodes on fleet-16gpu."""
    config = TrainConfig(scenario="fleet-16gpu", obs_version=4, max_window=16, random_windows=(2, 16),
                         n_jobs=30, timesteps=0, n_envs=1, n_steps=64, batch_size=32, n_epochs=1,
                         bc_policy="sjf+fastest_fit", bc_episodes=1, bc_epochs=2, eval_seeds=(500,),
                         eval_freq=1024, checkpoint_freq=4096, expert_iterations=2, expert_episodes=2,
                         expert_epochs=2, out=str(folder / "ei.zip"), log_dir=str(folder / "runs"),
                         progress=False, keep_best=False)
    for key, value in changes.items():
        setattr(config, key, value)
    return config


@pytest.fixture(scope="module")
def expert_model(tmp_path_factory) -> Path:
    from gpusched.agent.train import train

    folder = tmp_path_factory.mktemp("models")
    meta = train(tiny_config(folder), log=lambda _: None)
    assert meta["eval"]["avg"]["ppo"]["jobs_completed"] == 30
    return folder / "ei.zip"


def test_the_sidecar_records_every_round_and_its_validation_score(expert_model):
    meta = json.loads(expert_model.with_suffix(".json").read_text())
    record = meta["expert_iteration"]
    assert record["objective"] == "jct" and record["backend"] == "local"
    assert [r["round"] for r in record["rounds"]] == [1, 2]
    assert all(r["labels"] > 0 and np.isfinite(r["score"]) for r in record["rounds"])
    scores = [record["start_score"], *(r["score"] for r in record["rounds"])]
    assert record["kept_round"] == int(np.argmin(scores))  # the best validated weights are kept


def test_an_expert_iteration_model_reloads_safely_and_reproduces_its_actions(expert_model, monkeypatch):
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(expert_model.parent))
    env = GPUSchedulerEnv("fleet-16gpu", obs_version=4, max_window=16, n_jobs=30)
    assert_reloads_and_reproduces(expert_model, env, (16, 16), steps=60)


def _round_labels(folder: Path, backend: str, workers: int) -> list[dict]:
    from gpusched.agent.network import WindowSetPolicy
    from gpusched.agent.train import MaskablePPO, network_meta  # noqa: F401  (torch is loaded)
    from gpusched.env.window import window_action_space, window_observation_space

    config = tiny_config(folder, label_backend=backend, label_workers=workers, expert_episodes=2)
    policy = WindowSetPolicy(window_observation_space(16, 16), window_action_space(16, 16), lambda _: 1e-3,
                             hidden=config.hidden)
    return label_round(policy, config, network_meta(config), round_no=1)


def test_labels_are_the_same_on_the_local_pool_and_on_ray(tmp_path):
    import torch as th

    th.manual_seed(0)
    local = _round_labels(tmp_path, "local", 2)
    th.manual_seed(0)
    ray = _round_labels(tmp_path, "ray", 2)
    assert len(local) == len(ray) == 2
    key = lambda part: part["returns"].tobytes()  # noqa: E731  (tasks finish in any order)
    for a, b in zip(sorted(local, key=key), sorted(ray, key=key), strict=True):
        np.testing.assert_array_equal(a["actions"], b["actions"])
        for k in a["obs"]:
            np.testing.assert_array_equal(a["obs"][k], b["obs"][k])
        assert a["changed"] == b["changed"]


def test_a_label_is_the_rollout_searchs_choice_at_a_state_the_network_visits(tmp_path):
    from gpusched.agent.network import WindowSetPolicy
    from gpusched.agent.train import network_meta
    from gpusched.env.window import window_action_space, window_observation_space

    config = tiny_config(tmp_path)
    policy = WindowSetPolicy(window_observation_space(16, 16), window_action_space(16, 16), lambda _: 1e-3,
                             hidden=config.hidden)
    part = label_episode(LabelTask(config.to_json(), network_meta(config), weights_of(policy), seed=3))
    assert len(part["actions"]) > 0
    # Every label is a valid action of its state, and the episode's returns are those of the
    # network's own trajectory (one per labelled state).
    assert part["masks"][np.arange(len(part["actions"])), part["actions"]].all()
    assert part["returns"].shape == part["actions"].shape
