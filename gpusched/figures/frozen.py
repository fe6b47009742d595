"""A finished figure whose plain-dict form is computed once.

``st.plotly_chart`` turns a figure into a dict (``Figure.to_dict``, a deep copy of every trace and
animation frame) on each script run before writing its JSON: for the animated replay of a
108-GPU run (250 frames) that copy takes about 0.7 s, more than the JSON itself (0.05 s). A figure
that is cached and never changed again can keep that dict and hand it out each time.

An animation's frames and its slider's steps can also be handed over as plain dicts that go into
that dict as they are: Plotly then never validates them (for the 108-GPU replay, building 250
validated frames and slider steps took about 1.1 s of the 1.4 s the figure cost; as plain dicts the
whole figure takes about 0.3 s of CPU). ``tests/test_frozen_figure.py`` and the figure tests
validate such dicts once, as Plotly would.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go


def freeze(fig: go.Figure, frames: list[dict] | None = None,
           slider_steps: list[dict] | None = None) -> go.Figure:
    """``fig`` with ``to_dict`` answering from one copy taken now (the figure must not be changed
    afterwards: later edits would not reach the dict). Returns the same object.

    :param frames: the animation's frames as plain dicts (``name``, ``traces``, ``data``), put into
        the dict unvalidated instead of ``fig.frames`` (read them back with :func:`frames_of`).
    :param slider_steps: the steps of the figure's first slider as plain dicts, likewise (the
        figure must have a slider).
    """
    frozen: dict[str, Any] = fig.to_dict()
    if frames is not None:
        frozen["frames"] = frames
    if slider_steps is not None:
        frozen["layout"]["sliders"][0]["steps"] = slider_steps
    object.__setattr__(fig, "to_dict", lambda: frozen)
    return fig


def frames_of(fig: go.Figure) -> list[dict]:
    """The animation frames of a figure, frozen or not, as dicts."""
    return fig.to_dict().get("frames", [])


def slider_steps_of(fig: go.Figure) -> list[dict]:
    """The steps of a figure's first slider, frozen or not, as dicts (none without a slider)."""
    sliders = fig.to_dict()["layout"].get("sliders", [])
    return sliders[0].get("steps", []) if sliders else []
