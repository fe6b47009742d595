"""Dashboard page load times in a real browser (headless Chromium driven by ``playwright``).

Starts a fresh ``streamlit run app/Home.py`` (so every cache is cold), then measures per page:

* **cold**: the first visit of each page after server start, each in a new tab;
* **warm nav**: each page again in one tab, switched to by clicking its sidebar link (the way a
  user changes pages: the front end is not reloaded);
* **warm tab**: each page again in a new tab of the same browser (the front end boots again);
* **floor**: a reference page with one small chart and nothing else, in new tabs of another
  server: what any Streamlit page with a Plotly chart costs on this machine before its own work.

For every visit it prints the time from navigation (or the click) until the first Plotly chart is
drawn, and until the app is idle: the script has stopped running, charts are drawn, no spinner or
progress bar shows (e.g. the agent's background runs are in), and it stays so for ``--settle``
seconds (the reported time is when that idle spell began). The targets are cold < 10 s and
warm < 3 s; timings depend on what else runs on the machine.

First, on a server of its own, it measures the demo's targets, each against its own limit
(:data:`TARGETS`): from a cold ``streamlit run``, Home's text with the "Show me the stall" button
(:data:`HOME_TEXT`) and the whole Home (idle, charts drawn); then, in the same tab, every other
page's first visit by its sidebar link, the Agent page included.

With ``--replay-preset NAME`` it measures, on a fresh server, how long Replay takes to open on a
preset (:func:`replay_open`): the preset is chosen on Cluster & workload, then the clock starts at
the click on Replay's sidebar link and stops when the page is idle with its charts drawn (target
:data:`REPLAY_TARGET_S`), and then how long a Gantt chart drawn on request takes; the machine's
load is printed beside (on a shared machine the times follow it: compare versions in alternating
runs at a similar load).

Run: ``python benchmarks/bench_pages.py [--json PATH] [--targets-only] [--replay-preset NAME]``.
Needs ``/usr/bin/chromium``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from browser_support import CHART_PAGES, CHROMIUM, CHROMIUM_ARGS, IDLE, PAGES, running_dashboard  # noqa: E402

COLD_TARGET_S = 10.0
WARM_TARGET_S = 3.0
POLL_S = 0.05  # how often the page state is sampled (seconds)
TIMEOUT_S = 120.0
CHART = '[data-testid="stElementContainer"]:not([data-stale="true"]) [data-testid="stPlotlyChart"] .main-svg'
BUSY = '[data-testid="stSpinner"], [data-testid="stProgress"]'
RUN_COUNTER = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    window.__benchRuns = 0;
    new MutationObserver(() => {
        if (app.getAttribute('data-test-script-state') === 'running') window.__benchRuns += 1;
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""
"""Counts the script runs that start after it is installed (to tell a new page from the old one)."""


@dataclass
class Visit:
    """One page visit's times (seconds from navigation; ``None`` for a page without charts)."""

    page: str
    mode: str
    first_chart_s: float | None
    idle_s: float


HOME_TEXT = ('[data-testid="stMain"] h1', '[data-testid="stButton"] button:has-text("Show me the stall")')
"""What must show for Home's text to count as drawn: its title and the stall button."""
TARGETS = {"home text and stall button": 5.0, "home whole": 10.0, "agent first click": 5.0}
"""The demo's targets (seconds): the two of Home from a cold server start, the Agent page's first
visit; every other page's first visit by click has :data:`WARM_TARGET_S`."""


def _home_text_shown(page) -> bool:
    return all(page.locator(sel).first.is_visible() if page.locator(sel).count() else False
               for sel in HOME_TEXT)


def targets(settle_s: float) -> dict[str, float]:
    """The demo's targets on a fresh server: seconds to Home's text and stall button, to the whole
    Home, then to each other page after its first click in the same tab (``<page> first click``)."""
    from playwright.sync_api import sync_playwright

    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, running_dashboard(Path(tmp) / "server.log") as url, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        tab = context.new_page()
        t0 = time.perf_counter()
        tab.goto(f"{url}/", wait_until="commit")
        while not _home_text_shown(tab):
            if time.perf_counter() - t0 > TIMEOUT_S:
                raise TimeoutError(f"Home's text not shown after {TIMEOUT_S:.0f} s")
            time.sleep(POLL_S)
        out["home text and stall button"] = time.perf_counter() - t0
        out["home whole"] = _measure(tab, "home", "cold", t0, settle_s).idle_s
        for name in (n for n in PAGES if n != "home"):
            out[f"{name} first click"] = _click_to(tab, url, name, settle_s).idle_s
        browser.close()
    return out


REPLAY_TARGET_S = 3.0
"""Replay's open time on a preset, the largest ones included (seconds)."""


