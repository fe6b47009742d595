"""Earliest finish time (EFT): the hand-built case, its reservations, and its equality with
Best-Fit when GPUs have no speeds."""

from __future__ import annotations

from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import node_groups, random_simulator

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.estimator import DeclaredRuntime
from gpusched.core.jobs import Job
from gpusched.core.simulator import Simulator
from gpusched.core.speed import GpuSpeeds
from gpusched.core.speed_model import TableSpeeds
from gpusched.policies import get_policy, preemptive_policy_names, queue_policy_names, urgency_policy_names
from gpusched.policies.eft import EarliestFinishQueue, earliest_finish
from gpusched.policies.orders import ORDERS
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

A100_T4_SPEEDS = {"A100-80GB": {"training": 1.0}, "T4-16GB": {"training": 0.2}}
"""The hand-built case's speeds: a training job runs 5 times as long on the T4."""


def training(job_id: int, arrival: float, duration: float, *, vram: float = 10.0) -> Job:
    return Job(id=job_id, type="training", arrival_min=arrival, duration_min=duration, gpus=1,
               vram_gb=vram, compute=1.0)


def a100_and_t4() -> Cluster:
    return Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("T4-16GB", 16, 1)])


def hand_built(policy: str):
    """One A100 and one T4; a 20-minute job at minute 0, then a 90-minute job at minute 1."""
    cluster = a100_and_t4()
    sim = Simulator(cluster, [training(0, 0.0, 20.0), training(1, 1.0, 90.0)], window=4,
                    speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, A100_T4_SPEEDS)))
    return sim.run(get_policy(policy))


@pytest.mark.parametrize("policy", ["eft", "fcfs+eft", "easy+eft", "sjf+eft", "wfp3+eft"])
def test_eft_waits_for_the_a100_and_finishes_the_second_job_at_minute_110(policy):
    jobs = hand_built(policy).jobs.set_index("id")
    assert jobs.loc[0, "gpu_ids"] == [0] and jobs.loc[0, "end_min"] == 20.0
    assert jobs.loc[1, "gpu_ids"] == [0]  # it waited 19 minutes for the A100 ...
    assert jobs.loc[1, "start_min"] == 20.0 and jobs.loc[1, "end_min"] == 110.0  # ... and saved 341


def test_fastest_fit_starts_the_second_job_on_the_t4_and_finishes_it_at_minute_451():
    jobs = hand_built("sjf+fastest_fit").jobs.set_index("id")
    assert jobs.loc[1, "gpu_ids"] == [1]
    assert jobs.loc[1, "end_min"] == pytest.approx(1.0 + 90.0 / 0.2)


def test_eft_plans_the_gang_and_the_time_by_hand():
    cluster = a100_and_t4()
    sim = Simulator(cluster, [training(0, 0.0, 20.0), training(1, 1.0, 90.0)], window=4,
                    speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, A100_T4_SPEEDS)))
    sim.step(0)  # the 20-minute job on the A100; the clock moves to the second arrival
    assert sim.run_state.time_min == 1.0
    plan = earliest_finish(sim.view, 1)
    assert (plan.start_min, plan.finish_min, plan.gpus) == (20.0, 110.0, (0,))


def test_eft_reads_declared_run_times_not_true_ones():
    """The first job declares 500 minutes on the A100: waiting for it would finish at 590, so EFT
    starts the second job on the T4 at once (finishing at 451)."""
    cluster = a100_and_t4()
    sim = Simulator(cluster, [training(0, 0.0, 20.0), training(1, 1.0, 90.0)],
                    window=4, speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, A100_T4_SPEEDS)),
                    estimator=partial(DeclaredRuntime, estimates={0: 500.0}))
    jobs = sim.run(get_policy("sjf+eft")).jobs.set_index("id")
    assert jobs.loc[1, "gpu_ids"] == [1] and jobs.loc[1, "start_min"] == 1.0


