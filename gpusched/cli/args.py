"""What every sub-command shares: the parser whose errors are one line, argument types (whole
numbers, seeds and seed lists, job and run counts, all within :mod:`gpusched.limits`), and the
tables and JSON files commands print and write."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from gpusched.core.metrics import COUNT_KEYS, FAIRNESS_METRIC_KEYS, METRIC_KEYS, ROUND_METRIC_KEYS
from gpusched.errors import GpuschedError, shorten
from gpusched.limits import (
    DEFAULT_MAX_RUNS,
    LOAD_RANGE,
    MAX_EXPERT_ITERATIONS,
    MAX_GPUS,
    MAX_JOBS,
    MAX_N_ENVS,
    MAX_RUNS,
    MAX_SEED,
    MAX_SEEDS,
    MAX_SPEED_SIGMA,
    MAX_TIMESTEPS,
    MAX_WINDOW,
    MAX_WORKERS,
)
from gpusched.workload.files import (
    check_distinct_outputs,
    check_output_file,
    finite_or_none,
    write_together,
)

EXIT_BAD_INPUT = 2
"""Exit code of every bad input: a malformed file, an unknown name, a bad argument."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None


def positive_int(text: str) -> int:
    """An argparse type: a whole number > 0."""
    value = _whole(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value}")
    return value


def _bounded(low: int, high: int, limit: str):
    """An argparse type: a whole number from ``low`` to ``high`` (``limit`` names the bound)."""

    def parse(text: str) -> int:
        value = _whole(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be <= {high:,} ({limit}), got {value:,}")
        return value

    return parse


seed_value = _bounded(0, MAX_SEED, "the largest seed")
"""An argparse type: one seed, from 0 to :data:`gpusched.limits.MAX_SEED`."""

job_count = _bounded(1, MAX_JOBS, "the limit on jobs")
"""An argparse type: a number of jobs, from 1 to :data:`gpusched.limits.MAX_JOBS`."""

run_count = _bounded(1, MAX_RUNS, "the limit on runs")
"""An argparse type: ``--max-runs``, from 1 to :data:`gpusched.limits.MAX_RUNS`."""

worker_count = _bounded(1, MAX_WORKERS, "the limit on workers")
"""An argparse type: ``--workers``, from 1 to :data:`gpusched.limits.MAX_WORKERS`."""


timestep_count = _bounded(1, MAX_TIMESTEPS, "the limit on training steps")
"""An argparse type: ``--timesteps``, from 1 to :data:`gpusched.limits.MAX_TIMESTEPS`."""

env_count = _bounded(1, MAX_N_ENVS, "the limit on training environments")
"""An argparse type: ``--n-envs``, from 1 to :data:`gpusched.limits.MAX_N_ENVS`."""

expert_rounds = _bounded(1, MAX_EXPERT_ITERATIONS, "the limit on expert-iteration rounds")
"""An argparse type: ``--expert-iterations``, from 1 to :data:`gpusched.limits.MAX_EXPERT_ITERATIONS`."""

gpu_count = _bounded(1, MAX_GPUS, "the limit on GPUs")
"""An argparse type: ``--max-gpus``, from 1 to :data:`gpusched.limits.MAX_GPUS`."""


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{_short(text)}'") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got '{_short(text)}'")
    return value


def _in(value: float, low: float, high: float, limit: str) -> float:
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"must be from {low:g} to {high:g} ({limit}), got {value:g}")
    return value


def _split_range(text: str) -> tuple[str, str] | None:
    """``LO:HI``, ``LO,HI`` or ``LO-HI`` split in two, or ``None`` for one value. A ``-`` that
    starts a number or follows an exponent (``5e-2``) is part of the number, so ``5e-2-0.3`` is
    ``5e-2`` and ``0.3``."""
    for sep in (":", ","):
        if sep in text:
            lo, _, hi = text.partition(sep)
            return lo, hi
    cuts = [i for i, c in enumerate(text) if c == "-" and i > 0 and text[i - 1] not in "eE-"]
    if not cuts:
        return None
    if len(cuts) > 1:
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}': expected LO-HI, LO:HI or LO,HI "
                                         "with two numbers")
    return text[: cuts[0]], text[cuts[0] + 1:]


def _range_of(parse_one, what: str):
    """An argparse type: ``LO-HI``, ``LO:HI`` or ``LO,HI`` (or one value, meaning LO = HI) of
    ``parse_one`` values, LO <= HI; numbers may be in scientific notation (``5e-2:0.3``)."""

    def parse(text: str) -> tuple:
        parts = _split_range(text.strip())
        if parts is None:
            lo = hi = parse_one(text.strip())
        else:
            lo, hi = parse_one(parts[0].strip()), parse_one(parts[1].strip())
        if lo > hi:
            raise argparse.ArgumentTypeError(f"{what} {shorten(text, 40)}: the first value is above "
                                             "the second")
        return lo, hi

    return parse


window_range = _range_of(_bounded(1, MAX_WINDOW, "the longest queue window"), "window range")
"""An argparse type: ``--windows LO-HI`` (or ``LO:HI``), queue windows from 1 to
:data:`gpusched.limits.MAX_WINDOW`."""

load_range = _range_of(lambda t: _in(_number(t), *LOAD_RANGE, "the load range"), "load range")
"""An argparse type: ``--loads LO-HI`` (or ``LO:HI``, ``LO,HI``; ``5e-2:0.3`` too), offered
loads within :data:`gpusched.limits.LOAD_RANGE`."""


