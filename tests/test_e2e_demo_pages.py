"""End to end, in headless Chromium (Debian's ``chromium``, driven by ``playwright``), what the
stakeholder tour found on Compare, Sweeps, What the scheduler knows, Cluster & workload and across
pages:

- no chart's title or subtitle runs over a panel's title (bounding boxes of the drawn text);
- a page opened from an address with query parameters shows that state, and writes its state
  back into the address;
- in the dark theme no chart is a white block (its paper and its text follow the theme);
- Compare's paired table lists the panels its forest plot draws; Sweeps opens on a cluster where
  the policies part, keeps each folder's filters, and draws no error bar below 0;
- Real traces shows gpusched against the real cluster (Shockwave's 32 V100s): the grouped bars,
  the per-job scatter and the table, in the dark theme.

Outside CI the test skips when ``/usr/bin/chromium`` is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlparse

import pytest
from browser_support import CHROMIUM, CHROMIUM_ARGS, IDLE, require_browser, running_dashboard

pytestmark = pytest.mark.e2e

TIMEOUT_MS = 120_000
VIEWPORT = {"width": 1440, "height": 900}




@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A running ``streamlit run app/Home.py`` on a free port; stopped after the module."""
    require_browser()
    with running_dashboard(tmp_path_factory.mktemp("streamlit") / "server.log") as url:
        yield url


@pytest.fixture(scope="module")
def chromium(app_url: str):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def _page(chromium, scheme: str = "light"):
    page = chromium.new_page(viewport=VIEWPORT, color_scheme=scheme)
    page.set_default_timeout(TIMEOUT_MS)
    return page


def _open(page, url: str, charts: bool = True) -> None:
    """Open ``url`` and wait until its script has finished and its charts are drawn."""
    page.goto(url)
    page.locator('[data-testid="stMain"] h1').first.wait_for()
    page.wait_for_selector(IDLE)
    if charts:
        page.get_by_test_id("stPlotlyChart").first.locator(".main-svg").first.wait_for()
    page.wait_for_timeout(500)
    page.wait_for_selector(IDLE)


def _shown(widget) -> str:
    """What a widget shows: its text and the values of its inputs (a select box shows its choice
    in an input)."""
    return widget.inner_text() + " " + " ".join(i.input_value() for i in widget.locator("input").all())


