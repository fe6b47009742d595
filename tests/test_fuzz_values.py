"""The fuzz tests' own values (``tests/test_fuzz.py``): a drawn hostile list or mapping is a copy.

Not a fuzz test of a reader (the README counts those): a check of the strategy they draw from.
"""

from __future__ import annotations

from hypothesis import given
from test_fuzz import FUZZ, HOSTILE_VALUES, hostile_value


@FUZZ
@given(hostile_value)
def test_a_hostile_value_is_a_copy_that_a_mutation_may_write_into(value):
    """A drawn list or mapping is never one of :data:`HOSTILE_VALUES` itself: a nest written into
    the shared ``{"a": 1}`` once grew it example after example, until walking a mutated document
    overflowed the stack."""
    assert all(value is not shared for shared in HOSTILE_VALUES if isinstance(shared, list | dict))
