"""What the dashboard can offer: the registered heuristics, and the trained agent when it can run.

Nothing here loads a model: the agent is offered when its package imports, its policies are
registered and the shipped model file exists.
"""

from __future__ import annotations

import importlib

from gpusched.agent.names import AGENT_POLICIES, AGENT_POLICY
from gpusched.paths import DEFAULT_MODEL, WINDOW_MODEL
from gpusched.policies import heuristic_names, policy_names


def agent_available() -> bool:
    """Whether the ``ppo`` policy is registered and its shipped models exist; never raises."""
    try:
        return AGENT_POLICY in policy_names() and DEFAULT_MODEL.is_file() and WINDOW_MODEL.is_file()
    except Exception:  # a broken optional part must not break the dashboard
        return False


def training_available() -> bool:
    """Whether the agent's training code (and its heavy dependencies) can be imported."""
    try:
        importlib.import_module("gpusched.agent.train")
    except Exception:  # torch, sb3 or the agent package missing: no training from the page
        return False
    return True


QUEUE_HEURISTICS: tuple[str, ...] = ("fitfirst", "easy", "sjf", "priority", "wfp3", "las", "srtf",
                                     "easy+fastest_fit")
"""The queue-aware heuristics the dashboard offers (each order with Best-Fit, including the
preemptive ``las`` and ``srtf``, and EASY with Fastest-Fit); any other ``ORDER+PLACEMENT`` runs
from the command line."""


def dashboard_policies() -> list[str]:
    """The policies the dashboard offers: every FIFO heuristic, the queue-aware ones of
    :data:`QUEUE_HEURISTICS`, then the agent's two modes (``ppo``, ``ppo_rollout``) when the agent
    is available."""
    names = heuristic_names() + list(QUEUE_HEURISTICS)
    if agent_available():
        names += list(AGENT_POLICIES)
    return names