def replay_open(preset: str, settle_s: float, repeats: int = 2) -> tuple[list[float], float | None]:
    """Seconds from the click on Replay's sidebar link to the page idle with its charts drawn, on
    ``preset`` (chosen on Cluster & workload first), on a fresh server: the first visit, then
    ``repeats - 1`` more after a visit to Home (the run and figures then come from the cache); and
    after the first visit, the seconds a Gantt chart drawn on request takes
    (:func:`_gantt_on_request`)."""
    from playwright.sync_api import sync_playwright

    out = []
    with tempfile.TemporaryDirectory() as tmp, running_dashboard(Path(tmp) / "server.log") as url, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        tab = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
        tab.goto(f"{url}/{PAGES['cluster']}")
        _measure(tab, "cluster", "setup", time.perf_counter(), settle_s)
        box = tab.get_by_role("combobox", name="Start from a preset", exact=True)
        box.click()
        box.fill(preset)
        tab.evaluate(RUN_COUNTER)
        tab.get_by_role("option", name=preset, exact=True).click()
        _measure(tab, "cluster", "setup", time.perf_counter(), settle_s, since_click=True)
        for i in range(repeats):
            if i:
                _click_to(tab, url, "home", settle_s)
            out.append(_click_to(tab, url, "replay", settle_s).idle_s)
            if i == 0:
                gantt = _gantt_on_request(tab, settle_s)
        browser.close()
    return out, gantt


GANTT_TOGGLE = "Draw every job on its GPU"
"""The start of the label of Replay's toggle that draws a large run's Gantt chart."""


def _gantt_on_request(page, settle_s: float) -> float | None:
    """Seconds from the click on Replay's Gantt toggle to its chart drawn and the page idle (``None``
    when the run's Gantt is drawn with the page, without a toggle)."""
    toggle = page.get_by_test_id("stMain").get_by_text(GANTT_TOGGLE, exact=False)
    if not toggle.count():
        return None
    charts = page.locator(CHART).count()
    page.evaluate(RUN_COUNTER)
    t0 = time.perf_counter()
    toggle.first.click()
    while page.locator(CHART).count() <= charts:
        if time.perf_counter() - t0 > TIMEOUT_S:
            raise TimeoutError(f"the Gantt chart not drawn after {TIMEOUT_S:.0f} s")
        time.sleep(POLL_S)
    return _measure(page, "replay", "gantt", t0, settle_s, since_click=True).idle_s


def targets_table(measured: dict[str, float]) -> str:
    """Each target with its time and its limit (``!``: missed)."""
    lines = [f"{'target':<28} {'seconds':>8} {'limit':>6}"]
    for name, seconds in measured.items():
        limit = TARGETS.get(name, WARM_TARGET_S)
        lines.append(f"{name:<28} {seconds:8.2f} {limit:6.1f}{'' if seconds < limit else ' !'}")
    return "\n".join(lines)


FLOOR_APP = """import plotly.graph_objects as go
import streamlit as st

st.title("Reference page")
st.plotly_chart(go.Figure(go.Bar(x=[1, 2, 3], y=[3, 1, 2])))
"""
"""The reference page of the floor measurement."""
FLOOR = "floor"


def _state(page, name: str, since_click: bool) -> tuple[bool, bool]:
    """Whether a chart is drawn, and whether the page is idle, right now."""
    started = not since_click or page.evaluate("() => window.__benchRuns > 0")
    needs_chart = name in CHART_PAGES or name == FLOOR
    charted = started and (not needs_chart or page.locator(CHART).count() > 0)
    idle = (started and charted and page.locator(IDLE).count() > 0
            and page.locator(BUSY).count() == 0 and page.locator('[data-testid="stMain"] h1').count() > 0)
    return charted, idle


def _measure(page, name: str, mode: str, t0: float, settle_s: float, since_click: bool = False) -> Visit:
    """Sample the page until it has been idle for ``settle_s`` seconds."""
    first_chart = idle_since = None
    while True:
        now = time.perf_counter()
        if now - t0 > TIMEOUT_S:
            raise TimeoutError(f"{name} ({mode}) not idle after {TIMEOUT_S:.0f} s")
        charted, idle = _state(page, name, since_click)
        if charted and first_chart is None and (name in CHART_PAGES or name == FLOOR):
            first_chart = now - t0
        idle_since = (idle_since or now) if idle else None
        if idle_since is not None and now - idle_since >= settle_s:
            return Visit(name, mode, first_chart, idle_since - t0)
        time.sleep(POLL_S)


def _open_tab(context, url: str, name: str, mode: str, settle_s: float):
    """Open ``name`` in a new tab; returns the tab and its visit."""
    page = context.new_page()
    t0 = time.perf_counter()
    page.goto(f"{url}/{PAGES.get(name, '')}", wait_until="commit")
    return page, _measure(page, name, mode, t0, settle_s)


