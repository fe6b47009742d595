"""What the dashboard can offer: the registered heuristics, and the trained agent when it can run.

Nothing here loads a model: the agent is offered when its package imports, its policies are
registered and the shipped model file exists.
"""

from __future__ import annotations

import importlib
import importlib.util

from gpusched.agent.names import AGENT_POLICIES, AGENT_POLICY
from gpusched.paths import DEFAULT_MODEL, WINDOW_MODEL
from gpusched.policies import heuristic_names, policy_names


def agent_available() -> bool:
    """Whether the ``ppo`` policy is registered and its shipped models exist; never raises."""
    try:
        return AGENT_POLICY in policy_names() and DEFAULT_MODEL.is_file() and WINDOW_MODEL.is_file()
    except Exception:  # a broken optional part must not break the dashboard
        return False


TRAINING_MODULES: tuple[str, ...] = ("torch", "stable_baselines3", "sb3_contrib", "gpusched.agent.train")
"""What training from the dashboard needs installed."""


def training_available() -> bool:
    """Whether the agent's training code and its heavy dependencies are installed.

    They are found, not imported: importing torch and Stable-Baselines3 takes seconds, which the
    Agent page would spend before drawing its training form; the training process imports them.
    """
    try:
        return all(importlib.util.find_spec(name) is not None for name in TRAINING_MODULES)
    except (ImportError, ValueError):  # a parent package missing or broken: no training
        return False


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
