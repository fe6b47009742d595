"""What every sub-command shares: the parser whose errors are one line, argument types (whole
numbers, seed lists), and the tables and JSON files commands print and write."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from gpusched.core.metrics import COUNT_KEYS, METRIC_KEYS
from gpusched.errors import GpuschedError

EXIT_BAD_INPUT = 2
"""Exit code of every bad input: a malformed file, an unknown name, a bad argument."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def positive_int(text: str) -> int:
    """An argparse type: a whole number > 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value}")
    return value


def parse_seeds(text: str) -> list[int]:
    """Seeds written as ``1,2,3``, ``42-51`` (an inclusive range) or a mix of both.

    :raises GpuschedError: for anything else, naming what was wrong.
    """
    seeds: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            first, last = (int(lo), int(hi)) if sep and lo else (int(part), int(part))
        except ValueError:
            raise GpuschedError(f"expected seeds like 1,2,3 or 42-51, got '{text}'") from None
        if first < 0:
            raise GpuschedError(f"seeds must be >= 0, got '{part}'")
        if last < first:
            raise GpuschedError(f"empty seed range '{part}'")
        seeds.extend(range(first, last + 1))
    if not seeds:
        raise GpuschedError(f"give at least one seed (got '{text}')")
    return seeds


def seed_list(text: str) -> list[int]:
    """An argparse type: :func:`parse_seeds`."""
    try:
        return parse_seeds(text)
    except GpuschedError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# ---------------------------------------------------------------------------- output
def format_value(key: str, value: float) -> str:
    """A metric for a text table: counts whole, fractions to 3 places, the rest to 1."""
    if key in COUNT_KEYS:
        return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
    if key in ("avg_util", "util_in_band_frac", "gini"):
        return f"{value:.3f}"
    return f"{value:.1f}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain text table: the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    lines = ["  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                       for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def json_metrics(metrics: dict) -> dict:
    """Metrics for JSON: counts as integers, the rest as floats."""
    return {k: int(round(v)) if k in COUNT_KEYS else float(v)
            for k, v in ((k, metrics[k]) for k in METRIC_KEYS)}


def write_json(path: str | Path, payload: dict, indent: int = 2) -> None:
    """Write ``payload`` as JSON.

    :raises GpuschedError: naming the path when it cannot be written.
    """
    try:
        Path(path).write_text(json.dumps(payload, indent=indent) + "\n", encoding="utf-8")
    except OSError as exc:
        raise GpuschedError(f"cannot write '{path}': {exc.strerror}") from None
