"""Numbers in sentences: a signed difference that never reads ``−0``, and a difference worded as
longer or shorter instead of a sign a reader must decode."""

from __future__ import annotations

from gpusched.words.metric_names import format_number

MINUS = "−"
"""The minus sign the pages print (U+2212), not a hyphen."""


def signed(value: float, decimals: int = 0) -> str:
    """``+1.5``, ``−1.5``, or ``0`` for a value that rounds to zero at ``decimals`` digits."""
    text = format_number(abs(value), decimals)
    if text == "—" or text.strip("0.,") == "":
        return text
    return f"+{text}" if value > 0 else f"{MINUS}{text}"


def longer_or_shorter(diff_min: float, than: str, decimals: int = 0) -> str:
    """A wait difference in words: ``2 min longer than First-Fit``, ``2 min less than
    First-Fit``, or ``as long as First-Fit`` when it rounds to zero (minutes)."""
    text = format_number(abs(diff_min), decimals)
    if text == "—":
        return f"{text} against {than}"
    if text.strip("0.,") == "":
        return f"as long as {than}"
    return f"{text} min {'longer' if diff_min > 0 else 'less'} than {than}"
