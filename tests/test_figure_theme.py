"""Figures in the dashboard's dark theme: the near-black marks become light, nothing else changes."""

from __future__ import annotations

import json

import plotly.graph_objects as go
import plotly.io as pio

from gpusched.experiment.runner import run_policy
from gpusched.experiment.stall import analyse_stall
from gpusched.figures.frozen import is_animated
from gpusched.figures.replay import gantt_figure, replay_figure
from gpusched.figures.style import MARK, MARK_ON_DARK
from gpusched.figures.theme import in_theme
from gpusched.workload.presets import load_scenario


def _stall_run():
    scenario = load_scenario("ll-stall-mini")
    result = run_policy(scenario, "least_loaded", seed=3)
    return result, analyse_stall(result)


def test_the_dark_twin_of_an_animation_swaps_every_mark_and_only_the_marks():
    result, report = _stall_run()
    fig = replay_figure(result, max_frames=30, stall=report)
    light = pio.to_json(fig, validate=False)
    assert light.count(f'"{MARK}"') > 0 and f'"{MARK_ON_DARK}"' not in light
    dark = in_theme(fig, "dark")
    text = pio.to_json(dark, validate=False)
    assert f'"{MARK}"' not in text
    assert text.count(f'"{MARK_ON_DARK}"') == light.count(f'"{MARK}"')
    assert json.loads(text.replace(f'"{MARK_ON_DARK}"', f'"{MARK}"')) == json.loads(light)
    assert is_animated(dark)
    assert in_theme(fig, "dark") is dark  # a frozen figure keeps its twin


def test_light_and_unknown_themes_and_figures_without_marks_are_left_as_they_are():
    result, report = _stall_run()
    fig = replay_figure(result, max_frames=30, stall=report)
    assert in_theme(fig, "light") is fig and in_theme(fig, None) is fig
    plain = go.Figure(go.Bar(x=[1, 2], y=[3, 4], marker_color="#2563EB"))
    assert in_theme(plain, "dark") is plain
    gantt = gantt_figure(result)  # not frozen: a twin each time, the figure itself untouched
    before = pio.to_json(gantt, validate=False)
    assert f'"{MARK}"' not in pio.to_json(in_theme(gantt, "dark"), validate=False)
    assert pio.to_json(gantt, validate=False) == before
