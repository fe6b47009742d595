"""Wrappers around :class:`~gpusched.env.GPUSchedulerEnv`."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from gpusched.core.reward import RewardSpec, reward_for


class TrainingReward(gym.Wrapper):
    """Replace the step reward by the same reward formula with other weights, times ``scale``.

    The scenario's reward stays available as ``info["scenario_reward"]``. The training run of the
    shipped agent uses ``wait=1, completion=1, util_band=0, imbalance=0``: the sum of waiting
    job-hours over an episode is the total wait of all jobs, so this reward is exactly the (negative)
    average wait the agent is judged on, plus a constant for completed jobs.

    :param env: a ``GPUSchedulerEnv`` (or a wrapper of one).
    :param spec: the training weights.
    :param scale: factor applied to the reward.
    """

    def __init__(self, env: gym.Env, spec: RewardSpec, scale: float = 1.0):
        super().__init__(env)
        self.weights = spec
        self.scale = scale
        self._last: tuple[int, float, float, float, float] = (0, 0.0, 0.0, 0.0, 0.0)

    def _totals(self) -> tuple[int, float, float, float, float]:
        sim = self.env.unwrapped.sim
        return sim.jobs_completed, sim.waiting_job_min, sim.in_band_min, sim.gini_min, sim.system_job_min

    def reset(self, **kwargs: Any):
        obs, info = self.env.reset(**kwargs)
        self._last = self._totals()
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        now = self._totals()
        d = [a - b for a, b in zip(now, self._last, strict=True)]
        self._last = now
        info["scenario_reward"] = reward
        shaped = reward_for(self.weights, int(d[0]), d[1], d[2], d[3], d[4]) * self.scale
        return obs, shaped, terminated, truncated, info

    def action_masks(self):
        """The wrapped environment's action mask."""
        return self.env.unwrapped.action_masks()
