"""Replay on a round policy: chosen from the menu, run on the background worker, and its Gantt chart
follows a job from GPU model to GPU model, round by round."""

from __future__ import annotations

import json
import time

from apptest_support import assert_clean, open_page, plotly_specs

from gpusched.policies import policy_label
from gpusched.workload.presets import load_scenario

POLICY = "max_min_fairness"


def test_replay_runs_a_round_policy_and_its_gantt_follows_a_job():
    at = open_page("views/replay.py")
    scenario = load_scenario("gavel-12gpu-rounds").with_overrides(**{"workload.jobs": 24})
    at.session_state["scenario_yaml"] = scenario.to_yaml()
    at.run()
    assert policy_label(POLICY) in at.selectbox(key="replay_policy").options  # the menu shows labels
    at.selectbox(key="replay_policy").set_value(POLICY).run()
    assert_clean(at)
    deadline = time.monotonic() + 180
    while not any("round by round" in json.dumps(spec, ensure_ascii=False) for spec in plotly_specs(at)):
        assert time.monotonic() < deadline, "the round run never reached the Gantt chart"
        time.sleep(1.0)
        at.run()
        assert_clean(at)
    gantt = next(s for s in plotly_specs(at) if "round by round" in json.dumps(s, ensure_ascii=False))
    assert gantt["layout"]["title"]["text"].endswith(policy_label(POLICY))
    line = next(t for t in gantt["data"] if "round by round" in t.get("name", ""))
    assert len({label.split()[0] for label in line["customdata"]}) >= 2  # over more than one GPU model
