"""Replay page: policy and seed pickers drive an animated replay and a Gantt chart."""

from __future__ import annotations

from apptest_support import assert_clean, open_page, plotly_specs, replay_minute

from gpusched.policies import policy_label
from gpusched.words.metric_names import metric_title


def _open_with_window(window: int):
    """The Replay page on the default scenario with a queue window of ``window`` jobs."""
    from gpusched.workload.scenario_yaml import scenario_from_yaml

    at = open_page("views/replay.py")
    scenario = scenario_from_yaml(at.session_state["scenario_yaml"]).with_overrides(queue={"window": window})
    at.session_state["scenario_yaml"] = scenario.to_yaml()
    at.run()
    return at


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_replay_draws_animation_and_gantt():
    at = open_page("views/replay.py")
    assert_clean(at)
    assert at.selectbox(key="replay_policy").value == "least_loaded"
    assert at.number_input(key="replay_seed").value == 0
    replay, gantt = plotly_specs(at)[:2]
    assert replay["frames"] and replay["layout"]["sliders"]
    assert gantt["layout"]["xaxis"]["title"]["text"] == "time (min)"


def test_changing_policy_and_seed_updates_the_run():
    at = open_page("views/replay.py")
    before = plotly_specs(at)[0]["layout"]["title"]["text"]
    at.selectbox(key="replay_policy").set_value("fcfs+first_fit").run()
    assert_clean(at)
    assert _metric(at, metric_title("stall_min")) == "0"
    after = plotly_specs(at)[0]["layout"]["title"]["text"]
    assert before.startswith("Least-Loaded") and after.startswith(policy_label("first_fit"))
    wait = _metric(at, metric_title("avg_wait_min"))
    at.number_input(key="replay_seed").set_value(3).run()
    assert_clean(at)
    assert _metric(at, metric_title("avg_wait_min")) != wait


def test_replay_marks_out_of_order_starts_on_a_window_scenario():
    from gpusched.figures.replay import OUT_OF_ORDER_LEGEND

    at = _open_with_window(8)
    at.selectbox(key="replay_policy").set_value("fitfirst").run()
    assert_clean(at)
    assert any(m.label == "Started out of order" for m in at.metric)
    names = [t.get("name") for spec in plotly_specs(at) for t in spec["data"]]
    assert OUT_OF_ORDER_LEGEND in names


def test_replay_lists_every_decision_and_filters_the_out_of_order_ones():
    at = _open_with_window(8)
    at.selectbox(key="replay_policy").set_value("sjf+best_fit").run()
    assert_clean(at)
    table = at.dataframe[-1].value
    assert (table["decision"] == "start").sum() == 40  # every job of the default scenario started
    out_of_order = int(table["out_of_order"].sum())
    assert out_of_order > 0
    assert f"{out_of_order:,} of them out of order" in " ".join(c.value for c in at.caption)
    at.toggle(key="decisions_unusual").set_value(True).run()
    assert_clean(at)
    assert len(at.dataframe[-1].value) == out_of_order + int((table["decision"] == "hold").sum())


def test_replay_shows_each_runs_speed_loss_and_each_starts_speed_on_the_fleet():
    """On a cluster with GPU speeds, the Gantt chart hatches the part of each run beyond its ideal
    run time, and the decisions table gives the chosen gang's speed beside the best speed."""
    from gpusched.experiment.runner import run_policy
    from gpusched.figures.replay import SPEED_LOSS_LEGEND
    from gpusched.workload.presets import load_scenario

    scenario = load_scenario("fleet-16gpu").with_overrides(**{"workload.jobs": 60})
    at = open_page("views/replay.py")
    at.session_state["scenario_yaml"] = scenario.to_yaml()
    at.run()
    at.selectbox(key="replay_policy").set_value("fcfs+best_fit").run()
    assert_clean(at)
    gantt = next(spec for spec in plotly_specs(at) if "Jobs on each GPU" in spec["layout"]["title"]["text"])
    hatched = [t for t in gantt["data"] if t.get("name") == SPEED_LOSS_LEGEND]
    jobs = run_policy(scenario, "best_fit").jobs
    slowed = int(((jobs["run_min"] - jobs["ideal_run_min"]) > 1e-6).sum())
    assert hatched and slowed > 0
    # one hatched bar per GPU of every slowed job
    lost = jobs[(jobs["run_min"] - jobs["ideal_run_min"]) > 1e-6]
    assert len(hatched[0]["x"]) == int(lost["gpus"].sum())
    table = at.dataframe[-1].value
    assert {"speed", "best_speed"} <= set(table.columns)
    starts = table[table["decision"] == "start"]
    assert (starts["speed"] <= starts["best_speed"] + 1e-9).all()
    assert (starts["speed"] < starts["best_speed"]).any()


