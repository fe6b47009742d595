"""Home page: the headline drawn at once from the shipped results, its live recompute, and the
one-click jump to the stall explorer."""

from __future__ import annotations

import json
import time

import pandas as pd
from apptest_support import assert_clean, open_page, plotly_specs, replay_minute

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
    assert "bigger cluster" in heading
    assert any("20 seeds (1000–1019)" in c.value for c in at.caption)
    shown = [m.value for m in at.metric if m.label == "Time to result (min)"]
    assert shown == [f"{jct[p]:,.1f}" for p in ("fcfs+first_fit", best, "ppo")]
    chart = str(plotly_specs(at)[1])
    assert policy_label("fcfs+first_fit") in chart and policy_label(best) in chart
    assert "bootstrap for p99 wait" in chart  # the bars say which interval each panel shows
    glossary = next(i for i, m in enumerate(at.markdown) if "**stall**" in m.value)
    text = " ".join(m.value for m in at.markdown[:glossary])  # the glossary explains the terms
    assert "`sjf+first_fit`" not in text and "`fcfs+first_fit`" not in text  # no code names in prose
    assert "paired seed by seed" not in text and "head job" not in text


def test_every_percentage_on_home_has_its_paired_interval_or_says_it_is_not_distinguishable():
    at = open_page()
    deltas = [m for m in at.metric if m.delta and m.label == "Time to result (min)"]
    assert len(deltas) == 2 and all(m.delta.endswith(" %") for m in deltas)
    verdicts = [c.value for c in at.caption if "better than" in c.value or "worse than" in c.value
                or "no measurable difference" in c.value.lower()]
    assert len(verdicts) == 3
    for text in verdicts:
        assert "95 % interval" in text, text
    assert any("no measurable difference" in t.lower() for t in verdicts)  # the agent against the best rule


def test_every_delta_on_home_reads_its_sign_and_is_green_only_when_it_is_good_news():
    """An improvement is a green arrow pointing the way the number moved; a change for the worse
    is red: the sign is ASCII (Streamlit reads a Unicode minus as up) and where lower is better
    the colours are inverted."""
    from streamlit.proto.Metric_pb2 import Metric

    from gpusched.dashboard.deltas import lower_is_better
    from gpusched.dashboard.story import STORY_LABELS, STORY_METRICS

    at = open_page()
    with_delta = [m for m in at.metric if m.delta]
    assert len(with_delta) == 2 + len(STORY_METRICS)  # two headline rules, and Least-Loaded's cards
    keys = {"Time to result (min)": "avg_jct_min", **{v: k for k, v in STORY_LABELS.items()}}
    for m in with_delta:
        assert "−" not in m.delta, m.delta
        down = m.delta.startswith("-")
        assert m.proto.direction == (Metric.MetricDirection.DOWN if down else Metric.MetricDirection.UP)
        good = down == lower_is_better(keys[m.label])
        assert m.proto.color == (Metric.MetricColor.GREEN if good else Metric.MetricColor.RED), m.delta
    headline = [m for m in with_delta if m.label == "Time to result (min)"]
    assert all(m.delta.startswith("-") and m.proto.color == Metric.MetricColor.GREEN for m in headline)


def test_home_opens_on_the_stall_in_one_picture_with_wait_and_gini_beside_it():
    from gpusched import load_scenario, run_policy
    from gpusched.dashboard.story import (
        STORY_LABELS,
        STORY_REFERENCE,
        STORY_SCENARIO,
        STORY_SEED,
        STORY_STALLING,
    )
    from gpusched.figures.story import STALL_BAND_LEGEND

    at = open_page()
    story = plotly_specs(at)[0]  # the first chart on the page is the story
    names = {t.get("name") for t in story["data"]}
    assert {"Least-Loaded", "First-Fit", STALL_BAND_LEGEND} <= names
    assert any(s.get("name") == "stall" for s in story["layout"]["shapes"])
    scenario = load_scenario(STORY_SCENARIO)
    for policy in (STORY_STALLING, STORY_REFERENCE):
        metrics = run_policy(scenario, policy, seed=STORY_SEED).metrics
        shown = {m.label: m.value for m in at.metric if m.label in STORY_LABELS.values()
                 and m.value in (f"{metrics['avg_wait_min']:,.1f}", f"{metrics['gini']:,.3f}")}
        assert len(shown) == 2, (policy, metrics["avg_wait_min"], metrics["gini"])
    first = at.markdown[0].value
    assert first.startswith("Same 250 jobs, same 8 GPUs") and "Least-Loaded" in first


def test_home_links_every_page_from_the_one_page_list():
    from gpusched.dashboard.pages import PAGES

    at = open_page()
    links = [el.proto.page for el in at.get("page_link")]
    assert links == [p.url_path for p in PAGES if p.name != "home"]


def test_watch_it_opens_replay_at_the_first_stall():
    at = open_page()
    at.button(key="show_replay").click().run()
    assert_clean(at)
    assert at.title[0].value == "Replay"
    replay = next(s for s in plotly_specs(at) if s.get("frames"))
    slider = replay["layout"]["sliders"][0]
    assert slider["active"] > 0  # not the first frame: the first stall
    minute = replay_minute(replay)
    stalls = [s for s in replay["layout"]["shapes"] if s.get("name") == "stall"]
    assert stalls and abs(minute - stalls[0]["x0"]) < 30, (minute, stalls[0])


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
