"""A frozen figure answers ``to_dict`` from one copy, equal to the figure's own dict."""

import plotly.graph_objects as go
import plotly.io as pio

from gpusched.figures.frozen import freeze


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
