"""Fairness metrics (gpusched.core.fairness) against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.core.fairness import (
    FairnessInputError,
    average_active,
    finish_time_fairness,
    jain_index,
    normalised_throughput,
    summarise,
    type_changes,
)


def test_average_active_jobs() -> None:
    # A in [0, 10), B in [5, 15), C in [20, 20] (zero length).
    # A: 1 job on [0, 5), 2 on [5, 10) -> 1.5. B: 2 on [5, 10), 1 on [10, 15) -> 1.5. C: alone -> 1.
    np.testing.assert_allclose(average_active([0, 5, 20], [10, 15, 20]), [1.5, 1.5, 1.0])
    # Three jobs over the same span: 3 each.
    np.testing.assert_allclose(average_active([0, 0, 0], [4, 4, 4]), [3, 3, 3])


def test_finish_time_fairness_rho() -> None:
    # A: JCT 10 s, alone 5 s, 1.5 jobs on average -> ideal 7.5 s, rho 4/3.
    # B: JCT 10 s, alone 8 s -> ideal 12 s, rho 5/6.
    rho = finish_time_fairness([10, 10], [5, 8], [1.5, 1.5])
    np.testing.assert_allclose(rho, [4 / 3, 5 / 6])
    # On a 2-GPU cluster a 1/1.5 share is 1.33 GPUs: a 1-GPU job runs at full speed there (ideal =
    # alone), a 2-GPU job a fraction 1/1.5 of the time (ideal = 1.5 x alone).
    rho = finish_time_fairness([10, 10], [5, 5], [1.5, 1.5], gpus=[1, 2], cluster_gpus=2)
    np.testing.assert_allclose(rho, [2.0, 10 / 7.5])


def test_jain_index() -> None:
    assert jain_index([1, 1, 1]) == pytest.approx(1.0)
    assert jain_index([1, 0]) == pytest.approx(0.5)
    assert jain_index([1, 2, 3]) == pytest.approx(36 / 42)
    assert np.isnan(jain_index([]))


def test_type_changes() -> None:
    assert type_changes(["V100", "V100", None, "P100", "V100", ""]) == 2
    assert type_changes(["K80", None, "K80"]) == 0
    assert type_changes([]) == 0


def test_summary_of_a_run() -> None:
    # The two jobs of test_average_active_jobs (A, B), alone times 5 and 7.5 s.
    summary = summarise(jct_s=[10, 10], alone_s=[5, 7.5], arrival_s=[0, 5],
                        types_per_round=[["V100", "K80"], ["K80", "K80", "P100"]])
    # rho: 10 / (5 x 1.5) = 4/3 and 10 / (7.5 x 1.5) = 8/9.
    assert summary.rho_mean == pytest.approx((4 / 3 + 8 / 9) / 2)
    assert summary.rho_max == pytest.approx(4 / 3)
    assert summary.share_rho_over_1 == pytest.approx(0.5)
    # normalised throughputs 0.5 and 0.75: (1.25)^2 / (2 x 0.8125)
    assert summary.jain == pytest.approx(1.25**2 / (2 * 0.8125))
    np.testing.assert_allclose(normalised_throughput([10, 10], [5, 7.5]), [0.5, 0.75])
    assert summary.type_changes_total == 2 and summary.type_changes_mean == pytest.approx(1.0)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: average_active([0, 5], [10, 1]), "job 1 finishes"),
    (lambda: average_active([0, np.nan], [1, 2]), r"arrival_s\[1\] must be finite"),
    (lambda: finish_time_fairness([10], [0], [1]), r"alone_s\[0\] must be finite and > 0"),
    (lambda: finish_time_fairness([10, 1], [1], [1]), "alone_s must be one number per job"),
    (lambda: finish_time_fairness([10], [1], [1], cluster_gpus=4), "gpus .* is needed"),
    (lambda: jain_index([1, -1]), r"values\[1\] must be finite and >= 0"),
])
def test_bad_input_is_one_line(call, message: str) -> None:
    with pytest.raises(FairnessInputError, match=message) as caught:
        call()
    assert "\n" not in str(caught.value)