def _params(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


OVERLAPS_JS = """() => {
  const box = (e) => e.getBoundingClientRect();
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1
    && b.top < a.bottom - 1;
  const out = [];
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const heads = [...gd.querySelectorAll('.gtitle, .gtitle-subtitle')].filter((e) => e.textContent);
    const panels = [...gd.querySelectorAll('g.annotation text')];
    for (const h of heads) for (const p of panels) {
      if (hit(box(h), box(p))) out.push(`${h.textContent.slice(0, 50)} | ${p.textContent.slice(0, 40)}`);
    }
  }
  return out;
}"""
"""Pairs of a chart's title or subtitle and a panel title (annotation) whose drawn boxes overlap."""

CHART_COLOURS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map((gd) =>
  [gd._fullLayout.paper_bgcolor, gd._fullLayout.font.color])"""
"""Each chart's paper colour and text colour, as Plotly drew them."""


def _luminance(colour: str) -> float:
    """Relative brightness 0-1 of a ``#rrggbb`` or ``rgb(a)(…)`` colour (a transparent one: 0)."""
    colour = colour.strip()
    if colour.startswith("#"):
        digits = colour[1:]
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        r, g, b = (int(digits[i:i + 2], 16) for i in (0, 2, 4))
        alpha = 1.0
    else:
        parts = [float(p) for p in colour[colour.index("(") + 1:-1].split(",")]
        r, g, b = parts[:3]
        alpha = parts[3] if len(parts) > 3 else 1.0
    return alpha * (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


@pytest.mark.parametrize(("path", "scheme"), [
    ("compare", "light"), ("compare?view=live&seeds=3&policy=first_fit,least_loaded,best_fit", "light"),
    ("knowledge", "light"), ("compare", "dark"),
])
def test_no_chart_title_runs_over_a_panel_title(chromium, app_url: str, path: str, scheme: str) -> None:
    page = _page(chromium, scheme)
    try:
        _open(page, f"{app_url}/{path}")
        assert page.evaluate(OVERLAPS_JS) == []
    finally:
        page.close()


def test_a_page_opened_from_an_address_shows_its_state_and_writes_it_back(chromium, app_url: str) -> None:
    page = _page(chromium)
    try:
        _open(page, f"{app_url}/compare?scenario=phase1-4gpu&policy=first_fit,best_fit")
        assert "phase1-4gpu" in _shown(page.get_by_test_id("stSelectbox").first)
        chosen = page.get_by_test_id("stMultiSelect").first.inner_text()
        assert "First-Fit" in chosen and "Best-Fit" in chosen and "PPO" not in chosen
        assert _params(page) == {"view": "shipped", "scenario": "phase1-4gpu", "policy": "first_fit,best_fit"}

        _open(page, f"{app_url}/replay?scenario=phase1-4gpu&policy=fcfs%2Bbest_fit&seed=7")
        seed = page.get_by_test_id("stNumberInput").first.locator("input")
        assert seed.input_value() == "7"
        assert "Best-Fit" in _shown(page.get_by_test_id("stSelectbox").first)
        assert _params(page)["scenario"] == "phase1-4gpu"

        _open(page, f"{app_url}/knowledge?scenario=nowhere", charts=True)
        alert = page.get_by_test_id("stAlert").filter(has_text="address").first
        assert "scenario" in alert.inner_text() and "'nowhere'" in alert.inner_text()
        assert _params(page)["scenario"] == "gavel-108gpu-heavy"  # the default, written back
    finally:
        page.close()


@pytest.mark.parametrize("path", ["compare", "cluster?scenario=gavel-108gpu-heavy", "knowledge", "sweeps"])
def test_dark_mode_charts_are_not_white_blocks(chromium, app_url: str, path: str) -> None:
    page = _page(chromium, "dark")
    try:
        _open(page, f"{app_url}/{path}")
        colours = page.evaluate(CHART_COLOURS_JS)
        assert colours, path
        for paper, text in colours:
            assert _luminance(paper) < 0.3, (path, paper)
            assert _luminance(text) > 0.6, (path, text)
    finally:
        page.close()


MARK_COLOURS_JS = """(marks) => [...document.querySelectorAll('.js-plotly-plot')].map((gd) => {
  const text = JSON.stringify([gd.data, gd.layout, gd._transitionData ? gd._transitionData._frames : []])
    .toUpperCase();
  return marks.map((m) => text.split(`"${m}"`).length - 1);
})"""
"""Per chart, how many times each colour of ``marks`` appears in its traces, layout and frames."""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_replay_draws_its_near_black_marks_light_in_the_dark_theme(chromium, app_url: str,
                                                                    scheme: str) -> None:
    """Replay of Least-Loaded's stall (capacity misroutes, the "now" line and the minute it reads) names
    the near-black mark colour in the light theme and its light twin, never the near-black, in the
    dark one."""
    from gpusched.figures.style import MARK, MARK_ON_DARK

    page = _page(chromium, scheme)
    try:
        _open(page, f"{app_url}/replay?scenario=ll-stall-mini&policy=least_loaded&seed=3")
        counts = page.evaluate(MARK_COLOURS_JS, [MARK.upper(), MARK_ON_DARK.upper()])
        dark, light = sum(c[0] for c in counts), sum(c[1] for c in counts)
        if scheme == "dark":
            assert dark == 0 and light > 0, counts
        else:
            assert dark > 0 and light == 0, counts
    finally:
        page.close()


def test_compare_lists_in_its_paired_table_the_panels_its_forest_draws(chromium, app_url: str) -> None:
    page = _page(chromium)
    try:
        _open(page, f"{app_url}/compare")
        forest = page.get_by_test_id("stPlotlyChart").last
        forest.scroll_into_view_if_needed()
        forest.locator(".main-svg").first.wait_for()
        page.get_by_test_id("stDataFrame").last.scroll_into_view_if_needed()
        page.wait_for_timeout(1000)
        panels = page.evaluate("""() => {
          const gd = [...document.querySelectorAll('.js-plotly-plot')]
            .find((g) => ((g.layout.title && g.layout.title.text) || '').includes('Paired differences'));
          return gd._fullLayout.annotations.map((a) => a.text.replace(/<br>/g, ' '))
            .filter((t) => t.endsWith(': difference')).map((t) => t.slice(0, -': difference'.length));
        }""")
        # the table's metric column holds exactly the drawn panels' metrics (read from the grid's data)
        metrics = page.evaluate("""() => {
          const frames = [...document.querySelectorAll('[data-testid="stDataFrame"]')];
          const last = frames[frames.length - 1];
          return [...last.querySelectorAll('[role="gridcell"]')].map((c) => c.innerText);
        }""")
        assert panels and all(any(m == p for m in metrics) for p in panels), (panels, metrics[:20])
        assert "Jobs completed" not in panels and "Jobs completed" not in metrics
        assert any("Imbalance between GPUs" in p for p in panels)  # Gini beside the wait
    finally:
        page.close()


def test_sweeps_open_where_the_policies_part_and_keep_each_folders_filters(chromium, app_url: str) -> None:
    page = _page(chromium)
    try:
        _open(page, f"{app_url}/sweeps")
        assert _params(page)["folder"] == "stall-conditions"
        chosen = page.get_by_test_id("stMultiSelect").first.inner_text()
        assert "homogeneous-8gpu" not in chosen
        lows = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')][0].data
          .filter((t) => t.error_y && t.error_y.arrayminus)
          .map((t) => Math.min(...t.y.map((y, i) => y - t.error_y.arrayminus[i])))""")
        assert lows and min(lows) >= 0
        ticks = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')][0]
          ._fullLayout.xaxis._vals.map((v) => v.text)""")
        assert all("." not in t or t.startswith("0.") for t in ticks), ticks
        # another folder opens on its own filter, not the one chosen here
        page.get_by_test_id("stSelectbox").first.click()
        page.get_by_role("option", name="policy-study").click()
        page.wait_for_timeout(500)
        page.wait_for_selector(IDLE)
        assert _params(page)["folder"] == "policy-study"
        ticks = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')][0]
          ._fullLayout.xaxis._vals.map((v) => v.text)""")
        assert ticks == ["4", "5", "6"], ticks  # whole arrival rates, no 4.5
    finally:
        page.close()


REAL_CLUSTER_CHARTS_JS = """(keys) => keys.map((k) => {
  const gd = document.querySelector(`.st-key-${k} .js-plotly-plot`);
  return gd ? [gd.data.map((t) => t.name), gd._fullLayout.paper_bgcolor, gd._fullLayout.font.color,
               gd.querySelectorAll('.point').length] : null;
})"""
"""Per chart key: its traces' names, paper colour, text colour and drawn marks (bars and points)."""


def test_real_traces_shows_the_real_cluster_side_by_side_in_the_dark_theme(chromium, app_url: str) -> None:
    """The Real traces page's section on Shockwave's 32 V100s: its heading, the grouped bars of the
    real cluster, Shockwave's simulator and gpusched, the per-job scatter over the ±10 % band, and
    the table, drawn in the theme (no white block in the dark theme)."""
    page = _page(chromium, "dark")
    try:
        _open(page, f"{app_url}/traces")
        heading = page.get_by_role("heading", name="Against a real cluster: Shockwave's 32 V100s")
        heading.scroll_into_view_if_needed()
        heading.wait_for()
        keys = ["traces_real_cluster_bars", "traces_real_cluster_jobs"]
        for k in keys:
            page.locator(f".st-key-{k} .main-svg").first.wait_for()
        bars, jobs = page.evaluate(REAL_CLUSTER_CHARTS_JS, keys)
        assert bars[0] == ["real cluster", "Shockwave's simulator", "gpusched"] * 2
        assert "within 10 %" in jobs[0] and "same JCT" in jobs[0]
        assert bars[3] >= 6 and jobs[3] >= 100
        for _, paper, text, _ in (bars, jobs):
            assert _luminance(paper) < 0.3 and _luminance(text) > 0.6, (paper, text)
        table = page.get_by_test_id("stDataFrame").last
        table.scroll_into_view_if_needed()
        headers = table.locator('[role="columnheader"]').all_inner_texts()
        assert "avg JCT (min)" in headers and "side" in headers, headers
        assert heading.evaluate("(h, t) => Boolean(h.compareDocumentPosition(t) & 4)",
                                table.element_handle())
    finally:
        page.close()
