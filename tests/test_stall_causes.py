"""Why a misroute happens (capacity, occupied, gang), the idle-GPU integrals while jobs wait, and
the Least-Loaded variants, on hand-built clusters where the right answer is obvious."""

from __future__ import annotations

import pytest
from conftest import make_job

from gpusched.core.cluster import Cluster, ClusterState, NodeGroup
from gpusched.core.simulator import HOLD, Simulator
from gpusched.policies import get_policy


def _misroute_cause(cluster: Cluster, placed: list[tuple], job, gpu: int) -> str:
    """Place ``placed`` (job, gpus) pairs, then send ``job`` to ``gpu`` and return the cause."""
    jobs = [j for j, _ in placed] + [job]
    sim = Simulator(cluster, jobs)
    for j, gpus in placed:
        assert sim.view.head_job.id == j.id
        assert sim.step(tuple(gpus) if len(gpus) > 1 else gpus[0])
    assert sim.view.head_job.id == job.id
    assert sim.step(gpu) is False
    (_, job_id, sent_to, cause), = sim.run_state.log.misroutes
    assert (job_id, sent_to) == (job.id, gpu)
    metrics = sim.metrics()
    assert metrics["misroutes"] == 1 and metrics[f"misroutes_{cause}"] == 1
    assert sum(metrics[f"misroutes_{c}"] for c in ("capacity", "occupied", "gang")) == 1
    return cause


def test_a_gpu_too_small_even_when_empty_is_a_capacity_misroute():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("T4-16GB", 16, 1)])
    assert _misroute_cause(cluster, [], make_job(0, vram=40, duration=50), gpu=1) == "capacity"


def test_a_node_too_small_for_the_gang_is_a_capacity_misroute():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("A100-80GB", 80, 2)])
    assert _misroute_cause(cluster, [], make_job(0, gpus=2, vram=10), gpu=0) == "capacity"


def test_a_gpu_that_is_full_now_is_an_occupied_misroute():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("A100-80GB", 80, 1)])
    busy = make_job(0, vram=60, duration=100)
    assert _misroute_cause(cluster, [(busy, [0])], make_job(1, vram=40), gpu=0) == "occupied"


def test_a_node_that_cannot_form_the_gang_now_is_a_gang_misroute():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 2), NodeGroup("A100-80GB", 80, 2)])
    busy = make_job(0, vram=60, duration=100)  # on GPU 0; GPU 1 beside it is free
    assert _misroute_cause(cluster, [(busy, [0])], make_job(1, gpus=2, vram=40), gpu=1) == "gang"


def test_the_causes_add_up_over_a_least_loaded_run():
    from gpusched.workload.build import make_simulator
    from gpusched.workload.presets import load_scenario

    sim = make_simulator(load_scenario("phase1-8gpu"), seed=0)
    m = sim.run(get_policy("least_loaded")).metrics
    assert m["misroutes"] > 0
    assert m["misroutes"] == m["misroutes_capacity"] + m["misroutes_occupied"] + m["misroutes_gang"]


# ---------------------------------------------------------------------------- idle GPUs while jobs wait
def test_idle_gpu_minutes_while_stalled_computed_by_hand():
    # GPU 0: an A100, GPU 1: a T4. Job 0 (8 GB, 10 min) starts on the A100 at 0. Job 1 (40 GB)
    # is sent to the T4, where it can never fit, and held until job 0 ends at 10, although it
    # fitted on the A100 all along: a stall of 10 min with the T4 idle, 10 idle GPU-minutes.
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("T4-16GB", 16, 1)])
    sim = Simulator(cluster, [make_job(0, vram=8, duration=10), make_job(1, vram=40, duration=5)])
    assert sim.step(0)
    assert not sim.step(1)
    assert sim.run_state.time_min == 10
    assert sim.step(0)
    assert sim.run_state.done
    m = sim.metrics()
    assert m["stall_min"] == 10
    assert m["idle_gpu_min_stalled"] == 10
    assert m["idle_gpu_min_blocked"] == 0
    assert m["idle_gpu_min_queued"] == 10


