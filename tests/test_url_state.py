"""A page's state in its address (gpusched.dashboard.url_state): each parameter read as any input
is read, a wrong value refused in one line that names the parameter, the value and what the page
takes, and the page's default used instead."""

from __future__ import annotations

import pytest

from gpusched.dashboard.url_state import MAX_PARAM_CHARS, UrlChoice

POLICY = UrlChoice("policy", "least_loaded", ["first_fit", "least_loaded", "best_fit"])
POLICIES = UrlChoice("policy", ["first_fit"], ["first_fit", "least_loaded", "best_fit"], many=True)
SEED = UrlChoice("seed", 0, low=0, high=1000)


def test_an_absent_parameter_gives_the_default_without_a_message():
    assert POLICY.decode(None) == ("least_loaded", None)
    assert POLICIES.decode(None) == (["first_fit"], None)
    assert SEED.decode(None) == (0, None)


def test_a_valid_value_is_read_and_written_back_the_same():
    assert POLICY.decode("best_fit") == ("best_fit", None)
    assert SEED.decode("42") == (42, None)
    value, error = POLICIES.decode("best_fit,first_fit,best_fit")
    assert (value, error) == (["best_fit", "first_fit"], None)  # order kept, repeats dropped
    assert POLICIES.encode(value) == "best_fit,first_fit"
    assert POLICIES.decode(POLICIES.encode(value))[0] == value


@pytest.mark.parametrize(("choice", "raw", "shown"), [
    (POLICY, "bogus", "'bogus'"),
    (POLICY, "", "''"),
    (POLICIES, "first_fit,bogus", "'bogus'"),
    (POLICIES, ",", "an empty list"),
    (SEED, "1001", "1,001"),
    (SEED, "-1", "-1"),
    (SEED, "nan", "'nan'"),
    (SEED, "inf", "'inf'"),
    (SEED, "1e3", "'1e3'"),
    (SEED, "٣", "'٣'"),  # a digit of another script is not a seed
    (SEED, "4.5", "'4.5'"),
    (SEED, "99999999999999999999999", "99,999,999,999,999,999,999,999"),
])
def test_a_wrong_value_falls_back_with_one_line_naming_parameter_value_and_default(choice, raw, shown):
    value, error = choice.decode(raw)
    assert value == choice.default
    assert error is not None and "\n" not in error
    assert f"`{choice.param}`" in error and shown in error
    assert f"opens on `{choice.encode(choice.default)}`" in error


def test_an_absurdly_long_value_is_refused_unread():
    value, error = POLICY.decode("x" * (MAX_PARAM_CHARS + 1))
    assert value == "least_loaded" and f"{MAX_PARAM_CHARS + 1:,} characters" in error


def test_a_refusal_names_a_few_options_and_counts_the_rest():
    many = UrlChoice("scenario", "a0", [f"a{i}" for i in range(20)])
    error = many.decode("zz")[1]
    assert "`a0`" in error and "`a5`" in error and "`a6`" not in error and "and 14 more" in error


def test_accepts_checks_a_widgets_current_value():
    assert POLICY.accepts("first_fit") and not POLICY.accepts("bogus")
    assert POLICIES.accepts(["first_fit", "best_fit"]) and not POLICIES.accepts(["bogus"])
    assert SEED.accepts(3) and SEED.accepts(3.0) and not SEED.accepts(3.5) and not SEED.accepts(1001)


def test_options_written_their_own_way_are_read_back_by_it():
    folders = UrlChoice("folder", "/x/stall-conditions", ["/x/policy-study", "/x/stall-conditions"],
                        to_text=lambda p: p.rsplit("/", 1)[-1])
    assert folders.decode("policy-study") == ("/x/policy-study", None)
    assert folders.encode("/x/stall-conditions") == "stall-conditions"
    assert folders.decode("/x/policy-study")[1] is not None  # a path is not how the address names it
