"""Home page: headline numbers and the one-click jump to the stall explorer."""

from __future__ import annotations

from apptest_support import assert_clean, open_page, plotly_specs


def test_home_shows_headline_numbers():
    at = open_page()
    assert_clean(at)
    assert "gpusched" in at.title[0].value
    labels = [m.label for m in at.metric]
    assert labels.count("Average wait (min)") >= 2
    specs = plotly_specs(at)
    assert specs and "First-Fit" in str(specs[0]) and "Least-Loaded" in str(specs[0])


def test_show_me_the_stall_opens_the_demo():
    at = open_page()
    at.button(key="show_stall").click().run()
    assert_clean(at)
    assert at.title[0].value == "Least-Loaded stalls"
    assert at.selectbox(key="stall_scenario").value == "phase1-8gpu"
    assert at.toggle(key="stall_control").value is False
    assert "phase1-8gpu" in at.markdown[-1].value or any(
        "phase1-8gpu" in m.value for m in at.markdown)
