"""Scheduling policies and their registry."""

from gpusched.policies.base import Policy
from gpusched.policies.registry import (
    get_policy,
    heuristic_names,
    policy_names,
    register,
    register_prefix,
)
from gpusched.simulator import HOLD

__all__ = [
    "HOLD",
    "Policy",
    "get_policy",
    "heuristic_names",
    "policy_names",
    "register",
    "register_prefix",
]

# The FGD paper's six policies (``fgd``, ``dot_product``, ...; see gpusched.fgd.policies).
from gpusched.fgd.policies import register_all as _register_fgd_policies  # noqa: E402

_register_fgd_policies()
