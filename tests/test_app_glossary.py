"""Every word explained: on every page, each policy name and abbreviation shown has its glossary
entry (:mod:`gpusched.words.glossary`, the tooltips' lines and Home's glossary), and the jargon a
stakeholder met on the tour is gone from the visible text."""

from __future__ import annotations

import re

import pytest
from apptest_support import assert_clean, open_page
from page_text import page_texts

from gpusched.dashboard.headline import headline_heuristics
from gpusched.dashboard.policies import dashboard_policies
from gpusched.policies import policy_label, policy_names, queue_policy_names
from gpusched.words.glossary import explained

PAGES = [None, "views/cluster.py", "views/agent.py", "views/replay.py", "views/compare.py",
         "views/stalls.py", "views/traces.py", "views/sweeps.py", "views/knowledge.py"]
UNITS = {"GPU", "GB", "CPU", "CSV", "YAML", "JSON", "ID", "MIN"}
"""Capitalised words everyone reads without help: units and file formats."""
ABBREVIATION = re.compile(r"(?<![\w\-./`#])[A-Z]{2,}[0-9]*(?![\w\-./])")
"""An abbreviation: two or more capitals, maybe digits (``WFP3``), not part of a longer name
(``A100-80GB``), a path or a colour (``#DB2777``)."""
JARGON = ("sidecar", "DAgger", "MaskablePPO", "pickle", "renormalised", "Tune", "milli-GPU",
          "Student t", "/h)")
"""Words of the tour that a stakeholder did not know, and the unexplained ``load 0.3 (3.94/h)``."""


def _labels() -> dict[str, str]:
    names = {*policy_names(), *queue_policy_names(), *headline_heuristics(), *dashboard_policies()}
    return {policy_label(n): n for n in names}


def _parts(label: str) -> list[str]:
    """A policy label's parts, each without its qualifier: ``Least-Loaded (fit)`` → ``Least-Loaded``."""
    return [re.sub(r"\s*\(.*\)$", "", part).strip() for part in label.split(" + ")]


@pytest.fixture(scope="module")
def labels() -> dict[str, str]:
    return _labels()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p or "home")
def test_every_policy_name_and_abbreviation_shown_is_explained(page, labels):
    at = open_page(page)
    assert_clean(at)
    text = "\n".join(page_texts(at))
    shown = [label for label in labels if re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", text)]
    assert shown or page in ("views/cluster.py", "views/sweeps.py"), "no policy found on the page"
    missing = sorted({part for label in shown for part in _parts(label) if not explained(part)})
    assert missing == [], f"{page}: policy names without a glossary entry: {missing}"
    words = set(ABBREVIATION.findall(re.sub(r"`[^`]*`", "", text))) - UNITS
    unexplained = sorted(w for w in words if not explained(w))
    assert unexplained == [], f"{page}: abbreviations without a glossary entry: {unexplained}"
    found = [j for j in JARGON if j in text]
    assert found == [], f"{page}: jargon on the page: {found}"
