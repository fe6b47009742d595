"""The input-driven baseline of Decima (Mao et al., "Learning scheduling algorithms for data
processing clusters", SIGCOMM 2019, section 5.3).

A scheduling episode's return depends on its *input*, the arrival sequence, as much as on the
policy: a burst of big jobs makes every action look bad. A learned value function of the state
cannot tell a bad action from a bad input, so its advantages are noisy. Decima's remedy: roll out
the policy several times on the *same* input, and take as the baseline at each time the mean
return of those rollouts at that time. The difference is then due to the actions alone.

Here the parallel environments of one rollout batch share their input: at the start of every
batch each environment is reset with the same seed (drawn for the batch from a seeded generator),
so they draw the same cluster, queue window and workload, and, as their episodes end, the same
next ones. After the batch, each step's advantage is its return-to-go minus the mean, over the
environments, of their return-to-go at the same simulated time in the same episode of the batch;
the value head is fitted to the returns-to-go. Whether it helps is measured (see ``docs/agent.md``).
"""

from __future__ import annotations

import numpy as np
import torch as th
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import obs_as_tensor

from gpusched.env.env import TRAIN_SEED_MIN


def returns_to_go(rewards: np.ndarray, dones: np.ndarray, last_values: np.ndarray,
                  gamma: float) -> np.ndarray:
    """Discounted returns-to-go of a rollout batch, bootstrapped with ``last_values`` where the
    batch ends inside an episode.

    :param rewards: ``(n_steps, n_envs)``.
    :param dones: ``(n_steps, n_envs)``: the episode ended with this step.
    :param last_values: ``(n_envs,)`` value estimates of the states after the batch.
    :param gamma: discount per step.
    """
    out = np.zeros_like(rewards, dtype=np.float64)
    acc = np.asarray(last_values, dtype=np.float64).copy()
    for t in range(rewards.shape[0] - 1, -1, -1):
        acc = rewards[t] + gamma * acc * (1.0 - dones[t])
        out[t] = acc
    return out


def input_driven_baseline(returns: np.ndarray, times: np.ndarray, episodes: np.ndarray) -> np.ndarray:
    """The baseline of every step: the mean, over the environments that reached the same episode
    of the batch, of their return-to-go at their last step at or before the same simulated time
    (an environment that had not reached that time yet counts with its first step of the episode).

    :param returns: ``(n_steps, n_envs)`` returns-to-go.
    :param times: ``(n_steps, n_envs)`` simulated time of each step (minutes).
    :param episodes: ``(n_steps, n_envs)`` the index of each step's episode within the batch.
    """
    n_steps, n_envs = returns.shape
    baseline = np.zeros_like(returns, dtype=np.float64)
    # Per environment and episode: its steps' times (ascending within an episode) and returns.
    runs: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
    for e in range(n_envs):
        for k in np.unique(episodes[:, e]):
            rows = np.flatnonzero(episodes[:, e] == k)
            runs[(e, int(k))] = (times[rows, e], returns[rows, e])
    for e in range(n_envs):
        for t in range(n_steps):
            k = int(episodes[t, e])
            values = []
            for other in range(n_envs):
                run = runs.get((other, k))
                if run is None:
                    continue
                at = max(int(np.searchsorted(run[0], times[t, e], side="right")) - 1, 0)
                values.append(run[1][at])
            baseline[t, e] = float(np.mean(values))
    return baseline


class InputDrivenBaseline(BaseCallback):
    """Resets every environment of a ``DummyVecEnv`` onto one shared seed at the start of each
    rollout batch, and replaces the batch's advantages by input-driven ones at its end (see the
    module docstring).

    :param seed: seeds the generator of the batches' seeds.
    :param gamma: the discount per decision (the algorithm's ``gamma``).
    """

    def __init__(self, seed: int, gamma: float):
        super().__init__()
        self.rng = np.random.default_rng(seed)
        self.gamma = gamma
        self.batch_seeds: list[int] = []
        self._times: list[list[float]] = []
        self._episodes: list[np.ndarray] = []
        self._episode: np.ndarray | None = None

    def _on_rollout_start(self) -> None:
        venv = self.training_env
        seed = int(self.rng.integers(TRAIN_SEED_MIN, 2**31 - 1))
        self.batch_seeds.append(seed)
        for i, env in enumerate(venv.envs):
            obs, _ = env.reset(seed=seed)
            venv._save_obs(i, obs)
        self.model._last_obs = venv._obs_from_buf()
        self.model._last_episode_starts = np.ones(venv.num_envs, dtype=bool)
        self._times, self._episodes = [], []
        self._episode = np.zeros(venv.num_envs, dtype=np.int64)

    def _on_step(self) -> bool:
        self._times.append([float(info["time_min"]) for info in self.locals["infos"]])
        self._episodes.append(self._episode.copy())
        self._episode = self._episode + np.asarray(self.locals["dones"], dtype=np.int64)
        return True

    def _on_rollout_end(self) -> None:
        buffer = self.model.rollout_buffer
        n = len(self._times)
        rewards = buffer.rewards[:n]
        # A step is the last of its episode when the next step starts a new one (or the batch's
        # final ``dones`` say so).
        dones = np.zeros_like(rewards)
        dones[:-1] = buffer.episode_starts[1:n]
        dones[-1] = np.asarray(self.locals["dones"], dtype=np.float64)
        with th.no_grad():  # the value of the state after the batch (the bootstrap)
            last_values = self.model.policy.predict_values(
                obs_as_tensor(self.model._last_obs, self.model.device)).cpu().numpy().ravel()
        returns = returns_to_go(rewards, dones, last_values, self.gamma)
        baseline = input_driven_baseline(returns, np.asarray(self._times), np.asarray(self._episodes))
        buffer.returns[:n] = returns.astype(buffer.returns.dtype)
        buffer.advantages[:n] = (returns - baseline).astype(buffer.advantages.dtype)
