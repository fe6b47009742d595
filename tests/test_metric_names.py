"""The one table of names: it covers every metric, formats values the same way everywhere, and
the glossary holds every term a stakeholder meets."""

from __future__ import annotations

import re

import pytest

from gpusched.core.metrics import METRIC_KEYS
from gpusched.fgd.allocation import SUMMARY_KEYS
from gpusched.fgd.experiment import BUNDLED_POD_LISTS, pod_list_label
from gpusched.sweep.analysis import discover_sweeps, load_sweep_results, parameters
from gpusched.words.glossary import GLOSSARY, glossary_markdown
from gpusched.words.metric_names import (
    METRIC_NAMES,
    PARAMETER_LABELS,
    display_value,
    format_metric,
    format_spread,
    metric_help,
    metric_title,
    parameter_label,
)


@pytest.mark.parametrize("key", [*METRIC_KEYS, *SUMMARY_KEYS, "arrived_pct", "alloc_pct", "frag_pct"])
def test_every_metric_has_words_a_unit_rule_and_help(key):
    name = METRIC_NAMES[key]
    # words, capitalised, or a percentile as people write it ("p99 wait")
    assert name.label and "_" not in name.label and re.match(r"[A-Z]|p\d\d ", name.label)
    assert name.help.endswith(".") and len(name.help) > 20
    assert key not in metric_title(key) and key not in metric_help(key)
    assert 0 <= name.decimals <= 3


def test_fractions_are_shown_in_percent_times_100():
    assert METRIC_NAMES["avg_util"].percent and METRIC_NAMES["goodput"].percent
    assert format_metric("avg_util", 0.169) == "16.9"
    assert format_metric("avg_util", 0.169, unit=True) == "16.9 %"
    assert display_value("util_in_band_frac", 0.25) == pytest.approx(25.0)
    assert metric_title("avg_util").endswith("(%)")
    # A percentage that is stored in % already is not scaled again.
    assert format_metric("alloc_at_100", 87.123) == "87.12"


def test_numbers_have_thousands_separators_and_fixed_decimals():
    assert format_metric("avg_wait_min", 12345.678) == "12,345.7"
    assert format_metric("avg_wait_min", 3.0, unit=True) == "3.0 min"
    assert format_metric("jobs_completed", 1234) == "1,234"
    assert format_metric("gini", 0.12345) == "0.123"
    assert format_metric("avg_slowdown", 1.0) == "1.00"
    assert format_metric("avg_wait_min", float("nan")) == "—"
    assert format_spread("avg_util", 0.5, 0.01) == "50.0 ± 1.0"


def test_glossary_explains_every_term_a_stakeholder_meets():
    terms = " ".join(GLOSSARY).lower()
    for term in ("stall", "misroute", "head job", "queue window", "bounded slowdown", "jct",
                 "speed loss", "p99", "seed", "offered load", "goodput", "strict queue",
                 "greedy (no search)", "capacity misroute"):
        assert term in terms, term
    assert all(line.endswith(".") for line in GLOSSARY.values())
    assert glossary_markdown().count("\n- ") == len(GLOSSARY) - 1


def test_every_parameter_of_the_shipped_sweeps_reads_as_words():
    for folder in discover_sweeps():
        for name in parameters(load_sweep_results(folder)):
            label = parameter_label(name)
            assert "_" not in label and "." not in label.rstrip(")"), (name, label)
    assert parameter_label("workload.load") == PARAMETER_LABELS["workload.load"]
    assert parameter_label("cluster.some_new_knob") == "Cluster: some new knob"


def test_bundled_traces_have_readable_labels():
    for key in BUNDLED_POD_LISTS:
        assert "_" not in pod_list_label(key)
    assert pod_list_label("upload:mine.csv:0123456789abcdef") == "mine.csv"
