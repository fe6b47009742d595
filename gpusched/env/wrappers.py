"""Wrappers around :class:`~gpusched.env.GPUSchedulerEnv`."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from gpusched.core.reward import RewardSpec, TrainingRewardSpec, reward_for, urgency_reward_for
from gpusched.core.urgency_reward import UrgencyTotals


class TrainingReward(gym.Wrapper):
    """Replace the step reward by the same reward formula with other weights, times ``scale``.

    The scenario's reward stays available as ``info["scenario_reward"]``. The training run of the
    shipped agent uses ``wait=1, completion=1, util_band=0, imbalance=0``: the sum of waiting
    job-hours over an episode is the total wait of all jobs, so this reward is exactly the (negative)
    average wait the agent is judged on, plus a constant for completed jobs.

    With urgency terms (:class:`~gpusched.core.reward.TrainingRewardSpec`: weighted JCT,
    lateness, missed deadlines), their change over the step is added
    (:mod:`gpusched.core.urgency_reward`).

    :param env: a ``GPUSchedulerEnv`` (or a wrapper of one).
    :param spec: the training weights.
    :param scale: factor applied to the reward.
    """

    def __init__(self, env: gym.Env, spec: RewardSpec, scale: float = 1.0):
        super().__init__(env)
        self.weights = spec
        self.scale = scale
        self._last: tuple[int, float, float, float, float] = (0, 0.0, 0.0, 0.0, 0.0)
        self._urgent = isinstance(spec, TrainingRewardSpec) and spec.urgent
        self._urgency: UrgencyTotals | None = None
        self._last_urgency = (0.0, 0.0, 0)

    def _urgency_now(self) -> tuple[float, float, int]:
        run = self.env.unwrapped.sim.run_state
        return self._urgency.at(run.time_min, run.record.end_min)

    def _totals(self) -> tuple[int, float, float, float, float]:
        run = self.env.unwrapped.sim.run_state
        totals = run.integrals
        return (run.jobs_completed, totals.waiting_job_min, totals.in_band_min, totals.gini_min,
                totals.system_job_min)

    def reset(self, **kwargs: Any):
        obs, info = self.env.reset(**kwargs)
        self._last = self._totals()
        if self._urgent:
            self._urgency = UrgencyTotals(self.env.unwrapped.sim.run_state.jobs)
            self._last_urgency = self._urgency_now()
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        now = self._totals()
        d = [a - b for a, b in zip(now, self._last, strict=True)]
        self._last = now
        info["scenario_reward"] = reward
        shaped = reward_for(self.weights, int(d[0]), d[1], d[2], d[3], d[4])
        if self._urgent:
            now_u = self._urgency_now()
            du = [a - b for a, b in zip(now_u, self._last_urgency, strict=True)]
            self._last_urgency = now_u
            shaped += urgency_reward_for(self.weights, du[0], du[1], int(du[2]))
        shaped *= self.scale
        return obs, shaped, terminated, truncated, info

    def action_masks(self):
        """The wrapped environment's action mask."""
        return self.env.unwrapped.action_masks()
