"""The "What the scheduler knows" page: the shipped comparison at once with its seeds, each rule's
time to result by what it is told (refused rules say so), what not knowing costs each rule with
its paired interval named, and a live comparison on request with progress."""

from __future__ import annotations

import time

from apptest_support import assert_clean, open_page, plotly_specs

from gpusched.dashboard.knowledge import KNOWLEDGE_PRESETS
from gpusched.experiment.knowledge import shipped_knowledge
from gpusched.figures.headline import seed_range
from gpusched.figures.knowledge import REFUSED, setting_word

PAGE = "views/knowledge.py"


def _shipped_preset() -> str:
    return next(name for name in KNOWLEDGE_PRESETS if shipped_knowledge(name) is not None)


def test_the_page_opens_on_a_shipped_comparison_named_with_its_seeds():
    name = _shipped_preset()
    table = shipped_knowledge(name)
    at = open_page(PAGE)
    at.selectbox(key="knowledge_preset").set_value(name).run()
    assert_clean(at)
    text = " ".join([m.value for m in at.markdown] + [c.value for c in at.caption])
    assert seed_range(table.seeds) in text and name in text
    assert len(plotly_specs(at)) == 2
    means = at.dataframe[0].value
    assert list(means.columns) == [setting_word(s) for s in table.settings]
    cells = means.to_numpy().ravel().tolist()
    refused = table.runs.reset_index()["refused"].astype(bool).any()
    assert (REFUSED in cells) == bool(refused)
    assert not any(str(c).strip() in ("", "nan", "None") for c in cells)
    cost = at.dataframe[1].value
    assert set(cost["interval"]) <= {"t interval", "bootstrap"} and len(cost) > 0


def test_run_live_runs_in_the_background_and_draws_its_own_table():
    at = open_page(PAGE)
    at.selectbox(key="knowledge_preset").set_value("fleet-16gpu").run()
    at.multiselect(key="knowledge_policies").set_value(["fcfs+first_fit", "sjf+fastest_fit"]).run()
    at.number_input(key="knowledge_seeds").set_value(1).run()
    at.button(key="knowledge_run").click().run()
    assert_clean(at)
    job = at.session_state["knowledge_live"]
    deadline = time.monotonic() + 240
    while not job.finished and time.monotonic() < deadline:
        time.sleep(0.5)
    assert job.finished and job.error is None, job.error
    at.run()
    assert_clean(at)
    live = [df.value for df in at.dataframe][-2]
    assert REFUSED in live.to_numpy().ravel().tolist()  # SJF reads run times: refused when not told
