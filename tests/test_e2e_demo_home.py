"""The demo, in a real browser (Debian's ``chromium`` driven by ``playwright``): Home's first
screen shows the stall in one picture, every delta's arrow follows the sign of its change and is
green only when the change is good news (on Home and on the stall page, where Least-Loaded is
better on ``ll-stall-mini`` seed 3), no misroute marker shares a colour with a policy's line, Home's
"Watch it minute by minute" opens Replay at the first stall with stalls and misroutes marked, and
on the 108-GPU Gavel preset Replay's GPU labels are legible: none cut, none over another.

Outside CI the test skips when ``/usr/bin/chromium`` is missing; in CI (``CI=true``) it fails.
Screenshots at 1440×900 go to ``screenshots/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    IDLE,
    PAGE_TITLES,
    PAGES,
    ROOT,
    require_browser,
    running_dashboard,
)

pytestmark = pytest.mark.e2e

SHOTS = ROOT / "screenshots"
TIMEOUT_MS = 120_000
VIEWPORT = {"width": 1440, "height": 900}
GAVEL_PRESET = "gavel-108gpu-heavy"




@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """One Chromium tab at 1440×900 on a fresh dashboard; the module fails on a browser error."""
    require_browser()
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with running_dashboard(log) as url, sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        tab = chromium.new_page(viewport=VIEWPORT)
        tab.set_default_timeout(TIMEOUT_MS)
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.app_url = url
        tab.server_log = log
        yield tab
        chromium.close()
    assert errors == [], errors


def _idle(page) -> None:
    page.locator('[data-testid="stMain"] h1').first.wait_for()
    page.wait_for_selector(IDLE)
    page.wait_for_timeout(400)
    page.wait_for_selector(IDLE)


def _nav(page, name: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=PAGE_TITLES[name], exact=True).click()
    page.wait_for_url(re.compile(rf"{re.escape(page.app_url)}/{PAGES[name]}(\?.*)?$"))  # with its state
    _idle(page)


def _choose(page, label: str, option: str) -> None:
    box = page.get_by_role("combobox", name=label, exact=True)
    box.click()
    box.fill(option)
    page.get_by_role("option", name=option, exact=True).click()
    _idle(page)


DELTAS_JS = """() => [...document.querySelectorAll('[data-testid="stMetricDelta"]')].map((d) => {
  const card = d.closest('[data-testid="stMetric"]');
  const icon = d.querySelector('svg[data-testid^="stMetricDeltaIcon"]');
  const rgb = getComputedStyle(d).color.match(/\\d+/g).map(Number);
  return {label: card.querySelector('[data-testid="stMetricLabel"]').innerText.trim(),
          text: d.innerText.trim(), icon: icon ? icon.dataset.testid : null, rgb};
})"""
"""Every delta on the page: its card's title, its text, its arrow and its colour."""


def _metric_keys() -> dict[str, str]:
    from gpusched.dashboard.story import STORY_LABELS
    from gpusched.words.metric_names import METRIC_NAMES

    return {**{m.title: k for k, m in METRIC_NAMES.items()}, **{v: k for k, v in STORY_LABELS.items()}}


def _check_deltas(page, where: str, at_least: int) -> list[dict]:
    """Each delta's arrow follows its sign; it is green when the change is good news for its metric
    (lower is better for a wait), red otherwise; a change of zero has neither."""
    from gpusched.dashboard.deltas import lower_is_better

    deltas = page.evaluate(DELTAS_JS)
    assert len(deltas) >= at_least, (where, deltas)
    keys = _metric_keys()
    for d in deltas:
        assert "−" not in d["text"], (where, d)
        r, g, _ = d["rgb"]
        if d["text"].startswith(("-", "+")):
            down = d["text"].startswith("-")
            assert d["icon"] == ("stMetricDeltaIcon-Down" if down else "stMetricDeltaIcon-Up"), (where, d)
            good = down == lower_is_better(keys[d["label"].strip()])
            assert (g > r) == good, (where, d)  # green for good news, red for bad
        else:
            assert d["icon"] is None, (where, d)
    return deltas


LINE_AND_MARKER_COLOURS_JS = """(labels) => [...document.querySelectorAll('.js-plotly-plot')].map((gd) => {
  const lines = gd.data.filter((t) => labels.includes(t.name) && t.line && t.line.color)
    .map((t) => t.line.color.toUpperCase());
  const markers = gd.data.filter((t) => (t.name || '').startsWith('misroute'))
    .map((t) => t.marker.color.toUpperCase());
  return {lines, markers};
})"""
"""Per chart: the line colours of the policies drawn, and the misroute markers' colours."""


def _check_marker_colours(page, where: str) -> int:
    from gpusched.dashboard.policies import dashboard_policies
    from gpusched.figures.style import palette_colors
    from gpusched.policies import policy_label, policy_names

    labels = sorted({policy_label(n) for n in (*policy_names(), *dashboard_policies())})
    charts = page.evaluate(LINE_AND_MARKER_COLOURS_JS, labels)
    markers = 0
    for chart in charts:
        assert not set(chart["markers"]) & set(chart["lines"]), (where, chart)
        assert not set(chart["markers"]) & palette_colors(), (where, chart)
        markers += len(chart["markers"])
    return markers


