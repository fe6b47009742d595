"""End to end, in a real browser: start the dashboard, open every page in headless Chromium
(Debian's ``chromium`` package, driven by the ``playwright`` Python package), and check what a
visitor meets:

- every page has its own tab title, shows no exception and draws its Plotly charts;
- the browser logs no console error and no uncaught exception, and asks no host but the app's
  for anything (no fonts, icons or scripts from the internet);
- at 1440×900 and 1280×720 no page is wider than the window (screenshots of both sizes go to
  ``screenshots/``; Home at 1440×900 is also the README's picture, ``docs/images/dashboard.png``);
- at both sizes no label is cut off (its scroll width against its client width), no table is
  wider than its box, no two policies of one chart share a colour, no number reads ``−0``, and
  nothing stands above a page's title;
- Replay's Play, Pause and slider log no error, the slider's handle sits under the time marker it
  sets, and the GPU labels stay clear of the chart title below them;
- "Show me the stall" leads to the stall.

Outside CI the test skips when ``/usr/bin/chromium`` is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlparse

import pytest
from browser_support import (
    CHART_PAGES,
    CHROMIUM,
    CHROMIUM_ARGS,
    IDLE,
    PAGE_TITLES,
    PAGES,
    ROOT,
    SCREEN_SIZES,
    require_browser,
    running_dashboard,
)

pytestmark = pytest.mark.e2e

SHOTS = ROOT / "screenshots"
README_SHOT = ROOT / "docs" / "images" / "dashboard.png"
TIMEOUT_MS = 90_000
SLIDER_TOLERANCE_PX = 16.0
"""How far the slider's handle may sit from the time marker (pixels): Plotly insets the first and
last step by 10 px from the ends of the rail."""
BASE_PATH_PROBES = ("/_stcore/health", "/_stcore/host-config")
"""What Streamlit's client asks first under a page's own path when a page's URL is opened
directly; the 404 tells it that the app is served from the root. Only the deep-link test opens
a page's URL; the tour moves through the navigation, as a visitor does."""




@dataclass
class BrowserLog:
    """What the browser reported: console errors, uncaught exceptions and requests to other hosts."""

    host: str
    errors: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)

    def console(self, message) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text} ({message.location.get('url', '')})")

    def page_error(self, error) -> None:
        self.errors.append(f"uncaught: {error}")

    def request(self, request) -> None:
        if urlparse(request.url).netloc not in ("", self.host) and not request.url.startswith("data:"):
            self.outside.append(request.url)

    def take(self) -> tuple[list[str], list[str]]:
        """The errors and outside requests since the last call (and forget them)."""
        out = (list(self.errors), list(self.outside))
        self.errors.clear()
        self.outside.clear()
        return out


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A running ``streamlit run app/Home.py`` on a free port; stopped after the module."""
    require_browser()
    with running_dashboard(tmp_path_factory.mktemp("streamlit") / "server.log") as url:
        yield url  # a server that does not start raises DashboardError with its log's tail


@pytest.fixture(scope="module")
def browser(app_url: str):
    """One Chromium page for the whole module, and the log of what it reported."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport={"width": 1600, "height": 2000})
        page.set_default_timeout(TIMEOUT_MS)
        log = BrowserLog(host=urlparse(app_url).netloc)
        page.on("console", log.console)
        page.on("pageerror", log.page_error)
        page.on("request", log.request)
        yield page, log
        chromium.close()


@pytest.fixture
def browser_page(browser):
    """The module's page; the test fails if the browser logged an error or asked another host."""
    page, log = browser
    log.take()
    yield page
    errors, outside = log.take()
    assert outside == [], f"requests to hosts other than the app's: {outside}"
    assert errors == [], f"browser errors: {errors}"


def _wait_idle(page) -> None:
    """Wait until the page's title is drawn and the script has finished running."""
    page.locator('[data-testid="stMain"] h1').first.wait_for()
    page.wait_for_selector(IDLE)
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE)


