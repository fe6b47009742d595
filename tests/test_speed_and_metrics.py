"""GPU speeds, declared run times, and the queue metrics (JCT, bounded slowdown, weighted and p99
wait, backfilled jobs, busy GPU-hours) on runs computed by hand."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.estimator import DeclaredRuntime
from gpusched.core.jobs import Job
from gpusched.core.simulator import HOLD, Simulator
from gpusched.core.speed import DEFAULT_SPEEDS, REFERENCE_MODEL, GpuSpeeds
from gpusched.core.speed_model import TableSpeeds
from gpusched.errors import ScenarioError
from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario_yaml import scenario_from_dict


def job(job_id: int, *, arrival: float = 0.0, duration: float = 10.0, gpus: int = 1, vram: float = 8.0,
        compute: float = 0.5, priority: int = 2, type_: str = "batch") -> Job:
    return Job(id=job_id, type=type_, arrival_min=arrival, duration_min=duration, gpus=gpus, vram_gb=vram,
               compute=compute, priority=priority)


# ---------------------------------------------------------------------------- speed
def test_a_job_runs_twice_as_long_on_a_half_speed_gpu():
    cluster = Cluster([NodeGroup("slow", 80, 1)])
    sim = Simulator(cluster, [job(0, duration=30)],
                    speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, {"slow": {"batch": 0.5}})))
    result = sim.run(get_policy("first_fit"))
    row = result.jobs.iloc[0]
    assert row["run_min"] == 60 and row["end_min"] - row["start_min"] == 60
    assert result.metrics["makespan_min"] == 60


def test_a_gang_runs_at_its_slowest_gpus_speed():
    cluster = Cluster([NodeGroup("A", 80, 1), NodeGroup("B", 80, 1)])
    speeds = GpuSpeeds(cluster, {"A": {"training": 0.8}, "B": {"training": 0.25}})
    assert speeds.of("training", (0,)) == 0.8
    assert speeds.of("training", (0, 1)) == 0.25
    assert speeds.of("inference", (0, 1)) == 1.0  # a type the table does not name
    # In the simulator a gang lives on one node, of one model: a 2-GPU job on a 0.4 node.
    node = Cluster([NodeGroup("C", 80, 2)])
    sim = Simulator(node, [job(0, gpus=2, duration=10, type_="training")],
                    speed_model=TableSpeeds(node, GpuSpeeds(node, {"C": {"training": 0.4}})))
    assert sim.run(get_policy("best_fit")).jobs.iloc[0]["run_min"] == pytest.approx(25)


def test_models_and_types_missing_from_the_table_run_at_speed_one():
    cluster = Cluster([NodeGroup("mystery", 80, 1)])
    sim = Simulator(cluster, [job(0, duration=12)],
                    speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, DEFAULT_SPEEDS)))
    assert sim.run(get_policy("first_fit")).jobs.iloc[0]["run_min"] == 12


def test_the_shipped_table_is_relative_to_the_reference_gpu():
    assert DEFAULT_SPEEDS[REFERENCE_MODEL] == {"training": 1.0, "inference": 1.0, "batch": 1.0}
    assert all(0 < v <= 1 for row in DEFAULT_SPEEDS.values() for v in row.values())
    assert DEFAULT_SPEEDS["T4-16GB"]["training"] < DEFAULT_SPEEDS["V100-32GB"]["training"]


def test_run_min_matches_the_table_on_a_preset():
    scenario = load_scenario("phase1-8gpu").with_overrides(speed="default")
    result = make_simulator(scenario, 0).run(get_policy("best_fit"))
    t = result.jobs[result.jobs["start_min"].notna()]
    cluster = result.cluster
    for _, row in t.head(40).iterrows():
        speed = min(DEFAULT_SPEEDS.get(cluster.gpu_model[g], {}).get(row["type"], 1.0)
                    for g in row["gpu_ids"])
        assert row["run_min"] == pytest.approx(row["duration_min"] / speed)


# ---------------------------------------------------------------------------- declared run times
def test_rules_read_the_declared_time_and_the_simulator_runs_the_true_one():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1)])
    sim = Simulator(cluster, [job(0, duration=30)], estimator=partial(DeclaredRuntime, estimates={0: 90.0}))
    assert sim.run_state.declared_min.tolist() == [90.0]
    sim.run(get_policy("first_fit"))
    assert sim.run_state.record.run_min[0] == 30 and sim.run_state.record.declared_end_min[0] == 90


def test_estimate_errors_are_seeded_log_normal_and_leave_the_jobs_alone():
    base = load_scenario("phase1-8gpu")
    noisy = base.model_dump(mode="json", exclude_none=True)
    noisy["workload"]["runtime_estimate_error"] = 0.5
    noisy = scenario_from_dict(noisy)
    exact, est = make_simulator(base, seed=3), make_simulator(noisy, seed=3)
    exact, est = exact.run_state, est.run_state
    assert est.jobs == exact.jobs  # the jobs carry their true run times only
    truth = np.array([j.duration_min for j in est.jobs])
    log_ratio = np.log(est.estimator.estimate_min / truth)
    assert abs(log_ratio.mean()) < 0.12 and log_ratio.std() == pytest.approx(0.5, rel=0.15)
    assert est.declared_min.tolist() == est.estimator.estimate_min.tolist()
    assert make_simulator(noisy, seed=3).run_state.declared_min.tolist() == est.declared_min.tolist()
    assert exact.estimator.estimate_min is None and exact.declared_min.tolist() == truth.tolist()


# ---------------------------------------------------------------------------- queue metrics by hand
def test_queue_metrics_computed_by_hand():
    # One A100. Job 0 (60 GB, 20 min, priority 1) starts at 0. Job 1 (40 GB, 10 min, priority 3)
    # arrives at 0 and cannot start until 20. Job 2 (8 GB, 5 min, priority 2) arrives at 1 and is
    # backfilled at 1 by fit-first (ahead of job 1, which still waits).
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1)])
    jobs = [job(0, vram=60, duration=20, priority=1), job(1, vram=40, duration=10, priority=3),
            job(2, arrival=1, vram=8, duration=5, priority=2)]
    sim = Simulator(cluster, jobs, window=4)
    m = sim.run(get_policy("fitfirst")).metrics
    waits = np.array([0.0, 20.0, 0.0])
    runs = np.array([20.0, 10.0, 5.0])
    jct = waits + runs
    assert m["backfilled_jobs"] == 1
    assert m["avg_wait_min"] == pytest.approx(waits.mean())
    assert m["avg_jct_min"] == pytest.approx(jct.mean())
    assert m["avg_bsld"] == pytest.approx(np.maximum(1, jct / np.maximum(runs, 10)).mean())
    assert m["weighted_wait_min"] == pytest.approx((1 * 0 + 3 * 20 + 2 * 0) / 6)
    assert m["p99_wait_min"] == pytest.approx(np.percentile(waits, 99))
    # The GPU is busy from 0 to 30: half an hour.
    assert m["gpu_hours"] == pytest.approx(0.5)
    t = sim.jobs_table().set_index("id")
    assert t.loc[2, "backfilled"] and t.loc[2, "start_slot"] == 1 and not t.loc[1, "backfilled"]


def test_unfinished_jobs_count_up_to_the_end_of_the_run():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1)])
    sim = Simulator(cluster, [job(0, vram=60, duration=100), job(1, vram=60, duration=10)], horizon_min=40)
    m = sim.run(get_policy("first_fit")).metrics
    # At 40: job 0 ran 40 of 100 min; job 1 waited 40 and never started.
    assert m["avg_jct_min"] == pytest.approx((40 + 40) / 2)
    assert m["avg_bsld"] == pytest.approx((max(1, 40 / 100) + 40 / 10) / 2)
    assert m["gpu_hours"] == pytest.approx(40 / 60)


def test_window_stall_counts_holds_while_a_later_window_job_fits():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1)])
    jobs = [job(0, vram=60, duration=20), job(1, vram=40, duration=10), job(2, arrival=1, vram=8, duration=5)]
    sim = Simulator(cluster, jobs, window=4)
    assert sim.step(0)
    assert not sim.step(HOLD) and sim.run_state.time_min == 1  # job 1 fits nowhere: blocked, not a stall
    assert sim.run_state.integrals.stall_min == 0
    assert not sim.step(HOLD) and sim.run_state.time_min == 20  # job 2 fitted beside job 0: a stall
    assert sim.run_state.integrals.stall_min == pytest.approx(19)


# ---------------------------------------------------------------------------- scenario keys
def test_queue_speed_and_estimate_keys_round_trip_and_are_checked():
    data = load_scenario("phase1-8gpu").model_dump(mode="json", exclude_none=True)
    data.update(queue={"window": 16}, speed={"T4-16GB": {"training": 0.3}})
    data["workload"]["runtime_estimate_error"] = 0.3
    scenario = scenario_from_dict(data)
    assert scenario.window == 16 and scenario.speed_table() == {"T4-16GB": {"training": 0.3}}
    from gpusched.workload.scenario_yaml import scenario_from_yaml

    assert scenario_from_yaml(scenario.to_yaml()) == scenario
    assert load_scenario("phase1-8gpu").with_overrides(speed="default").speed_table() is DEFAULT_SPEEDS
    for bad, where in (({"queue": {"window": 0}}, "queue.window"),
                       ({"queue": {"window": 500}}, "queue.window"),
                       ({"speed": {"T4-16GB": {"batch": -1}}}, "speed"), ({"speed": "fast"}, "speed")):
        with pytest.raises(ScenarioError, match=where):
            scenario_from_dict({**data, **bad})
    assert "queue" not in load_scenario("phase1-8gpu").to_yaml()


@pytest.mark.parametrize("preset", ["phase1-8gpu", "gavel-108gpu", "openb-sample"])
def test_the_lognormal_estimator_draws_in_the_order_the_workload_is_generated(preset):
    """``{lognormal: σ}`` draws one factor per job from ``default_rng([seed, 0x5EED])`` in the order
    the workload is generated (the draws the jobs carried before they carried the truth only): the
    simulator's arrival order is that order for every generator."""
    scenario = load_scenario(preset).with_overrides(**{"workload.declared_run_time": {"lognormal": 0.7}})
    generated = scenario.jobs(seed=5, n_jobs=200)
    factors = np.exp(0.7 * np.random.default_rng([5, 0x5EED]).standard_normal(len(generated)))
    drawn = {j.id: round(j.duration_min * float(f), 6) for j, f in zip(generated, factors, strict=True)}
    sim = make_simulator(scenario, seed=5, n_jobs=200)
    assert [j.id for j in sim.run_state.jobs] == [j.id for j in generated]
    assert sim.run_state.declared_min.tolist() == [drawn[j.id] for j in sim.run_state.jobs]
