"""The strict number types of every user's file: a number is an int or a float, never a boolean
or text; a flag is ``true`` or ``false``, never a number or text.

pydantic alone would turn ``true`` into 1 and ``"0.5"`` into 0.5. Scenarios (every block, the
``failures:``, ``checkpoint:`` and ``queue:`` blocks included), sweep specs, model sidecars and
training settings use these types, so the same value is refused the same way everywhere.
"""

from __future__ import annotations

import math
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
            raise ValueError(f"must be {what}, not text (got {shown(value)}{yaml_number_hint(value)})")
        if whole and isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    return check


Number = Annotated[float, BeforeValidator(refuse_bool_and_text("a number"))]
"""A number in a user's file: an int or a float, never a boolean or text (finite where the model
says ``allow_inf_nan=False``)."""

Whole = Annotated[int, BeforeValidator(refuse_bool_and_text("a whole number", whole=True))]
"""A whole number in a user's file (``2.0`` is 2, ``2.5`` is refused), never a boolean or text."""


def refuse_number_and_text(value: Any) -> Any:
    """A before-validator of a flag: ``1``, ``0``, ``"yes"`` and ``"true"`` are not ``true`` or
    ``false`` (pydantic would read each as a boolean)."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, str | bytes):
        raise ValueError(f"must be true or false, not text (got {shown(value)})")
    raise ValueError(f"must be true or false (got {shown(value)})")


Flag = Annotated[bool, BeforeValidator(refuse_number_and_text)]
"""A flag in a user's file: ``true`` or ``false`` (YAML's booleans), never a number or text."""


def yaml_number_hint(value: Any) -> str:
    """For text that reads as a finite number (``"1e0"``: YAML reads a number without a decimal
    point or with an unsigned exponent as text), how to write it as a number in YAML; else ``""``."""
    if not isinstance(value, str):
        return ""
    try:
        number = float(value)
    except ValueError:
        return ""
    if not math.isfinite(number):
        return ""
    written = repr(number)
    if "e" in written:
        mantissa, exponent = written.split("e")
        written = f"{mantissa if '.' in mantissa else mantissa + '.0'}e{exponent}"
    return f": YAML reads it as text, not a number; write {written} without quotes"


def read_as_text(value: Any) -> str:
    """How a message shows a user's value that should have been a number: ``the text '1e0'``, with
    :func:`yaml_number_hint` when the text reads as a number, and the value itself otherwise."""
    if isinstance(value, str):
        return f"the text {shown(value)}{yaml_number_hint(value)}"
    return shown(value)
