"""The model list as a table: what each model's sidecar says, in words (no Streamlit)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from gpusched.agent import AGENT_POLICY
from gpusched.policies import policy_label
from gpusched.words.metric_names import format_metric, format_number, metric_title

AGENT_KINDS: dict[str, str] = {"window": "which job runs, and where",
                               "placement": "where the oldest job runs"}
"""What each kind of agent chooses, in words (the training form offers the same two kinds)."""
SUMMARY_METRICS: tuple[str, ...] = ("avg_jct_min", "avg_wait_min")
"""The evaluation metrics each model's row shows, for the model and for the best heuristic."""


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def model_summary(meta: dict[str, Any], windowed: bool) -> dict[str, str]:
    """The sidecar fields worth a column, as display text: what the model was trained on and
    chooses, its training, and its evaluation against the best heuristic it was evaluated with (by
    time to result; sidecars written before JCT was recorded have only the wait, and say so).

    :param meta: the model's sidecar.
    :param windowed: whether the model chooses among a queue window.
    """
    evaluation = dict((meta.get("eval") or {}).get("avg", {}))
    agent = evaluation.pop(AGENT_POLICY, {})
    key = "avg_jct_min" if "avg_jct_min" in agent else "avg_wait_min"
    scores = {name: row[key] for name, row in evaluation.items() if key in row}
    best = min(scores, key=scores.get) if scores else None
    what = "JCT" if key == "avg_jct_min" else "wait (older model: no JCT recorded)"
    windows = meta.get("random_windows")
    best_row = evaluation.get(best, {})
    return {
        "trained on": meta.get("scenario", "—"),
        "chooses": AGENT_KINDS["window" if windowed else "placement"],
        "queue windows in training": f"{windows[0]}–{windows[1]} jobs" if windows else "— (strict queue)",
        "random clusters": "yes" if meta.get("randomize") else "no",
        "training steps": format_number(meta.get("timesteps"), 0),
        "evaluated on seeds": ", ".join(map(str, (meta.get("eval") or {}).get("seeds", []))) or "—",
        **{f"its {_lower_first(metric_title(k))}": format_metric(k, agent.get(k)) for k in SUMMARY_METRICS},
        "best heuristic": f"{policy_label(best)}, by {what}" if best else "—",
        **{f"best heuristic's {_lower_first(metric_title(k))}": format_metric(k, best_row.get(k))
           for k in SUMMARY_METRICS},
        "training time (s)": format_number(meta.get("training_time_s"), 0),
    }


def evaluation_table(evaluation: dict) -> pd.DataFrame:
    """A model's evaluation (its record's ``eval.avg``: policy → metric → mean) for display: one
    row per policy, one column per metric titled with its unit, each value formatted as its metric
    says (fixed decimals, a fraction in %)."""
    table = pd.DataFrame(evaluation).T
    shown = pd.DataFrame({metric_title(k): [format_metric(k, v) for v in table[k]] for k in table.columns})
    shown.index = [policy_label(str(p)) for p in table.index]
    return shown