def _wait_charts(page, name: str) -> None:
    if name in CHART_PAGES:
        charts = page.get_by_test_id("stPlotlyChart")
        charts.first.locator(".main-svg").first.wait_for()
        _wait_idle(page)
        assert charts.count() >= 1, f"no Plotly chart on {name}"


def _open(page, app_url: str, name: str) -> None:
    """Open a page as a visitor does: Home by its address, the others through the navigation."""
    if name == "home":
        page.goto(app_url)
    else:
        if not page.url.startswith(app_url):
            page.goto(app_url)
            _wait_idle(page)
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=PAGE_TITLES[name],
                                                          exact=True).click()
        # the page writes its state into the address (?scenario=…): the path alone is waited for
        page.wait_for_url(re.compile(rf"{re.escape(app_url)}/{PAGES[name]}(\?.*)?$"))
    _wait_idle(page)
    _wait_charts(page, name)


def _check_fits(page, name: str, width: int) -> None:
    """No exception shown, and nothing wider than the window: tables scroll inside themselves."""
    errors = page.get_by_test_id("stException")
    assert errors.count() == 0, f"exception shown on {name}: {errors.first.inner_text()[:500]}"
    widths = page.evaluate("""() => [document.scrollingElement.scrollWidth,
        document.querySelector('[data-testid="stMain"]').scrollWidth, window.innerWidth]""")
    assert widths[0] <= widths[2] and widths[1] <= widths[2], (name, width, widths)


LABELS = ('[data-testid="stMetricLabel"], [data-testid="stWidgetLabel"], '
          '[data-testid="stSelectbox"] [data-baseweb="select"] > div > div:first-child, '
          '[data-testid="stTab"], [data-testid="stExpander"] summary, '
          '[data-testid="stMain"] h1, [data-testid="stMain"] h2, [data-testid="stMain"] h3')
"""Every label a visitor reads in a box of its own: card titles, widget labels, a select box's
shown value, tab and expander titles, headings."""

WIDE_TABLES_JS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
  .map((t) => [t, t.querySelector('.dvn-scroller')]).filter(([, s]) => s)
  .filter(([, s]) => s.scrollWidth > s.clientWidth + 1)
  .map(([t, s]) => `${s.scrollWidth} > ${s.clientWidth}`)"""
"""The tables whose columns run past their box (a horizontal scroll bar): their widths."""

SAME_COLOUR_JS = """(labels) => {
  const out = [];
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const colour = new Map();
    for (const t of gd.data || []) {
      if (!labels.includes(t.name)) continue;
      const c = (t.line && t.line.color) || (t.marker && typeof t.marker.color === 'string'
        && t.marker.color);
      if (!c) continue;
      if (!colour.has(t.name)) colour.set(t.name, c);
    }
    const seen = new Map();
    for (const [name, c] of colour) {
      if (seen.has(c)) out.push(`${seen.get(c)} and ${name}: ${c}`);
      else seen.set(c, name);
    }
  }
  return out;
}"""
"""Pairs of policies drawn in one chart with the same colour."""

NEGATIVE_ZERO = re.compile(r"(?:^|[\s(\[:])[−-]0(?:[.,]0+)?(?![\d.,])", re.MULTILINE)
"""A zero with a minus sign (``−0``, ``-0.0``): a value that rounds to zero reads ``0``."""

FIRST_TEXT_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const first = [...main.querySelectorAll('[data-testid="stElementContainer"]')]
    .find((e) => e.innerText.trim() !== '');
  return first ? [first.querySelector('h1') !== null, first.innerText.slice(0, 120)] : [false, ''];
}"""
"""Whether the first element with text on the page is its title (nothing stray above it)."""


def _policy_labels() -> list[str]:
    from gpusched.dashboard.headline import headline_heuristics
    from gpusched.dashboard.policies import dashboard_policies
    from gpusched.policies import policy_label, policy_names, queue_policy_names

    names = {*policy_names(), *queue_policy_names(), *headline_heuristics(), *dashboard_policies()}
    return sorted({policy_label(n) for n in names})


