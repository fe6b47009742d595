"""Phases in the simulator (gpusched/core/phase_mechanism.py): a hand-built job of two phases
finishes at the time computed by hand on each GPU type, event-driven and under rounds, moves to its
next phase at the computed boundary, keeps its progress through phases when rounds stop and resume
it, and the round policies see its current phase's throughputs."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.failures import CheckpointSpec
from gpusched.core.jobs import Job
from gpusched.core.phase_mechanism import PhaseClock, PhasedWork, phased_job_minutes
from gpusched.core.phases import JobPhases, Phase
from gpusched.core.restore import CheckpointRestore
from gpusched.core.rounds.mechanism import RoundSpec
from gpusched.core.simulator import Simulator
from gpusched.policies import get_policy
from gpusched.policies.rounds.scheduler import round_problem

# Phase 0: 6,000 steps at 100 steps/s on a V100, 20 on a K80; phase 1: 3,000 steps at 50 and 25.
# V100: 60 s + 60 s = 2 min (boundary at 1 min); K80: 300 s + 120 s = 7 min (boundary at 5 min).
TWO = JobPhases((Phase(6000, {"V100": 100.0, "K80": 20.0}, batch_size=32),
                 Phase(3000, {"V100": 50.0, "K80": 25.0}, batch_size=64)))
EXPECTED = {"V100": (2.0, 1.0), "K80": (7.0, 5.0)}
"""GPU model -> (minutes to finish, minute of the phase change), by hand."""


def _job(i: int, arrival: float = 0.0) -> Job:
    return Job(id=i, type="training", arrival_min=arrival, duration_min=phased_job_minutes(TWO, "V100"),
               gpus=1, vram_gb=1.0, compute=1.0)


def _cluster(models: tuple[str, ...]) -> Cluster:
    return Cluster([NodeGroup(m, 16, 1, 1) for m in models])


def _sim(models: tuple[str, ...], jobs: list[Job], rounds: RoundSpec | None = None, **options) -> Simulator:
    work = PhasedWork({j.id: TWO for j in jobs}, "V100")
    return Simulator(_cluster(models), jobs, phases=work, rounds=rounds, **options)


@pytest.mark.parametrize("model", ["V100", "K80"])
def test_event_driven_a_two_phase_job_finishes_at_the_computed_time(model):
    sim = _sim((model,), [_job(0, arrival=3.0)])
    sim.run(get_policy("first_fit"))
    end, change = EXPECTED[model]
    table = sim.jobs_table()
    assert float(table["end_min"].iloc[0]) == pytest.approx(3.0 + end, abs=1e-9)
    assert sim.run_state.phases.changes == [(pytest.approx(3.0 + change, abs=1e-9), 0, 1)]


@pytest.mark.parametrize("model", ["V100", "K80"])
@pytest.mark.parametrize("policy", ["max_min_fairness", "fifo_perf", "max_min_fairness_perf"])
def test_under_rounds_a_two_phase_job_finishes_at_the_computed_time(model, policy):
    # 0.7-min rounds: the phase change and the end fall inside rounds, not at their edges
    sim = _sim((model,), [_job(0)], RoundSpec(length_min=0.7, reset_min=0))
    sim.run(get_policy(policy))
    end, change = EXPECTED[model]
    assert float(sim.jobs_table()["end_min"].iloc[0]) == pytest.approx(end, abs=1e-9)
    assert [c[2] for c in sim.run_state.phases.changes] == [1]
    assert sim.run_state.phases.changes[0][0] == pytest.approx(change, abs=1e-9)


def test_two_phased_jobs_sharing_one_gpu_keep_their_progress_through_the_phases():
    # Two such jobs time-share one K80 in 0.7-min rounds: every stop saves the progress made in
    # whichever phase it was, so the GPU does 2 x 7 = 14 minutes of work and the last job ends at 14.
    sim = _sim(("K80",), [_job(0), _job(1)], RoundSpec(length_min=0.7, reset_min=0))
    sim.run(get_policy("max_min_fairness"))
    ends = sorted(sim.jobs_table()["end_min"].astype(float))
    assert ends[1] == pytest.approx(14.0, abs=1e-6)
    assert len(sim.run_state.log.stops) > 2  # they were stopped and resumed across the boundary
    assert sorted(c[1] for c in sim.run_state.phases.changes) == [0, 1]


def test_a_move_between_gpu_types_runs_each_phase_at_the_new_types_speed():
    # Preempted on the V100 after 0.5 min (3,000 of phase 0's steps done) and resumed on the K80:
    # 3,000 steps at 20/s (150 s) + 3,000 at 25/s (120 s) = 4.5 min more, ending at minute 5.
    clock = PhaseClock.of(TWO, "V100")
    done = clock.advance("V100", 0.0, 0.5)
    assert clock.minutes("K80", done) == pytest.approx(4.5)
    assert clock.advance("K80", done, 4.5) == pytest.approx(clock.total)


def test_round_policies_see_the_current_phases_throughputs():
    sim = _sim(("V100", "K80"), [_job(0)], RoundSpec(length_min=0.7, reset_min=0))
    view, run = sim.view, sim.run_state
    from gpusched.core.cluster import ClusterState

    rows = []
    for phase in (0, 1):
        run.phases.phase[0] = phase
        problem = round_problem(view, run.rounds, np.array([0]), ClusterState(sim.setup.cluster))
        rows.append(problem.throughput[0].tolist())
    assert rows == [[1.0, pytest.approx(0.2)], [1.0, pytest.approx(0.5)]]


def test_a_job_whose_duration_is_not_its_phases_is_refused():
    bad = Job(id=7, type="training", arrival_min=0.0, duration_min=3.0, gpus=1, vram_gb=1.0, compute=1.0)
    with pytest.raises(ValueError, match="job 7"):
        _sim(("V100",), [bad])


def test_a_checkpointed_phased_job_loses_only_the_work_since_its_checkpoint():
    # It fails nowhere here; a checkpointed run stopped by rounds keeps all (preemption saves).
    spec = CheckpointSpec(interval_min=60, types=("training",), restore_min=0.1)
    sim = _sim(("K80",), [_job(0), _job(1)], RoundSpec(length_min=1.0, reset_min=0),
               restore=CheckpointRestore(spec))
    sim.run(get_policy("max_min_fairness"))
    restores = sum(r[3] for r in sim.run_state.log.resumes)
    ends = sorted(sim.jobs_table()["end_min"].astype(float))
    assert ends[1] == pytest.approx(14.0 + restores, abs=1e-6)


def test_a_fork_copies_the_phases_and_continues_like_the_original():
    jobs = [_job(i, arrival=0.3 * i) for i in range(3)]
    sim = _sim(("K80",), jobs, RoundSpec(length_min=0.7, reset_min=0))
    sim.run(get_policy("max_min_fairness"))
    reference = sim.jobs_table()["end_min"].to_numpy()
    changes = list(sim.run_state.phases.changes)
    sim.reset()
    first = get_policy("max_min_fairness")
    first.bind(sim.view)
    while sim.run_state.time_min < 15.0:  # after the first job's phase change, before the others'
        slot, action = first.decide(sim.view)
        sim.step(action, slot)
    assert len(sim.run_state.phases.changes) == 1
    twin = sim.fork()
    assert twin.run_state.phases is not sim.run_state.phases
    second = get_policy("max_min_fairness")
    second.bind(twin.view)
    for run, policy in ((sim, first), (twin, second)):
        while not run.run_state.done:
            slot, action = policy.decide(run.view)
            run.step(action, slot)
        np.testing.assert_array_equal(run.jobs_table()["end_min"].to_numpy(), reference)
        assert run.run_state.phases.changes == changes


# Phase 0: 10 epochs of 600 steps at 100 steps/s (60 s on a V100); phase 1: 10 epochs of 300 steps
# at 60 steps/s (50 s). Its work: 1 min then 5/6 min, reference minutes on the V100.
EPOCHS = JobPhases((Phase(6000, {"V100": 100.0}, batch_size=32, epochs=10),
                    Phase(3000, {"V100": 60.0}, batch_size=64, epochs=10)))


def test_a_job_reports_its_epochs_left_at_its_current_batch_size():
    """A quarter into phase 0 (2.5 epochs done) the job reports 17.5 epochs at phase 0's 0.1 min
    each, 1.75 min, where 1.5833 min of work is truly left; in its last phase it reports the truth.
    Its steps per reference second are its phase's: 6,000 / 60 s, then 3,000 / 50 s."""
    clock = PhaseClock.of(EPOCHS, "V100")
    share, per_s = clock.as_reported(0.25)
    assert share == pytest.approx(1.75 / (1.0 + 50 / 60 - 0.25))
    assert per_s == pytest.approx(100.0)
    assert clock.as_reported(1.5) == (1.0, pytest.approx(60.0))
    assert PhaseClock.of(TWO, "V100").as_reported(0.25) == (1.0, pytest.approx(100.0))  # no epochs


def test_round_policies_see_the_work_left_a_phased_job_reports():
    jobs = [Job(id=0, type="training", arrival_min=0.0, duration_min=phased_job_minutes(EPOCHS, "V100"),
                gpus=1, vram_gb=1.0, compute=1.0)]
    sim = Simulator(_cluster(("V100",)), jobs, rounds=RoundSpec(length_min=0.7, reset_min=0),
                    phases=PhasedWork({0: EPOCHS}, "V100"))
    view, run = sim.view, sim.run_state
    from gpusched.core.cluster import ClusterState

    run.rounds.work_min[0, 0] = 0.25
    problem = round_problem(view, run.rounds, np.array([0]), ClusterState(sim.setup.cluster))
    assert problem.remaining[0] == pytest.approx(60 * (1.0 + 50 / 60 - 0.25))
    assert problem.reported_remaining[0] == pytest.approx(60 * 1.75)
    assert problem.steps_per_unit[0] == pytest.approx(100.0)
