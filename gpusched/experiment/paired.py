"""Paired comparisons: two policies on the same jobs, seed by seed.

The variance across workload seeds is large (a standard deviation of the order of the mean), so
two policies' means ± std overlap even when one is better on every seed. Run on the same jobs,
their per-seed differences cancel most of that variance: :func:`paired_difference` gives the mean
difference with a confidence interval and counts the seeds each side wins.

Two kinds of interval, both from SciPy:

- **Student t**: the mean ± ``t(n-1)`` standard errors, the quantile from
  ``scipy.special.stdtrit`` (what ``scipy.stats.t.ppf`` computes). It suits metrics whose
  per-seed values are roughly symmetric (mean wait, time to result, slowdown).
- **bootstrap** (``scipy.stats.bootstrap``, bias-corrected and accelerated, BCa; Efron &
  Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 14): resamples the seeds. It suits
  skewed metrics that are never negative and often 0 on most seeds (stall time, p99 wait,
  :data:`BOOTSTRAP_METRICS`): a t interval of such a metric reaches below 0, while a bootstrap
  interval stays within what resampling the measured values can give. Its resamples are drawn
  from ``numpy.random.default_rng(BOOTSTRAP_SEED)``, so the same values give the same interval.

SciPy is imported when an interval is first computed, not with this module: ``scipy.stats`` takes
over a second to import, which the dashboard's first page would otherwise spend before its text.

:func:`interval_method` says which one a metric gets; figures and tables say which they show.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

TIE_TOLERANCE = 1e-9
"""Two per-seed values closer than this (relative to their size) are a tie."""

Method = Literal["t", "bootstrap"]
"""An interval's kind: ``"t"`` (Student t) or ``"bootstrap"`` (BCa bootstrap over seeds)."""

METHOD_NAMES: dict[str, str] = {"t": "t interval", "bootstrap": "bootstrap"}
"""How pages and tables name each kind of interval."""

BOOTSTRAP_METRICS: frozenset[str] = frozenset({
    "stall_min", "p95_wait_min", "p99_wait_min", "max_wait_min", "lost_gpu_hours",
    "restore_gpu_hours", "idle_gpu_min_stalled", "idle_gpu_min_blocked", "idle_gpu_min_queued"})
"""Skewed metrics that are never negative: their intervals are bootstrap intervals."""

BOOTSTRAP_SEED = 20_240_917
"""Seed of the bootstrap's resampling generator."""
BOOTSTRAP_RESAMPLES = 9_999
"""Resamples per bootstrap interval (scipy's default)."""


def interval_method(metric: str) -> Method:
    """The interval a metric's comparisons use: bootstrap for :data:`BOOTSTRAP_METRICS`, else t."""
    return "bootstrap" if metric in BOOTSTRAP_METRICS else "t"


def t_interval(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The Student-t confidence interval of the mean of ``values`` (``scipy.special.stdtrit``),
    ``(low, high)``; ``nan`` ends with fewer than 2 values, the mean itself when they are all equal."""
    from scipy import special

    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return math.nan, math.nan
    mean, sem = float(x.mean()), float(x.std(ddof=1)) / math.sqrt(x.size)
    if sem == 0.0:
        return mean, mean
    half = float(special.stdtrit(x.size - 1, 0.5 + confidence / 2.0)) * sem
    return mean - half, mean + half


def bootstrap_interval(values: Sequence[float] | np.ndarray,
                       confidence: float = 0.95) -> tuple[float, float]:
    """The BCa bootstrap confidence interval of the mean of ``values`` (``scipy.stats.bootstrap``,
    seeded with :data:`BOOTSTRAP_SEED`), ``(low, high)``; ``nan`` ends with fewer than 2 values,
    the mean itself when they are all equal. Its ends lie within the values' range."""
    from scipy import stats

    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return math.nan, math.nan
    if np.all(x == x[0]):
        return float(x[0]), float(x[0])
    with warnings.catch_warnings():  # a few distinct values: BCa may warn of a degenerate jackknife
        warnings.simplefilter("ignore", category=stats.DegenerateDataWarning)
        res = stats.bootstrap((x,), np.mean, confidence_level=confidence, method="BCa",
                              n_resamples=BOOTSTRAP_RESAMPLES, vectorized=True,
                              rng=np.random.default_rng(BOOTSTRAP_SEED))
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not (math.isfinite(low) and math.isfinite(high)):  # BCa undefined: the percentile interval
        boot = res.bootstrap_distribution
        low, high = (float(v) for v in np.quantile(boot, [(1 - confidence) / 2, (1 + confidence) / 2]))
    return low, high


def interval(values: Sequence[float] | np.ndarray, method: Method = "t",
             confidence: float = 0.95) -> tuple[float, float]:
    """The confidence interval of the mean of ``values`` of the given kind."""
    if method == "bootstrap":
        return bootstrap_interval(values, confidence)
    return t_interval(values, confidence)


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
    :param method: the interval's kind (:data:`Method`).
    """

    mean: float
    low: float
    high: float
    n: int
    a_lower: int
    ties: int
    a_higher: int
    confidence: float = 0.95
    method: Method = "t"

    @property
    def excludes_zero(self) -> bool:
        """Whether the interval lies wholly on one side of 0 (the difference is real at this level)."""
        return self.low > 0.0 or self.high < 0.0


def paired_difference(a: Sequence[float], b: Sequence[float], confidence: float = 0.95,
                      method: Method = "t") -> PairedDifference:
    """Mean of ``a[i] - b[i]`` with its confidence interval and the win counts.

    :param a: one policy's metric per seed.
    :param b: the other policy's metric on the same seeds, in the same order.
    :param confidence: confidence level of the interval (0-1).
    :param method: ``"t"`` for a Student-t interval, ``"bootstrap"`` for a BCa bootstrap over the
        per-seed differences (:func:`interval_method` picks one per metric).
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired values need the same seeds: got {x.shape} and {y.shape}")
    d = x - y
    n = int(d.size)
    scale = np.maximum(np.maximum(np.abs(x), np.abs(y)), 1.0)
    tie = np.abs(d) <= TIE_TOLERANCE * scale
    mean = float(d.mean()) if n else math.nan
    low, high = interval(d, method, confidence)
    return PairedDifference(mean, low, high, n, int(((d < 0) & ~tie).sum()), int(tie.sum()),
                            int(((d > 0) & ~tie).sum()), confidence, method)


def mean_interval(values: Sequence[float], confidence: float = 0.95, floor: float | None = None,
                  method: Method = "t") -> tuple[float, float, float]:
    """The mean of ``values`` with its confidence interval, ``(mean, low, high)``.

    :param values: one metric's value per seed.
    :param confidence: confidence level of the interval (0-1).
    :param floor: the lowest value the metric can take (e.g. 0 for a wait); the interval is cut
        there, which keeps it a valid interval for the mean of such a metric.
    :param method: the interval's kind (:func:`interval_method`).
    :return: the mean and the interval's ends (``nan`` ends with fewer than 2 values).
    """
    x = np.asarray(values, dtype=float)
    mean = float(x.mean()) if x.size else math.nan
    low, high = interval(x, method, confidence)
    if floor is not None:
        low = max(low, floor)
    return mean, low, high
