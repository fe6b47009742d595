"""The models built on a rule, as the Agent page lists them: what each is and which rule it improves.

Reads only the sidecars (:func:`gpusched.agent.rule_models.list_rule_models`); the rule's display
name is the registry's (``sjf+first_fit`` reads "SJF + First-Fit"), so a stakeholder reads
"improves SJF + First-Fit" rather than a file's name.
"""

from __future__ import annotations

from gpusched.agent.rule_models import RuleModelInfo, list_rule_models
from gpusched.errors import GpuschedError
from gpusched.policies import policy_label

KIND_WORDS: dict[str, str] = {
    "tuned": "Learned-weight score: a weighted sum of what the scheduler sees of each waiting job, weights "
             "found by search on training runs",
    "inspect": "Inspector agent: the rule proposes each decision, the agent accepts it, asks for "
               "the rule's next choice, or waits",
}
"""What each kind of model is, in words."""


def _label(name: str) -> str:
    try:
        return policy_label(name)
    except GpuschedError:
        return name


def built_on(info: RuleModelInfo) -> str:
    """``improves SJF + First-Fit`` (the rule in the model's sidecar), with the tuned rule's
    placement (``placed by Fastest-Fit``)."""
    base = info.meta.get("base")
    if not base:
        return ""
    words = f"improves {_label(str(base))}"
    if info.kind == "tuned" and info.meta.get("placement"):
        words += f", placed by {_label(str(info.meta['placement']))}"
    return words


def rule_model_rows() -> list[dict[str, str]]:
    """One row per model built on a rule: its name to run, what it is, what it improves, what it
    was trained on, and why it cannot run (empty when it can)."""
    rows = []
    for m in list_rule_models():
        trained = m.meta.get("scenario") or ""
        seeds = m.meta.get("training_seeds") or []
        if trained and seeds:
            trained += f", {len(seeds)} training seeds"
        rows.append({"model": m.policy_name, "what it is": KIND_WORDS[m.kind], "built on": built_on(m),
                     "trained on": trained, "origin": m.origin, "note": m.error})
    return rows
