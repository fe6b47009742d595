"""End to end, in a real browser: start the dashboard, open every page in headless Chromium
(Debian's ``chromium`` package, driven by the ``playwright`` Python package), check that no
exception shows and that the Plotly charts render, follow "Show me the stall", and save
screenshots to ``screenshots/``.

Outside CI the test skips when ``/usr/bin/chromium`` is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / "screenshots"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PAGES = {"home": "", "cluster": "cluster", "agent": "agent", "replay": "replay",
         "compare": "compare", "stalls": "stalls", "traces": "traces", "sweeps": "sweeps"}
"""Screenshot name → URL path of every page."""
CHART_PAGES = {"home", "cluster", "replay", "compare", "stalls", "traces", "sweeps"}
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
TIMEOUT_MS = 90_000


def _require_browser() -> None:
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A running ``streamlit run app/Home.py`` on a free port; stopped after the module."""
    _require_browser()
    port = _free_port()
    log_path = tmp_path_factory.mktemp("streamlit") / "server.log"
    log = log_path.open("w", encoding="utf-8")  # a file, not a pipe nobody drains
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app/Home.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                out = log_path.read_text(encoding="utf-8", errors="replace")
                pytest.fail(f"streamlit did not become healthy:\n{out[-2000:]}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def browser_page(app_url: str):
    """One Chromium page for the whole module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1600, "height": 2000})
        page.set_default_timeout(TIMEOUT_MS)
        yield page
        browser.close()


def _wait_idle(page) -> None:
    """Wait until the page's title is drawn and the script has finished running."""
    page.locator('[data-testid="stMain"] h1').first.wait_for()
    page.wait_for_selector(IDLE)
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE)


def _check_page(page, name: str) -> None:
    if name in CHART_PAGES:
        charts = page.get_by_test_id("stPlotlyChart")
        charts.first.locator(".main-svg").first.wait_for()
        _wait_idle(page)
        assert charts.count() >= 1, f"no Plotly chart on {name}"
    errors = page.get_by_test_id("stException")
    assert errors.count() == 0, f"exception shown on {name}: {errors.first.inner_text()[:500]}"
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_deep_link_on_a_fresh_server_keeps_the_navigation(browser_page, app_url: str) -> None:
    """The first visit to a fresh server is a page's URL: it must still get the app's navigation
    and wide layout (this test runs first in the module, so the server is fresh)."""
    browser_page.goto(f"{app_url}/stalls")
    _wait_idle(browser_page)
    nav = browser_page.get_by_test_id("stSidebarNav").inner_text()
    assert "Least-Loaded stalls" in nav and "Cluster & workload" in nav, nav


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_renders(browser_page, app_url: str, name: str) -> None:
    browser_page.goto(f"{app_url}/{PAGES[name]}")
    _wait_idle(browser_page)
    _check_page(browser_page, name)


def test_show_me_the_stall(browser_page, app_url: str) -> None:
    page = browser_page
    page.goto(app_url)
    _wait_idle(page)
    page.get_by_role("button", name="Show me the stall").click()
    page.wait_for_url("**/stalls")
    _wait_idle(page)
    chart = page.locator(".st-key-stall-chart").get_by_test_id("stPlotlyChart")
    chart.locator(".main-svg").first.wait_for()
    shaded = chart.locator(".shapelayer path")
    assert shaded.count() > 0, "no shaded stall interval drawn"
    assert page.get_by_test_id("stException").count() == 0
    assert "phase1-8gpu" in page.locator(".st-key-stall-explanation").inner_text()
    page.screenshot(path=str(SHOTS / "stall-demo.png"), full_page=True)
