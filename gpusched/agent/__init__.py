"""The RL agent: a size-agnostic MaskablePPO policy, its training and safe model loading.

Importing this package is light; torch and stable-baselines3 are imported only when a model is
trained or loaded. The registry names ``ppo`` (the shipped model ``assets/models/ppo-default.zip``)
and ``ppo:PATH`` resolve through :func:`ppo_policy`; ``ppo_rollout`` and ``ppo_rollout:PATH`` are
the same models deciding with rollouts of themselves (:mod:`gpusched.agent.rollout`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int, size: int):
    from gpusched.agent.save_util import load_agent

    return load_agent(path)


def ppo_policy(ref: str | None = None, seed: int = 0, rollout: bool = False):
    """The scheduling policy of a trained model (``None``: the shipped model), loaded safely.

    :param ref: model path, absolute or relative to the cwd or a model folder.
    :param seed: unused (the agent acts deterministically); kept for the registry's signature.
    :param rollout: decide with rollouts of the model (``ppo_rollout``) instead of its greedy
        choice alone (``ppo``).
    :raises gpusched.agent.save_util.ModelError: if the model is refused.
    """
    from gpusched.agent.save_util import DEFAULT_MODEL, resolve_model

    path = resolve_model(ref) if ref else resolve_model(DEFAULT_MODEL)
    stat = Path(path).stat()
    agent = _load_cached(str(path), stat.st_mtime_ns, stat.st_size)
    base = "ppo_rollout" if rollout else "ppo"
    name = base if ref is None else f"{base}:{ref}"
    if rollout:
        from gpusched.agent.rollout import RolloutScheduler

        return RolloutScheduler(agent, name=name)
    return agent.scheduler(name=name)
