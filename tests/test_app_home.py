"""Home page: headline numbers and the one-click jump to the stall explorer."""

from __future__ import annotations

from apptest_support import assert_clean, open_page, plotly_specs


def test_home_shows_headline_numbers_on_the_fleet_with_the_measured_best_heuristic():
    from gpusched.dashboard.headline import HEADLINE_SCENARIO, HEADLINE_SEEDS, headline_heuristics
    from gpusched.experiment.runner import compare
    from gpusched.policies import policy_label
    from gpusched.workload.scenario import load_scenario

    at = open_page()
    assert_clean(at)
    assert "gpusched" in at.title[0].value
    assert any(HEADLINE_SCENARIO in s.value for s in at.subheader)
    labels = [m.label for m in at.metric]
    assert labels.count("Time to result (min)") >= 2 and labels.index("Time to result (min)") == 0
    jcts = compare(load_scenario(HEADLINE_SCENARIO), list(headline_heuristics()),
                   list(HEADLINE_SEEDS)).summary()["avg_jct_min"]
    best = jcts.idxmin()
    chart = str(plotly_specs(at)[0])
    assert policy_label("fcfs+first_fit") in chart and policy_label(best) in chart
    shown = [m.value for m in at.metric if m.label == "Time to result (min)"]
    assert f"{jcts[best]:,.1f}" in shown and f"{jcts['fcfs+first_fit']:,.1f}" in shown


def test_show_me_the_stall_opens_the_demo():
    at = open_page()
    at.button(key="show_stall").click().run()
    assert_clean(at)
    assert at.title[0].value == "Least-Loaded stalls"
    assert at.selectbox(key="stall_scenario").value == "phase1-8gpu"
    assert at.toggle(key="stall_control").value is False
    assert "phase1-8gpu" in at.markdown[-1].value or any(
        "phase1-8gpu" in m.value for m in at.markdown)
