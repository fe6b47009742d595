"""Replay and Compare on a scenario with node failures and preemption: the failure rate against
the measured one, the lost work on the charts, the stops in the decisions table, the new metrics."""

from __future__ import annotations

from apptest_support import assert_clean, open_page, plotly_specs

from gpusched import load_scenario
from gpusched.figures.replay import DOWN_LEGEND, FAILURE_LEGEND, LOST_LEGEND, RESUME_LEGEND, STOP_LEGENDS
from gpusched.words.metric_names import metric_title

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
    columns = {c for frame in at.dataframe for c in frame.value.columns}
    keys = ("goodput", "lost_gpu_hours", "preemptions", "node_failures")
    assert {metric_title(k) for k in keys} <= columns
    assert any(t.label == "Failures and preemption" for t in at.tabs)


def test_cluster_lists_the_failure_settings_and_its_line_mentions_failures():
    at = _open("views/cluster.py")
    assert_clean(at)
    assert any("Nodes fail 130 times per 1,000 node-days" in s.value for s in at.success)
    settings = next(df.value for df in at.dataframe if "setting" in df.value.columns)
    values = dict(zip(settings["setting"], settings["value"], strict=True))
    assert values["Node failures"] == "130 per 1,000 node-days"
    assert values["Repair time"] == "median 54 min, mean 355 min"
    assert values["Checkpoints"].startswith("training jobs, every 60 min")
    at.selectbox(key="preset_0").set_value("phase1-8gpu").run()
    assert any("Nodes never fail" in s.value for s in at.success)


def test_compare_and_replay_tell_which_rule_loses_most_and_why():
    from gpusched import compare
    from gpusched.experiment.lost_work import lost_work
    from gpusched.policies import policy_label

    at = _open("views/compare.py")
    at.radio(key="compare_source").set_value("live").run()  # the page opens on the shipped results
    at.multiselect(key="compare_policies").set_value(["easy", "srtf", "least_loaded"]).run()
    at.number_input(key="compare_seeds").set_value(2).run()
    assert_clean(at)
    story = next(m.value for m in at.markdown if "loses the most work" in m.value)
    scenario = load_scenario("fleet-16gpu-failures").with_overrides(**{"workload.jobs": 120})
    rows = lost_work(compare(scenario, ["easy", "srtf", "least_loaded"], [0, 1]),
                     scenario.checkpoint.types)
    worst = max(rows, key=lambda r: r.lost_gpu_hours)
    assert f"**{policy_label(worst.policy)}** loses the most work" in story
    assert f"{worst.lost_gpu_hours:,.1f} GPU-hours" in story and "Why:" in story
    at = _open("views/replay.py")
    at.number_input(key="replay_seed").set_value(3).run()
    assert_clean(at)
    assert any("never under a running job" in m.value for m in at.markdown)  # 0 jobs interrupted
    at.selectbox(key="replay_policy").set_value("srtf").run()
    assert_clean(at)
    assert any("Node failures interrupted" in m.value and "GPU-hours" in m.value for m in at.markdown)
