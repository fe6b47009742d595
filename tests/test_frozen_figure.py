"""A frozen figure answers ``to_dict`` from one copy, equal to the figure's own dict; frames and
slider steps handed over as dicts give the JSON validated ones would."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from gpusched.figures.frozen import frames_of, freeze, is_animated, is_frozen, slider_steps_of


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


def test_frames_and_slider_steps_handed_as_dicts_give_the_validated_figures_json():
    """Frames and slider steps handed over as plain dicts (numpy arrays, keys in any order) reach
    the dict and its JSON exactly as validated ones would: byte for byte the JSON of the same
    figure built with Plotly's frames and steps."""
    def base(slider_steps: list[dict] | None = None) -> go.Figure:
        fig = go.Figure(go.Bar(x=["a", "b"], y=[2, 3], marker={"color": [0, 1]}))
        fig.update_layout(sliders=[{"active": 0, "x": 0.0, "len": 1.0,
                                    **({"steps": slider_steps} if slider_steps else {})}])
        return fig

    def frames() -> list[dict]:
        return [{"traces": [0], "name": f"f{i}",
                 "data": [{"type": "bar", "y": np.array([i, i + 0.5]), "marker": {"color": [i, 0]},
                           "customdata": np.c_[[i, 1], [2, 3]]}],
                 "layout": {"title": {"text": f"minute {i}"}}} for i in range(3)]

    def steps() -> list[dict]:
        return [{"method": "animate", "label": str(i), "args": [[f"f{i}"], {"mode": "immediate"}]}
                for i in range(3)]

    validated = base(steps())
    validated.frames = frames()
    fig = freeze(base(), frames(), steps())
    assert fig.frames == ()  # never validated into Plotly's objects
    assert [f["name"] for f in frames_of(fig)] == ["f0", "f1", "f2"]
    assert [s["label"] for s in slider_steps_of(fig)] == ["0", "1", "2"]
    assert frames_of(fig)[1]["data"][0]["y"]["dtype"] == "f8"  # a typed array, as Plotly writes it
    assert pio.to_json(fig.to_dict(), validate=False) == pio.to_json(validated.to_dict(), validate=False)
    again = go.Figure(fig.to_dict())  # Plotly's own validation accepts them and changes nothing
    assert json.loads(pio.to_json(again.to_dict(), validate=False)) == json.loads(pio.to_json(fig.to_dict(),
                                                                                             validate=False))


def test_is_animated_sees_frames_in_a_frozen_figures_dict():
    """A page asks :func:`is_animated`, not ``fig.frames``, whether a figure is an animation (it
    then adds the script that quiets interrupted animations): ``fig.frames`` is empty when the
    frames were handed over as dicts."""
    still = go.Figure(go.Scatter(x=[0, 1], y=[2, 3]))
    animated = freeze(go.Figure(go.Scatter(x=[0, 1], y=[2, 3])),
                      [{"name": "f0", "traces": [0], "data": [{"type": "scatter", "y": [1, 2]}]}])
    assert animated.frames == () and is_animated(animated)
    assert is_animated(_figure()) and is_animated(freeze(_figure()))
    assert not is_animated(still) and not is_animated(freeze(go.Figure(go.Scatter(x=[0], y=[1]))))
    assert not is_frozen(still) and is_frozen(animated)


def test_helpers_read_an_unfrozen_figure_too():
    fig = _figure()
    assert [f["name"] for f in frames_of(fig)] == ["0", "1", "2"]
    assert slider_steps_of(fig) == []


@pytest.mark.parametrize("values", [
    np.arange(5, dtype=np.int64), np.array([-200, 5], dtype=np.int64), np.array([0, 40_000], dtype=np.int64),
    np.array([-(2**40), 1], dtype=np.int64), np.array([3, 70_000], dtype=np.uint64),
    np.array([2**63], dtype=np.uint64), np.array([0.5, np.nan, np.inf]), np.array([1.5], dtype=np.float32),
    np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(10)[::3], np.array([], dtype=float),
    np.array([True, False]), np.array(["a", "b"]), np.array([1, None], dtype=object)])
def test_a_typed_array_is_what_plotly_writes(values):
    """The short way to Plotly.js's typed arrays gives what plotly's own converter gives, for every
    dtype it narrows, encodes or leaves alone."""
    from _plotly_utils.utils import to_typed_array_spec

    from gpusched.figures.frozen import typed_array

    ours, plotlys = typed_array(values), to_typed_array_spec(values)
    if isinstance(plotlys, np.ndarray):
        assert isinstance(ours, np.ndarray) and ours.tolist() == plotlys.tolist()
    else:
        assert ours == plotlys
