"""The queue window and the queue-aware heuristics: which job starts, EASY's reservation, and the
FIFO policies unchanged on any window."""

from __future__ import annotations

from functools import partial

import pytest
from conftest import make_job
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import node_groups, random_simulator

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.estimator import DeclaredRuntime
from gpusched.core.jobs import Job
from gpusched.core.simulator import HOLD, Simulator
from gpusched.core.speed_model import TableSpeeds
from gpusched.errors import UnknownPolicyError
from gpusched.policies import get_policy, policy_label, queue_policy_names
from gpusched.policies.queue import EasyBackfill, reservation
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario


def job(job_id: int, *, arrival: float = 0.0, duration: float = 10.0, gpus: int = 1, vram: float = 8.0,
        compute: float = 0.5, priority: int = 2) -> Job:
    return Job(id=job_id, type="batch", arrival_min=arrival, duration_min=duration, gpus=gpus,
               vram_gb=vram, compute=compute, priority=priority)


def one_a100() -> Cluster:
    return Cluster([NodeGroup("A100-80GB", 80, 1)])


def window_of(scenario: str, window: int):
    return load_scenario(scenario).with_overrides(queue={"window": window})


# ---------------------------------------------------------------------------- FIFO policies unchanged
@pytest.mark.parametrize("window", [1, 4, 16])
@pytest.mark.parametrize("placement", ["first_fit", "best_fit", "least_loaded", "least_loaded_fit",
                                       "fastest_fit"])
def test_fcfs_plus_a_placement_is_that_placement_on_any_window(window, placement):
    scenario = window_of("phase1-8gpu", window).with_overrides(speed="default")
    for seed in (0, 1):
        a = make_simulator(scenario, seed).run(get_policy(placement))
        b = make_simulator(scenario, seed).run(get_policy(f"fcfs+{placement}"))
        assert a.metrics == b.metrics
        assert a.jobs.drop(columns="gpu_ids").equals(b.jobs.drop(columns="gpu_ids"))


def test_a_fifo_policy_answers_for_the_head_and_never_backfills():
    result = make_simulator(window_of("phase1-8gpu", 16), 0).run(get_policy("best_fit"))
    assert result.metrics["backfilled_jobs"] == 0
    assert (result.jobs["start_slot"] <= 0).all()


# ---------------------------------------------------------------------------- the orders, by hand
def _first_decision(policy: str, jobs: list[Job], cluster: Cluster, window: int = 8,
                    running: list[tuple[Job, int]] = (), estimates: dict[int, float] | None = None,
                    ) -> tuple[int, object]:
    """The first decision after ``running`` jobs were started (on the given GPUs), with the
    run times ``estimates`` declares by job id (the true ones for the others)."""
    sim = Simulator(cluster, [j for j, _ in running] + jobs, window=window,
                    estimator=partial(DeclaredRuntime, estimates=estimates))
    for j, gpu in running:
        assert sim.step(gpu, [w.id for w in sim.view.window_jobs()].index(j.id))
    p = get_policy(policy)
    if hasattr(p, "bind"):
        p.bind(sim.view)
    return p.decide(sim.view)


def test_fitfirst_starts_the_first_window_job_that_fits():
    # The A100 has 20 GB left: the 40 GB head cannot start, the 16 GB job behind it can.
    busy = job(0, vram=60, duration=100)
    slot, action = _first_decision("fitfirst", [job(1, vram=40), job(2, vram=30), job(3, vram=16)],
                                   one_a100(), running=[(busy, 0)])
    assert (slot, action) == (2, 0)


def test_sjf_starts_the_shortest_declared_job_that_fits():
    # The A100 runs a 50 GB job; job 4 is the shortest but its 40 GB do not fit now.
    busy = job(0, vram=50, duration=100)
    jobs = [job(1, duration=50), job(2, duration=5), job(3, duration=30), job(4, duration=1, vram=40)]
    slot, _ = _first_decision("sjf", jobs, one_a100(), running=[(busy, 0)], estimates={2: 40.0})
    assert slot == 2  # job 3 (30 min declared); job 2 declares 40 although it runs 5


def test_priority_starts_the_highest_priority_and_fcfs_within_it():
    jobs = [job(1, priority=1), job(2, priority=3), job(3, priority=3), job(4, priority=2)]
    slot, _ = _first_decision("priority", jobs, one_a100())
    assert slot == 1


def test_wfp3_weighs_wait_over_duration_cubed_times_gpus():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 4)])
    # At time 10: job 1 waited 10 for 100 min, job 2 waited 4 for 10 min with 2 GPUs:
    # (10/100)^3 * 1 = 0.001 < (4/10)^3 * 2 = 0.128.
    jobs = [job(1, arrival=0, duration=100), job(2, arrival=6, duration=10, gpus=2)]
    sim = Simulator(cluster, [job(0, arrival=0, duration=10, compute=1.0, vram=70, gpus=4)] + jobs,
                    window=8)
    assert sim.step((0, 1, 2, 3))
    assert not sim.step(HOLD) and sim.run_state.time_min == 6  # job 2 arrives
    assert not sim.step(HOLD) and sim.run_state.time_min == 10  # job 0 ends
    assert len(sim.run_state.queue) == 2
    slot, _ = get_policy("wfp3").decide(sim.view)
    assert slot == 1


