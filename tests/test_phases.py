"""Job phases (gpusched/core/phases.py): a hand-built two-phase job finishes at the time computed
by hand on each GPU type, a one-phase job's duration is its work over its throughput, and the
phase reached after running t minutes agrees with the time left."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpusched.core.phases import START, JobPhases, Phase, PhaseError, Position

# Phase 1: 6,000 steps; phase 2: 3,000 steps at a larger batch size (fewer steps per second).
TWO = JobPhases((
    Phase(6000, {"V100": 100.0, "K80": 20.0}, batch_size=32),
    Phase(3000, {"V100": 50.0, "K80": 25.0}, batch_size=64),
))


def test_a_two_phase_job_finishes_at_the_computed_time_on_each_gpu_type():
    # V100: 6000/100 + 3000/50 = 60 + 60 s = 2 min; K80: 6000/20 + 3000/25 = 300 + 120 s = 7 min.
    assert TWO.duration_min("V100") == pytest.approx(2.0)
    assert TWO.duration_min("K80") == pytest.approx(7.0)
    assert TWO.advance("V100", 2.0) == TWO.finished
    assert TWO.advance("K80", 7.0) == TWO.finished
    # Just before the end it is still in its last phase, with a few steps left.
    phase, done = TWO.advance("K80", 7.0 - 1 / 60)
    assert phase == 1 and done == pytest.approx(3000 - 25)


def test_the_phase_reached_after_t_minutes_on_each_gpu_type():
    assert TWO.advance("V100", 0.5) == Position(0, pytest.approx(3000.0))
    assert TWO.advance("V100", 1.0) == Position(1, 0.0)           # phase 1 done exactly
    assert TWO.advance("V100", 1.5) == Position(1, pytest.approx(1500.0))
    assert TWO.advance("K80", 5.0) == Position(1, 0.0)
    assert TWO.advance("K80", 6.0) == Position(1, pytest.approx(1500.0))
    assert TWO.advance("V100", 100.0) == TWO.finished                # it stops at the end


def test_the_time_left_from_a_phase_and_progress():
    assert TWO.remaining_min("V100", Position(1, 1500.0)) == pytest.approx(0.5)    # 1500 / 50 s
    assert TWO.remaining_min("K80", Position(0, 3000.0)) == pytest.approx(4.5)     # 150 + 120 s
    assert TWO.remaining_min("K80", TWO.finished) == 0.0
    # Running in two pieces reaches the same place as running at once.
    halfway = TWO.advance("K80", 2.5)
    assert TWO.advance("K80", 2.0, at=halfway) == TWO.advance("K80", 4.5)


def test_time_run_plus_time_left_is_the_duration_wherever_the_job_stops():
    rng = np.random.default_rng(7)
    for gpu in ("V100", "K80"):
        total = TWO.duration_min(gpu)
        for t in rng.uniform(0, total, size=200):
            left = TWO.remaining_min(gpu, TWO.advance(gpu, float(t)))
            assert left == pytest.approx(total - t, abs=1e-9)


def test_a_one_phase_job_runs_its_work_over_its_throughput():
    job = JobPhases.rigid(134583, {"V100": 94.91094148, "P100": 40.0})
    assert len(job) == 1 and job.total_steps == 134583
    assert job.duration_min("V100") == pytest.approx(134583 / 94.91094148 / 60)
    assert job.duration_min("P100") == pytest.approx(134583 / 40.0 / 60)
    assert job.advance("V100", 10.0) == Position(0, pytest.approx(94.91094148 * 600))


def test_a_gpu_type_a_phase_cannot_run_on():
    job = JobPhases((Phase(100, {"V100": 10.0}), Phase(100, {"V100": 10.0, "K80": 0.0})))
    assert math.isinf(job.duration_min("K80")) and math.isinf(job.duration_min("A100"))
    assert job.advance("K80", 60.0) == START                    # no progress where it cannot run
    assert job.remaining_min("K80", Position(1, 0.0)) == math.inf
    assert job.advance("K80", 5.0, at=Position(1, 40.0)) == Position(1, 40.0)


@pytest.mark.parametrize(("build", "needle"), [
    (lambda: Phase(0, {"V100": 1.0}), "work_steps"),
    (lambda: Phase(float("nan"), {"V100": 1.0}), "work_steps"),
    (lambda: Phase(True, {"V100": 1.0}), "work_steps"),
    (lambda: Phase(10, {"V100": -1.0}), "steps_per_s['V100']"),
    (lambda: Phase(10, {"V100": float("inf")}), "steps_per_s['V100']"),
    (lambda: JobPhases(()), "at least one phase"),
    (lambda: TWO.advance("V100", -1.0), "minutes"),
    (lambda: TWO.advance("V100", float("nan")), "minutes"),
    (lambda: TWO.remaining_min("V100", Position(3, 0.0)), "phase"),
    (lambda: TWO.remaining_min("V100", Position(0, 6001.0)), "progress_steps"),
    (lambda: TWO.remaining_min("V100", Position(0, -1.0)), "progress_steps"),
])
def test_impossible_phases_and_positions_are_refused_in_one_line(build, needle):
    with pytest.raises(PhaseError) as caught:
        build()
    assert needle in str(caught.value) and "\n" not in str(caught.value)


def test_a_phase_is_frozen_and_keeps_its_own_copy_of_the_throughputs():
    speeds = {"V100": 10.0}
    phase = Phase(100, speeds)
    speeds["V100"] = 1.0
    assert phase.rate("V100") == 10.0
    with pytest.raises(TypeError):
        phase.steps_per_s["V100"] = 2.0  # type: ignore[index]
