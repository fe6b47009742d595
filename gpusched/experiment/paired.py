"""Paired comparisons: two policies on the same jobs, seed by seed.

The variance across workload seeds is large (a standard deviation of the order of the mean), so
two policies' means ± std overlap even when one is better on every seed. Run on the same jobs,
their per-seed differences cancel most of that variance: :func:`paired_difference` gives the mean
difference with a Student-t confidence interval and counts the seeds each side wins.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TIE_TOLERANCE = 1e-9
"""Two per-seed values closer than this (relative to their size) are a tie."""


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz, Numerical Recipes 6.4)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        h *= step
        if abs(step - 1.0) < eps:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """The CDF of Student's t distribution with ``df`` degrees of freedom."""
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t distribution (bisection on :func:`t_cdf`)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class PairedDifference:
    """``a - b`` over the same seeds.

    :param mean: mean per-seed difference (in the metric's unit).
    :param low: lower end of the confidence interval (``nan`` with fewer than 2 seeds).
    :param high: upper end of the confidence interval.
    :param n: seeds compared.
    :param a_lower: seeds where ``a`` is lower than ``b``.
    :param ties: seeds where they are equal.
    :param a_higher: seeds where ``a`` is higher than ``b``.
    :param confidence: the interval's confidence level (0-1).
    """

    mean: float
    low: float
    high: float
    n: int
    a_lower: int
    ties: int
    a_higher: int
    confidence: float = 0.95

    @property
    def excludes_zero(self) -> bool:
        """Whether the interval lies wholly on one side of 0 (the difference is real at this level)."""
        return self.low > 0.0 or self.high < 0.0


def _t_half_width(x: np.ndarray, confidence: float) -> float:
    """Half the width of the Student-t confidence interval of the mean of ``x`` (``nan`` with fewer
    than 2 values)."""
    n = int(x.size)
    if n < 2:
        return math.nan
    return t_quantile(0.5 + confidence / 2.0, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)


def paired_difference(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> PairedDifference:
    """Mean of ``a[i] - b[i]`` with its Student-t confidence interval and the win counts.

    :param a: one policy's metric per seed.
    :param b: the other policy's metric on the same seeds, in the same order.
    :param confidence: confidence level of the interval (0-1).
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired values need the same seeds: got {x.shape} and {y.shape}")
    d = x - y
    n = int(d.size)
    scale = np.maximum(np.maximum(np.abs(x), np.abs(y)), 1.0)
    tie = np.abs(d) <= TIE_TOLERANCE * scale
    mean = float(d.mean()) if n else math.nan
    half = _t_half_width(d, confidence)
    low, high = mean - half, mean + half
    return PairedDifference(mean, low, high, n, int(((d < 0) & ~tie).sum()), int(tie.sum()),
                            int(((d > 0) & ~tie).sum()), confidence)


def mean_interval(values: Sequence[float], confidence: float = 0.95,
                  floor: float | None = None) -> tuple[float, float, float]:
    """The mean of ``values`` with its Student-t confidence interval, ``(mean, low, high)``.

    :param values: one metric's value per seed.
    :param confidence: confidence level of the interval (0-1).
    :param floor: the lowest value the metric can take (e.g. 0 for a wait); the interval is cut
        there, which keeps it a valid interval for the mean of such a metric.
    :return: the mean and the interval's ends (``nan`` ends with fewer than 2 values).
    """
    x = np.asarray(values, dtype=float)
    mean = float(x.mean()) if x.size else math.nan
    half = _t_half_width(x, confidence)
    low, high = mean - half, mean + half
    if floor is not None:
        low = max(low, floor)
    return mean, low, high
