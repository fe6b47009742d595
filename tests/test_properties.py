"""Property-based tests over random clusters, workloads and policies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import node_groups

from gpusched.core.cluster import Cluster
from gpusched.core.restore import CheckpointRestore
from gpusched.core.simulator import Simulator
from gpusched.core.speed_model import TableSpeeds
from gpusched.experiment.stall import analyse_stall
from gpusched.policies import get_policy
from gpusched.workload.synthetic import generate_jobs

mixes = st.sampled_from([
    {"training": 0.3, "inference": 0.4, "batch": 0.3},
    {"training": 1.0},
    {"inference": 0.5, "batch": 0.5},
])
policies = st.sampled_from(["first_fit", "least_loaded", "least_loaded_fit", "best_fit", "random",
                            "least_loaded_jobs", "least_loaded_vram"])
FIT_AWARE = {"first_fit", "least_loaded_fit", "best_fit", "random"}


def _run(groups, n_jobs, rate, mix, seed, policy):
    cluster = Cluster(groups)
    jobs = generate_jobs(n_jobs, rate, mix, np.random.default_rng(seed),
                         cluster.max_vram_gb_for_gpus())
    return cluster, jobs, Simulator(cluster, jobs).run(get_policy(policy, seed=seed))


def _max_usage(result):
    """Peak VRAM (GB) and compute per GPU, replayed from the placements at every start."""
    p = result.timeline.placements
    times = np.unique(p["start_min"].to_numpy())
    frames = result.timeline.gpu_frames(times)
    return frames.vram_used_gb.max(axis=0), frames.compute_used.max(axis=0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_groups, st.integers(1, 60), st.floats(1.0, 60.0), mixes, st.integers(0, 2**31 - 1),
       policies)
def test_invariants(groups, n_jobs, rate, mix, seed, policy):
    cluster, jobs, result = _run(groups, n_jobs, rate, mix, seed, policy)
    m, t = result.metrics, result.jobs
    # Every submitted job is counted exactly once.
    assert m["jobs_submitted"] == n_jobs == len(t)
    assert m["jobs_completed"] + m["jobs_unfinished"] == m["jobs_submitted"]
    assert sorted(t["id"]) == list(range(n_jobs))
    # Waits are >= 0 and starts never precede arrivals.
    assert (t["wait_min"] >= -1e-9).all()
    started = t["start_min"].notna()
    assert (t.loc[started, "start_min"] >= t.loc[started, "arrival_min"] - 1e-9).all()
    # Never over-committed.
    if len(result.timeline.placements):
        vram, compute = _max_usage(result)
        assert (vram <= cluster.gpu_vram_gb + 1e-6).all()
        assert (compute <= 1.0 + 1e-6).all()
    # Gangs stay on one node and have the right size.
    for gpus, k in zip(t["gpu_ids"], t["gpus"], strict=True):
        if gpus:
            assert len(gpus) == k == len(set(gpus))
            assert len({int(cluster.gpu_node[g]) for g in gpus}) == 1
    assert 0 <= m["avg_util"] <= 1 + 1e-9 and 0 <= m["gini"] <= 1
    # Misroute causes add up; the idle integrals split the queued one and stay within bounds.
    assert m["misroutes"] == m["misroutes_capacity"] + m["misroutes_occupied"] + m["misroutes_gang"]
    assert m["misroutes"] == len(result.timeline.misroutes)
    assert m["idle_gpu_min_queued"] == m["idle_gpu_min_stalled"] + m["idle_gpu_min_blocked"]
    assert 0 <= m["idle_gpu_min_stalled"] <= cluster.n_gpus * m["stall_min"] + 1e-6
    assert 0 <= m["idle_gpu_min_queued"] <= cluster.n_gpus * m["makespan_min"] + 1e-6
    if policy in FIT_AWARE:  # a fit-aware policy holds only when nothing fits: it never stalls
        assert m["stall_min"] == 0 and m["idle_gpu_min_stalled"] == 0 and m["misroutes"] == 0
    # The event record gives the same idle GPU-minutes as the simulator's integrals.
    report = analyse_stall(result)
    assert report.idle_gpu_min == pytest.approx(m["idle_gpu_min_stalled"], abs=1e-6)
    assert report.idle_gpu_min_blocked == pytest.approx(m["idle_gpu_min_blocked"], abs=1e-6)
    assert sum(report.causes.values()) == m["misroutes"]


@settings(max_examples=15, deadline=None)
@given(node_groups, st.integers(1, 40), mixes, st.integers(0, 2**31 - 1), policies)
def test_runs_are_deterministic(groups, n_jobs, mix, seed, policy):
    _, _, a = _run(groups, n_jobs, 10.0, mix, seed, policy)
    _, _, b = _run(groups, n_jobs, 10.0, mix, seed, policy)
    assert a.metrics == b.metrics
    assert a.jobs.drop(columns="gpu_ids").equals(b.jobs.drop(columns="gpu_ids"))
    assert list(a.jobs["gpu_ids"]) == list(b.jobs["gpu_ids"])


queue_policies = st.sampled_from(["fitfirst", "easy", "sjf", "priority", "wfp3", "easy+fastest_fit",
                                  "fcfs+least_loaded", "fitfirst+first_fit", "best_fit"])


def _queue_run(groups, n_jobs, rate, seed, window, speeds, error, policy):
    from functools import partial

    from gpusched.core.estimator import LognormalRuntime
    from gpusched.core.speed import DEFAULT_SPEEDS, GpuSpeeds

    cluster = Cluster(groups)
    jobs = generate_jobs(n_jobs, rate, {"training": 0.4, "inference": 0.3, "batch": 0.3},
                         np.random.default_rng(seed), cluster.max_vram_gb_for_gpus())
    sim = Simulator(cluster, jobs, window=window,
                    speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, DEFAULT_SPEEDS) if speeds else None),
                    estimator=partial(LognormalRuntime, sigma=error, seed=seed))
    return cluster, sim.run(get_policy(policy, seed=seed))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_groups, st.integers(1, 50), st.floats(2.0, 60.0), st.integers(0, 2**31 - 1),
       st.sampled_from([1, 2, 8, 16]), st.booleans(), st.sampled_from([0.0, 0.3, 1.0]), queue_policies)
def test_invariants_with_windows_speeds_and_estimate_errors(groups, n_jobs, rate, seed, window, speeds,
                                                             error, policy):
    cluster, result = _queue_run(groups, n_jobs, rate, seed, window, speeds, error, policy)
    m, t = result.metrics, result.jobs
    assert m["jobs_submitted"] == n_jobs == len(t) and sorted(t["id"]) == list(range(n_jobs))
    assert m["jobs_completed"] + m["jobs_unfinished"] == n_jobs
    assert (t["wait_min"] >= -1e-9).all()
    if len(result.timeline.placements):
        vram, compute = _max_usage(result)
        assert (vram <= cluster.gpu_vram_gb + 1e-6).all() and (compute <= 1.0 + 1e-6).all()
    for gpus, k in zip(t["gpu_ids"], t["gpus"], strict=True):
        if gpus:
            assert len(gpus) == k == len(set(gpus)) and len({int(cluster.gpu_node[g]) for g in gpus}) == 1
    started = t["start_min"].notna()
    assert (t.loc[started, "run_min"] >= t.loc[started, "duration_min"] - 1e-9).all()  # speeds <= 1
    assert (t.loc[started, "start_slot"] < window).all() and (t.loc[~started, "start_slot"] == -1).all()
    assert m["backfilled_jobs"] == int(t["backfilled"].sum()) <= n_jobs
    if window == 1:
        assert m["backfilled_jobs"] == 0
    assert m["avg_jct_min"] >= m["avg_wait_min"] - 1e-9 and m["avg_bsld"] >= 1.0
    assert 0 <= m["gpu_hours"] * 60 <= cluster.n_gpus * m["makespan_min"] + 1e-6
    assert m["idle_gpu_min_queued"] == m["idle_gpu_min_stalled"] + m["idle_gpu_min_blocked"]


@settings(max_examples=15, deadline=None)
@given(node_groups, st.integers(1, 40), st.integers(0, 2**31 - 1), st.sampled_from([2, 8]), queue_policies)
def test_queue_runs_are_deterministic(groups, n_jobs, seed, window, policy):
    _, a = _queue_run(groups, n_jobs, 10.0, seed, window, True, 0.3, policy)
    _, b = _queue_run(groups, n_jobs, 10.0, seed, window, True, 0.3, policy)
    assert a.metrics == b.metrics
    assert a.jobs.drop(columns="gpu_ids").equals(b.jobs.drop(columns="gpu_ids"))


fail_policies = st.sampled_from(["first_fit", "best_fit", "easy", "sjf+eft", "las", "srtf+fastest_fit",
                                 "las+eft"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_groups, st.integers(1, 40), st.floats(2.0, 60.0), st.integers(0, 2**31 - 1),
       st.sampled_from([1, 4, 16]), st.booleans(), st.sampled_from([50.0, 2000.0]), fail_policies,
       st.sampled_from([None, 400.0]))
def test_no_job_is_lost_or_counted_twice_with_failures_and_preemption(groups, n_jobs, rate, seed, window,
                                                                       speeds, failure_rate, policy,
                                                                       horizon):
    cluster = Cluster(groups)
    jobs = generate_jobs(n_jobs, rate, {"training": 0.4, "inference": 0.3, "batch": 0.3},
                         np.random.default_rng(seed), cluster.max_vram_gb_for_gpus())
    _check_failure_run(cluster, jobs, seed, window, speeds, failure_rate, policy, horizon, must_finish=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_groups, st.integers(1, 40), st.floats(2.0, 60.0), st.integers(0, 2**31 - 1),
       st.sampled_from([1, 4, 16]), st.booleans(), st.sampled_from([50.0, 2000.0]),
       st.sampled_from(["first_fit", "best_fit", "fastest_fit", "easy", "sjf+eft", "las", "easy+eft",
                        "least_loaded_fit", "srtf+fastest_fit"]),
       st.sampled_from([None, 400.0]), st.integers(0, 3), st.sampled_from([1.0, 0.5]))
def test_no_job_is_lost_or_counted_twice_with_spread_gangs(groups, n_jobs, rate, seed, window, speeds,
                                                           failure_rate, policy, horizon, wide, factor):
    """The same properties with gangs across nodes (``gang_placement: spread``), plus ``wide`` gangs
    as large as every GPU of one model, which only a spread gang can hold. Such a gang needs every
    node of its model up at once, so a run without a horizon may end at its safety horizon."""
    from dataclasses import replace

    from gpusched.core.gang import spread_rule

    cluster = Cluster(groups, gang=spread_rule(default_factor=factor))
    rng = np.random.default_rng(seed)
    jobs = generate_jobs(n_jobs, rate, {"training": 0.4, "inference": 0.3, "batch": 0.3}, rng,
                         cluster.max_vram_gb_for_gpus())
    most = max(cluster.gpu_model.count(m) for m in set(cluster.gpu_model))
    for _ in range(wide):
        base = jobs[int(rng.integers(len(jobs)))]
        jobs.append(replace(base, id=len(jobs), gpus=most, vram_gb=8.0, vram_frac=0.0, compute=1.0))
    _check_failure_run(cluster, jobs, seed, window, speeds, failure_rate, policy, horizon,
                       must_finish=wide == 0 and failure_rate < 100)


def _check_failure_run(cluster, jobs, seed, window, speeds, failure_rate, policy, horizon, must_finish):
    """Run with node failures and checkpoints, and check that no job is lost or counted twice,
    that work = duration + lost work, and that gangs have the right size on one GPU model (one
    node, unless the cluster spreads gangs). ``must_finish``: a run without a horizon completes."""
    from gpusched.core.failures import CheckpointSpec, FailureSpec
    from gpusched.core.speed import DEFAULT_SPEEDS, GpuSpeeds

    n_jobs = len(jobs)
    sim = Simulator(cluster, jobs, window=window, horizon_min=horizon,
                    speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, DEFAULT_SPEEDS) if speeds else None),
                    failures=FailureSpec(node_failures_per_1000_node_days=failure_rate), failure_seed=seed,
                    restore=CheckpointRestore(CheckpointSpec(interval_min=15.0, restore_min=1.0)))
    result = sim.run(get_policy(policy, seed=seed))
    m, t, tl = result.metrics, result.jobs, result.timeline
    # Every job once: submitted = completed + unfinished; a finished job ended once, after its runs.
    assert m["jobs_submitted"] == n_jobs == len(t) and sorted(t["id"]) == list(range(n_jobs))
    assert m["jobs_completed"] + m["jobs_unfinished"] == n_jobs
    if horizon is None and (must_finish or result.end_reason != "safety_horizon"):
        assert m["jobs_completed"] == n_jobs and result.end_reason == "completed"
    assert m["jobs_completed"] == int(t["finished"].sum()) == len(tl.ends_min)
    # Each stop is one interruption or preemption; each resumption follows one stop of its job.
    assert len(tl.stops) == int(t["interruptions"].sum() + t["preemptions"].sum())
    assert m["preemptions"] == int(t["preemptions"].sum())
    for job_id, group in tl.resumes.groupby("job"):
        assert len(group) <= int((tl.stops["job"] == job_id).sum())
    # No job is in two places: at every start, every GPU's jobs fit it, and the queue is never negative.
    if len(tl.placements):
        vram, compute = _max_usage(result)
        assert (vram <= cluster.gpu_vram_gb + 1e-6).all() and (compute <= 1.0 + 1e-6).all()
        times = tl.event_times()
        assert (tl.queue_length_at(times) >= 0).all() and (tl.running_jobs_at(times) >= 0).all()
        # No run on a node while it is down.
        p = tl.placements
        for node, t0, t1 in tl.node_down[["node", "start_min", "end_min"]].itertuples(index=False):
            on = p[cluster.gpu_node[p["gpu"].to_numpy()] == node]
            overlap = (on["start_min"] < t1 - 1e-9) & (on["end_min"] > t0 + 1e-9)
            assert not overlap.any()
    # Work is conserved and waits are whole-life.
    done = t[t["finished"]]
    np.testing.assert_allclose(done["work_min"], done["duration_min"] + done["lost_min"], rtol=1e-9,
                               atol=1e-6)
    assert (t["wait_min"] >= -1e-6).all() and (t["lost_min"] >= 0).all()
    assert 0.0 <= m["goodput"] <= 1.0 + 1e-12
    for gpus, k in zip(t["gpu_ids"], t["gpus"], strict=True):
        if len(gpus):
            assert len(gpus) == k == len(set(gpus)) and len({cluster.gpu_model[g] for g in gpus}) == 1
            if cluster.gang_placement == "node":
                assert len({int(cluster.gpu_node[g]) for g in gpus}) == 1


moving_policies = st.sampled_from(["fastest_move", "sjf+fastest_move", "easy+fastest_move",
                                   "las+fastest_move", "srtf+fastest_move", "fitfirst+fastest_move"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_groups, st.integers(1, 40), st.floats(2.0, 60.0), st.integers(0, 2**31 - 1),
       st.sampled_from([1, 4, 16]), st.sampled_from([0.0, 200.0]), moving_policies,
       st.sampled_from([None, 400.0]), st.sampled_from([0.0, 3.0]))
def test_no_job_is_lost_or_counted_twice_with_migration(groups, n_jobs, rate, seed, window, failure_rate,
                                                        policy, horizon, restore):
    from gpusched.core.failures import CheckpointSpec, FailureSpec
    from gpusched.core.speed import DEFAULT_SPEEDS, GpuSpeeds

    c = Cluster(groups)
    jobs = generate_jobs(n_jobs, rate, {"training": 0.4, "inference": 0.3, "batch": 0.3},
                         np.random.default_rng(seed), c.max_vram_gb_for_gpus())
    sim = Simulator(c, jobs, window=window, horizon_min=horizon,
                    speed_model=TableSpeeds(c, GpuSpeeds(c, DEFAULT_SPEEDS)),
                    failures=FailureSpec(node_failures_per_1000_node_days=failure_rate), failure_seed=seed,
                    restore=CheckpointRestore(CheckpointSpec(interval_min=15.0, restore_min=restore)))
    result = sim.run(get_policy(policy, seed=seed))
    m, t, tl = result.metrics, result.jobs, result.timeline
    # Every job once.
    assert m["jobs_submitted"] == n_jobs == len(t) and sorted(t["id"]) == list(range(n_jobs))
    assert m["jobs_completed"] + m["jobs_unfinished"] == n_jobs
    if horizon is None and failure_rate == 0:
        assert m["jobs_completed"] == n_jobs and result.end_reason == "completed"
    assert m["jobs_completed"] == int(t["finished"].sum()) == len(tl.ends_min)
    # Each stop is one interruption, preemption or migration; a migration resumes at once.
    assert len(tl.stops) == int(t["interruptions"].sum() + t["preemptions"].sum() + t["migrations"].sum())
    assert m["migrations"] == int(t["migrations"].sum())
    moves = tl.stops[tl.stops["kind"] == "migration"]
    resumed = set(zip(tl.resumes["job"], tl.resumes["time_min"], strict=True))
    assert all((j, s) in resumed for j, s in zip(moves["job"], moves["time_min"], strict=True))
    assert (moves["lost_min"] == 0).all()
    # The guard: a run that ended in a move lasted its restore plus preemption_min_run_min.
    restore_at = {(j, s): r for j, s, r in zip(tl.resumes["job"], tl.resumes["time_min"],
                                                tl.resumes["restore_min"], strict=True)}
    for j, s, start in zip(moves["job"], moves["time_min"], moves["run_start_min"], strict=True):
        assert s - start - restore_at.get((j, start), 0.0) >= sim.setup.preemption_min_run_min - 1e-6
    # Never over-committed.
    if len(tl.placements):
        vram, compute = _max_usage(result)
        assert (vram <= c.gpu_vram_gb + 1e-6).all() and (compute <= 1.0 + 1e-6).all()
    # Work = duration + lost work, for every finished job.
    done = t[t["finished"]]
    np.testing.assert_allclose(done["work_min"], done["duration_min"] + done["lost_min"], rtol=1e-9,
                               atol=1e-6)
    # Goodput by its formula: (held - lost - restoring) / held, in GPU-minutes.
    gpus = t.set_index("id")["gpus"]
    held = float((t["run_min"].fillna(0.0) * t["gpus"]).sum())
    lost = (float((tl.stops["lost_held_min"] * gpus.loc[tl.stops["job"]].to_numpy()).sum())
            if len(tl.stops) else 0.0)
    restoring = float((t["restore_min"] * t["gpus"]).sum())
    if held > 0:
        assert m["goodput"] == pytest.approx((held - lost - restoring) / held, rel=1e-9, abs=1e-9)
    assert m["restore_gpu_hours"] == pytest.approx(restoring / 60.0, rel=1e-9, abs=1e-9)
    assert 0.0 <= m["migration_restore_gpu_hours"] <= m["restore_gpu_hours"] + 1e-12
    if restore == 0.0:
        assert m["migration_restore_gpu_hours"] == 0.0