def test_fastest_fit_picks_the_fastest_gpu_then_best_fit():
    from gpusched.core.speed import GpuSpeeds

    cluster = Cluster([NodeGroup("T4-16GB", 16, 1), NodeGroup("A100-80GB", 80, 1),
                       NodeGroup("A100-40GB", 40, 1)])
    table = {"T4-16GB": {"batch": 0.2}, "A100-40GB": {"batch": 1.0}}
    sim = Simulator(cluster, [job(0, vram=8)], speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, table)))
    policy = get_policy("fastest_fit")
    policy.bind(sim.view)
    # Both A100s run batch jobs at 1.0; Best-Fit prefers the 40 GB one (less VRAM left).
    assert policy.select(sim.run_state.state, sim.view.head_job) == 2
    unbound = get_policy("fastest_fit")  # no speed table: plain Best-Fit (the T4)
    assert unbound.select(sim.run_state.state, sim.view.head_job) == 0


# ---------------------------------------------------------------------------- EASY
def test_easy_backfills_a_job_that_ends_before_the_reservation():
    # The A100 (GPU 0) runs a 60 GB job until 100. The head needs 40 GB: reserved at 100 on GPU 0.
    # A 16 GB, 50-minute job fits now beside it and ends at 50 < 100: it is backfilled.
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("T4-16GB", 16, 1)])
    busy = job(0, vram=60, duration=100)
    slot, action = _first_decision("easy", [job(1, vram=40), job(2, vram=16, duration=50)], cluster,
                                   running=[(busy, 0)])
    assert slot == 1 and tuple(action) in ((0,), (1,))


def test_easy_does_not_backfill_a_job_that_would_delay_the_reservation():
    # Same, but the 16 GB job runs 150 minutes and the only GPU it fits on is the reserved A100:
    # it would still hold 16 GB at 100, when the head needs 40 of the 80 (60 + 16 + 40 > 80).
    busy = job(0, vram=60, duration=100)
    slot, action = _first_decision("easy", [job(1, vram=40), job(2, vram=16, duration=150)], one_a100(),
                                   running=[(busy, 0)])
    assert (slot, action) == (0, HOLD)


def test_easy_backfills_a_long_job_away_from_the_reserved_gpus():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("A100-80GB", 80, 1)])
    busy = [(job(0, vram=60, duration=100), 0), (job(1, vram=60, duration=200), 1)]
    # The head (40 GB) is reserved on GPU 0 at 100. A long 16 GB job may start on GPU 1 only.
    slot, action = _first_decision("easy", [job(2, vram=40), job(3, vram=16, duration=500)], cluster,
                                   running=busy)
    assert slot == 1 and tuple(action) == (1,)


def test_the_reservation_is_the_first_declared_end_that_frees_enough():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 2)])
    sim = Simulator(cluster, [job(0, vram=50, duration=30), job(1, vram=50, duration=80),
                              job(2, vram=70, gpus=2)], window=4,
                    estimator=partial(DeclaredRuntime, estimates={0: 20.0}))
    assert sim.step(0) and sim.step(1)
    res = reservation(sim.view, 2)
    # Declared ends: job 0 at 20 (its true end is 30), job 1 at 80; the 2-GPU head needs both.
    assert res.start_min == 80 and res.gpus.tolist() == [True, True]


settings_easy = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings_easy
@given(node_groups, st.integers(5, 60), st.floats(5.0, 60.0), st.integers(0, 2**31 - 1),
       st.sampled_from([2, 4, 16]), st.sampled_from(["best_fit", "first_fit", "fastest_fit"]),
       st.booleans())
def test_no_backfilled_job_delays_the_head_jobs_reservation(groups, n_jobs, rate, seed, window, placement,
                                                            with_speeds):
    sim = random_simulator(groups, n_jobs, rate, seed, window, with_speeds)
    policy = get_policy(f"easy+{placement}")
    assert isinstance(policy, EasyBackfill)
    result = sim.run(policy)
    assert result.metrics["jobs_completed"] == n_jobs
    for idx, promised in policy.reservations.items():
        started = sim.run_state.record.start_min[idx]
        assert started <= promised + 1e-6, (idx, started, promised)


# ---------------------------------------------------------------------------- names
def test_order_plus_placement_names_resolve_and_are_labelled():
    assert policy_label("easy+fastest_fit") == "EASY + Fastest-Fit"
    assert policy_label("easy") == "EASY + Best-Fit"
    assert policy_label("sjf+first_fit") == "SJF + First-Fit"
    assert get_policy("sjf+first_fit").name == "sjf+first_fit"
    assert len(queue_policy_names()) == 30 and "easy+fastest_fit" in queue_policy_names()
    with pytest.raises(UnknownPolicyError, match="not a queue order"):
        get_policy("lifo+best_fit")
    with pytest.raises(UnknownPolicyError, match="FIFO placement"):
        get_policy("easy+sjf")


def test_window_slot_outside_the_window_is_refused():
    sim = Simulator(one_a100(), [make_job(0), make_job(1)], window=1)
    with pytest.raises(ValueError, match="window slot 1"):
        sim.step(0, slot=1)


def test_fcfs_with_a_placement_is_named_as_the_placement_alone():
    """``fcfs+X`` is the rule ``X`` (the head job only, :mod:`gpusched.policies.queue`): one rule,
    one display name, whichever registry name a page holds."""
    from gpusched.policies.migration import MOVING_PLACEMENT
    from gpusched.policies.registry import QUEUE_PLACEMENTS

    for placement in (*QUEUE_PLACEMENTS, MOVING_PLACEMENT, "least_loaded", "fgd"):
        assert policy_label(f"fcfs+{placement}") == policy_label(placement), placement
    assert policy_label("fcfs") == policy_label("best_fit") == "Best-Fit"
    assert policy_label("fcfs+first_fit") == "First-Fit"
