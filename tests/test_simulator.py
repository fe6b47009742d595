"""The simulator's dynamics and metrics on hand-checkable runs."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_job

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.simulator import Simulator
from gpusched.errors import InfeasibleJobError
from gpusched.policies import HOLD, get_policy


class Always:
    """A policy that always answers the same action."""

    name = "always"

    def __init__(self, action):
        self.action = action

    def select(self, state, job):
        return self.action


def one_gpu(vram: float = 16) -> Cluster:
    return Cluster([NodeGroup("T4-16GB", vram, 1)])


def test_fifo_run_with_hand_computed_waits():
    jobs = [make_job(0, arrival=0, duration=10, compute=1.0),
            make_job(1, arrival=5, duration=10, compute=1.0)]
    result = Simulator(one_gpu(), jobs).run(get_policy("first_fit"))
    t = result.jobs.set_index("id")
    assert t.loc[0, "start_min"] == 0 and t.loc[1, "start_min"] == 10
    m = result.metrics
    assert m["avg_wait_min"] == pytest.approx(2.5)
    assert m["max_wait_min"] == pytest.approx(5.0)
    assert m["makespan_min"] == pytest.approx(20.0)
    assert m["avg_util"] == pytest.approx(1.0)
    assert m["jobs_completed"] == 2 and m["jobs_unfinished"] == 0
    # Job 1 could not fit while job 0 ran: a hold, but not a stall.
    assert m["stall_min"] == 0


def test_placing_does_not_advance_time_and_hold_jumps_to_next_event():
    jobs = [make_job(0, arrival=0, compute=0.3), make_job(1, arrival=0, compute=0.3),
            make_job(2, arrival=7, compute=0.3)]
    sim = Simulator(one_gpu(), jobs)
    assert sim.run_state.time_min == 0 and sim.view.head_job.id == 0
    assert sim.step(0) is True
    assert sim.run_state.time_min == 0 and sim.view.head_job.id == 1
    assert sim.step(HOLD) is False
    assert sim.run_state.time_min == 7 and sim.view.head_job.id == 1
    assert sim.run_state.integrals.stall_min == pytest.approx(7.0)


def test_misroute_counts_as_hold_and_is_recorded():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("T4-16GB", 16, 1)])
    jobs = [make_job(0, arrival=0, vram=40, duration=10), make_job(1, arrival=3, vram=4)]
    sim = Simulator(cluster, jobs)
    assert sim.step(1) is False  # 40 GB on the T4: does not fit
    assert sim.run_state.log.misroutes == [(0.0, 0, 1, "capacity")]
    assert sim.run_state.time_min == 3


def test_dead_stall_ends_the_run_and_keeps_every_job():
    jobs = [make_job(0, arrival=0), make_job(1, arrival=1)]
    result = Simulator(one_gpu(), jobs).run(Always(HOLD))
    assert result.end_reason == "dead_stall"
    m = result.metrics
    assert m["jobs_submitted"] == 2 and m["jobs_unfinished"] == 2 and m["jobs_completed"] == 0
    # Both waited until the end of the run (t = 1).
    assert m["avg_wait_min"] == pytest.approx(0.5)


def test_horizon_cuts_the_run_and_counts_waits_to_it():
    jobs = [make_job(0, arrival=0, duration=100, compute=1.0),
            make_job(1, arrival=10, duration=5, compute=1.0)]
    sim = Simulator(one_gpu(), jobs, horizon_min=50)
    result = sim.run(get_policy("first_fit"))
    assert result.end_reason == "horizon"
    t = result.jobs.set_index("id")
    assert t.loc[1, "wait_min"] == pytest.approx(40.0)
    assert not t.loc[0, "finished"] and result.metrics["jobs_unfinished"] == 2
    assert result.metrics["makespan_min"] == pytest.approx(50.0)


def test_jobs_after_the_horizon_are_unfinished_with_wait_zero_never_negative():
    jobs = [make_job(0, arrival=0, duration=100, compute=1.0),
            make_job(1, arrival=10, duration=5, compute=1.0),
            make_job(2, arrival=80, duration=5, compute=1.0),
            make_job(3, arrival=500, duration=5, compute=1.0)]
    result = Simulator(one_gpu(), jobs, horizon_min=50).run(get_policy("first_fit"))
    t = result.jobs.set_index("id")
    assert (t["wait_min"] >= 0).all()
    assert t.loc[2, "wait_min"] == 0.0 and t.loc[3, "wait_min"] == 0.0
    assert not t.loc[2, "finished"] and not t.loc[3, "finished"]
    assert t.loc[1, "wait_min"] == pytest.approx(40.0)  # arrived, still waiting at the horizon
    m = result.metrics
    assert m["jobs_submitted"] == 4 and m["jobs_unfinished"] == 4
    assert m["avg_wait_min"] == pytest.approx(40 / 4) and m["max_wait_min"] == pytest.approx(40.0)


def test_infeasible_job_is_refused_with_its_id():
    with pytest.raises(InfeasibleJobError, match="job 3 .* 40 GB"):
        Simulator(one_gpu(), [make_job(3, vram=40)])
    with pytest.raises(InfeasibleJobError, match="job 0 .*2 GPU"):
        Simulator(one_gpu(), [make_job(0, gpus=2)])


def test_gang_placement_uses_one_node():
    cluster = Cluster([NodeGroup("T4-16GB", 16, 1), NodeGroup("V100-32GB", 32, 4)])
    jobs = [make_job(0, gpus=4, vram=8, compute=0.5)]
    result = Simulator(cluster, jobs).run(get_policy("first_fit"))
    assert sorted(result.jobs.loc[0, "gpu_ids"]) == [1, 2, 3, 4]
    assert result.jobs.loc[0, "node"] == 1


def test_reward_total_matches_formula():
    jobs = [make_job(0, arrival=0, duration=60, compute=1.0),
            make_job(1, arrival=0, duration=60, compute=1.0)]
    result = Simulator(one_gpu(), jobs).run(get_policy("first_fit"))
    # 2 completions; job 1 waits 1 hour; utilisation 1.0 is outside the 0.6-0.8 band; Gini 0.
    assert result.metrics["total_reward"] == pytest.approx(2 * 1.0 - 1.0)


def test_timeline_derives_gpu_state_and_queue():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 2)])
    jobs = [make_job(0, arrival=0, duration=10, vram=30, compute=0.5),
            make_job(1, arrival=2, duration=10, vram=30, compute=0.5, gpus=2),
            make_job(2, arrival=3, duration=5, vram=60, compute=0.5)]
    result = Simulator(cluster, jobs).run(get_policy("first_fit"))
    frames = result.timeline.gpu_frames(np.array([1.0, 2.5, 11.0]))
    assert frames.vram_used_gb[0].tolist() == [30, 0]
    assert frames.vram_used_gb[1].tolist() == [60, 30]
    assert frames.jobs_running[1].tolist() == [2, 1]
    assert result.timeline.queue_length_at(np.array([3.0])).tolist() == [1]


def test_cluster_util_steps_integrate_to_avg_util(hetero_cluster):
    from gpusched.experiment.runner import run_policy
    from gpusched.workload.presets import load_scenario

    result = run_policy(load_scenario("ll-stall-mini"), "first_fit", seed=1)
    t, u = result.timeline.cluster_util_steps()
    integral = float(np.sum(u[:-1] * np.diff(t)))
    span = result.metrics["makespan_min"]
    assert integral / span == pytest.approx(result.metrics["avg_util"], rel=1e-6)


def test_fork_is_independent_and_continues_like_the_original():
    from gpusched.workload.build import make_simulator
    from gpusched.workload.presets import load_scenario

    scenario = load_scenario("phase1-8gpu")
    policy = get_policy("best_fit")
    sim = make_simulator(scenario, seed=4)
    for _ in range(120):
        sim.step(policy.select(sim.run_state.state, sim.view.head_job))
    run = sim.run_state
    snapshot = (run.time_min, list(run.queue), run.state.vram_used_gb.copy(), sim.metrics())
    twin = sim.fork()
    for _ in range(200):  # a different future on the fork: First-Fit
        twin.step(get_policy("first_fit").select(twin.run_state.state, twin.view.head_job))
    assert (sim.run_state.time_min, list(sim.run_state.queue)) == snapshot[:2]
    assert np.array_equal(sim.run_state.state.vram_used_gb, snapshot[2]) and sim.metrics() == snapshot[3]

    twin = sim.fork()
    for each in (sim, twin):
        while not each.run_state.done:
            each.step(policy.select(each.run_state.state, each.view.head_job))
    reference = make_simulator(scenario, seed=4).run(policy).metrics
    assert sim.metrics() == twin.metrics() == reference
