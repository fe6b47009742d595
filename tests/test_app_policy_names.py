"""One name per rule on every page: the rule Home compares against (``fcfs+first_fit``) is the one
Compare, Replay and the stall explorer run as ``first_fit``, and every page calls it by the one
display name of the registry (:func:`gpusched.policies.policy_label`), never by a second one."""

from __future__ import annotations

import pytest
from apptest_support import assert_clean, open_page
from page_text import page_texts

from gpusched.dashboard.headline import HEADLINE_BASELINE
from gpusched.policies import policy_label
from gpusched.policies.orders import ORDERS
from gpusched.policies.registry import SAME_AS_PLACEMENT

SECOND_NAME = f"{ORDERS[SAME_AS_PLACEMENT].label} + "
"""How an FCFS pair would be named if it had a name of its own (``FCFS + First-Fit``)."""


def _compare_live(at):
    at.radio(key="compare_source").set_value("live").run()
    return at


PAGES = {"home": (None, None), "compare shipped": ("views/compare.py", None),
         "compare live": ("views/compare.py", _compare_live), "replay": ("views/replay.py", None),
         "stalls": ("views/stalls.py", None)}


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_names_the_baseline_rule_as_home_does(page):
    path, then = PAGES[page]
    at = open_page(path)
    if then is not None:
        then(at)
    assert_clean(at)
    texts = page_texts(at)
    name = policy_label(HEADLINE_BASELINE)
    assert name == policy_label("first_fit")
    assert any(name in t for t in texts), page
    assert not [t for t in texts if SECOND_NAME in t], page
