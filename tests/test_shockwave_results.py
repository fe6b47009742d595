"""Shockwave's per-policy outcomes (gpusched/workload/shockwave_results.py): a hand-made file reads
as written, and the shipped files give back the table of Shockwave's simulator against the real
cluster that the data's README publishes (average JCT, makespan, jobs within 10 %)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hostile_inputs import RESULT_DOC

from gpusched.workload.shockwave_results import (
    RESULT_KINDS,
    read_shockwave_result,
    shipped_result_path,
    shipped_result_policies,
)


def test_a_hand_made_file_reads_as_written(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(RESULT_DOC), encoding="utf-8")
    result = read_shockwave_result(path)
    assert (result.policy, result.kind, result.round_s, result.rounds) == ("fifo", "physical", 120.0, 9)
    assert result.jct_s.tolist() == RESULT_DOC["jct_s"] and result.avg_jct_s == pytest.approx(200.0)
    assert result.timeline[1] == ((2, 40.5, 32), (3, 5.5, 256)) and result.timeline[2] == ()
    assert set(result.timeline) == {0, 1, 2}


# Published beside the data (the README of Shockwave's files): Shockwave's simulator against the
# real cluster, per policy: error of the average JCT and of the makespan (%), and the share of jobs
# whose simulated JCT is within 10 % of the measured one (%).
PUBLISHED = {"allox": (2.0, 1.2, 61), "finish_time_fairness": (0.8, 13.0, 74),
             "max_min_fairness": (-8.4, -4.5, 52)}


@pytest.mark.parametrize("policy", sorted(PUBLISHED))
def test_the_shipped_outcomes_give_the_published_fidelity_of_shockwaves_simulator(policy):
    real = read_shockwave_result(shipped_result_path(policy, "physical"))
    simulated = read_shockwave_result(shipped_result_path(policy, "simulation"))
    assert (real.kind, simulated.kind) == RESULT_KINDS and real.policy == simulated.policy == policy
    assert len(real.jct_s) == len(simulated.jct_s) == 120 and real.round_s == simulated.round_s == 120
    jct_error = 100 * (simulated.avg_jct_s / real.avg_jct_s - 1)
    makespan_error = 100 * (simulated.makespan_s / real.makespan_s - 1)
    within = 100 * np.mean(np.abs(simulated.jct_s - real.jct_s) <= 0.1 * real.jct_s)
    assert (round(jct_error, 1), round(makespan_error, 1), round(within)) == PUBLISHED[policy]


def test_the_shipped_policies():
    assert shipped_result_policies() == ("allox", "finish_time_fairness", "max_min_fairness")