def test_home_first_screen_shows_the_stall_and_good_news_reads_as_good_news(page) -> None:
    page.goto(page.app_url)
    _idle(page)
    story = page.locator(".st-key-home_story")
    story.locator(".main-svg").first.wait_for()
    box = story.bounding_box()
    assert box["y"] + box["height"] <= VIEWPORT["height"], box  # the picture is above the fold
    deltas = _check_deltas(page, "home", at_least=4)
    headline = [d for d in deltas if d["label"] == "Time to result (min)"]
    assert len(headline) == 2 and all(d["icon"] == "stMetricDeltaIcon-Down" for d in headline)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "demo-home-1440x900.png"))


def test_stall_page_deltas_and_marker_colours(page) -> None:
    page.goto(page.app_url)
    _idle(page)
    page.get_by_role("button", name="Show me the stall").click()
    page.wait_for_url(re.compile(r".*/stalls(\?.*)?$"))  # the page keeps its state in the address
    _idle(page)
    page.locator(".st-key-stall-chart .main-svg").first.wait_for()
    assert _check_marker_colours(page, "stalls") > 0
    _check_deltas(page, "stalls on phase1-8gpu", at_least=1)
    _choose(page, "Scenario", "ll-stall-mini")
    field = page.get_by_role("spinbutton", name="Workload seed", exact=True)
    field.fill("3")
    field.press("Enter")
    page.locator(".st-key-stall-explanation").get_by_text("(seed 3)").wait_for()
    _idle(page)
    wait = [d for d in _check_deltas(page, "stalls on ll-stall-mini", at_least=1)
            if d["label"].startswith("Average wait")]
    assert wait and wait[0]["text"].startswith("-"), wait  # Least-Loaded waits less here: green, down
    log = page.server_log.read_text(encoding="utf-8", errors="replace")
    assert "created with a default value but also had its value set" not in log, log[-2000:]


def test_watch_it_opens_replay_at_the_first_stall_with_marks(page) -> None:
    page.goto(page.app_url)
    _idle(page)
    page.get_by_role("button", name="Watch it minute by minute").click()
    page.wait_for_url(re.compile(r".*/replay(\?.*)?$"))
    _idle(page)
    chart = page.locator(".st-key-replay_fig")
    chart.locator(".main-svg").first.wait_for()
    state = chart.evaluate("""(el) => {
      const gd = el.querySelector('.js-plotly-plot');
      const s = gd.layout.sliders[0];
      const now = gd.data.findIndex((t) => t.name === 'now');
      const frame = gd._transitionData._frameHash[s.steps[s.active].args[0][0]];
      return {active: s.active, label: frame.data[frame.traces.indexOf(now)].text[1],
              stalls: gd.layout.shapes.filter((x) => x.name === 'stall').length,
              misroutes: gd.data.filter((t) => (t.name || '').startsWith('misroute')).length};
    }""")
    assert state["active"] > 0 and state["stalls"] > 0 and state["misroutes"] > 0, state
    current = chart.evaluate("""(el) => [...el.querySelectorAll('text')]
      .map((t) => t.textContent).filter((t) => t.startsWith('Minute '))""")
    assert current == [state["label"]], current  # the "now" line reads the opening frame's minute
    assert _check_marker_colours(page, "replay") > 0


LABEL_BOXES_JS = """(el) => {
  const gd = el.querySelector('.js-plotly-plot');
  const box = gd.getBoundingClientRect();
  return [...el.querySelectorAll('.x2tick text')].map((t) => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, left: r.left - box.left, right: r.right - box.left, width: box.width};
  });
}"""
"""The compute panel's GPU labels: their text and horizontal extent within the chart."""


def test_a_108_gpu_cluster_stays_legible_in_replay(page) -> None:
    page.goto(page.app_url)
    _idle(page)
    _nav(page, "cluster")
    _choose(page, "Start from a preset", GAVEL_PRESET)
    _nav(page, "replay")
    chart = page.locator(".st-key-replay_fig")
    chart.locator(".main-svg").first.wait_for()
    chart.scroll_into_view_if_needed()
    labels = chart.evaluate(LABEL_BOXES_JS)
    assert 0 < len(labels) <= 12, labels
    for lab in labels:
        assert "×" in lab["text"] and lab["left"] >= 0 and lab["right"] <= lab["width"], lab
    ordered = sorted(labels, key=lambda x: x["left"])
    for a, b in zip(ordered, ordered[1:], strict=False):
        assert a["right"] + 4 <= b["left"], (a, b)  # no label over its neighbour
    titles = chart.evaluate("""(el) => [...el.querySelectorAll('.infolayer .annotation')]
      .map((a) => a.textContent)""")
    assert any(t.startswith("GPUs busy, by GPU model") for t in titles), titles
    assert not any(t.startswith("VRAM used") for t in titles), titles  # its jobs declare no memory
    page.screenshot(path=str(SHOTS / "demo-replay-gavel-1440x900.png"))
