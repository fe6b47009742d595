"""A finished figure whose plain-dict form is computed once.

``st.plotly_chart`` turns a figure into a dict (``Figure.to_dict``, a deep copy of every trace and
animation frame) on each script run before writing its JSON: for the animated replay of a
108-GPU run (250 frames) that copy takes about 0.7 s, more than the JSON itself (0.05 s). A figure
that is cached and never changed again can keep that dict and hand it out each time.

An animation's frames and its slider's steps can also be handed over as plain dicts, which go
into that dict without Plotly validating them: building 250 validated frames and slider steps
costs more than the rest of the replay figure. They are written as ``to_dict`` writes validated
ones (numpy arrays as Plotly.js typed arrays, ``{"dtype", "bdata"}``, keys in Plotly's order), so
the JSON the browser gets is byte for byte the one validated frames would give;
``tests/test_frozen_figure.py`` and the figure tests check that validating such a figure with
Plotly leaves its JSON unchanged.

Such a figure's ``frames`` attribute is empty (the frames live in its dict only): ask
:func:`is_animated` or :func:`frames_of`, never ``fig.frames``, whether and how it is animated.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
import plotly.graph_objects as go
from _plotly_utils.basevalidators import is_homogeneous_array
from _plotly_utils.utils import is_skipped_key, to_typed_array_spec


def freeze(fig: go.Figure, frames: list[dict] | None = None,
           slider_steps: list[dict] | None = None) -> go.Figure:
    """``fig`` with ``to_dict`` answering from one copy taken now (the figure must not be changed
    afterwards: later edits would not reach the dict). Returns the same object.

    :param frames: the animation's frames as plain dicts (``name``, ``traces``, ``data``, optionally
        ``layout``), put into the dict unvalidated instead of ``fig.frames``, their numpy arrays
        written as typed arrays and their keys in Plotly's order, as ``to_dict`` writes validated ones.
    :param slider_steps: the steps of the figure's first slider as plain dicts, likewise (the
        figure must have a slider, without steps of its own).
    """
    frozen: dict[str, Any] = fig.to_dict()
    if frames:
        frozen["frames"] = [_frame_in_plotly_order(f) for f in frames]
        _write_typed_arrays(frozen["frames"])
    if slider_steps is not None:
        slider = frozen["layout"]["sliders"][0]
        slider["steps"] = [_sorted(step, deep=False) for step in slider_steps]
        frozen["layout"]["sliders"][0] = _sorted(slider, deep=False)
    object.__setattr__(fig, "to_dict", lambda: frozen)
    return fig


TYPED_ARRAY_NAMES = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4",
                     "uint32": "u4", "float32": "f4", "float64": "f8"}
"""Plotly.js's names of the numpy dtypes it reads as typed arrays (``_plotly_utils.utils``)."""

_NARROWER = {"i": (np.int8, np.int16, np.int32), "u": (np.uint8, np.uint16, np.uint32)}
"""The integer types a 64-bit integer array is narrowed to, smallest first, as Plotly narrows it
(Plotly.js reads no 64-bit integers)."""


def _write_typed_arrays(obj: Any) -> None:
    """Replace every numpy array in ``obj`` (dicts and lists, in place) by Plotly.js's typed-array
    form, as plotly's ``convert_to_base64`` does (the same keys skipped, the same output). A numeric
    array takes the short way (:func:`typed_array`); anything else goes through plotly's own
    converter, which first copies the value through its dataframe-library detection (about 0.3 ms
    an array: most of the time of freezing 250 frames)."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if is_skipped_key(key):
                continue
            if isinstance(value, np.ndarray):
                obj[key] = typed_array(value)
            elif isinstance(value, dict | list | tuple):
                _write_typed_arrays(value)
            elif is_homogeneous_array(value):  # a pandas series, or anything else numpy can read
                obj[key] = to_typed_array_spec(value)
    elif isinstance(obj, list | tuple):
        for value in obj:
            _write_typed_arrays(value)


def typed_array(v: np.ndarray) -> Any:
    """A numpy array as Plotly writes it into a figure's JSON: ``{"dtype", "bdata"}`` (and
    ``"shape"`` when it has more than one dimension) for a non-empty numeric array, a 64-bit
    integer array narrowed first (left as it is when its values need 64 bits); any other array as
    plotly's ``to_typed_array_spec`` gives it."""
    if v.dtype.kind not in "iuf" or v.size == 0:
        return to_typed_array_spec(v)
    if v.dtype.itemsize == 8 and v.dtype.kind in _NARROWER:
        lo, hi = v.min(), v.max()
        fits = (t for t in _NARROWER[v.dtype.kind] if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max)
        narrower = next(fits, None)
        if narrower is None:
            return to_typed_array_spec(v)
        v = v.astype(narrower)
    name = TYPED_ARRAY_NAMES.get(str(v.dtype))
    if name is None:
        return to_typed_array_spec(v)
    spec = {"dtype": name, "bdata": base64.b64encode(np.ascontiguousarray(v)).decode("ascii")}
    if v.ndim > 1:
        spec["shape"] = str(v.shape)[1:-1]
    return spec


def _sorted(obj: dict, deep: bool = True) -> dict:
    """``obj`` with its keys in alphabetical order (and those of the dicts in it, if ``deep``),
    the order Plotly writes an object's properties in."""
    return {k: _sorted(v) if deep and isinstance(v, dict) else v for k, v in sorted(obj.items())}


def _frame_in_plotly_order(frame: dict) -> dict:
    """A frame's keys, and its traces' and layout's, in the order ``to_dict`` writes a validated
    frame's: alphabetical, a trace's ``type`` last. Its JSON is then byte for byte the validated
    frame's."""
    out = {k: v for k, v in sorted(frame.items()) if k not in ("data", "layout")}
    if "data" in frame:
        out["data"] = [{**_sorted({k: v for k, v in t.items() if k != "type"}), "type": t["type"]}
                       for t in frame["data"]]
    if "layout" in frame:
        out["layout"] = _sorted(frame["layout"])
    return _sorted(out, deep=False)


def frames_of(fig: go.Figure) -> list[dict]:
    """The animation frames of a figure, frozen or not, as dicts."""
    return fig.to_dict().get("frames", [])


def is_frozen(fig: go.Figure) -> bool:
    """Whether :func:`freeze` has frozen ``fig``."""
    return "to_dict" in vars(fig)


def is_animated(fig: go.Figure) -> bool:
    """Whether a figure, frozen or not, has animation frames (without copying an unfrozen one)."""
    return bool(fig.frames) or (is_frozen(fig) and "frames" in fig.to_dict())


def slider_steps_of(fig: go.Figure) -> list[dict]:
    """The steps of a figure's first slider, frozen or not, as dicts (none without a slider)."""
    sliders = fig.to_dict()["layout"].get("sliders", [])
    return sliders[0].get("steps", []) if sliders else []
