"""What every stage of training shares: its environments, and fitting the network to labelled
decisions (the warm start, DAgger and expert iteration all fit the same way)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common.monitor import Monitor

from gpusched.agent.config import TrainConfig
from gpusched.agent.network import GpuSetPolicy
from gpusched.core.reward import TrainingRewardSpec
from gpusched.env.env import GPUSchedulerEnv
from gpusched.env.window import WINDOW_OBS_VERSIONS
from gpusched.env.wrappers import TrainingReward


def make_train_env(config: TrainConfig) -> Monitor:
    """One training environment: the scenario (optionally randomised) with the training reward,
    which the outer ``Monitor`` records (``rollout/ep_rew_mean`` is the reward PPO maximises)."""
    env = GPUSchedulerEnv(config.training_scenario(), max_gpus=config.max_gpus, randomize=config.randomize,
                          scenario_prob=config.scenario_prob, random_gpus=tuple(config.random_gpus),
                          n_jobs=config.n_jobs, obs_version=config.obs_version, **observation_options(config),
                          **window_options(config))
    return Monitor(TrainingReward(env, TrainingRewardSpec(**config.train_reward), config.reward_scale))


def make_eval_env(config: TrainConfig) -> Monitor:
    """The evaluation environment: the scenario's own cluster on the held-out seeds, scored by the
    training reward (so that the weights kept as the best are the best by what the agent learns:
    the time to result for a window agent; the scenario's reward stays in ``info``).

    The ``Monitor`` wraps the training reward, not the environment inside it: SB3's
    ``evaluate_policy`` scores a monitored environment by the ``Monitor``'s episode returns, so a
    ``Monitor`` inside would rank weights by the scenario's reward instead."""
    env = GPUSchedulerEnv(config.training_scenario(), max_gpus=config.max_gpus,
                          workload_seeds=list(config.eval_seeds),
                          n_jobs=config.n_jobs, obs_version=config.obs_version, **observation_options(config),
                          max_window=config.max_window if windowed(config) else None)
    return Monitor(TrainingReward(env, TrainingRewardSpec(**config.train_reward), config.reward_scale))


def observation_options(config: TrainConfig) -> dict[str, Any]:
    """The observation's settings that the sidecar records (the FIFO summary's length, the VRAM
    divisor)."""
    return {"queue_window": config.queue_window, "vram_scale_gb": config.vram_scale_gb}


def windowed(config: TrainConfig) -> bool:
    return config.obs_version in WINDOW_OBS_VERSIONS


def window_options(config: TrainConfig) -> dict[str, Any]:
    """The environment's window and randomisation options of a version-3 run."""
    if not windowed(config):
        return {}
    return {"max_window": config.max_window,
            "random_windows": tuple(config.random_windows) if config.random_windows else None,
            "speed_sigma": config.speed_sigma,
            "random_loads": tuple(config.random_loads) if config.random_loads else None,
            "unit_speed_prob": config.unit_speed_prob}


def merge_demonstrations(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One data set from several :func:`collect_heuristic` results."""
    return {
        "obs": {k: np.concatenate([p["obs"][k] for p in parts]) for k in parts[0]["obs"]},
        "masks": np.concatenate([p["masks"] for p in parts]),
        "actions": np.concatenate([p["actions"] for p in parts]),
        "returns": np.concatenate([p["returns"] for p in parts]),
    }


def warm_start(policy: GpuSetPolicy, data: dict[str, Any], epochs: int, seed: int,
               lr: float = 1e-3, batch: int = 256) -> dict[str, float]:
    """Fit the policy to the heuristic's actions (cross-entropy) and the value to its returns (MSE).

    :return: the final epoch's mean losses and action agreement (fraction 0-1).
    """
    rng = np.random.default_rng(seed)
    opt = th.optim.Adam(policy.parameters(), lr=lr)
    n = len(data["actions"])
    obs = {k: th.as_tensor(v) for k, v in data["obs"].items()}
    actions = th.as_tensor(data["actions"])
    returns = th.as_tensor(data["returns"])
    masks = data["masks"]
    stats: dict[str, float] = {}
    policy.set_training_mode(True)
    for _ in range(epochs):
        perm = rng.permutation(n)
        pi_sum = v_sum = agree = 0.0
        for start in range(0, n, batch):
            idx = perm[start:start + batch]
            o = {k: v[idx] for k, v in obs.items()}
            values, log_prob, _ = policy.evaluate_actions(o, actions[idx], action_masks=masks[idx])
            pi_loss = -log_prob.mean()
            v_loss = th.nn.functional.mse_loss(values.flatten(), returns[idx])
            loss = pi_loss + 0.5 * v_loss
            opt.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            pi_sum += pi_loss.item() * len(idx)
            v_sum += v_loss.item() * len(idx)
            agree += (log_prob > np.log(0.5)).float().sum().item()
        stats = {"policy_loss": pi_sum / n, "value_loss": v_sum / n, "agreement": agree / n}
    policy.set_training_mode(False)
    return stats
