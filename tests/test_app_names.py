"""Every page speaks in words: each metric it shows carries its help text, each metric column its
tooltip, and no menu option, chart title, axis, legend entry or table header shows a raw key."""

from __future__ import annotations

import json

import pytest
from apptest_support import assert_clean, open_page, plotly_specs
from raw_names import figure_texts, raw_in

from gpusched.words.metric_names import METRIC_NAMES

PAGES = [None, "views/replay.py", "views/compare.py", "views/stalls.py", "views/sweeps.py",
         "views/agent.py", "views/traces.py", "views/cluster.py", "views/knowledge.py"]
TITLES = {m.title: m for m in METRIC_NAMES.values()}


def _menus(at) -> dict[str, list[str]]:
    menus = {}
    for kind in ("selectbox", "multiselect", "radio"):
        for widget in at.get(kind):
            menus[f"{kind} {widget.label}"] = [widget.label, *map(str, widget.options)]
    return menus


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p or "home")
def test_every_page_shows_words_and_explains_its_metrics(page):
    at = open_page(page)
    assert_clean(at)
    for metric in at.metric:
        assert metric.proto.help, f"{page}: metric '{metric.label}' has no help text"
        assert not raw_in(metric.label), metric.label
    for name, options in _menus(at).items():
        assert not raw_in(" ".join(options)), (page, name, raw_in(" ".join(options)))
    for spec in plotly_specs(at):
        found = {t: raw_in(t) for t in figure_texts(spec) if raw_in(t)}
        assert not found, (page, found)
    for frame in at.dataframe:
        config = json.loads(frame.proto.columns or "{}")
        headers = [str(c) for c in frame.value.columns]
        assert not raw_in(" ".join(headers)), (page, headers)
        for header in headers:
            if header in TITLES:
                assert config.get(header, {}).get("help") == TITLES[header].help, (page, header)


def test_home_renders_the_glossary_and_points_to_the_docs():
    from gpusched.words.glossary import GLOSSARY, GLOSSARY_DOC

    at = open_page()
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert all(f"**{term}**" in text for term in GLOSSARY)
    assert GLOSSARY_DOC in text
