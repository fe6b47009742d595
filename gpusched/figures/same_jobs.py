"""Texts and tables for policies measured on the same jobs: why two policies give identical
numbers, and the agents against the best heuristic on the same seeds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from gpusched.agent import AGENT_POLICY, ROLLOUT_AGENT_POLICY
from gpusched.agent.plugin import shipped_model_for
from gpusched.experiment.identical import identical_groups
from gpusched.experiment.runner import Comparison
from gpusched.experiment.scorecard import TAIL_WAIT_METRIC
from gpusched.figures.words import signed
from gpusched.policies import policy_label
from gpusched.words.metric_names import format_metric, metric_title


def _is_agent(name: str) -> bool:
    return name.split(":", 1)[0] == AGENT_POLICY


def identity_reason(group: Sequence[str], window: int) -> str:
    """Why the policies of ``group`` made the same schedule, as far as their names and the queue
    window tell (a general reason otherwise).

    :param group: policies with identical numbers on every seed (:func:`identical_groups`).
    :param window: the scenario's queue window (jobs a policy may start from).
    """
    names = set(group)
    shipped = shipped_model_for(window)
    others = names - {AGENT_POLICY}
    if AGENT_POLICY in names and any(n.split(":", 1)[-1].endswith(shipped.name) for n in others):
        return (f"on a queue window of {window} the shipped agent runs `{shipped.name}`, the same "
                "model")
    if ROLLOUT_AGENT_POLICY in names and names & {n for n in names if _is_agent(n)}:
        return ("the rollout search weighs the agent's best actions by simulating each, and here it "
                "never found one better than the agent's own choice, so it kept every decision")
    if sum(_is_agent(n) for n in names) > 1 and window == 1:
        return ("with a queue window of 1 an agent can only place the oldest job, so an agent that "
                "chooses the job has no choice left and places it as the other does")
    orders = {n.partition("+")[0] for n in names if "+" in n}
    placements = {n.partition("+")[2] or n for n in names}
    if window == 1 and len(placements) == 1 and orders:
        return ("with a queue window of 1 every queue order starts the oldest job, so only the "
                "placement matters, and it is the same")
    return "they made the same decisions on these jobs"


def identity_notes(comparison: Comparison, window: int) -> list[str]:
    """One sentence (Markdown) per group of policies with identical numbers on every seed."""
    seeds = comparison.runs["seed"].nunique()
    notes = []
    for group in identical_groups(comparison):
        labels = [policy_label(p) for p in group]
        named = ", ".join(labels[:-1]) + " and " + labels[-1]
        notes.append(f"{named} give identical numbers on every one of the {seeds} seed(s): "
                     f"{identity_reason(group, window)}.")
    return notes


AGENT_TABLE_METRICS: tuple[str, ...] = ("avg_jct_min", "avg_wait_min", TAIL_WAIT_METRIC)
"""The columns of the agents' table (headers from :func:`metric_title`)."""


def agents_table(comparison: Comparison, best: str, models: Sequence[str],
                 which: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The best heuristic and every model, run on the same jobs and seeds: mean time to result,
    wait and p99 wait, and each model's time to result against the best heuristic's (%).

    :param comparison: runs of ``best`` and every model over the same seeds.
    :param best: the best heuristic (by time to result) on these jobs.
    :param models: the models' policy names (``ppo`` or ``ppo:PATH``), in the order to show.
    :param which: the model file each policy name runs, by name (``{"ppo": "ppo-window"}``): its
        row says so, as the model list above it names files.
    """
    mean = comparison.summary()
    jct = metric_title("avg_jct_min")
    rows = []
    for name in [best, *models]:
        if name not in mean.index:
            continue
        model = (which or {}).get(name.split(":")[0]) if ":" not in name else None
        row = {"policy": policy_label(name) + (" (best heuristic)" if name == best else "")
                         + (f" · {model}" if model else ""),
               **{metric_title(k): format_metric(k, float(mean.loc[name, k])) for k in AGENT_TABLE_METRICS}}
        change = mean.loc[name, "avg_jct_min"] / mean.loc[best, "avg_jct_min"] - 1.0
        row[f"{jct} vs best heuristic"] = "—" if name == best else f"{signed(change * 100, 1)} %"
        rows.append(row)
    return pd.DataFrame(rows)
