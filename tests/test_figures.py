"""The figure functions: pure Result/Comparison → go.Figure, with consistent colours, units on
axes, a frame cap, and a replay small enough to stream."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from figure_json import decoded

from gpusched import compare, load_scenario, run_policy
from gpusched.experiment.stall import analyse_stall, idle_steps
from gpusched.figures import (
    STALL_LEGEND,
    arrivals_figure,
    duration_figure,
    gantt_figure,
    gpus_figure,
    metric_bars_figure,
    policy_color,
    replay_figure,
    side_by_side_figure,
    stall_figure,
    util_over_time_figure,
    vram_figure,
    wait_cdf_figure,
)
from gpusched.figures.compare import ecdf, rolling_util
from gpusched.figures.frozen import frames_of, is_animated, slider_steps_of
from gpusched.figures.replay import gpu_lanes
from gpusched.figures.style import BAND_COLORS, BAND_ORDER, band_of
from gpusched.policies import policy_label


@pytest.fixture(scope="module")
def phase1():
    return load_scenario("phase1-8gpu")


@pytest.fixture(scope="module")
def ll_run(phase1):
    return run_policy(phase1, "least_loaded", seed=0)


@pytest.fixture(scope="module")
def ff_run(phase1):
    return run_policy(phase1, "first_fit", seed=0)


@pytest.fixture(scope="module")
def small_comparison():
    scenario = load_scenario("phase1-4gpu").with_overrides(**{"workload.jobs": 40})
    return compare(scenario, ["first_fit", "least_loaded", "best_fit"], [0, 1])


def _axis_titles(fig) -> list[str]:
    layout = fig.to_plotly_json()["layout"]
    return [v["title"]["text"] for k, v in layout.items()
            if k.startswith(("xaxis", "yaxis")) and v.get("title", {}).get("text")]


def test_bands_follow_the_60_80_rule():
    assert band_of(0.0) == "idle"
    assert band_of(0.3) == "low"
    assert band_of(0.7) == "target"
    assert band_of(0.95) == "hot"


def test_policy_colours_are_distinct_and_stable():
    names = ["first_fit", "least_loaded", "least_loaded_fit", "best_fit", "random", "ppo"]
    colours = [policy_color(n) for n in names]
    assert len(set(colours)) == len(colours)
    assert policy_color("ppo:models/x.zip") == policy_color("ppo")
    assert policy_color("mystery") == policy_color("mystery")
    assert policy_label("ppo:models/run1.zip") == "PPO agent (run1)"


def test_replay_is_capped_small_and_animated(ll_run):
    fig = replay_figure(ll_run, max_frames=250)
    frames = decoded(frames_of(fig))
    assert 2 <= len(frames) <= 250 and is_animated(fig)
    size_mb = len(fig.to_json()) / 1e6
    assert size_mb < 5.0, f"replay JSON is {size_mb:.2f} MB"
    controls = fig.layout.updatemenus[0].buttons
    assert [b.label for b in controls] == ["▶ Play", "❚❚ Pause"]
    assert [s["args"][0] for s in slider_steps_of(fig)] == [[f["name"]] for f in frames]
    # Utilisation bars carry their band in every frame: codes on the band colour scale.
    k = len(frames) // 2
    bar = frames[k]["data"][1]
    state = ll_run.timeline.gpu_frames(ll_run.timeline.frame_times(250))
    assert [BAND_ORDER[c] for c in bar["marker"]["color"]] == [band_of(u) for u in state.compute_used[k]]
    assert {c for _, c in fig.data[2].marker.colorscale} == set(BAND_COLORS.values())
    titles = _axis_titles(fig)
    assert "VRAM (GB)" in titles and "time (min)" in titles


def test_replay_frames_match_the_timeline(ll_run):
    fig = replay_figure(ll_run, max_frames=40)
    times = ll_run.timeline.frame_times(40)
    state = ll_run.timeline.gpu_frames(times)
    k = len(times) // 2
    frame = decoded(frames_of(fig)[k])
    np.testing.assert_allclose(frame["data"][1]["y"], np.round(state.compute_used[k] * 100, 1))


def test_animations_are_what_plotly_validation_makes_of_them(ll_run, ff_run):
    """The frames and slider steps go into the figure unvalidated, for speed: validating the whole
    figure with Plotly (frames and steps included) changes nothing in its JSON (numbers, typed
    arrays and all; Plotly only orders some keys its own way), and every frame animates traces the
    figure has."""
    for fig in (replay_figure(ll_run, max_frames=30), side_by_side_figure(ll_run, ff_run, max_frames=30)):
        again = go.Figure(fig.to_dict())
        assert len(again.frames) == len(frames_of(fig)) >= 2
        assert len(again.layout.sliders[0].steps) == len(again.frames)
        assert all(max(f.traces) < len(again.data) and len(f.traces) == len(f.data) for f in again.frames)
        assert json.loads(pio.to_json(again.to_dict(), validate=False)) == json.loads(
            pio.to_json(fig.to_dict(), validate=False))


def test_gantt_lanes_never_overlap_on_a_gpu(ll_run):
    p = ll_run.timeline.placements.reset_index(drop=True)
    lane, _ = gpu_lanes(p)
    p = p.assign(lane=lane)
    for _, group in p.groupby(["gpu", "lane"]):
        g = group.sort_values("start_min")
        assert (g["start_min"].to_numpy()[1:] >= g["end_min"].to_numpy()[:-1] - 1e-9).all()


def test_gantt_is_coloured_by_job_type_on_minutes(ll_run):
    fig = gantt_figure(ll_run)
    assert {t.name for t in fig.data} == set(ll_run.jobs["type"])
    assert sum(len(t.base) for t in fig.data) == len(ll_run.timeline.placements)
    assert "time (min)" in _axis_titles(fig)


def test_side_by_side_shares_one_clock(ll_run, ff_run):
    fig = side_by_side_figure(ll_run, ff_run, max_frames=60)
    assert 2 <= len(frames_of(fig)) <= 60 and len(slider_steps_of(fig)) == len(frames_of(fig))
    names = {t.name for t in fig.data}
    assert {"Least-Loaded", "First-Fit"} <= names


def test_comparison_figures_name_every_policy(small_comparison):
    for make in (metric_bars_figure, wait_cdf_figure, util_over_time_figure):
        spec = make(small_comparison).to_json()
        for name in ("First-Fit", "Least-Loaded", "Best-Fit"):
            assert name in spec, (make.__name__, name)
    bars = metric_bars_figure(small_comparison)
    assert any(t.error_y and t.error_y.visible for t in bars.data)


def test_ecdf_and_rolling_util():
    x, y = ecdf(np.array([3.0, 1.0, 2.0]))
    assert x.tolist() == [1.0, 2.0, 3.0] and y[-1] == 1.0
    t = np.array([0.0, 10.0, 20.0])
    u = np.array([1.0, 0.0, 0.0])
    np.testing.assert_allclose(rolling_util(t, u, np.array([10.0, 20.0]), 20.0), [1.0, 0.5])


def test_stall_figure_shades_intervals_and_marks_misroutes(ll_run, ff_run):
    report = analyse_stall(ll_run)
    fig = stall_figure([ll_run, ff_run], report, idle_steps(ll_run), idle_steps(ff_run), "first_fit")
    shapes = [s.name for s in fig.layout.shapes]
    assert shapes.count("stall") == len(report.intervals) > 0
    assert shapes.count("blocked") == len(report.blocked)
    names = [t.name for t in fig.data]
    assert STALL_LEGEND in names
    assert any(n and n.startswith("misroute") for n in names)
    assert "idle GPUs" in _axis_titles(fig)
    json.loads(fig.to_json())


def test_workload_figures_have_units(phase1):
    jobs = phase1.jobs(n_jobs=60)
    for make, unit in ((arrivals_figure, "arrival time (min)"), (vram_figure, "VRAM per GPU (GB)"),
                       (gpus_figure, "GPUs"), (duration_figure, "duration (min, log scale)")):
        assert unit in _axis_titles(make(jobs)), make.__name__



def test_gantt_marks_jobs_started_out_of_arrival_order():
    from gpusched.experiment.runner import run_policy
    from gpusched.figures.replay import OUT_OF_ORDER_LEGEND
    from gpusched.workload.presets import load_scenario

    scenario = load_scenario("phase1-8gpu").with_overrides(queue={"window": 8})
    easy = run_policy(scenario, "easy", seed=0)
    marks = [t for t in gantt_figure(easy).data if t.name == OUT_OF_ORDER_LEGEND]
    assert easy.metrics["backfilled_jobs"] > 0
    assert len(marks) == 1 and len(marks[0].x) == int(easy.jobs["backfilled"].sum())
    fifo = run_policy(scenario, "best_fit", seed=0)
    assert not [t for t in gantt_figure(fifo).data if t.name == OUT_OF_ORDER_LEGEND]


def test_the_dashboards_policies_have_distinct_colours_and_queue_pairs_follow_their_order():
    from gpusched.agent import AGENT_POLICIES
    from gpusched.dashboard.headline import HEADLINE_BASELINE
    from gpusched.dashboard.policies import QUEUE_HEURISTICS
    from gpusched.policies import heuristic_names

    # a pair with another placement than Best-Fit (easy+fastest_fit) takes its order's colour
    names = [*heuristic_names(), *(n for n in QUEUE_HEURISTICS if "+" not in n), *AGENT_POLICIES]
    colours = [policy_color(n) for n in names]
    assert len(set(colours)) == len(colours), dict(zip(names, colours, strict=True))
    assert policy_color(HEADLINE_BASELINE) == policy_color("first_fit")  # fcfs+X is X itself
    assert policy_color("sjf+best_fit") == policy_color("sjf") != policy_color("ppo")
    for name in ("wfp3+first_fit", "priority+fastest_fit", "mystery"):
        assert policy_color(name) not in (policy_color(p) for p in AGENT_POLICIES)
