"""The change under a result card: a sign Streamlit parses, green only for good news (inverted
where lower is better), and no arrow for a change that rounds to zero."""

from __future__ import annotations

import pytest

from gpusched.dashboard.deltas import lower_is_better, metric_delta


@pytest.mark.parametrize("key", ["avg_wait_min", "avg_jct_min", "gini", "cost_usd", "stall_min"])
def test_lower_is_better_metrics_invert_the_colour_and_use_an_ascii_minus(key):
    better = metric_delta(key, -20.0)
    worse = metric_delta(key, 20.0)
    assert lower_is_better(key)
    assert better.text.startswith("-") and "−" not in better.text
    assert better.color == worse.color == "inverse" and better.arrow == "auto"
    assert better.better is True and worse.better is False
    assert worse.text.startswith("+")


def test_higher_is_better_metrics_keep_the_normal_colours():
    up = metric_delta("slo_attainment", 0.05)
    assert not lower_is_better("slo_attainment")
    assert up.color == "normal" and up.better is True and up.text == "+5.0 %"
    assert metric_delta("slo_attainment", -0.05).better is False


def test_a_change_that_rounds_to_zero_has_no_sign_no_arrow_and_no_colour():
    zero = metric_delta("avg_wait_min", -0.2, against="First-Fit", decimals=0)
    assert zero.text == "0 min vs First-Fit"
    assert (zero.color, zero.arrow, zero.better) == ("off", "off", None)


def test_a_percentage_of_a_reference_and_what_it_is_against():
    d = metric_delta("avg_jct_min", -48.9, percent_of=100.0, against="First-Fit")
    assert d.text == "-48.9 % vs First-Fit" and d.better is True
    worse = metric_delta("avg_wait_min", 100.93, against="First-Fit", decimals=0)
    assert worse.text == "+101 min vs First-Fit"