def _check_reads(page, name: str) -> None:
    """The classes of the stakeholder tour's defects: no label cut off, no table wider than its
    box, no two policies of one chart in one colour, no ``−0``, no text above the title."""
    clipped = page.locator(LABELS).evaluate_all(CLIPPED_JS)
    assert clipped == [], f"text cut off on {name}: {clipped}"
    wide = page.evaluate(WIDE_TABLES_JS)
    assert wide == [], f"tables wider than their box on {name}: {wide}"
    same = page.evaluate(SAME_COLOUR_JS, _policy_labels())
    assert same == [], f"policies sharing a colour on {name}: {same}"
    text = page.locator('[data-testid="stMain"]').inner_text()
    zeros = [m.group(0).strip() for m in NEGATIVE_ZERO.finditer(text)]
    assert zeros == [], f"a minus zero on {name}: {zeros}"
    is_title, first = page.evaluate(FIRST_TEXT_JS)
    assert is_title, f"text above the title of {name}: {first!r}"


def _deep_link_errors(log: BrowserLog, page_path: str) -> list[str]:
    """The errors logged, without the client's base-path probes under ``page_path``."""
    errors, outside = log.take()
    assert outside == [], outside
    return [e for e in errors
            if not any(f"/{page_path}{probe}" in e for probe in BASE_PATH_PROBES)]


def test_deep_link_on_a_fresh_server_keeps_the_navigation(browser, app_url: str) -> None:
    """The first visit to a fresh server is a page's URL: it must still get the app's navigation
    and wide layout (this test runs first in the module, so the server is fresh)."""
    page, log = browser
    page.goto(f"{app_url}/stalls")
    _wait_idle(page)
    nav = page.get_by_test_id("stSidebarNav").inner_text()
    assert "Least-Loaded stalls" in nav and "Cluster & workload" in nav, nav
    assert page.title() == "Least-Loaded stalls · gpusched"
    assert _deep_link_errors(log, "stalls") == []


CLIPPED_JS = ("els => els.filter(e => [e, ...e.querySelectorAll('*')]"
              ".some(x => x.scrollWidth > x.clientWidth + 1)).map(e => e.innerText)")
"""The texts among the matched elements that are cut off (wider than their box, as an ellipsis)."""


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_renders_with_its_title_at_both_sizes(browser_page, app_url: str,
                                                         name: str) -> None:
    page = browser_page
    SHOTS.mkdir(exist_ok=True)
    try:
        for width, height in SCREEN_SIZES:
            page.set_viewport_size({"width": width, "height": height})
            _open(page, app_url, name)
            assert page.title() == f"{PAGE_TITLES[name]} · gpusched"
            _check_fits(page, name, width)
            _check_reads(page, name)
            shot = SHOTS / f"{name}-{width}x{height}.png"
            page.screenshot(path=str(shot))
            assert shot.stat().st_size > 10_000, f"{shot.name} looks empty"
            if name == "home" and (width, height) == SCREEN_SIZES[0]:
                README_SHOT.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(README_SHOT))
    finally:
        page.set_viewport_size({"width": 1600, "height": 2000})


_MARKER_AND_HANDLE = """(el) => {
  const gd = el.querySelector('.js-plotly-plot');
  const axis = gd._fullLayout.xaxis3;
  const now = gd.data.find((t) => t.name === 'now');
  const grip = gd.querySelector('.slider-grip-rect').getBoundingClientRect();
  const box = gd.getBoundingClientRect();
  return {marker: axis._offset + axis.l2p(now.x[0]), handle: grip.left + grip.width / 2 - box.left};
}"""

_LABELS_AND_TITLE = """(el) => {
  const bottoms = [...el.querySelectorAll('.subplot.xy .xtick text, .subplot.x2y2 .xtick text')]
    .map((t) => t.getBoundingClientRect().bottom);
  const title = [...el.querySelectorAll('.infolayer .annotation')]
    .find((a) => a.textContent.startsWith('Queue length'));
  return {labels: Math.max(...bottoms), title: title.getBoundingClientRect().top,
          count: bottoms.length};
}"""


