"""Figures of what the scheduler knows (gpusched.figures.knowledge), on frames written by hand:
refused rules say so instead of leaving a blank, means never reach below 0, the cost of not
knowing may, and every interval names its kind."""

from __future__ import annotations

import math

import pandas as pd

from gpusched.figures.knowledge import (
    REFUSED,
    SETTING_COLORS,
    SETTING_WORDS,
    cost_of_not_knowing_figure,
    cost_table,
    knowledge_means_figure,
    knowledge_table,
    setting_word,
)
from gpusched.policies import policy_label
from gpusched.words.metric_names import metric_title

NAN = math.nan
COLUMNS = ("policy", "setting", "mean", "low", "high", "refused")
MEANS = pd.DataFrame([
    ("fcfs+first_fit", "exact", 100.0, 0.0, 210.0, False),
    ("fcfs+first_fit", "none", 100.0, 0.0, 210.0, False),
    ("sjf+fastest_fit", "exact", 60.0, 50.0, 70.0, False),
    ("sjf+fastest_fit", "none", NAN, NAN, NAN, True),
], columns=COLUMNS)
COST = pd.DataFrame([
    {"policy": "fcfs+first_fit", "setting": "none", "diff": 0.0, "low": 0.0, "high": 0.0, "n": 3,
     "interval": "t"},
    {"policy": "sjf+fastest_fit", "setting": "history", "diff": -4.25, "low": -9.5, "high": 1.0, "n": 3,
     "interval": "bootstrap"},
])


def test_a_refused_rule_reads_refused_not_blank():
    table = knowledge_table(MEANS)
    assert list(table.columns) == [SETTING_WORDS["exact"], SETTING_WORDS["none"]]
    assert list(table.index) == [policy_label("fcfs+first_fit"), policy_label("sjf+fastest_fit")]
    assert table.loc[policy_label("sjf+fastest_fit"), SETTING_WORDS["none"]] == REFUSED
    assert table.loc[policy_label("sjf+fastest_fit"), SETTING_WORDS["exact"]] == "60.0 [50, 70]"


def test_the_means_figure_draws_one_bar_per_setting_and_none_for_a_refused_rule():
    fig = knowledge_means_figure(MEANS, "avg_jct_min", n_seeds=3)
    assert [t.name for t in fig.data] == [setting_word("exact"), setting_word("none")]
    assert len({t.marker.color for t in fig.data}) == 2
    refused = fig.data[1]
    assert refused.y[1] is None and "refused when not told" in refused.x[1]
    exact = fig.data[0]
    assert all(y - lo >= 0 for y, lo in zip(exact.y, exact.error_y.arrayminus, strict=True))
    assert min(y - lo for y, lo in zip(exact.y, exact.error_y.arrayminus, strict=True)) == 0.0
    assert metric_title("avg_jct_min") in fig.layout.title.text


def test_the_cost_figure_may_go_below_zero_and_names_its_intervals():
    fig = cost_of_not_knowing_figure(COST)
    assert [t.name for t in fig.data] == [setting_word("none"), setting_word("history")]
    history = fig.data[1]
    assert history.x[0] == -4.25 and history.x[0] - history.error_x.arrayminus[0] == -9.5
    subtitle = fig.layout.title.subtitle.text.replace("<br>", " ")  # wrapped lines read as one
    assert "t interval" in subtitle and "bootstrap" in subtitle
    table = cost_table(COST)
    assert table["against told exactly [95 % interval]"].tolist() == ["0.0 [0.0, 0.0]", "−4.2 [−9.5, +1.0]"]
    assert table["interval"].tolist() == ["t interval", "bootstrap"]
    assert not any("−0" in cell for cell in table["against told exactly [95 % interval]"])


def test_every_setting_has_words_and_its_own_colour():
    assert set(SETTING_WORDS) == set(SETTING_COLORS)
    assert len(set(SETTING_COLORS.values())) == len(SETTING_COLORS)
    assert len(set(SETTING_WORDS.values())) == len(SETTING_WORDS)
