"""Helpers for the AppTest page tests: start the app on a small scenario and read its charts."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from gpusched import load_scenario

ENTRY = str(Path(__file__).resolve().parent.parent / "app" / "Home.py")
TIMEOUT_S = 90

SMALL_SCENARIO_YAML = (load_scenario("phase1-4gpu").with_overrides(**{"workload.jobs": 40})
                       .to_yaml())
"""A 4-GPU, 40-job scenario that keeps page tests fast."""


def open_page(page: str | None = None, small: bool = True) -> AppTest:
    """Run the app, optionally on the small scenario, and switch to ``page`` (e.g. ``views/replay.py``)."""
    at = AppTest.from_file(ENTRY, default_timeout=TIMEOUT_S)
    if small:
        at.session_state["scenario_yaml"] = SMALL_SCENARIO_YAML
    at.run()
    if page:
        at.switch_page(page).run()
    return at


def _decoded(value):
    """A spec with Plotly's typed arrays (``{"dtype": "f8", "bdata": ...}``, how it writes a numpy
    array) turned back into lists."""
    if isinstance(value, dict):
        if set(value) in ({"dtype", "bdata"}, {"dtype", "bdata", "shape"}):
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
            if "shape" in value:
                array = array.reshape([int(n) for n in str(value["shape"]).split(",")])
            return array.tolist()
        return {k: _decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def plotly_specs(at: AppTest) -> list[dict]:
    """The JSON spec of every Plotly chart on the page (typed arrays as lists)."""
    return [_decoded(json.loads(el.proto.spec)) for el in at.get("plotly_chart")]


def assert_clean(at: AppTest) -> None:
    """No exception element on the page."""
    assert not at.exception, [e.value for e in at.exception]
