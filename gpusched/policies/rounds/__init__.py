"""The field's round policies (Gavel's names): each turns a round's problem into an allocation,
each job's fraction of time on each GPU type. The round mechanism
(:mod:`gpusched.core.rounds`) applies it."""

from gpusched.policies.rounds.base import RoundPolicy
from gpusched.policies.rounds.registry import ROUND_POLICIES, get_round_policy, round_policy_names

__all__ = ["ROUND_POLICIES", "RoundPolicy", "get_round_policy", "round_policy_names"]
