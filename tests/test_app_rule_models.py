"""The Agent page lists the shipped models built on a rule, with the rule each improves in words."""

from __future__ import annotations

from apptest_support import assert_clean, open_page


def test_agent_page_lists_the_tuned_rule_by_what_it_improves():
    at = open_page("views/agent.py")
    assert_clean(at)
    assert any(s.value == "Built on a rule" for s in at.subheader)
    tables = [df.value for df in at.dataframe]
    listed = [t for t in tables if "built on" in t.columns]
    assert listed, [list(t.columns) for t in tables]
    row = listed[0].loc["tuned:fleet-16gpu"]
    assert row["built on"] == "improves SJF + Fastest-Fit, placed by Fastest-Fit"
