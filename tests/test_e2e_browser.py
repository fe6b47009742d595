"""End to end, in a real browser: start the dashboard, open every page in headless Chromium
(Debian's ``chromium`` package, driven by the ``playwright`` Python package), check that no
exception shows and that the Plotly charts render, follow "Show me the stall", and save
screenshots to ``screenshots/``.

Outside CI the test skips when ``/usr/bin/chromium`` is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from browser_support import (
    CHART_PAGES,
    CHROMIUM,
    CHROMIUM_ARGS,
    IDLE,
    PAGES,
    ROOT,
    running_dashboard,
)

pytestmark = pytest.mark.e2e

SHOTS = ROOT / "screenshots"
TIMEOUT_MS = 90_000


def _require_browser() -> None:
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A running ``streamlit run app/Home.py`` on a free port; stopped after the module."""
    _require_browser()
    with running_dashboard(tmp_path_factory.mktemp("streamlit") / "server.log") as url:
        yield url  # a server that does not start raises DashboardError with its log's tail


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


def test_home_cards_show_whole_values_at_laptop_width(browser_page, app_url: str) -> None:
    """At 1280 px every headline number fits its card (no value cut off with an ellipsis), and the
    toolbar offers no Deploy button (``client.toolbarMode = "viewer"``)."""
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 1400})
    try:
        page.goto(app_url)
        _wait_idle(page)
        values = page.get_by_test_id("stMetricValue")
        values.first.wait_for()
        assert values.count() >= 8  # First-Fit and Least-Loaded, four numbers each
        clipped = values.evaluate_all(
            "els => els.filter(e => [e, ...e.querySelectorAll('*')]"
            ".some(x => x.scrollWidth > x.clientWidth + 1)).map(e => e.innerText)")
        assert clipped == [], f"cut-off values: {clipped}"
        assert page.get_by_test_id("stAppDeployButton").count() == 0
    finally:
        page.set_viewport_size({"width": 1600, "height": 2000})
