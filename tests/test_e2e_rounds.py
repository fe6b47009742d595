"""In a real browser (Debian's chromium through playwright): Compare's shipped view of the rounds
preset opens on a round policy beside its heterogeneity-agnostic twin, with the fairness metrics in
its bars, and no exception on the page or in the browser."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_support import CHROMIUM, CHROMIUM_ARGS, IDLE, PAGES, require_browser, running_dashboard

from gpusched.dashboard.headline import shipped_results
from gpusched.policies import policy_label
from gpusched.words.metric_names import metric_title

pytestmark = pytest.mark.e2e

PRESET = "gavel-12gpu-rounds"
ROUND_POLICIES = ("max_min_fairness", "max_min_fairness_perf")
TIMEOUT_MS = 90_000
BASE_PATH_PROBES = ("/_stcore/health", "/_stcore/host-config")
"""What Streamlit's client asks under a page's own path when that page's address is opened first
(answered 404, as the tour's deep-link test explains)."""


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_browser()
    with running_dashboard(tmp_path_factory.mktemp("streamlit") / "server.log") as url:
        yield url


def test_the_shipped_results_hold_the_round_policies():
    shipped = shipped_results()[PRESET]
    assert set(ROUND_POLICIES) <= set(shipped.policies)
    assert {"rho_mean", "jain_index", "type_changes_per_job"} <= set(shipped.metrics)


def test_compare_shows_a_round_policy_on_the_rounds_preset(app_url: str) -> None:
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport={"width": 1440, "height": 2000})
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        page.on("console", lambda m: errors.append(f"console: {m.text} ({m.location.get('url', '')})")
                if m.type == "error" else None)
        page.goto(f"{app_url}/{PAGES['compare']}?view=shipped&scenario={PRESET}")  # its default policies
        page.locator('[data-testid="stMain"] h1').first.wait_for()
        page.wait_for_selector(IDLE)
        page.get_by_test_id("stPlotlyChart").first.locator(".main-svg").first.wait_for()
        page.wait_for_selector(IDLE)
        main = page.locator('[data-testid="stMain"]')
        text = main.inner_text()
        chart_text = " ".join(page.get_by_test_id("stPlotlyChart").all_inner_texts())
        exceptions = page.get_by_test_id("stException").count()
        chromium.close()
    assert exceptions == 0
    assert f"`{PRESET}`" in text or PRESET in text
    for policy in ROUND_POLICIES:
        assert policy_label(policy) in text, policy
    assert metric_title("type_changes_per_job") in chart_text
    assert metric_title("rho_mean") in chart_text
    assert "No such" not in text and "not offered" not in text
    real = [e for e in errors if not any(f"/{PAGES['compare']}{p}" in e for p in BASE_PATH_PROBES)]
    assert real == [], real
