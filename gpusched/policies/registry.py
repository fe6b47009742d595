"""The policy registry: names to policy factories.

The CLI, the dashboard and the tests look policies up here by name. Later additions (the RL
agent, FGD and others) register themselves with :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable

from gpusched.errors import UnknownPolicyError
from gpusched.policies.base import Policy
from gpusched.policies.heuristics import BestFit, FirstFit, LeastLoaded, LeastLoadedFit, RandomFit
from gpusched.policies.lookahead import Lookahead

PolicyFactory = Callable[[int], Policy]
"""Builds a policy from a seed (used by policies that draw random numbers)."""

_REGISTRY: dict[str, PolicyFactory] = {}
_HEURISTICS: list[str] = []
_PREFIX_RESOLVERS: dict[str, Callable[[str, int], Policy]] = {}


def register(name: str, factory: PolicyFactory, heuristic: bool = True) -> None:
    """Add a policy. Heuristics form the default policy list of ``compare``."""
    _REGISTRY[name] = factory
    if heuristic and name not in _HEURISTICS:
        _HEURISTICS.append(name)


def register_prefix(prefix: str, resolver: Callable[[str, int], Policy]) -> None:
    """Resolve names of the form ``prefix:ARG`` (e.g. ``ppo:PATH``) with ``resolver(arg, seed)``."""
    _PREFIX_RESOLVERS[prefix] = resolver


def heuristic_names() -> list[str]:
    """Registered heuristics, in registration order."""
    return list(_HEURISTICS)


def policy_names() -> list[str]:
    """Every registered policy name."""
    return list(_REGISTRY)


def get_policy(name: str, seed: int = 0) -> Policy:
    """Build the policy called ``name`` (seeded with ``seed`` where it draws random numbers).

    :raises UnknownPolicyError: if the name is not registered.
    """
    if name in _REGISTRY:
        return _REGISTRY[name](seed)
    prefix, sep, arg = name.partition(":")
    if sep and prefix in _PREFIX_RESOLVERS:
        return _PREFIX_RESOLVERS[prefix](arg, seed)
    raise UnknownPolicyError(
        f"unknown policy '{name}' (known: {', '.join(sorted(_REGISTRY))})")


register("first_fit", lambda seed: FirstFit())
register("least_loaded", lambda seed: LeastLoaded())
register("least_loaded_fit", lambda seed: LeastLoadedFit())
register("best_fit", lambda seed: BestFit())
register("random", lambda seed: RandomFit(seed))
# Planners over forks of the simulator (see gpusched.policies.lookahead): ``lookahead`` plays the
# real future (a bound and a teacher), ``queue_lookahead`` only the jobs that have arrived.
register("lookahead", lambda seed: Lookahead(BestFit()), heuristic=False)
register("queue_lookahead", lambda seed: Lookahead(BestFit(), "queue_lookahead", arrived_only=True),
         heuristic=False)


def _agent(path: str | None, seed: int, rollout: bool) -> Policy:
    """The shipped RL agent (``path`` None) or a trained model from the model folders, loaded
    safely (see gpusched.agent); torch is imported only when asked for."""
    from gpusched.agent import ppo_policy

    return ppo_policy(path, seed, rollout=rollout)


# ``ppo``: the agent's greedy choice. ``ppo_rollout``: the same agent checking its top choices by
# rollouts of itself on forks that know only the arrived jobs (gpusched.agent.rollout).
register("ppo", lambda seed: _agent(None, seed, False), heuristic=False)
register_prefix("ppo", lambda path, seed: _agent(path, seed, False))
register("ppo_rollout", lambda seed: _agent(None, seed, True), heuristic=False)
register_prefix("ppo_rollout", lambda path, seed: _agent(path, seed, True))