def test_replay_shows_home_cards_and_offers_home_rules_by_home_names():
    """The time to result and the p99 wait (Home's cards) on a strict queue too, every rule Home
    names in the picker, and a FIFO placement only under the name Home gives it."""
    from gpusched.dashboard.headline import HEADLINE_BASELINE, headline_heuristics

    at = open_page("views/replay.py")
    labels = [m.label for m in at.metric]
    assert metric_title("avg_jct_min") in labels and metric_title("p99_wait_min") in labels
    assert metric_title("p95_wait_min") not in labels
    names = at.selectbox(key="replay_policy").options  # as shown (labels)
    assert len(names) == len(set(names)), "two picker entries with one name"
    for rule in (HEADLINE_BASELINE, *headline_heuristics()):
        assert policy_label(rule) in names, rule
    assert names.count(policy_label("first_fit")) == 1  # first_fit and fcfs+first_fit: one rule, one name


def test_replay_reads_for_a_stakeholder():
    """The agent among the menu's first entries, one minute (the "now" line's), stalls and misroutes
    marked, no empty model column, no priority-weighted wait where priorities are equal."""
    from gpusched.agent import AGENT_POLICY
    from gpusched.dashboard.policies import dashboard_policies
    from gpusched.workload.presets import load_scenario

    at = open_page("views/replay.py", small=False)
    assert_clean(at)
    options = at.selectbox(key="replay_policy").options
    if AGENT_POLICY in dashboard_policies():
        assert options.index(policy_label(AGENT_POLICY)) <= 3, options
    replay = plotly_specs(at)[0]
    assert "minute" not in replay["layout"]["title"]["text"].lower()  # the "now" line says the minute
    now = next(t for t in replay["data"] if t.get("name") == "now")
    assert now["text"][1].startswith("Minute ") and replay["layout"]["sliders"][0]["currentvalue"] == {
        "visible": False}
    assert any(s.get("name") == "stall" for s in replay["layout"]["shapes"])
    assert any((t.get("name") or "").startswith("misroute") for t in replay["data"])
    decisions = next(df.value for df in at.dataframe if "decision" in df.value.columns)
    assert "model" not in decisions.columns  # no job of a synthetic preset names a model
    # Gavel's jobs all have priority 2: the priority-weighted wait would only repeat the average
    scenario = load_scenario("gavel-108gpu").with_overrides(queue={"window": 4}, **{"workload.jobs": 40})
    at.session_state["scenario_yaml"] = scenario.to_yaml()
    at.run()
    assert_clean(at)
    assert metric_title("weighted_wait_min") not in [m.label for m in at.metric]
    assert metric_title("avg_wait_min") in [m.label for m in at.metric]


def test_go_to_the_first_stall_moves_the_slider():
    at = open_page("views/replay.py", small=False)
    assert plotly_specs(at)[0]["layout"]["sliders"][0]["active"] == 0
    at.button(key="replay_first_stall").click().run()
    assert_clean(at)
    replay = plotly_specs(at)[0]
    slider = replay["layout"]["sliders"][0]
    first = min(s["x0"] for s in replay["layout"]["shapes"] if s.get("name") == "stall")
    minute = replay_minute(replay)
    assert slider["active"] > 0 and abs(minute - first) < 30, (minute, first)
    assert at.button(key="replay_first_stall").disabled


def test_the_animated_replay_comes_with_the_script_that_quiets_interrupted_animations():
    """The replay is frozen with its frames in its dict (``fig.frames`` is empty): the page still
    adds the script that keeps Pause and the slider from logging an uncaught error, once, and the
    Gantt chart, not animated, adds none."""
    from gpusched.figures.replay import INTERRUPTED_ANIMATION_SCRIPT

    at = open_page("views/replay.py")
    assert_clean(at)
    replay, gantt = plotly_specs(at)[:2]
    assert replay["frames"] and "frames" not in gantt
    assert [h.proto.body for h in at.get("html")] == [INTERRUPTED_ANIMATION_SCRIPT]


def test_a_large_gantt_is_drawn_when_asked():
    """On ``gavel-108gpu-heavy`` (thousands of runs) Replay opens with the animation alone and a
    toggle; the toggle draws the Gantt chart of the same run. A small run's Gantt needs no toggle."""
    from gpusched.figures.replay import GANTT_BARS_AT_ONCE, gantt_on_request
    from gpusched.workload.presets import load_scenario

    assert gantt_on_request(GANTT_BARS_AT_ONCE + 1) and not gantt_on_request(GANTT_BARS_AT_ONCE)
    small = open_page("views/replay.py")
    assert not [t for t in small.toggle if t.key == "replay_gantt"]
    at = open_page("views/replay.py")
    at.session_state["scenario_yaml"] = load_scenario("gavel-108gpu-heavy").to_yaml()
    at.run()
    assert_clean(at)
    toggle = at.toggle(key="replay_gantt")
    bars = int(toggle.label.split("(")[1].split()[0].replace(",", ""))
    assert bars > GANTT_BARS_AT_ONCE and toggle.value is False
    titles = [spec["layout"]["title"]["text"] for spec in plotly_specs(at)]
    assert not any(t.startswith("Jobs on each GPU") for t in titles)
    toggle.set_value(True).run()
    assert_clean(at)
    gantt = next(s for s in plotly_specs(at) if s["layout"]["title"]["text"].startswith("Jobs on each GPU"))
    runs = [t for t in gantt["data"] if t.get("hovertemplate", "").startswith("job %{customdata[0]} · ")]
    assert sum(len(t["base"]) for t in runs) == bars  # one bar per GPU of each run
