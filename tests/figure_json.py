"""Reading a figure's JSON back in tests: Plotly's typed arrays turned into lists."""

from __future__ import annotations

import base64

import numpy as np


def decoded(value):
    """A figure spec (or part of one) with Plotly's typed arrays (``{"dtype": "f8", "bdata": ...}``,
    how it writes a numpy array) turned back into lists."""
    if isinstance(value, dict):
        if set(value) in ({"dtype", "bdata"}, {"dtype", "bdata", "shape"}):
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
            if "shape" in value:
                array = array.reshape([int(n) for n in str(value["shape"]).split(",")])
            return array.tolist()
        return {k: decoded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [decoded(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value
