"""What the dashboard can offer: the registered heuristics, and the trained agent when it can run.

Nothing here loads a model: the agent is offered when its package imports, its policies are
registered and the shipped model file exists.
"""

from __future__ import annotations

import importlib
import importlib.util
import re

from gpusched.agent.names import AGENT_POLICIES, AGENT_POLICY
from gpusched.paths import DEFAULT_MODEL, WINDOW_MODEL
from gpusched.policies import heuristic_names, policy_label, policy_names
from gpusched.policies.rounds.registry import round_policy_names
from gpusched.words.glossary import GLOSSARY, entry_for


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
                                     "easy+fastest_fit", "fastest_move", "las+fastest_move")
"""The queue-aware heuristics the dashboard offers (each order with Best-Fit, including the
preemptive ``las`` and ``srtf``, EASY with Fastest-Fit, and Fastest-Fit that moves running jobs
to faster GPUs, alone and with LAS, the best pair on ``gavel-108gpu``); any other
``ORDER+PLACEMENT`` runs from the command line."""


def dashboard_policies() -> list[str]:
    """The policies the dashboard offers: every FIFO heuristic, the queue-aware ones of
    :data:`QUEUE_HEURISTICS`, the agent's two modes (``ppo``, ``ppo_rollout``) when the agent is
    available, then every round policy under Gavel's name (the registry's list, run in rounds)."""
    names = heuristic_names() + list(QUEUE_HEURISTICS)
    if agent_available():
        names += list(AGENT_POLICIES)
    return names + round_policy_names()


def with_queue_pairs(options: list[str], pairs: tuple[str, ...] | list[str]) -> list[str]:
    """``options`` with every ``ORDER+PLACEMENT`` pair of ``pairs`` added (so the rule Home names
    best is there), each FIFO placement ``X`` run as its pair ``fcfs+X`` when that pair is
    offered: the two are the same rule (``gpusched.policies.queue``) with one display name, and
    Home runs it by the pair. A name whose label is already offered (``sjf`` is ``sjf+best_fit``)
    is offered once.

    :param options: policy names a page offers (registry names).
    :param pairs: ``ORDER+PLACEMENT`` names to add.
    """
    pairs = list(pairs)
    named = [f"fcfs+{p}" if f"fcfs+{p}" in pairs else p for p in options]
    by_label: dict[str, str] = {}
    for name in dict.fromkeys([*named, *pairs]):
        by_label.setdefault(policy_label(name), name)
    return list(by_label.values())


def agents_early(options: list[str], after: int = 2) -> list[str]:
    """``options`` with the trained agents (``ppo``, ``ppo_rollout``, ``ppo:PATH``) moved up to
    just after the first ``after`` options, in their order: a menu shows the agent among its first
    entries, not at the bottom of a long list."""
    agents = [o for o in options if o.split(":", 1)[0] in AGENT_POLICIES]
    rest = [o for o in options if o not in agents]
    return [*rest[:after], *agents, *rest[after:]]


def policy_help(*names: str) -> str:
    """A tooltip for policies: the glossary line of each part of their labels, once each
    (``WFP3 + Fastest-Fit``: the order, then the placement)."""
    parts = [re.sub(r"\s*\(.*\)$", "", p).strip()
             for name in names for p in policy_label(name).split(" + ")]
    terms = list(dict.fromkeys(t for t in map(entry_for, parts) if t is not None))
    return " ".join(f"**{term}**: {GLOSSARY[term]}" for term in terms)
