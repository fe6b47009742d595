"""The Agent page lists the shipped models built on a rule, with the rule each improves in words."""

from __future__ import annotations

from apptest_support import assert_clean, open_page


def test_agent_page_lists_the_tuned_rule_by_what_it_improves():
    at = open_page("views/agent.py")
    assert_clean(at)
    assert any(s.value == "Built on a rule" for s in at.subheader)
    lines = [m.value for m in at.markdown if "tuned:fleet-16gpu" in m.value]
    assert lines, [m.value for m in at.markdown]
    assert "improves SJF + Fastest-Fit, placed by Fastest-Fit" in lines[0]
    assert not [df for df in at.dataframe if "built on" in df.value.columns]  # a list, never a wide table
