"""The demo's figures, read from their JSON: Home's small multiple and its sentence, misroute
markers in colours no policy's line has, Replay's stall and misroute marks, its opening minute,
one minute on the slider, GPU-model use where jobs declare no memory, and a 108-GPU axis that
stays legible."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figure_json import decoded

from gpusched import load_scenario, run_policy
from gpusched.dashboard.story import stall_story
from gpusched.experiment.stall import analyse_stall, idle_steps
from gpusched.figures import replay_figure, stall_explanation, stall_figure
from gpusched.figures.frozen import frames_of, slider_steps_of
from gpusched.figures.gpu_axis import LABELLED_GPUS_MAX, gpu_ticks, model_runs
from gpusched.figures.replay import (
    MODEL_PANEL_TITLE,
    STALL_MARK_LEGEND,
    VRAM_PANEL_TITLE,
    gantt_figure,
    merged_intervals,
)
from gpusched.figures.stall import MERGED_HOVER_LINES, MISROUTE_STRIP_TITLE, misroute_ticks
from gpusched.figures.story import STALL_BAND_LEGEND, stall_story_figure, story_sentence
from gpusched.figures.style import CAUSE_COLORS, marker_colors_clash, palette_colors, policy_colors


@pytest.fixture(scope="module")
def phase1_runs():
    scenario = load_scenario("phase1-8gpu")
    ll, ff = (run_policy(scenario, p, seed=0) for p in ("least_loaded", "first_fit"))
    return ll, ff, analyse_stall(ll)


@pytest.fixture(scope="module")
def gavel_run():
    scenario = load_scenario("gavel-108gpu-heavy").with_overrides(**{"workload.jobs": 300})
    result = run_policy(scenario, "least_loaded", seed=0)
    return result, analyse_stall(result)


def test_no_misroute_marker_has_a_colour_a_policy_line_can_have():
    assert marker_colors_clash() == set()
    assert not {c.upper() for c in CAUSE_COLORS.values()} & palette_colors()
    names = ["least_loaded", "least_loaded_fit", "first_fit", "ppo", "ppo_rollout", "fgd"]
    assert not {c.upper() for c in CAUSE_COLORS.values()} & {c.upper() for c in policy_colors(names).values()}


def test_stall_figure_puts_misroutes_on_their_own_strip_in_cause_colours(phase1_runs):
    ll, ff, report = phase1_runs
    fig = stall_figure([ll, ff], report, idle_steps(ll), idle_steps(ff), "first_fit")
    marks = [t for t in fig.data if t.name and t.name.startswith("misroute")]
    assert marks and all(t.yaxis == "y2" for t in marks)  # the middle strip, not the queue's axis
    assert _misroutes_marked(marks) == len(report.misroutes)
    lines = {t.line.color.upper() for t in fig.data if t.mode == "lines" and t.line.color}
    assert not {t.marker.color.upper() for t in marks} & lines
    assert any(MISROUTE_STRIP_TITLE in a.text for a in fig.layout.annotations)


def test_home_story_is_measured_on_the_two_runs(phase1_runs):
    ll, ff, report = phase1_runs
    story = stall_story(ll, ff, report)
    peak = int(ll.timeline.queue_length_at(ll.timeline.event_times()).max())
    assert story.peak_queue["least_loaded"] == peak
    assert story.metrics["first_fit"]["gini"] == ff.metrics["gini"]
    assert story.first_stall_min == pytest.approx(report.intervals["start_min"].iloc[0])
    text = story_sentence(story)
    assert f"up to **{peak} jobs wait**" in text and f"{report.mean_idle_gpus:.1f} of the 8 GPUs" in text
    with pytest.raises(ValueError):
        stall_story(ll, run_policy(load_scenario("phase1-8gpu"), "first_fit", seed=1), report)


def test_home_picture_is_a_small_multiple_on_shared_axes_with_the_stalls_shaded(phase1_runs):
    ll, ff, report = phase1_runs
    fig = stall_story_figure(ll, ff, report, idle_steps(ll), idle_steps(ff)).to_plotly_json()
    layout = fig["layout"]
    assert layout["yaxis2"]["matches"] == "y" and layout["yaxis4"]["matches"] == "y3"
    queue_top = max(max(t["y"]) for t in fig["data"]
                    if t.get("yaxis") in ("y", "y2") and t["y"][0] is not None)
    assert layout["yaxis"]["range"][1] >= queue_top  # no queue line clipped
    stalls = [s for s in layout["shapes"] if s["name"] == "stall"]
    assert stalls and {s["yref"] for s in stalls} == {"y domain", "y3 domain"}
    assert STALL_BAND_LEGEND in {t.get("name") for t in fig["data"]}
    assert layout["height"] <= 360  # with the title and the sentence, above the fold at 900 px


def test_merged_intervals_join_only_close_ones():
    assert merged_intervals([0, 5, 50], [4, 9, 60], gap=2) == [(0.0, 9.0), (50.0, 60.0)]
    assert merged_intervals([0, 5], [4, 9], gap=0.5) == [(0.0, 4.0), (5.0, 9.0)]


def _misroutes_marked(marks) -> int:
    """How many misroutes the tick traces ``marks`` stand for (a merged tick's hover counts them)."""
    return sum(int(text.split(" misroutes, minutes ")[0].replace(",", "")) if " misroutes, minutes " in text
               else 1 for t in marks for text in t.text)


def _misroutes(times: list[float]) -> pd.DataFrame:
    """Gang misroutes of job 0 at ``times`` (minutes), in the columns of a stall report's."""
    n = len(times)
    return pd.DataFrame({"time_min": times, "job": range(n), "gpu": [0] * n, "cause": ["gang"] * n,
                         "gpu_label": ["V100 #0"] * n, "gpu_vram_gb": [16.0] * n,
                         "job_vram_gb": [0.0] * n, "job_gpus": [8] * n})


def test_misroutes_in_one_slot_share_a_tick_that_counts_them():
    times = [0.5, 3.0, 9.9, 10.0, 10.2, 25.0, 11.0, 12.0]  # slots of 10 min: 0, 0, 0, 1, 1, 2, 1, 1
    x, text, counts = misroute_ticks(_misroutes(times), 10.0)
    assert x.tolist() == [0.5, 10.0, 25.0] and counts.tolist() == [3, 4, 1]
    assert text[0].startswith("3 misroutes, minutes 0–10:<br>job 0 needs 8 GPU(s)")
    assert text[1].count("<br>job ") == MERGED_HOVER_LINES and text[1].endswith("and 1 more")
    assert text[2].startswith("job 5 needs 8 GPU(s), no memory declared → sent to V100 #0")
    one, each, _ = misroute_ticks(_misroutes(times), 0.0)  # no slots: a tick per misroute
    assert sorted(times) == one.tolist() and len(each) == len(times)


def test_replay_marks_stalls_and_misroutes_and_opens_at_a_minute(phase1_runs):
    ll, _, report = phase1_runs
    start = float(report.intervals["start_min"].iloc[0])
    fig = replay_figure(ll, max_frames=120, start_min=start, stall=report)
    slider = fig.layout.sliders[0]
    times = ll.timeline.frame_times(120)
    k = int(np.searchsorted(times, start - 1e-9))
    now = fig.data[5]
    assert slider.active == k and now.x[0] == pytest.approx(round(times[k], 2))
    # the "now" line alone says the minute: at the top of the time panel, in every frame
    assert now.text[1].startswith(f"Minute {times[k]:,.0f} · ") and not slider.currentvalue.visible
    readouts = [f["data"][2]["text"][1] for f in frames_of(fig)]
    assert [r.split(" · ")[0] for r in readouts] == [f"Minute {t:,.0f}" for t in times]
    assert all(s["label"] == "" for s in slider_steps_of(fig))  # no label for Plotly to measure
    assert all("layout" not in f for f in frames_of(fig))
    shaded = [s for s in fig.layout.shapes if s.name == "stall"]
    assert shaded and all(s.xref == "x3" for s in shaded)
    assert STALL_MARK_LEGEND in {t.name for t in fig.data}
    marks = [t for t in fig.data if t.name and t.name.startswith("misroute")]
    assert _misroutes_marked(marks) == len(report.misroutes)
    assert {t.marker.color for t in marks} <= set(CAUSE_COLORS.values())


def test_replay_without_memory_shows_gpu_model_use_and_a_legible_axis(gavel_run):
    result, report = gavel_run
    assert result.jobs["vram_gb"].eq(0).all()
    fig = replay_figure(result, max_frames=40, stall=report)
    titles = [a.text for a in fig.layout.annotations]
    assert MODEL_PANEL_TITLE in titles and VRAM_PANEL_TITLE not in titles
    models = list(dict.fromkeys(result.cluster.gpu_model))
    assert list(fig.data[1].x) == models  # one bar per GPU model
    frames = decoded(frames_of(fig))
    k = len(frames) // 2
    running = result.timeline.gpu_frames(result.timeline.frame_times(40)).jobs_running[k]
    busy = [(running[np.asarray(result.cluster.gpu_model) == m] > 0).mean() * 100 for m in models]
    np.testing.assert_allclose(frames[k]["data"][0]["y"], np.round(busy, 1))
    ticks = gpu_ticks(result.cluster)
    assert result.cluster.n_gpus > LABELLED_GPUS_MAX and ticks.grouped
    groups = model_runs(result.cluster.gpu_model)
    assert list(fig.layout.xaxis2.ticktext) == [f"{m} ×{n}" for m, _, n in groups]
    assert fig.layout.xaxis2.tickangle == 0


def test_gantt_of_a_large_cluster_keeps_a_readable_height(gavel_run):
    result, _ = gavel_run
    height = gantt_figure(result).layout.height
    assert 108 * 14 <= height <= 1_700


def test_the_stall_explanation_of_jobs_without_memory_speaks_of_gpus(gavel_run):
    _, report = gavel_run
    text = stall_explanation(report)
    assert report.has_stall and "0 GB" not in text
    assert "declares no memory" in text
