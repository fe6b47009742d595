"""Least-Loaded stalls page: the stall on the heterogeneous preset, gone on the control."""

from __future__ import annotations

from apptest_support import assert_clean, open_page, plotly_specs

from gpusched.figures import STALL_LEGEND
from gpusched.words.metric_names import metric_title


def _stall_minutes(at) -> float:
    value = next(m.value for m in at.metric if m.label == metric_title("stall_min"))
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
    # the Scenario box names the cluster analysed, and leaving the control brings the preset back
    assert at.selectbox(key="stall_scenario").value == "homogeneous-8gpu"
    at.toggle(key="stall_control").set_value(False).run()
    assert at.selectbox(key="stall_scenario").value == "phase1-8gpu"
    at.selectbox(key="stall_scenario").set_value("homogeneous-16gpu").run()
    assert at.toggle(key="stall_control").value is True
    assert at.radio(key="stall_control_kind").value == "two nodes"


def _summary(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("- Measured on"))


def test_any_policy_can_be_analysed_and_first_fit_shows_its_blocking():
    from gpusched.figures import BLOCKED_LEGEND

    at = open_page("views/stalls.py")
    at.selectbox(key="stall_policy").set_value("first_fit").run()
    assert_clean(at)
    assert _stall_minutes(at) == 0
    spec = plotly_specs(at)[0]
    assert any(t.get("name") == BLOCKED_LEGEND for t in spec["data"])
    assert any("First-Fit never held a job" in m.value and "blocked" in m.value for m in at.markdown)


def test_the_two_node_control_says_what_it_measured():
    at = open_page("views/stalls.py")
    at.toggle(key="stall_control").set_value(True).run()
    at.radio(key="stall_control_kind").set_value("two nodes").run()
    assert_clean(at)
    assert any("homogeneous-16gpu" in m.value for m in at.markdown)
    controls = next(df.value for df in at.dataframe if "measure" in df.value.columns)
    assert list(controls.columns) == ["measure", "homogeneous-8gpu", "homogeneous-16gpu"]
    assert "stall (min)" in set(controls["measure"])


def test_where_it_happens_draws_the_map_and_adds_your_cluster():
    at = open_page("views/stalls.py")
    assert_clean(at)
    specs = plotly_specs(at)
    assert any(t.get("type") == "heatmap" for spec in specs for t in spec["data"])
    before = _summary(at)
    assert "6 cluster families" in before and "`phase1-8gpu`" in before
    # the cluster on screen is a family of the map already: nothing to add, no duplicate row
    assert at.button(key="stall_add_family").disabled
    at.selectbox(key="stall_scenario").set_value("ll-stall-mini").run()
    assert "ll-stall-mini" in at.button(key="stall_add_family").label
    at.button(key="stall_add_family").click().run()
    assert_clean(at)
    after = _summary(at)
    assert after != before and "7 cluster families" in after
    assert "`ll-stall-mini (yours)`" in after  # the scenario on screen, not Cluster & workload's
    assert at.button(key="stall_add_family").disabled


def test_show_me_the_stall_sets_the_seed_once_and_links_to_replay():
    """Home's button sets the seed through the session alone (the browser test reads the server's
    log for the warning that a default was given too); the explanation's button opens Replay on
    the same run at its first stall."""
    at = open_page(small=False)
    at.button(key="show_stall").click().run()
    assert_clean(at)
    assert at.number_input(key="stall_seed").value == 0
    misroutes = next(df.value for df in at.dataframe if "time_min" in df.value.columns)
    assert len(misroutes) > 0
    at.button(key="stall_to_replay").click().run()
    assert_clean(at)
    assert at.title[0].value == "Replay"
    assert at.selectbox(key="replay_policy").value == "least_loaded"
    assert plotly_specs(at)[0]["layout"]["sliders"][0]["active"] > 0


def test_misroute_markers_of_the_stall_figure_share_no_colour_with_a_line():
    at = open_page("views/stalls.py", small=False)
    spec = plotly_specs(at)[0]
    lines = {t["line"]["color"] for t in spec["data"] if t.get("mode") == "lines"}
    marks = {t["marker"]["color"] for t in spec["data"] if (t.get("name") or "").startswith("misroute")}
    assert marks and not marks & lines
