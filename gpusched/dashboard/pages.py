"""The dashboard's pages, in navigation order: the one list the entry point builds its navigation
from, Home links every page from, and the browser tests visit.

A page's ``file`` is relative to ``app/`` (Streamlit's ``st.Page`` path); ``url_path`` is the
address after the server's root (empty for Home).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    """One page of the dashboard.

    :param name: the short name tests and benchmarks use (``"replay"``).
    :param file: the page's script, relative to ``app/`` (``"views/replay.py"``).
    :param title: its title in the navigation and the browser tab.
    :param icon: its Material icon (``":material/play_circle:"``).
    :param url_path: its address after the server's root (``""`` for Home).
    :param blurb: what a visitor finds there, in a few words (Home's links).
    """

    name: str
    file: str
    title: str
    icon: str
    url_path: str
    blurb: str


PAGES: tuple[PageSpec, ...] = (
    PageSpec("home", "views/home.py", "Home", ":material/home:", "", "the story at a glance"),
    PageSpec("cluster", "views/cluster.py", "Cluster & workload", ":material/dns:", "cluster",
             "choose the GPUs and the jobs"),
    PageSpec("agent", "views/agent.py", "Agent", ":material/smart_toy:", "agent",
             "the trained scheduler, and training your own"),
    PageSpec("replay", "views/replay.py", "Replay", ":material/play_circle:", "replay",
             "watch one run minute by minute"),
    PageSpec("compare", "views/compare.py", "Compare", ":material/bar_chart:", "compare",
             "every rule on the same jobs"),
    PageSpec("stalls", "views/stalls.py", "Least-Loaded stalls", ":material/traffic:", "stalls",
             "why a rule leaves GPUs idle while jobs wait"),
    PageSpec("knowledge", "views/knowledge.py", "What the scheduler knows", ":material/psychology:",
             "knowledge", "what knowing run times is worth"),
    PageSpec("traces", "views/traces.py", "Real traces", ":material/dataset:", "traces",
             "production clusters' jobs"),
    PageSpec("sweeps", "views/sweeps.py", "Sweeps", ":material/grid_on:", "sweeps",
             "many settings at once"),
)
"""Every page, Home first."""


def page(name: str) -> PageSpec:
    """The page called ``name``."""
    return next(p for p in PAGES if p.name == name)