def test_a_later_job_may_use_reserved_gpus_only_if_it_ends_before_the_reservation():
    """The 90-minute job reserves the A100 at minute 20. A 10-minute job arriving at minute 2
    would end at 12 on the A100, but the A100 is busy until 20, so it waits for neither: it runs
    on the T4 (50 minutes) unless it would finish sooner after the reservation (it would not)."""
    cluster = a100_and_t4()
    jobs = [training(0, 0.0, 20.0), training(1, 1.0, 90.0), training(2, 2.0, 10.0)]
    sim = Simulator(cluster, jobs, window=4,
                    speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, A100_T4_SPEEDS)))
    policy = get_policy("sjf+eft")
    out = sim.run(policy).jobs.set_index("id")
    assert policy.promised == {1: 20.0}
    assert out.loc[1, "start_min"] == 20.0 and out.loc[1, "gpu_ids"] == [0]
    assert out.loc[2, "gpu_ids"] == [1] and out.loc[2, "start_min"] == 2.0  # 52 < 110 + 10


# ---------------------------------------------------------------------------- the registry
def test_every_order_pairs_with_eft_among_the_shipped_pairs():
    names, preemptive, urgency = queue_policy_names(), preemptive_policy_names(), urgency_policy_names()
    for order, spec in ORDERS.items():
        policy = get_policy(f"{order}+eft")
        if spec.preempts is not None:  # shipped apart, and wrapped in their preemption
            assert f"{order}+eft" in preemptive and f"{order}+eft" not in names
            policy = policy.inner
        elif spec.urgency:  # listed apart: they act on deadlines and predictions
            assert f"{order}+eft" in urgency and f"{order}+eft" not in names
        else:
            assert f"{order}+eft" in names
        assert isinstance(policy, EarliestFinishQueue)


# ---------------------------------------------------------------------------- without speeds
FIFO_PRESETS = ("homogeneous-8gpu", "hetero-bigfirst-16gpu", "phase1-8gpu", "small-nodes-16gpu",
                "openb-sample")


@pytest.mark.parametrize("preset", FIFO_PRESETS)
def test_fcfs_eft_is_fcfs_best_fit_without_speeds(preset):
    scenario = load_scenario(preset)
    assert scenario.speed is None
    for seed in (0, 1):
        eft = make_simulator(scenario, seed).run(get_policy("fcfs+eft"))
        best_fit = make_simulator(scenario, seed).run(get_policy("fcfs+best_fit"))
        assert eft.metrics == best_fit.metrics
        assert eft.jobs["gpu_ids"].tolist() == best_fit.jobs["gpu_ids"].tolist()


# ---------------------------------------------------------------------------- no starvation
settings_eft = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings_eft
@given(node_groups, st.integers(5, 50), st.floats(5.0, 60.0), st.integers(0, 2**31 - 1),
       st.sampled_from([1, 2, 4, 16]), st.sampled_from([o for o, s in ORDERS.items() if s.preempts is None]),
       st.booleans())
def test_eft_never_starves_and_never_delays_a_reservation(groups, n_jobs, rate, seed, window, order,
                                                          with_speeds):
    sim = random_simulator(groups, n_jobs, rate, seed, window, with_speeds)
    policy = get_policy(f"{order}+eft")
    result = sim.run(policy)
    assert result.end_reason == "completed"
    assert result.metrics["jobs_completed"] == n_jobs
    for idx, promised in policy.promised.items():
        started = sim.run_state.record.start_min[idx]
        assert started <= promised + 1e-6, (idx, started, promised)


# ---------------------------------------------------------------------------- the JCT lookahead
@pytest.mark.parametrize(("objective", "mean_jct"), [("jct", 95.0), ("wait", 235.0)])
def test_the_window_lookahead_scores_forks_by_its_objective(objective, mean_jct):
    """Base: SJF with Fastest-Fit. By JCT, at minute 0 the 20-minute job goes to the T4 (forks
    score A100 235, T4 95, hold 235.5) and the 90-minute one takes the A100 at minute 1: JCTs 100
    and 90. By wait every first choice ties at 0 and the base's own choice (the A100) stays; the
    90-minute job then starts on the T4 at once rather than wait 19 minutes: JCTs 20 and 450."""
    from gpusched.policies.window_lookahead import WindowLookahead

    cluster = a100_and_t4()
    sim = Simulator(cluster, [training(0, 0.0, 20.0), training(1, 1.0, 90.0)], window=4,
                    speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, A100_T4_SPEEDS)))
    result = sim.run(WindowLookahead(lambda: get_policy("sjf+fastest_fit"), objective=objective))
    assert result.metrics["avg_jct_min"] == pytest.approx(mean_jct)
