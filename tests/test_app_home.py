"""Home page: the headline drawn at once from the shipped results, its live recompute, and the
one-click jump to the stall explorer."""

from __future__ import annotations

import json
import time

import pandas as pd
from apptest_support import assert_clean, open_page, plotly_specs

from gpusched.paths import WINDOW_AGENT_RESULTS


def _shipped_means() -> tuple[pd.Series, str]:
    """Mean time to result per policy on the headline preset, read straight from the JSON, and the
    heuristic with the lowest one."""
    runs = pd.DataFrame(json.loads(WINDOW_AGENT_RESULTS.read_text(encoding="utf-8"))["fleet-16gpu"]["runs"])
    jct = runs.groupby("policy")["avg_jct_min"].mean()
    return jct, jct[~jct.index.str.startswith("ppo")].idxmin()


def test_home_shows_the_shipped_headline_with_its_seeds_and_the_measured_best_heuristic():
    from gpusched.policies import policy_label

    at = open_page()
    assert_clean(at)
    assert "gpusched" in at.title[0].value
    jct, best = _shipped_means()
    heading = next(s.value for s in at.subheader if "fleet-16gpu" in s.value)
    assert "20 seeds (1000–1019)" in heading
    labels = [m.label for m in at.metric]
    assert labels.count("Time to result (min)") == 3 and labels.index("Time to result (min)") == 0
    shown = [m.value for m in at.metric if m.label == "Time to result (min)"]
    assert shown == [f"{jct[p]:,.1f}" for p in ("fcfs+first_fit", best, "ppo")]
    chart = str(plotly_specs(at)[0])
    assert policy_label("fcfs+first_fit") in chart and policy_label(best) in chart
    assert "bootstrap for p99 wait" in chart  # the bars say which interval each panel shows


def test_every_percentage_on_home_has_its_paired_interval_or_says_it_is_not_distinguishable():
    at = open_page()
    deltas = [m for m in at.metric if m.delta]
    assert len(deltas) == 2 and all(m.delta.endswith(" %") for m in deltas)
    verdicts = [c.value for c in at.caption if "better than" in c.value or "worse than" in c.value
                or "no measurable difference" in c.value.lower()]
    assert len(verdicts) == 3
    for text in verdicts:
        assert "95 % interval" in text, text
    assert any("no measurable difference" in t.lower() for t in verdicts)  # the agent against the best rule


def test_recompute_live_gives_the_shipped_numbers():
    at = open_page()
    at.button(key="home_recompute").click().run()
    deadline = time.monotonic() + 240
    while not (at.success or at.warning):
        assert time.monotonic() < deadline, "the live runs never finished"
        assert at.get("progress"), "no progress shown while the runs are recomputed"
        time.sleep(1.0)
        at.run()
        assert_clean(at)
    assert [s.value for s in at.success] == ["Recomputed live: the 60 runs give exactly the shipped numbers."]


def test_show_me_the_stall_opens_the_demo():
    at = open_page()
    at.button(key="show_stall").click().run()
    assert_clean(at)
    assert at.title[0].value == "Least-Loaded stalls"
    assert at.selectbox(key="stall_scenario").value == "phase1-8gpu"
    assert at.toggle(key="stall_control").value is False
    assert "phase1-8gpu" in at.markdown[-1].value or any(
        "phase1-8gpu" in m.value for m in at.markdown)
