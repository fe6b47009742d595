"""A page's state in its address: ``?scenario=…&policy=…&seed=…`` read as any input is read.

A link to "this run" carries the page's choices as query parameters. Each parameter is checked
against what the widget offers (one of its options, a list of them, or a whole number within the
widget's limits); a value that is not valid is refused with a one-line message naming the
parameter and what it accepts, and the page opens on its default instead. Nothing here knows
Streamlit: the page's helper (``app/shared.py``) reads ``st.query_params`` and shows the message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

LIST_SEPARATOR = ","
"""How a list of choices is written in one parameter (``policy=first_fit,best_fit``)."""

MAX_PARAM_CHARS = 2_000
"""Longest parameter value read (characters); a longer one is refused unread."""

SHOWN_OPTIONS = 6
"""Options a refusal names before it says how many more there are."""


@dataclass(frozen=True)
class UrlChoice:
    """What a page accepts in one query parameter.

    :param param: the parameter's name in the address (``"seed"``).
    :param default: the value the page opens on when the address has none, or a wrong one.
    :param options: the values accepted (the widget's options); ``None`` for a whole number.
    :param many: whether the widget takes a list of options (a multiselect).
    :param low: smallest whole number accepted (with ``options=None``).
    :param high: largest whole number accepted (with ``options=None``).
    :param to_text: how an option is written in the address (default ``str``).
    """

    param: str
    default: Any
    options: Sequence[Any] | None = None
    many: bool = False
    low: int = 0
    high: int = 2**31 - 1
    to_text: Callable[[Any], str] = str

    def encode(self, value: Any) -> str:
        """``value`` as the address writes it (a list joined by :data:`LIST_SEPARATOR`)."""
        if self.many:
            return LIST_SEPARATOR.join(self.to_text(v) for v in value)
        return self.to_text(value)

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` (a widget's current value) is one this parameter accepts."""
        if self.options is None:
            return isinstance(value, int | float) and float(value).is_integer() \
                and self.low <= int(value) <= self.high
        if self.many:
            return isinstance(value, list | tuple) and all(v in self.options for v in value)
        return value in self.options

    def decode(self, raw: str | None) -> tuple[Any, str | None]:
        """The value ``raw`` (the parameter's text, ``None`` when absent) asks for, and ``None``;
        or the default and a one-line message saying why ``raw`` was refused."""
        if raw is None:
            return self.default, None
        if len(raw) > MAX_PARAM_CHARS:
            return self.default, self._refusal(f"{len(raw):,} characters", f"at most {MAX_PARAM_CHARS:,}")
        if self.options is None:
            return self._integer(raw)
        by_text = {self.to_text(o): o for o in self.options}
        if not self.many:
            if raw in by_text:
                return by_text[raw], None
            return self.default, self._refusal(repr(raw), self._accepted(by_text))
        parts = [p for p in raw.split(LIST_SEPARATOR) if p]
        wrong = [p for p in parts if p not in by_text]
        if wrong or not parts:
            shown = repr(wrong[0]) if wrong else "an empty list"
            return self.default, self._refusal(shown, self._accepted(by_text, "a list of"))
        return list(dict.fromkeys(by_text[p] for p in parts)), None

    def _integer(self, raw: str) -> tuple[Any, str | None]:
        text = raw.strip()
        accepted = f"a whole number from {self.low:,} to {self.high:,}"
        if not (text.isascii() and text.lstrip("-").isdigit()):
            return self.default, self._refusal(repr(raw), accepted)
        value = int(text)
        if not self.low <= value <= self.high:
            return self.default, self._refusal(f"{value:,}", accepted)
        return value, None

    def _accepted(self, by_text: dict[str, Any], prefix: str = "one of") -> str:
        names = list(by_text)
        more = len(names) - SHOWN_OPTIONS
        shown = ", ".join(f"`{n}`" for n in names[:SHOWN_OPTIONS])
        return f"{prefix} {shown}" + (f" and {more} more" if more > 0 else "")

    def _refusal(self, got: str, accepted: str) -> str:
        default = self.encode(self.default)
        return (f"The address's `{self.param}` is {got}, but this page takes {accepted}: it opens on "
                f"`{default or 'none'}` instead.")
