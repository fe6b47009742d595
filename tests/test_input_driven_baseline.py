"""Decima's input-driven baseline: the environments of one rollout batch share their input, other
batches get other inputs, and each step's baseline is the mean return of the environments at the
same simulated time."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.agent.baseline import input_driven_baseline, returns_to_go
from gpusched.agent.config import TrainConfig


def test_returns_to_go_by_hand():
    rewards = np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])
    dones = np.array([[0, 0], [1, 0], [0, 0]], dtype=float)
    out = returns_to_go(rewards, dones, last_values=np.array([10.0, 0.0]), gamma=0.5)
    # env 0: its episode ends at step 1 (1 + 0.5 * 1), then a new one bootstrapped by 10.
    assert out[:, 0].tolist() == [1.5, 1.0, 6.0]
    assert out[:, 1].tolist() == [3.5, 3.0, 2.0]


def test_the_baseline_is_the_mean_return_at_the_same_time_in_the_same_episode():
    returns = np.array([[10.0, 20.0], [8.0, 18.0], [6.0, 16.0]])
    times = np.array([[0.0, 0.0], [5.0, 2.0], [9.0, 7.0]])
    episodes = np.zeros((3, 2), dtype=int)
    base = input_driven_baseline(returns, times, episodes)
    # Env 0 at minute 5: env 1's last step at or before 5 is its step 1 (minute 2, return 18).
    assert base[1, 0] == pytest.approx((8.0 + 18.0) / 2)
    # Env 1 at minute 7: env 0's last step at or before 7 is its step 1 (minute 5, return 8).
    assert base[2, 1] == pytest.approx((16.0 + 8.0) / 2)
    # Environments that share every step share every baseline, so advantages cancel exactly.
    same = input_driven_baseline(np.c_[returns[:, 0], returns[:, 0]], np.c_[times[:, 0], times[:, 0]],
                                 episodes)
    np.testing.assert_allclose(same[:, 0], returns[:, 0])


def test_an_episode_only_one_env_reached_is_its_own_baseline():
    returns = np.array([[5.0, 7.0], [4.0, 3.0]])
    times = np.array([[0.0, 0.0], [1.0, 0.0]])
    episodes = np.array([[0, 0], [0, 1]])  # env 1 started a second episode at step 1
    base = input_driven_baseline(returns, times, episodes)
    assert base[1, 1] == pytest.approx(3.0)


def test_environments_of_one_batch_share_their_workload_and_batches_differ(tmp_path):
    from gpusched.agent.baseline import InputDrivenBaseline
    from gpusched.agent.train import train

    seen: list[list[int]] = []

    class Record(InputDrivenBaseline):
        def _on_rollout_start(self) -> None:
            super()._on_rollout_start()
            seen.append([env.unwrapped.workload_seed for env in self.training_env.envs])

    import gpusched.agent.train as train_module

    config = TrainConfig(scenario="fleet-16gpu", obs_version=4, max_window=16, n_jobs=20, timesteps=192,
                         n_envs=3, n_steps=32, batch_size=32, n_epochs=1, bc_policy=None, eval_seeds=(500,),
                         eval_freq=10_000, checkpoint_freq=10_000, input_driven_baseline=True,
                         out=str(tmp_path / "m.zip"), log_dir=str(tmp_path / "runs"), progress=False)
    original = train_module.InputDrivenBaseline
    train_module.InputDrivenBaseline = Record
    try:
        train(config, log=lambda _: None)
    finally:
        train_module.InputDrivenBaseline = original
    assert len(seen) == 2  # 192 steps = 2 batches of 3 x 32
    assert all(len(set(batch)) == 1 for batch in seen)  # one workload per batch
    assert seen[0][0] != seen[1][0]  # another for the next batch
