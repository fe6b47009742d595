"""The Gini coefficient and the time-weighted metrics."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.core.metrics import gini


def test_gini_zero_for_equal_loads():
    assert gini(np.full(8, 0.4)) == 0.0
    assert gini(np.zeros(5)) == 0.0


@pytest.mark.parametrize("n", [2, 3, 8, 64])
def test_gini_one_busy_gpu(n):
    loads = np.zeros(n)
    loads[0] = 0.7
    assert gini(loads) == pytest.approx((n - 1) / n)


def test_gini_hand_computed():
    # loads 1, 2, 3: sum |xi - xj| over all ordered pairs = 8; G = 8 / (2 * 3 * 6) = 2/9.
    assert gini(np.array([3.0, 1.0, 2.0])) == pytest.approx(2 / 9)


def test_running_gini_matches_exact_after_many_updates():
    from gpusched.core.metrics import RunningGini

    rng = np.random.default_rng(0)
    loads = np.zeros(50)
    running = RunningGini(loads)
    for _ in range(2000):
        g = int(rng.integers(50))
        old = loads[g]
        new = 0.0 if rng.random() < 0.2 else float(np.round(rng.random(), 2))
        loads[g] = new
        running.update(old, new)
        assert running.value() == pytest.approx(gini(loads), abs=1e-9)
        assert running.sorted == np.sort(loads).tolist()


def _pair_diff_by_full_slices(su: list[float], old: float, new: float) -> tuple[float, float]:
    """The change of ``sum_{i<j} |x_i - x_j|`` when one sorted load moves from ``old`` to
    ``new``, with every load in between summed (zeros included): the update's definition."""
    from bisect import bisect_left, bisect_right
    from math import fsum

    n = len(su)
    if new > old:
        p, q = bisect_left(su, old), bisect_right(su, new) - 1
        change = -2.0 * fsum(su[p + 1:q + 1])
    else:
        p, q = bisect_right(su, old) - 1, bisect_left(su, new)
        change = 2.0 * fsum(su[q:p])
    return change, (2 * q - n + 1) * new - (2 * p - n + 1) * old


@pytest.mark.parametrize("seed", range(5))
def test_running_gini_skips_idle_zeros_bit_for_bit(seed):
    """Summing from the first load above zero gives the same running sums, bit for bit, as
    summing every load in between, with many idle GPUs and a few rounding residues below zero."""
    from gpusched.core.metrics import RunningGini

    rng = np.random.default_rng(seed)
    loads = np.zeros(64)
    running = RunningGini(loads)
    pair_diff, total = running.pair_diff, running.total
    for _ in range(3000):
        g = int(rng.integers(64))
        old = float(loads[g])
        draw = rng.random()
        new = 0.0 if draw < 0.4 else (-1e-17 if draw < 0.45 else float(rng.random()))
        if new == old:
            continue
        slice_change, move = _pair_diff_by_full_slices(running.sorted, old, new)
        pair_diff += slice_change
        pair_diff += move
        total += new - old
        loads[g] = new
        running.update(old, new)
        assert running.pair_diff == pair_diff
        assert running.total == total
        assert running.sorted == np.sort(loads).tolist()
