"""The agent's entry into the policy registry (entry point group ``gpusched.policies``).

The registry never names the agent: ``pyproject.toml`` lists :func:`register_policies` under the
entry point group :data:`gpusched.policies.registry.ENTRY_POINT_GROUP`, and the registry calls it
the first time a name is not found. Registering imports nothing heavy; torch is imported only
when a model is built (:func:`ppo_policy`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from gpusched.agent.models import LoadedAgent, load_agent, resolve_model
from gpusched.agent.names import AGENT_POLICY, ROLLOUT_AGENT_POLICY
from gpusched.paths import DEFAULT_MODEL
from gpusched.policies import Policy, register, register_prefix


@lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int, size: int) -> LoadedAgent:
    return load_agent(path)


def ppo_policy(ref: str | None = None, seed: int = 0, rollout: bool = False) -> Policy:
    """The scheduling policy of a trained model (``None``: the shipped model), loaded safely.

    :param ref: model path, absolute or relative to the cwd or a model folder.
    :param seed: unused (the agent acts deterministically); kept for the registry's signature.
    :param rollout: decide with rollouts of the model (``ppo_rollout``) instead of its greedy
        choice alone (``ppo``).
    :raises gpusched.agent.models.ModelError: if the model is refused.
    """
    path = resolve_model(ref) if ref else resolve_model(DEFAULT_MODEL)
    stat = Path(path).stat()
    agent = _load_cached(str(path), stat.st_mtime_ns, stat.st_size)
    base = ROLLOUT_AGENT_POLICY if rollout else AGENT_POLICY
    name = base if ref is None else f"{base}:{ref}"
    if rollout:
        from gpusched.agent.rollout import rollout_scheduler

        return rollout_scheduler(agent, name=name)
    from gpusched.agent.scheduler import agent_scheduler

    return agent_scheduler(agent, name=name)


def register_policies() -> None:
    """Register ``ppo`` and ``ppo_rollout`` (and their ``NAME:PATH`` forms) with the registry."""
    register(AGENT_POLICY, lambda seed: ppo_policy(None, seed), label="PPO agent",
             heuristic=False, slow=True)
    register_prefix(AGENT_POLICY, lambda path, seed: ppo_policy(path, seed))
    register(ROLLOUT_AGENT_POLICY, lambda seed: ppo_policy(None, seed, rollout=True),
             label="PPO agent + rollouts", heuristic=False, slow=True)
    register_prefix(ROLLOUT_AGENT_POLICY, lambda path, seed: ppo_policy(path, seed, rollout=True))
