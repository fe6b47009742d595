"""The environments training builds: what PPO maximises, what its logs show and what the evaluation
that keeps the best weights scores are one and the same training reward."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.agent.config import TrainConfig
from gpusched.agent.episodes import make_eval_env, make_train_env


def _window_config() -> TrainConfig:
    config = TrainConfig(scenario="fleet-16gpu", n_jobs=30, eval_seeds=(500,))
    config.window_agent((1, 16), 0.2)
    config.check()
    return config


def _first_valid_episode(env) -> tuple[float, float, float]:
    """Play the first valid action at every step; return the summed step rewards, the monitored
    episode return and the episode's summed scenario reward."""
    env.reset(seed=0)
    total, scenario_total, done, info = 0.0, 0.0, False, {}
    while not done:
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        scenario_total += info["scenario_reward"]
        done = terminated or truncated
    return total, float(info["episode"]["r"]), scenario_total


@pytest.mark.parametrize("make_env", [make_eval_env, make_train_env], ids=["eval", "train"])
def test_the_monitored_return_is_the_training_reward_not_the_scenarios(make_env):
    """SB3's ``evaluate_policy`` (and the keep-best evaluation) reads the ``Monitor``'s return: it
    must be the time-to-result reward PPO maximises, which here differs from the scenario's."""
    total, monitored, scenario_total = _first_valid_episode(make_env(_window_config()))
    assert monitored == pytest.approx(total, rel=1e-5, abs=1e-4)
    assert total < 0  # jct=1 and nothing else: a penalty per job-hour in the system
    assert abs(scenario_total - total) > 1.0