def _agree(chart) -> None:
    where = chart.evaluate(_MARKER_AND_HANDLE)
    assert abs(where["marker"] - where["handle"]) <= SLIDER_TOLERANCE_PX, where


def test_replay_controls_work_without_errors(browser_page, app_url: str) -> None:
    """Play, Pause, a click on the slider while playing and a drag: no error, and the handle
    stays under the time marker; the upright GPU labels end above the queue chart's title."""
    page = browser_page
    _open(page, app_url, "replay")
    chart = page.locator(".st-key-replay_fig")
    chart.locator(".main-svg").first.wait_for()
    chart.scroll_into_view_if_needed()
    geometry = chart.evaluate(_LABELS_AND_TITLE)
    assert geometry["count"] > 0 and geometry["labels"] < geometry["title"], geometry
    _agree(chart)
    chart.get_by_text("Play").first.click()
    page.wait_for_timeout(800)
    chart.get_by_text("Pause").first.click()
    page.wait_for_timeout(300)
    _agree(chart)
    rail = chart.locator(".slider-rail-touch-rect").first.bounding_box()
    chart.get_by_text("Play").first.click()
    page.wait_for_timeout(500)
    page.mouse.click(rail["x"] + rail["width"] * 0.7, rail["y"] + rail["height"] / 2)
    page.wait_for_timeout(800)
    _agree(chart)
    grip = chart.locator(".slider-grip-rect").first.bounding_box()
    page.mouse.move(grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2)
    page.mouse.down()
    page.mouse.move(grip["x"] - rail["width"] * 0.3, grip["y"] + grip["height"] / 2, steps=5)
    page.mouse.up()
    page.wait_for_timeout(800)
    _agree(chart)


def test_show_me_the_stall(browser_page, app_url: str) -> None:
    page = browser_page
    _open(page, app_url, "home")
    page.get_by_role("button", name="Show me the stall").click()
    page.wait_for_url(re.compile(r".*/stalls(\?.*)?$"))
    _wait_idle(page)
    chart = page.locator(".st-key-stall-chart").get_by_test_id("stPlotlyChart")
    chart.locator(".main-svg").first.wait_for()
    shaded = chart.locator(".shapelayer path")
    assert shaded.count() > 0, "no shaded stall interval drawn"
    assert page.get_by_test_id("stException").count() == 0
    assert "phase1-8gpu" in page.locator(".st-key-stall-explanation").inner_text()
    page.screenshot(path=str(SHOTS / "stall-demo.png"))


@pytest.mark.parametrize("width", [1280, 1440])
def test_home_cards_show_whole_values_and_titles(browser_page, app_url: str, width: int) -> None:
    """At laptop and desktop widths every headline number and every card title fits its card (none
    cut off with an ellipsis), and the toolbar offers no Deploy button
    (``client.toolbarMode = "viewer"``)."""
    page = browser_page
    page.set_viewport_size({"width": width, "height": 1400})
    try:
        _open(page, app_url, "home")
        values = page.get_by_test_id("stMetricValue")
        values.first.wait_for()
        assert values.count() >= 8  # First-Fit and Least-Loaded, four numbers each
        assert values.evaluate_all(CLIPPED_JS) == [], "cut-off values"
        labels = page.get_by_test_id("stMetricLabel")
        assert labels.count() == values.count()
        assert labels.evaluate_all(CLIPPED_JS) == [], "cut-off card titles"
        assert page.get_by_test_id("stAppDeployButton").count() == 0
    finally:
        page.set_viewport_size({"width": 1600, "height": 2000})


GAVEL_PRESET = "gavel-108gpu-heavy"
"""The Gavel preset the tour runs the scenario pages on: 108 GPUs of three models, 2,000 jobs."""