def _click_to(page, url: str, name: str, settle_s: float) -> Visit:
    """Switch the tab to ``name`` with its sidebar link."""
    page.evaluate(RUN_COUNTER)
    href = f"{url}/{PAGES[name]}"
    link = page.locator(f'[data-testid="stSidebarNav"] a[href="{href}"], '
                        f'[data-testid="stSidebarNav"] a[href="{href.rstrip("/")}"]').first
    t0 = time.perf_counter()
    link.click()
    return _measure(page, name, "warm nav", t0, settle_s, since_click=True)


def run(settle_s: float) -> list[Visit]:
    """Every page cold, warm by sidebar navigation, and warm in a new tab, on a fresh server."""
    from playwright.sync_api import sync_playwright

    visits: list[Visit] = []
    with tempfile.TemporaryDirectory() as tmp, running_dashboard(Path(tmp) / "server.log") as url, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1600, "height": 1000})
        for name in PAGES:
            tab, visit = _open_tab(context, url, name, "cold", settle_s)
            visits.append(visit)
            tab.close()
        tab, _ = _open_tab(context, url, "sweeps", "setup", settle_s)
        for name in PAGES:
            visits.append(_click_to(tab, url, name, settle_s))
        tab.close()
        for name in PAGES:
            tab, visit = _open_tab(context, url, name, "warm tab", settle_s)
            visits.append(visit)
            tab.close()
        browser.close()
    return visits


def floor(settle_s: float, tabs: int = 3) -> list[Visit]:
    """The reference page (:data:`FLOOR_APP`) on its own fresh server: once cold, then in new tabs."""
    from playwright.sync_api import sync_playwright

    visits: list[Visit] = []
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "reference.py"
        app.write_text(FLOOR_APP, encoding="utf-8")
        with running_dashboard(Path(tmp) / "server.log", app=str(app)) as url, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1600, "height": 1000})
            for i in range(tabs + 1):
                tab, visit = _open_tab(context, url, FLOOR, "cold" if i == 0 else "warm tab", settle_s)
                visits.append(visit)
                tab.close()
            browser.close()
    return visits


def _fmt(seconds: float | None, target: float) -> str:
    if seconds is None:
        return "—"
    return f"{seconds:5.2f}{'' if seconds < target else ' !'}"


def table(visits: list[Visit]) -> str:
    """A table of first-chart and idle times per page and mode (``!``: misses its target)."""
    modes = list(dict.fromkeys(v.mode for v in visits))
    by = {(v.page, v.mode): v for v in visits}
    head = "page     " + "".join(f"| {m + ' chart':>15} {m + ' idle':>15} " for m in modes)
    lines = [head, "-" * len(head)]
    for name in PAGES:
        row = f"{name:<9}"
        for m in modes:
            v = by.get((name, m))
            target = COLD_TARGET_S if m == "cold" else WARM_TARGET_S
            row += (f"| {_fmt(v.first_chart_s, target):>15} {_fmt(v.idle_s, target):>15} "
                    if v else f"| {'':>15} {'':>15} ")
        lines.append(row)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="also write the visits to this JSON file")
    parser.add_argument("--settle", type=float, default=1.2,
                        help="seconds the page must stay idle (longer than the pages' 1 s polling)")
    parser.add_argument("--targets-only", action="store_true",
                        help="measure the demo's targets only (one fresh server)")
    parser.add_argument("--replay-preset", metavar="NAME",
                        help="only measure Replay's open time on this preset (e.g. gavel-108gpu-heavy)")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is missing: install Debian's chromium package")
    if args.replay_preset:
        load_before = os.getloadavg()[0]
        times, gantt = replay_open(args.replay_preset, args.settle)
        asked = "" if gantt is None else f"; its Gantt chart, drawn when asked, {gantt:.2f} s more"
        print(f"Replay on {args.replay_preset}: first open {times[0]:.2f} s, again "
              + ", ".join(f"{t:.2f}" for t in times[1:]) + f" s (target {REPLAY_TARGET_S:.0f} s){asked}; "
              f"machine load (1-min average) {load_before:.1f} before, {os.getloadavg()[0]:.1f} after "
              f"on {os.cpu_count()} cores")
        return
    measured = targets(args.settle)
    print(targets_table(measured), flush=True)
    if args.targets_only:
        if args.json:
            args.json.write_text(json.dumps({"targets": measured}, indent=2) + "\n", encoding="utf-8")
        return
    visits = run(args.settle)
    print(table(visits))
    print(f"Targets: cold < {COLD_TARGET_S:.0f} s, warm < {WARM_TARGET_S:.0f} s ('!' marks a miss).")
    reference = floor(args.settle)
    tabs = [v.first_chart_s for v in reference if v.mode == "warm tab"]
    print(f"Floor, a page with one small chart and nothing else: cold {reference[0].first_chart_s:.2f} s, "
          f"new tab {min(tabs):.2f}-{max(tabs):.2f} s.")
    visits += reference
    if args.json:
        args.json.write_text(json.dumps({"targets": measured, "visits": [asdict(v) for v in visits]},
                                        indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
