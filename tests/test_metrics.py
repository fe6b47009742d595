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
