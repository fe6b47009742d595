"""Least-Loaded stalls page: the stall on the heterogeneous preset, gone on the control."""

from __future__ import annotations

from apptest_support import assert_clean, open_page, plotly_specs

from gpusched.figures import STALL_LEGEND


def _stall_minutes(at) -> float:
    value = next(m.value for m in at.metric if m.label == "Stall time")
    return float(value.split()[0].replace(",", ""))


def test_stall_page_shades_intervals_and_explains():
    at = open_page("views/stalls.py")
    assert_clean(at)
    spec = plotly_specs(at)[0]
    assert spec["layout"]["shapes"]
    assert any(t.get("name") == STALL_LEGEND for t in spec["data"])
    assert _stall_minutes(at) > 500
    assert any("Least-Loaded" in m.value and "GB" in m.value for m in at.markdown)


def test_homogeneous_control_removes_most_of_the_stall():
    at = open_page("views/stalls.py")
    hetero = _stall_minutes(at)
    at.toggle(key="stall_control").set_value(True).run()
    assert_clean(at)
    assert _stall_minutes(at) < 0.05 * hetero
