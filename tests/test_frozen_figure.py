"""A frozen figure answers ``to_dict`` from one copy, equal to the figure's own dict."""

import plotly.graph_objects as go
import plotly.io as pio

from gpusched.figures.frozen import frames_of, freeze, slider_steps_of


def _figure() -> go.Figure:
    fig = go.Figure(go.Scatter(x=[0, 1], y=[2, 3]))
    fig.frames = [go.Frame(data=[go.Scatter(x=[0, 1], y=[i, i + 1])], name=str(i)) for i in range(3)]
    return fig


def test_frozen_dict_equals_the_figures_and_is_reused():
    expected = _figure().to_dict()
    fig = freeze(_figure())
    assert fig.to_dict() == expected
    assert fig.to_dict() is fig.to_dict()
    assert pio.to_json(fig.to_dict(), validate=False) == pio.to_json(expected, validate=False)


def test_frames_and_slider_steps_handed_as_dicts_reach_the_dict_and_the_json():
    fig = go.Figure(go.Scatter(x=[0, 1], y=[2, 3]))
    fig.update_layout(sliders=[{"active": 0, "x": 0.0}])
    frames = [{"name": f"f{i}", "traces": [0], "data": [{"type": "scatter", "y": [i, i + 1]}]}
              for i in range(3)]
    steps = [{"method": "animate", "label": str(i), "args": [[f"f{i}"]]} for i in range(3)]
    fig = freeze(fig, frames, steps)
    assert frames_of(fig) == frames and slider_steps_of(fig) == steps
    assert fig.frames == ()  # never validated into Plotly's objects
    again = go.Figure(fig.to_dict())  # Plotly's own validation accepts them
    assert [f.name for f in again.frames] == ["f0", "f1", "f2"]
    assert [s.label for s in again.layout.sliders[0].steps] == ["0", "1", "2"]
    assert '"f2"' in pio.to_json(fig.to_dict(), validate=False)


def test_helpers_read_an_unfrozen_figure_too():
    fig = _figure()
    assert [f["name"] for f in frames_of(fig)] == ["0", "1", "2"]
    assert slider_steps_of(fig) == []