def test_idle_gpu_minutes_while_blocked_computed_by_hand():
    # Job 0 (60 GB, 10 min) on the A100; job 1 (40 GB) fits nowhere until it ends: blocked for
    # 10 min with the T4 idle. Then job 1 (5 min) runs alone on the A100 with an empty queue.
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("T4-16GB", 16, 1)])
    sim = Simulator(cluster, [make_job(0, vram=60, duration=10), make_job(1, vram=40, duration=5)])
    assert sim.step(0)
    assert not sim.step(HOLD)
    assert sim.step(0)
    m = sim.metrics()
    assert m["stall_min"] == 0 and m["misroutes"] == 0
    assert m["idle_gpu_min_blocked"] == 10
    assert m["idle_gpu_min_stalled"] == 0
    assert m["idle_gpu_min_queued"] == 10


def test_idle_gpu_minutes_count_every_idle_gpu_of_a_blocked_queue():
    # Two T4s and an A100 running a 70 GB job for 20 min; a 40 GB job waits: both T4s idle for
    # 20 min while it is blocked, 40 idle GPU-minutes.
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("T4-16GB", 16, 2)])
    sim = Simulator(cluster, [make_job(0, vram=70, duration=20), make_job(1, vram=40, duration=5)])
    sim.run(get_policy("first_fit"))
    m = sim.metrics()
    assert m["idle_gpu_min_blocked"] == pytest.approx(40)
    assert m["idle_gpu_min_queued"] == pytest.approx(40)
    assert m["idle_gpu_min_stalled"] == 0


def test_idle_gpus_counter_follows_the_jobs():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 2)])
    state = ClusterState(cluster)
    a, b = make_job(0, vram=10), make_job(1, gpus=2, vram=10)
    assert state.idle_gpus == 2
    state.place(a, (0,))
    assert state.idle_gpus == 1
    state.place(b, (0, 1))
    assert state.idle_gpus == 0
    state.release(a, (0,))
    assert state.idle_gpus == 0
    state.release(b, (0, 1))
    assert state.idle_gpus == 2


# ---------------------------------------------------------------------------- Least-Loaded variants
def _state_with(cluster: Cluster, placed: list[tuple]) -> ClusterState:
    state = ClusterState(cluster)
    for job, gpus in placed:
        state.place(job, gpus)
    return state


def test_least_loaded_jobs_picks_the_fewest_jobs_then_the_most_free_vram_without_a_fit_check():
    cluster = Cluster([NodeGroup("T4-16GB", 16, 1), NodeGroup("A100-80GB", 80, 1),
                       NodeGroup("V100-32GB", 32, 1)])
    # GPU 0 and 2 run nothing, GPU 1 runs two small jobs: the fewest jobs tie at 0 between the T4
    # (16 GB free) and the V100 (32 GB free), so the V100 wins, even for a 40 GB job.
    state = _state_with(cluster, [(make_job(0, vram=4, compute=0.1), (1,)),
                                  (make_job(1, vram=4, compute=0.1), (1,))])
    policy = get_policy("least_loaded_jobs")
    assert policy.select(state, make_job(2, vram=40)) == 2
    # Compute use does not matter to it: one heavy job is still fewer than two light ones.
    state = _state_with(cluster, [(make_job(0, vram=4, compute=0.9), (0,)),
                                  (make_job(1, vram=4, compute=0.1), (1,)),
                                  (make_job(2, vram=4, compute=0.1), (1,)),
                                  (make_job(3, vram=4, compute=0.1), (2,)),
                                  (make_job(4, vram=4, compute=0.1), (2,))])
    assert policy.select(state, make_job(5, vram=8)) == 0


def test_least_loaded_vram_picks_the_most_free_vram_without_a_fit_check():
    cluster = Cluster([NodeGroup("T4-16GB", 16, 1), NodeGroup("A100-80GB", 80, 1),
                       NodeGroup("V100-32GB", 32, 1)])
    policy = get_policy("least_loaded_vram")
    empty = ClusterState(cluster)
    assert policy.select(empty, make_job(0, vram=8)) == 1
    # The A100's compute is full (a 1.0 compute job with 8 GB): it still has the most free VRAM,
    # so the job is sent there although its compute cannot fit.
    full = _state_with(cluster, [(make_job(0, vram=8, compute=1.0), (1,))])
    assert policy.select(full, make_job(1, vram=8, compute=0.5)) == 1
    assert not full.fit_mask(make_job(1, vram=8, compute=0.5))[1]


def test_least_loaded_uses_compute_and_ignores_the_fit():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("T4-16GB", 16, 1)])
    state = _state_with(cluster, [(make_job(0, vram=8, compute=0.2), (0,))])
    assert get_policy("least_loaded").select(state, make_job(1, vram=40)) == 1
