"""The strict number types of every user's file: a number is an int or a float, never a boolean
or text.

pydantic alone would turn ``true`` into 1 and ``"0.5"`` into 0.5. Scenarios (every block, the
``failures:``, ``checkpoint:`` and ``queue:`` blocks included), sweep specs, model sidecars and
training settings use these types, so the same value is refused the same way everywhere.
"""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
from pydantic import BeforeValidator


def shown(value: Any, width: int = 40) -> str:
    """``repr(value)`` cut to ``width`` characters, for a message that echoes a user's value."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def refuse_bool_and_text(what: str, whole: bool = False):
    """A before-validator: ``true``/``false`` and quoted numbers are not numbers (pydantic would
    turn ``true`` into 1 and ``"0.5"`` into 0.5).

    :param what: what the value must be, for the message (``a number``).
    :param whole: a float that is a whole number becomes that int (``1e20`` is then checked
        against the field's bounds, where pydantic would say it cannot parse it).
    """

    def check(value: Any) -> Any:
        if isinstance(value, bool | np.bool_):
            raise ValueError(f"must be {what}, not true or false (got {value!r})")
        if isinstance(value, str | bytes):
            raise ValueError(f"must be {what}, not text (got {shown(value)})")
        if whole and isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    return check


Number = Annotated[float, BeforeValidator(refuse_bool_and_text("a number"))]
"""A number in a user's file: an int or a float, never a boolean or text (finite where the model
says ``allow_inf_nan=False``)."""

Whole = Annotated[int, BeforeValidator(refuse_bool_and_text("a whole number", whole=True))]
"""A whole number in a user's file (``2.0`` is 2, ``2.5`` is refused), never a boolean or text."""
