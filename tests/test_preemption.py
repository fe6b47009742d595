"""Preemption: the Preempt action, the las and srtf orders on hand-built cases, and no starvation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import node_groups

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.failures import CheckpointSpec, FailureSpec
from gpusched.core.jobs import Job
from gpusched.core.restore import CheckpointRestore
from gpusched.core.simulator import HOLD, Preempt, Simulator
from gpusched.core.speed import DEFAULT_SPEEDS, GpuSpeeds
from gpusched.core.speed_model import TableSpeeds
from gpusched.policies import get_policy, preemptive_policy_names, queue_policy_names
from gpusched.policies.preemptive import Preemptive
from gpusched.workload.synthetic import generate_jobs


def one_a100() -> Cluster:
    return Cluster([NodeGroup("A100-80GB", 80.0, 1)])


def job(idx: int, arrival: float, duration: float, gpus: int = 1, type_: str = "training") -> Job:
    return Job(id=idx, type=type_, arrival_min=arrival, duration_min=duration, gpus=gpus, vram_gb=60.0,
               compute=1.0)


def test_srtf_preempts_a_long_job_for_a_short_one_that_arrives():
    ckpt = CheckpointSpec(interval_min=1000.0, restore_min=1.0)
    sim = Simulator(one_a100(), [job(0, 0.0, 100.0), job(1, 20.0, 5.0)], window=4,
                    restore=CheckpointRestore(ckpt))
    result = sim.run(get_policy("srtf+best_fit"))
    jobs = result.jobs.set_index("id")
    # B preempts A at 20 and runs 20-25; A resumes at 25: 1 restore + 80 left.
    assert jobs.loc[1, "start_min"] == 20.0 and jobs.loc[1, "end_min"] == 25.0
    assert jobs.loc[0, "preemptions"] == 1 and jobs.loc[0, "lost_min"] == 0.0
    assert jobs.loc[0, "end_min"] == pytest.approx(106.0) and jobs.loc[0, "restore_min"] == 1.0
    assert jobs.loc[0, "wait_min"] == pytest.approx(5.0) and jobs.loc[0, "start_min"] == 0.0
    assert result.metrics["preemptions"] == 1 and result.metrics["jobs_interrupted"] == 0
    stops = result.timeline.stops
    assert stops[["time_min", "job", "kind"]].values.tolist() == [[20.0, 0, "preemption"]]
    assert result.timeline.resumes[["time_min", "job"]].values.tolist() == [[25.0, 0]]


def test_a_job_is_not_preempted_before_it_has_run_the_minimum_and_then_it_is():
    """B arrives 4 minutes into A's run: srtf waits until A has run 10 minutes (a decision point
    the policy asks for), then preempts."""
    sim = Simulator(one_a100(), [job(0, 0.0, 100.0), job(1, 4.0, 5.0)], window=4)
    result = sim.run(get_policy("srtf"))
    jobs = result.jobs.set_index("id")
    assert jobs.loc[1, "start_min"] == pytest.approx(10.0)
    assert jobs.loc[0, "end_min"] == pytest.approx(105.0)  # no checkpoint key: no restore


def test_las_preempts_a_job_once_its_attained_service_crosses_the_threshold():
    """A (1 GPU) has 30 GPU-minutes when B arrives, both in the first queue: no preemption. At
    minute 60 A reaches 60 GPU-minutes, moves to the second queue, and B preempts it."""
    sim = Simulator(one_a100(), [job(0, 0.0, 200.0), job(1, 30.0, 20.0)], window=4,
                    restore=CheckpointRestore(CheckpointSpec(interval_min=50.0, restore_min=2.0)))
    result = sim.run(get_policy("las+best_fit"))
    jobs = result.jobs.set_index("id")
    assert jobs.loc[1, "start_min"] == pytest.approx(60.0) and jobs.loc[1, "end_min"] == pytest.approx(80.0)
    assert jobs.loc[0, "preemptions"] == 1
    assert jobs.loc[0, "end_min"] == pytest.approx(80.0 + 2.0 + 140.0)


def test_las_does_not_preempt_within_a_queue():
    sim = Simulator(one_a100(), [job(0, 0.0, 50.0), job(1, 30.0, 20.0)], window=4)
    result = sim.run(get_policy("las"))
    assert result.metrics["preemptions"] == 0
    assert result.jobs.set_index("id").loc[1, "start_min"] == 50.0


def test_a_preemption_frees_a_whole_gang_on_one_node():
    """A 2-GPU job needs both GPUs of one node: one stop on each node would not do. Both nodes need
    two stops; it stops the worse-ranked pair (the longest remaining times)."""
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 2, count=2)])
    jobs = [job(0, 0.0, 400.0), job(1, 0.0, 500.0), job(2, 0.0, 100.0), job(3, 0.0, 200.0),
            job(4, 20.0, 10.0, gpus=2)]
    result = Simulator(cluster, jobs, window=8).run(get_policy("srtf"))
    t = result.jobs.set_index("id")
    stops = result.timeline.stops
    assert t["preemptions"].tolist() == [1, 1, 0, 0, 0]
    assert stops["time_min"].tolist() == [20.0, 20.0] and sorted(stops["job"]) == [0, 1]
    freed = sorted(g for gpus in stops["gpus"] for g in gpus)
    assert t.loc[4, "start_min"] == 20.0 and sorted(t.loc[4, "gpu_ids"]) == freed
    assert len({int(cluster.gpu_node[g]) for g in freed}) == 1


def test_the_preempt_action_is_checked():
    sim = Simulator(one_a100(), [job(0, 0.0, 100.0), job(1, 4.0, 5.0)], window=4)
    sim.step(0, 0)
    assert sim.run_state.time_min == 4.0 and sim.run_state.is_running(0) and not sim.view.preemptible(0)
    with pytest.raises(ValueError, match="yet"):
        sim.step(Preempt(0))
    with pytest.raises(ValueError, match="not running"):
        sim.step(Preempt(1))
    sim.step(HOLD)  # nothing else happens until A completes
    assert sim.run_state.time_min == 100.0


def test_the_observation_accessors():
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 2)])
    sim = Simulator(cluster, [job(0, 0.0, 100.0, gpus=2), job(1, 30.0, 10.0)], window=4,
                    restore=CheckpointRestore(CheckpointSpec(interval_min=10.0, restore_min=3.0)))
    sim.step(0, 0)
    assert sim.run_state.time_min == 30.0
    assert sim.run_state.attained_service_gpu_min([0, 1]).tolist() == [60.0, 0.0]
    left = sim.lifecycle.remaining_work_min
    assert left(sim.run_state, 0) == 70.0 and left(sim.run_state, 1) == 10.0
    assert not sim.run_state.gpu_down().any()
    sim.step(Preempt(0))
    assert sim.lifecycle.remaining_work_min(sim.run_state, 0) == 70.0
    assert sim.view.declared_left_min(0) == 70.0
    assert sim.view.resume_cost_min(0) == 3.0 and list(sim.run_state.queue) == [0, 1]


def test_the_preemptive_pairs_are_shipped_apart_from_homes():
    assert not set(preemptive_policy_names()) & set(queue_policy_names())
    for name in preemptive_policy_names():
        assert isinstance(get_policy(name), Preemptive)


# ---------------------------------------------------------------------------- no starvation
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_groups, st.integers(5, 50), st.floats(5.0, 60.0), st.integers(0, 2**31 - 1),
       st.sampled_from([1, 4, 16]), st.sampled_from(["las", "srtf"]),
       st.sampled_from(["best_fit", "first_fit", "fastest_fit", "eft"]), st.booleans(),
       st.sampled_from([0.0, 2.0]))
def test_las_and_srtf_never_starve(groups, n_jobs, rate, seed, window, order, placement, speeds, restore):
    cluster = Cluster(groups)
    jobs = generate_jobs(n_jobs, rate, {"training": 0.4, "inference": 0.3, "batch": 0.3},
                         np.random.default_rng(seed), cluster.max_vram_gb_for_gpus())
    table = GpuSpeeds(cluster, DEFAULT_SPEEDS) if speeds else None
    sim = Simulator(cluster, jobs, window=window, speed_model=TableSpeeds(cluster, table),
                    restore=CheckpointRestore(CheckpointSpec(interval_min=30.0, restore_min=restore)),
                    preemption_min_run_min=5.0)
    result = sim.run(get_policy(f"{order}+{placement}"))
    assert result.end_reason == "completed"
    assert result.metrics["jobs_completed"] == n_jobs and result.jobs["finished"].all()
    t = result.jobs
    np.testing.assert_allclose(t["work_min"], t["duration_min"], rtol=1e-9, atol=1e-6)  # nothing lost
    # Two preemptions of a job are at least the minimum run (and its restore) apart.
    stops = result.timeline.stops
    for _, times in stops.groupby("job")["time_min"]:
        assert (np.diff(np.sort(times.to_numpy())) >= 5.0 - 1e-6).all()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_groups, st.integers(5, 40), st.integers(0, 2**31 - 1), st.sampled_from(["las", "srtf"]))
def test_preemptive_orders_finish_every_job_with_failures_too(groups, n_jobs, seed, order):
    cluster = Cluster(groups)
    jobs = generate_jobs(n_jobs, 20.0, {"training": 0.5, "batch": 0.5}, np.random.default_rng(seed),
                         cluster.max_vram_gb_for_gpus())
    sim = Simulator(cluster, jobs, window=8, failures=FailureSpec(node_failures_per_1000_node_days=2000.0),
                    failure_seed=seed,
                    restore=CheckpointRestore(CheckpointSpec(interval_min=20.0, restore_min=1.0)))
    result = sim.run(get_policy(order))
    assert result.end_reason == "completed" and result.jobs["finished"].all()


def test_the_views_remaining_time_guard_and_gang_agree_across_a_preemption():
    """The one remaining time (``srtf``'s, the urgency orders'): a running job ranks as the same job
    preempted, a restore earlier; the guard is its start plus its restore plus the minimum run."""
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 2)])
    sim = Simulator(cluster, [job(0, 0.0, 100.0, gpus=2), job(1, 30.0, 10.0)], window=4,
                    restore=CheckpointRestore(CheckpointSpec(interval_min=10.0, restore_min=3.0)),
                    preemption_min_run_min=5.0)
    view = sim.view
    assert view.left_best_min(0) == 100.0  # waiting, never stopped: its declared run
    sim.step(0, 0)
    running = np.array([0])
    assert view.running_left_best_min(running).tolist() == [70.0]
    assert view.may_stop_from_min(running).tolist() == [5.0]
    sim.step(Preempt(0))
    assert view.left_best_min(0) == 70.0 + 3.0
    jobs = view.jobs
    assert view.gang_of(jobs[0], HOLD) == () and sorted(view.gang_of(jobs[0], 1)) == [0, 1]
    assert view.gang_of(jobs[1], (1,)) == (1,) and view.gang_of(jobs[0], (0,)) == ()
