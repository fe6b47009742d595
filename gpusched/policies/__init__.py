"""Scheduling policies and their registry: names, labels and traits of every policy."""

from gpusched.core.simulator import HOLD
from gpusched.policies.base import Policy
from gpusched.policies.registry import (
    PolicyInfo,
    check_policy,
    get_policy,
    heuristic_names,
    is_slow,
    moving_policy_names,
    policy_info,
    policy_label,
    policy_names,
    preemptive_policy_names,
    queue_policy_names,
    reads_run_times,
    register,
    register_prefix,
    urgency_policy_names,
)

__all__ = [
    "HOLD",
    "Policy",
    "PolicyInfo",
    "check_policy",
    "get_policy",
    "heuristic_names",
    "is_slow",
    "policy_info",
    "policy_label",
    "policy_names",
    "moving_policy_names",
    "preemptive_policy_names",
    "queue_policy_names",
    "reads_run_times",
    "register",
    "register_prefix",
    "urgency_policy_names",
]
