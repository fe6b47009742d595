"""Replay and Compare on a scenario with node failures and preemption: the failure rate against
the measured one, the lost work on the charts, the stops in the decisions table, the new metrics."""

from __future__ import annotations

from apptest_support import assert_clean, open_page, plotly_specs

from gpusched import load_scenario
from gpusched.core.metric_names import metric_title
from gpusched.figures.replay import DOWN_LEGEND, FAILURE_LEGEND, LOST_LEGEND, RESUME_LEGEND, STOP_LEGENDS

FAILURES_YAML = load_scenario("fleet-16gpu-failures").with_overrides(**{"workload.jobs": 120}).to_yaml()
"""The failure preset, cut to 120 jobs to keep the page tests fast (on seed 3, failures stop jobs and
srtf preempts)."""


def _open(page: str):
    at = open_page()
    at.session_state["scenario_yaml"] = FAILURES_YAML
    at.switch_page(page).run()
    return at


def test_replay_marks_failures_preemptions_and_lost_work():
    at = _open("views/replay.py")
    at.selectbox(key="replay_policy").set_value("srtf").run()
    at.number_input(key="replay_seed").set_value(3).run()
    assert_clean(at)
    captions = " ".join(c.value for c in at.caption)
    assert "20× the rate measured by Kokolis et al. (6.5)" in captions
    labels = {m.label: m.value for m in at.metric}
    assert float(labels[metric_title("goodput")]) < 100.0 and int(labels[metric_title("node_failures")]) > 0
    assert int(labels[metric_title("preemptions")]) > 0
    replay, gantt = plotly_specs(at)[:2]
    assert {DOWN_LEGEND, FAILURE_LEGEND} <= {t.get("name") for t in replay["data"]}
    down = [i for i, t in enumerate(replay["data"]) if t.get("name") == DOWN_LEGEND]
    assert all(set(down) <= set(frame["traces"]) for frame in replay["frames"])  # animated
    assert any(max(d["y"]) > 0 for frame in replay["frames"] for d in frame["data"][4:])  # greyed
    names = {t.get("name") for t in gantt["data"]}
    assert {LOST_LEGEND, STOP_LEGENDS["preemption"], STOP_LEGENDS["failure"], RESUME_LEGEND} <= names
    assert gantt["layout"]["shapes"]  # the nodes under repair
    table = at.dataframe[-1].value
    assert {"start", "preempt", "resume", "failure"} <= set(table["decision"])
    assert (table.loc[table["decision"] == "failure", "lost_min"] >= 0).all()
    assert f"It preempted {int((table['decision'] == 'preempt').sum()):,} times" in captions


def test_compare_shows_the_failure_metrics():
    at = _open("views/compare.py")
    at.radio(key="compare_source").set_value("live").run()  # the page opens on the shipped results
    at.multiselect(key="compare_policies").set_value(["easy", "srtf"]).run()
    at.number_input(key="compare_seeds").set_value(2).run()
    assert_clean(at)
    assert any(m.value == "##### Failures and preemption" for m in at.markdown)
    titles = [a["text"] for spec in plotly_specs(at) for a in spec["layout"].get("annotations", [])]
    assert any(t.startswith("Goodput") for t in titles)
    table = at.dataframe[0].value
    keys = ("goodput", "lost_gpu_hours", "preemptions", "node_failures")
    assert {metric_title(k) for k in keys} <= set(table.columns)
