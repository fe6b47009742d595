"""The headline in words: the best heuristic against FCFS First-Fit, and a paired difference as a
percentage with its interval, or plainly "not distinguishable" when the interval holds 0.

Home, Compare and the README's finding (``benchmarks/render_results.py``) all word the headline
with :func:`headline_sentence`, from :func:`gpusched.dashboard.headline.headline`'s numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpusched.experiment.paired import METHOD_NAMES, PairedDifference
from gpusched.figures.words import signed


def seed_range(seeds: Sequence[int]) -> str:
    """``"20 seeds (1000–1019)"``; a comma list when the seeds are not consecutive."""
    s = sorted(seeds)
    if len(s) == 1:
        return f"1 seed ({s[0]})"
    span = f"{s[0]}–{s[-1]}" if s == list(range(s[0], s[-1] + 1)) else ", ".join(map(str, s))
    return f"{len(s)} seeds ({span})"


def percent_of(value: float, baseline_mean: float) -> str:
    """``value`` as a signed percentage of the baseline's mean: ``"−48.9 %"``."""
    return f"{signed(100 * value / baseline_mean, 1)} %"


def relative_change(diff: PairedDifference, baseline_mean: float) -> str:
    """A paired difference relative to the baseline's mean, with its interval:
    ``"−48.9 % (95 % interval −74.9 % to −23.0 %)"``."""
    return (f"{percent_of(diff.mean, baseline_mean)} ({diff.confidence * 100:.0f} % interval "
            f"{percent_of(diff.low, baseline_mean)} to {percent_of(diff.high, baseline_mean)})")


def paired_verdict(diff: PairedDifference, baseline_mean: float, baseline: str, unit: str = "min") -> str:
    """A paired difference in words: a percentage better or worse than ``baseline`` when its
    interval excludes 0, else that no difference is measurable; each with the difference and its
    interval in ``unit``."""
    digits = 1 if diff.excludes_zero else 2
    numbers = (f"{signed(diff.mean, digits)} {unit}, {diff.confidence * 100:.0f} % interval "
               f"{signed(diff.low, digits)} to {signed(diff.high, digits)}")
    if not diff.excludes_zero:
        return f"no measurable difference from {baseline} ({numbers})"
    return (f"{abs(diff.mean) / baseline_mean * 100:.1f} % {'better' if diff.mean < 0 else 'worse'} than "
            f"{baseline} ({numbers})")


def headline_sentence(scenario: str, seeds: Sequence[int], best: str, best_label: str,
                      best_mean: float, baseline: str, baseline_mean: float,
                      diff: PairedDifference) -> str:
    """The headline as one Markdown sentence.

    :param scenario: the preset.
    :param seeds: the workload seeds of the numbers.
    :param best: the best heuristic's registry name; ``best_label`` its display name.
    :param best_mean: its mean time to result (min).
    :param baseline: FCFS First-Fit's registry name; ``baseline_mean`` its mean time to result (min).
    :param diff: the best heuristic minus the baseline, mean time to result, paired seed by seed.
    """
    wins = f"shorter on {diff.a_lower} of {diff.n} seeds"
    return (f"On `{scenario}`, over {seed_range(seeds)}, the best queue-aware heuristic, {best_label} "
            f"(`{best}`), brings the average time to result to **{best_mean:.1f} min**, against "
            f"{baseline_mean:.1f} for first-come first-served First-Fit (`{baseline}`): "
            f"{relative_change(diff, baseline_mean)}, paired seed by seed "
            f"({METHOD_NAMES[diff.method]}); {wins}.")


def plain_headline(best_label: str, heuristics: int, best_mean: float, baseline_label: str,
                   baseline_mean: float, diff: PairedDifference) -> str:
    """The headline for Home, in plain words (Markdown): no registry names and no statistics'
    jargon; the interval is said as a range of percentages.

    :param best_label: the best heuristic's display name; ``heuristics`` how many were measured.
    :param best_mean: its mean time to result (min); ``baseline_mean`` the baseline's.
    :param baseline_label: the baseline's display name.
    :param diff: the best heuristic minus the baseline, mean time to result, paired by workload.
    """
    pct = abs(diff.mean) / baseline_mean * 100
    word = "shorter" if diff.mean < 0 else "longer"
    lo, hi = sorted(abs(v) / baseline_mean * 100 for v in (diff.low, diff.high))
    if diff.excludes_zero:
        verdict = f"**{pct:.0f} % {word}** (95 % interval: {lo:.0f} to {hi:.0f} % {word})"
    else:
        verdict = (f"no measurable difference (95 % interval: {percent_of(diff.low, baseline_mean)} to "
                   f"{percent_of(diff.high, baseline_mean)})")
    return (f"The best of the {heuristics} fixed rules measured here, **{best_label}**, brings the average "
            f"time to result (from a job's arrival to its end) to **{best_mean:,.0f} min**, against "
            f"{baseline_mean:,.0f} min for {baseline_label} taking jobs in arrival order: {verdict}; "
            f"shorter on {diff.a_lower} of the {diff.n} workloads.")
