"""Shared checks of trained models."""

from __future__ import annotations

from pathlib import Path

from gpusched.agent.models import load_agent
from gpusched.agent.scheduler import act


def assert_reloads_and_reproduces(model: Path, env, slots: tuple[int, ...], steps: int) -> None:
    """The safe loader's network (built in code, weights only) takes the trainer's own greedy
    action at every step of an episode of ``env`` on workload seed 1000.

    :param model: a model written by training (its folder must be a trusted model folder).
    :param env: a ``GPUSchedulerEnv`` with the model's observation layout.
    :param slots: the network's slot counts, ``(max_gpus,)`` or ``(max_gpus, max_window)``.
    :param steps: the most steps to compare.
    """
    from sb3_contrib import MaskablePPO  # the trainer's own model, loaded here from a file we made

    trainer = MaskablePPO.load(model, device="cpu")
    policy = load_agent(model).policy(*slots)
    obs, _ = env.reset(seed=0, options={"workload_seed": 1000})
    for _ in range(steps):
        mask = env.action_masks()
        expected, _ = trainer.predict(obs, deterministic=True, action_masks=mask)
        assert act(policy, obs, mask) == int(expected)
        obs, _, terminated, truncated, _ = env.step(int(expected))
        if terminated or truncated:
            break
