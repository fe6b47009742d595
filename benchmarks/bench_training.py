"""Speed of the urgency agent's training on ``gavel-108gpu-heavy`` (108 GPUs, a window of 16).

Prints, for the settings of :meth:`gpusched.agent.config.TrainConfig.urgency_agent` (history's
run-time predictions, observation version 5, the training reward ``jct=1``):

- **environment** steps per second: one training environment (the ``TrainingReward`` and
  ``Monitor`` wrappers included) driven by uniformly random valid actions, resets included;
- **training** steps per second: MaskablePPO (:func:`gpusched.agent.train.ppo_model`, no warm
  start, no evaluation), split into the rollouts (environment steps, the network's forward pass,
  the rollout buffer) and the PPO update epochs.

Each figure is given per wall second and per CPU second of this process (``time.process_time``;
torch runs on ``--torch-threads``, one by default as in training). On a shared machine the CPU
figure is the one to compare: other programs slow the wall clock, not the CPU time this process
uses. Every random draw is seeded (``--seed``).

Usage: ``python benchmarks/bench_training.py [--env-steps 3000] [--train-steps 4096] [--n-envs 2]
[--n-steps N] [--seed 0] [--json out.json]``. ``--n-steps`` defaults to the urgency run's rollout
length (1,024 per environment); a run of ``--train-steps`` rounds up to whole rollouts.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch as th
from stable_baselines3.common.callbacks import BaseCallback

from gpusched.agent.config import TrainConfig
from gpusched.agent.episodes import make_train_env
from gpusched.agent.train import ppo_model, seed_everything

SCENARIO = "gavel-108gpu-heavy"


def urgency_config(n_envs: int, n_steps: int | None, seed: int) -> TrainConfig:
    """The urgency agent's training settings on :data:`SCENARIO` (no warm start), checked."""
    config = TrainConfig(scenario=SCENARIO, n_envs=n_envs, seed=seed, progress=False, bc_policy=None)
    config.urgency_agent("history")
    if n_steps is not None:
        config.n_steps = n_steps
    config.check()
    return config


def _clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def bench_env(config: TrainConfig, steps: int) -> dict[str, float]:
    """Steps per wall and per CPU second of one training environment over ``steps`` random valid
    actions (resets included)."""
    env = make_train_env(config)
    uniforms = np.random.default_rng(config.seed).random(steps).tolist()
    env.reset(seed=config.seed)
    wall, cpu = _clocks()
    for k in range(steps):
        valid = env.unwrapped.action_masks().nonzero()[0]
        _, _, terminated, truncated, _ = env.step(int(valid[int(uniforms[k] * valid.size)]))
        if terminated or truncated:
            env.reset()
    wall_end, cpu_end = _clocks()
    return {"steps": steps, "steps_per_s": steps / (wall_end - wall),
            "steps_per_cpu_s": steps / (cpu_end - cpu)}


class PhaseClock(BaseCallback):
    """Adds up the wall and CPU seconds spent collecting rollouts (the rest of ``learn`` is the
    PPO update)."""

    def __init__(self) -> None:
        super().__init__()
        self.rollout_wall = self.rollout_cpu = 0.0
        self._start = (0.0, 0.0)

    def _on_rollout_start(self) -> None:
        self._start = _clocks()

    def _on_rollout_end(self) -> None:
        wall, cpu = _clocks()
        self.rollout_wall += wall - self._start[0]
        self.rollout_cpu += cpu - self._start[1]

    def _on_step(self) -> bool:
        return True


def bench_train(config: TrainConfig, steps: int) -> dict[str, float]:
    """MaskablePPO steps per wall and per CPU second over ``steps`` environment steps (whole
    rollouts), with the rollouts' and the updates' shares."""
    th.set_num_threads(config.torch_threads)
    seed_everything(config.seed)
    model = ppo_model(config)
    clock = PhaseClock()
    wall, cpu = _clocks()
    model.learn(total_timesteps=steps, callback=clock)
    wall_end, cpu_end = _clocks()
    done = int(model.num_timesteps)
    total_wall, total_cpu = wall_end - wall, cpu_end - cpu
    return {"steps": done, "n_envs": config.n_envs, "n_steps": config.n_steps,
            "batch_size": config.batch_size, "n_epochs": config.n_epochs,
            "steps_per_s": done / total_wall, "steps_per_cpu_s": done / total_cpu,
            "rollout_cpu_s": clock.rollout_cpu, "update_cpu_s": total_cpu - clock.rollout_cpu,
            "rollout_steps_per_cpu_s": done / clock.rollout_cpu,
            "update_ms_per_step_cpu": 1e3 * (total_cpu - clock.rollout_cpu) / done}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env-steps", type=int, default=3000)
    parser.add_argument("--train-steps", type=int, default=4096)
    parser.add_argument("--n-envs", type=int, default=2)
    parser.add_argument("--n-steps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    config = urgency_config(args.n_envs, args.n_steps, args.seed)
    config.torch_threads = args.torch_threads
    out: dict[str, dict[str, float]] = {}
    if args.env_steps > 0:
        out["env"] = env = bench_env(config, args.env_steps)
        print(f"environment, {SCENARIO}: {env['steps_per_s']:.0f} steps/s "
              f"({env['steps_per_cpu_s']:.0f} per CPU second; {env['steps']} random valid actions)")
    if args.train_steps > 0:
        out["training"] = tr = bench_train(config, args.train_steps)
        print(f"MaskablePPO training, {SCENARIO}: {tr['steps_per_s']:.1f} steps/s "
              f"({tr['steps_per_cpu_s']:.1f} per CPU second; {tr['steps']} steps, {tr['n_envs']} envs x "
              f"{tr['n_steps']}-step rollouts, {tr['n_epochs']} epochs of {tr['batch_size']}-sample "
              f"minibatches)")
        print(f"  rollouts {tr['rollout_cpu_s']:.1f} CPU s ({tr['rollout_steps_per_cpu_s']:.0f} steps per "
              f"CPU second), updates {tr['update_cpu_s']:.1f} CPU s "
              f"({tr['update_ms_per_step_cpu']:.2f} ms per step)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
