"""The RL agent: a size-agnostic MaskablePPO policy, its training and safe model loading.

Importing this package is light; torch and stable-baselines3 are imported only when a model is
trained or loaded. The registry names ``ppo`` (the shipped model ``assets/models/ppo-default.zip``)
and ``ppo:PATH`` resolve through :func:`gpusched.agent.plugin.ppo_policy`; ``ppo_rollout`` and
``ppo_rollout:PATH`` are the same models deciding with rollouts of themselves
(:mod:`gpusched.agent.rollout`). They reach the registry through the package entry point of
:mod:`gpusched.agent.plugin`.
"""

from gpusched.agent.names import AGENT_POLICIES, AGENT_POLICY, ROLLOUT_AGENT_POLICY

__all__ = ["AGENT_POLICIES", "AGENT_POLICY", "ROLLOUT_AGENT_POLICY"]