def speed_sigma(text: str) -> float:
    """An argparse type: ``--speed-sigma``, from 0 to :data:`gpusched.limits.MAX_SPEED_SIGMA`."""
    return _in(_number(text), 0.0, MAX_SPEED_SIGMA, "the largest speed randomisation")


def policy_list(text: str, check: Callable[[str], object]) -> list[str]:
    """The names of ``--policies`` (comma-separated): at least one, none twice, each passed to
    ``check``, which raises :class:`GpuschedError` for a name it does not know."""
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise GpuschedError("--policies: give at least one policy")
    for i, name in enumerate(names):
        check(name)
        if name in names[:i]:
            raise GpuschedError(f"--policies: '{name}' appears twice")
    return names


def add_max_runs(parser: argparse.ArgumentParser) -> None:
    """Add ``--max-runs`` (the most runs the command may start, see
    :func:`gpusched.experiment.budget.check_run_count`)."""
    parser.add_argument("--max-runs", type=run_count, default=DEFAULT_MAX_RUNS,
                        help=f"start at most this many runs (default {DEFAULT_MAX_RUNS:,}, "
                             f"at most {MAX_RUNS:,})")


def parse_seeds(text: str) -> list[int]:
    """Seeds written as ``1,2,3``, ``42-51`` (an inclusive range) or a mix of both.

    Each seed is from 0 to :data:`gpusched.limits.MAX_SEED`, appears once, and the list holds at
    most :data:`gpusched.limits.MAX_SEEDS` seeds (checked before a range is expanded).

    :raises GpuschedError: for anything else, naming what was wrong.
    """
    seeds: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        first, last = _seed_part(part, text)
        if len(seeds) + (last - first + 1) > MAX_SEEDS:
            raise GpuschedError(f"more than {MAX_SEEDS:,} seeds (the limit of one seed list) in "
                                f"'{_short(text)}'")
        seeds.extend(range(first, last + 1))
    if not seeds:
        raise GpuschedError(f"give at least one seed (got '{_short(text)}')")
    seen: set[int] = set()
    for seed in seeds:
        if seed in seen:
            raise GpuschedError(f"seed {seed} appears twice in '{_short(text)}'")
        seen.add(seed)
    return seeds


def _seed_part(part: str, text: str) -> tuple[int, int]:
    """One item of a seed list: a seed ``N`` or an inclusive range ``FIRST-LAST``, as (first, last).

    :raises GpuschedError: naming the item and what it should be.
    """
    lo, sep, hi = (p.strip() for p in part.partition("-"))
    if not sep:
        lo = hi = part
    elif not lo:  # "-1": a negative seed
        if hi.isdigit():
            raise GpuschedError(f"seeds must be >= 0, got '{shorten(part, 40)}'")
        raise GpuschedError(f"expected seeds like 1,2,3 or 42-51, got '{_short(text)}'")
    if not (lo.isascii() and lo.isdigit()):
        raise GpuschedError(f"expected seeds like 1,2,3 or 42-51, got '{_short(text)}'")
    if not (hi.isascii() and hi.isdigit()):
        raise GpuschedError(f"seed range '{shorten(part, 40)}': expected FIRST-LAST, two whole numbers "
                            f">= 0 (got '{shorten(hi, 20)}' after the first '-')")
    first, last = int(lo), int(hi)
    if last < first:
        raise GpuschedError(f"empty seed range '{shorten(part, 40)}': the last seed is below the first")
    if last > MAX_SEED:
        raise GpuschedError(f"seeds must be <= {MAX_SEED} (the largest seed), got '{shorten(part, 40)}'")
    return first, last


def _short(text: str, width: int = 40) -> str:
    return shorten(text, width)


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
    """Metrics for JSON: counts as integers, the rest as floats; the round metrics of a run in
    rounds (not those of a run without rounds shown beside one, NaN in a comparison's table)."""
    keys = (*METRIC_KEYS, *(k for k in FAIRNESS_METRIC_KEYS if k in metrics),
            *(k for k in ROUND_METRIC_KEYS if k in metrics and not math.isnan(metrics[k])))
    return {k: int(round(v)) if k in COUNT_KEYS else float(v)
            for k, v in ((k, metrics[k]) for k in keys)}


def json_text(payload: dict, indent: int = 2) -> str:
    """``payload`` as strict JSON: a value that does not exist (NaN) is ``null``, never ``NaN``,
    which strict JSON readers refuse."""
    return json.dumps(finite_or_none(payload), indent=indent, allow_nan=False) + "\n"


def write_json(path: str | Path, payload: dict, indent: int = 2) -> None:
    """Write ``payload`` as strict JSON (:func:`json_text`) through a temporary file and a rename.

    :raises GpuschedError: naming the path when it cannot be written (nothing is left half-written).
    """
    text = json_text(payload, indent)
    write_together([path], lambda temps: temps[0].write_text(text, encoding="utf-8"), what="--json")


def check_outputs(outputs: Sequence[tuple[str, str | Path | None]]) -> None:
    """Check a command's output files before any work: each can be written
    (:func:`~gpusched.workload.files.check_output_file`), and no two are the same file.

    :param outputs: ``(option, path)`` pairs; ``None`` (the option was not given) is skipped.
    """
    for what, path in outputs:
        if path is not None:
            check_output_file(path, what=what)
    check_distinct_outputs(outputs)
