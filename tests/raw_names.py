"""The raw names no page may show: metric keys, policy keys and parameter paths, and a check that
finds them in a figure's or a menu's text."""

from __future__ import annotations

import re

from gpusched.core.metrics import METRIC_KEYS
from gpusched.policies import policy_names, queue_policy_names
from gpusched.words.metric_names import METRIC_NAMES, PARAMETER_LABELS

_CODE_LIKE = re.compile(r"[_.+]")


def raw_names() -> set[str]:
    """Every key that reads as code (has ``_``, ``.`` or ``+``): metric keys, registered policy
    names and sweep parameter paths."""
    names = {*METRIC_KEYS, *METRIC_NAMES, *PARAMETER_LABELS, *policy_names(), *queue_policy_names()}
    return {n for n in names if _CODE_LIKE.search(n)}


def raw_in(text: str, names: set[str] | None = None) -> list[str]:
    """The raw names that appear in ``text`` as whole tokens."""
    tokens = set(re.findall(r"[A-Za-z0-9_.+]+", text or ""))
    return sorted(tokens & (names if names is not None else raw_names()))


def figure_texts(spec: dict) -> list[str]:
    """A Plotly figure's (JSON spec's) titles, axis titles, subplot titles, annotations, legend
    entries and update-menu labels."""
    layout = spec.get("layout", {})
    out = [_title(layout.get("title"))]
    for key, value in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(value, dict):
            out.append(_title(value.get("title")))
    out += [a.get("text", "") for a in layout.get("annotations", [])]
    out += [t.get("name", "") for t in spec.get("data", []) if t.get("showlegend", True) is not False]
    colorbar = layout.get("coloraxis", {}).get("colorbar", {})
    out.append(_title(colorbar.get("title")))
    for t in spec.get("data", []):
        out.append(_title((t.get("colorbar") or {}).get("title")))
    for menu in layout.get("updatemenus", []):
        out += [b.get("label", "") for b in menu.get("buttons", [])]
    return [t for t in out if t]


def _title(title) -> str:
    if isinstance(title, dict):
        return title.get("text", "") or ""
    return title or ""
