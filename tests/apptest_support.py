"""Helpers for the AppTest page tests: start the app on a small scenario and read its charts."""

from __future__ import annotations

import json
from pathlib import Path

from figure_json import decoded
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


def plotly_specs(at: AppTest) -> list[dict]:
    """The JSON spec of every Plotly chart on the page (typed arrays as lists)."""
    return [decoded(json.loads(el.proto.spec)) for el in at.get("plotly_chart")]


def replay_minute(spec: dict) -> float:
    """The minute a replay's figure (its spec, as :func:`plotly_specs` gives it) opens at: what its
    "now" line reads ("Minute 1,234 · ...")."""
    now = next(t for t in spec["data"] if t.get("name") == "now")
    return float(now["text"][1].split(" · ")[0].removeprefix("Minute ").replace(",", ""))


def assert_clean(at: AppTest) -> None:
    """No exception element on the page."""
    assert not at.exception, [e.value for e in at.exception]
