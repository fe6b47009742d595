"""Helpers for driving the dashboard in a real browser: start ``streamlit run app/Home.py`` on a free
port, and the pages, selectors and Chromium settings that the end-to-end test and the page benchmark
(``benchmarks/bench_pages.py``) share."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gpusched.dashboard.pages import PAGES as PAGE_LIST

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PAGES = {p.name: p.url_path for p in PAGE_LIST}
"""Page name → URL path of every page."""
PAGE_TITLES = {p.name: p.title for p in PAGE_LIST}
"""Page name → its title in the navigation; the browser tab reads ``"TITLE · gpusched"``."""
SCREEN_SIZES = ((1440, 900), (1280, 720))
"""Viewports (width, height in pixels) every page is screenshotted and checked at."""
CHART_PAGES = {"home", "cluster", "replay", "compare", "stalls", "knowledge", "traces", "sweeps"}
"""Pages that draw at least one Plotly chart."""
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
"""Selector that matches once the page's script has finished running."""
HEALTH_TIMEOUT_S = 60.0


class DashboardError(RuntimeError):
    """The dashboard server did not start."""


def free_port() -> int:
    """A TCP port that is free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


@contextmanager
def running_dashboard(log_path: Path, timeout_s: float = HEALTH_TIMEOUT_S,
                      app: str = "app/Home.py") -> Iterator[str]:
    """A fresh ``streamlit run app/Home.py`` (cwd: the repository) on a free port; yields its URL
    once ``/_stcore/health`` answers and stops the server on exit.

    :param log_path: file that receives the server's output (a file, not a pipe nobody drains).
    :param timeout_s: how long to wait for the server to become healthy (seconds).
    :param app: the script to run (another one only for benchmarks' reference pages).
    :raises DashboardError: when the server exits or is not healthy within ``timeout_s``.
    """
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with log_path.open("w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", app, "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + timeout_s
            while not _healthy(url):
                if proc.poll() is not None or time.monotonic() > deadline:
                    out = log_path.read_text(encoding="utf-8", errors="replace")
                    raise DashboardError(f"streamlit did not become healthy:\n{out[-2000:]}")
                time.sleep(0.3)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def require_browser() -> None:
    """Debian's chromium, or the test cannot run: it fails in CI (``CI=true``), skips elsewhere."""
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)