GANTT_LABELS_OUTSIDE_JS = """() => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')]
    .find((g) => (g.querySelector('.gtitle') || {}).textContent?.startsWith('Jobs on each GPU'));
  if (!gd) return ['no Gantt chart'];
  const chart = gd.getBoundingClientRect();
  const plot = gd.querySelector('.nsewdrag').getBoundingClientRect();
  return [...gd.querySelectorAll('.ytick text')].map((t) => [t.textContent, t.getBoundingClientRect()])
    .filter(([, r]) => r.left < chart.left - 0.5 || r.right > plot.left + 0.5)
    .map(([text, r]) => `${text}: ${r.left.toFixed(0)}-${r.right.toFixed(0)} `
      + `(chart from ${chart.left.toFixed(0)}, bars from ${plot.left.toFixed(0)})`);
}"""
"""The Gantt chart's GPU labels that start left of the chart (cut off) or run into its bars."""


def _choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the select box labelled ``label`` (typing filters the list)."""
    box = page.get_by_role("combobox", name=label, exact=True)
    box.click()
    box.fill(option)
    page.get_by_role("option", name=option, exact=True).click()
    _wait_idle(page)


def _set_number(page, label: str, value: int) -> None:
    field = page.get_by_role("spinbutton", name=label, exact=True)
    try:
        field.wait_for(timeout=TIMEOUT_MS)
    except Exception as exc:  # say what the page shows instead
        text = page.locator('[data-testid="stMain"]').inner_text()[:1500]
        raise AssertionError(f"no number input {label!r}; the page shows: {text}") from exc
    field.fill(str(value))
    field.press("Enter")
    _wait_idle(page)


def test_the_gavel_preset_reads_well_on_every_page_that_takes_a_scenario(browser_page,
                                                                          app_url: str) -> None:
    """Cluster & workload loads ``gavel-108gpu-heavy``; Replay, Compare (run live, one seed,
    without the agent's slow runs) and the stall explorer (on the current scenario) then run on
    it and pass the same checks as the tour, at 1440×900."""
    from gpusched.agent import AGENT_POLICY
    from gpusched.policies import policy_label

    page = browser_page
    page.set_viewport_size({"width": SCREEN_SIZES[0][0], "height": SCREEN_SIZES[0][1]})
    try:
        _open(page, app_url, "cluster")
        _choose(page, "Start from a preset", GAVEL_PRESET)
        _wait_charts(page, "cluster")
        _check_fits(page, "cluster", 1440)
        _check_reads(page, f"cluster on {GAVEL_PRESET}")

        _open(page, app_url, "replay")
        assert GAVEL_PRESET in page.locator('[data-testid="stMain"]').inner_text()
        page.get_by_test_id("stMain").get_by_text("Draw every job on its GPU", exact=False).click()
        page.get_by_test_id("stPlotlyChart").nth(1).locator(".main-svg").first.wait_for()
        _wait_idle(page)
        outside = page.evaluate(GANTT_LABELS_OUTSIDE_JS)
        assert outside == [], f"GPU labels of the Gantt chart cut off or over its bars: {outside[:5]}"
        _check_fits(page, "replay", 1440)
        _check_reads(page, f"replay on {GAVEL_PRESET}")

        _open(page, app_url, "compare")
        page.get_by_test_id("stRadio").get_by_text(SOURCES_LIVE, exact=True).click()
        _wait_idle(page)
        _set_number(page, "Seeds", 1)
        remove_agent = page.get_by_role("button", name=f"Remove {policy_label(AGENT_POLICY)}", exact=True)
        if remove_agent.count():  # its runs take seconds each on 2,000 jobs
            remove_agent.first.click()
            _wait_idle(page)
        _wait_charts(page, "compare")
        assert GAVEL_PRESET in page.locator('[data-testid="stMain"]').inner_text()
        _check_fits(page, "compare", 1440)
        _check_reads(page, f"compare on {GAVEL_PRESET}")

        _open(page, app_url, "stalls")
        _choose(page, "Scenario", "current scenario")
        _wait_charts(page, "stalls")
        assert GAVEL_PRESET in page.locator(".st-key-stall-explanation").inner_text()
        _check_fits(page, "stalls", 1440)
        _check_reads(page, f"stalls on {GAVEL_PRESET}")
    finally:
        page.set_viewport_size({"width": 1600, "height": 2000})


SOURCES_LIVE = "Run live on the current scenario"
"""Compare's choice of live runs (its radio's label)."""
