"""Node failures, checkpoints and restores: the zero rate, the failure rate, conservation of work,
the closed form of Kokolis et al., and hand-built cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.events import NODE
from gpusched.core.failures import CheckpointSpec, FailureSpec, NodeFailures, RepairSpec
from gpusched.core.jobs import Job
from gpusched.core.restore import CheckpointRestore
from gpusched.core.simulator import Simulator
from gpusched.errors import ScenarioError
from gpusched.experiment.runner import run_policy
from gpusched.policies import get_policy, heuristic_names, preemptive_policy_names, queue_policy_names
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario_yaml import scenario_from_dict


def training(idx: int, arrival: float, duration: float, gpus: int = 1) -> Job:
    return Job(id=idx, type="training", arrival_min=arrival, duration_min=duration, gpus=gpus,
               vram_gb=8.0, compute=1.0)


def one_gpu_nodes(n: int) -> Cluster:
    return Cluster([NodeGroup("A100-80GB", 80.0, 1, count=n)])


def with_keys(preset: str, **keys) -> object:
    data = load_scenario(preset).model_dump(exclude_none=True)
    data.update(keys)
    return scenario_from_dict(data, source=preset)


# ---------------------------------------------------------------------------- the zero rate
def test_rate_zero_gives_the_same_metrics_as_no_failures_key_for_every_policy():
    plain = load_scenario("fleet-16gpu")
    zero = with_keys("fleet-16gpu", failures={"node_failures_per_1000_node_days": 0.0})
    names = [*heuristic_names(), *queue_policy_names(), *preemptive_policy_names()]
    for name in names:
        a = make_simulator(plain, 0, n_jobs=120).run(get_policy(name, seed=0))
        b = make_simulator(zero, 0, n_jobs=120).run(get_policy(name, seed=0))
        assert a.metrics == b.metrics, name
        assert a.jobs.drop(columns="gpu_ids").equals(b.jobs.drop(columns="gpu_ids")), name
        assert b.metrics["node_failures"] == 0 and b.metrics["lost_gpu_hours"] == 0.0


def test_the_failure_preset_is_the_fleet_at_a_stated_multiple_of_the_measured_rate():
    fleet, stress = load_scenario("fleet-16gpu"), load_scenario("fleet-16gpu-failures")
    assert stress.cluster == fleet.cluster and stress.workload == fleet.workload
    rate = stress.failures.node_failures_per_1000_node_days
    multiple = rate / 6.5
    assert multiple == int(multiple)
    assert f"{int(multiple)}× the rate measured by Kokolis et al." in stress.description


# ---------------------------------------------------------------------------- the failure rate
def test_the_observed_failures_are_within_a_poisson_band_of_rate_times_node_days_up():
    """Jobs spread over 200 days keep the run going; over many seeds the number of failures is
    Poisson with mean rate x node-days up (each node's clock runs only while it is up)."""
    cluster = one_gpu_nodes(4)
    jobs = [Job(id=i, type="batch", arrival_min=i * 14_400.0, duration_min=5.0, gpus=1, vram_gb=8.0,
                compute=0.5) for i in range(21)]
    spec = FailureSpec(node_failures_per_1000_node_days=400.0, repair_min=RepairSpec(median=600, mean=2000))
    count, up_min = 0, 0.0
    for seed in range(60):
        sim = Simulator(cluster, jobs, failures=spec, failure_seed=seed)
        result = sim.run(get_policy("first_fit"))
        down = result.timeline.node_down
        down_min = (np.minimum(down["end_min"], sim.run_state.time_min) - down["start_min"]).sum()
        up_min += cluster.n_nodes * (sim.run_state.time_min - sim.run_state.start_time_min) - down_min
        count += result.metrics["node_failures"]
    expected = spec.node_failures_per_1000_node_days / 1000.0 * up_min / 1440.0
    assert expected > 500
    assert abs(count - expected) <= 4 * math.sqrt(expected), (count, expected)


def test_failures_are_the_same_under_every_policy():
    scenario = load_scenario("fleet-16gpu-failures")
    names = ("fcfs+first_fit", "easy+best_fit", "srtf+best_fit")
    runs = [run_policy(scenario, name, seed=1) for name in names]
    end = min(r.timeline.end_min for r in runs)
    downs = [d[d["start_min"] <= end]["start_min"].tolist() for d in (r.timeline.node_down for r in runs)]
    assert downs[0] and downs[0] == downs[1] == downs[2]


def test_a_failure_seed_in_the_scenario_fixes_the_failures_and_otherwise_the_workload_seed_does():
    base = load_scenario("fleet-16gpu-failures")
    assert base.failures.seed is None
    a = base.simulator_options(3)["failure_seed"]
    assert a == base.simulator_options(3)["failure_seed"] != base.simulator_options(4)["failure_seed"]
    fixed = with_keys("fleet-16gpu-failures", failures={**base.failures.model_dump(), "seed": 7})
    assert fixed.simulator_options(3)["failure_seed"] == fixed.simulator_options(4)["failure_seed"] == 7


# ---------------------------------------------------------------------------- conservation
@pytest.mark.parametrize("policy", ["fcfs+first_fit", "easy+best_fit", "sjf+eft", "las+best_fit",
                                    "srtf+best_fit"])
def test_the_work_a_job_did_is_its_duration_plus_its_lost_work(policy):
    scenario = load_scenario("fleet-16gpu-failures")
    lost_any = False
    for seed in (0, 1, 2):
        result = run_policy(scenario, policy, seed=seed)
        jobs, m = result.jobs, result.metrics
        assert result.end_reason == "completed" and jobs["finished"].all()
        np.testing.assert_allclose(jobs["work_min"], jobs["duration_min"] + jobs["lost_min"], rtol=1e-9,
                                   atol=1e-6)
        lost_any |= bool((jobs["lost_min"] > 0).any())
        # The metrics are the sums of the jobs table.
        assert m["jobs_interrupted"] == int((jobs["interruptions"] > 0).sum())
        assert m["preemptions"] == int(jobs["preemptions"].sum())
        stops = result.timeline.stops
        assert len(stops) == int(jobs["interruptions"].sum() + jobs["preemptions"].sum())
        assert m["lost_gpu_hours"] == pytest.approx((stops["lost_held_min"] * jobs.set_index("id").loc[
            stops["job"], "gpus"].to_numpy()).sum() / 60.0)
        assert 0.0 < m["goodput"] <= 1.0
        # JCT is the whole life: wait plus every minute on GPUs.
        np.testing.assert_allclose(jobs["end_min"] - jobs["arrival_min"], jobs["wait_min"] + jobs["run_min"],
                                   atol=1e-6)
    assert lost_any


# ---------------------------------------------------------------------------- the closed form
@pytest.mark.parametrize("interval_min", [20.0, 60.0, 120.0])
def test_the_mean_ettr_of_one_job_matches_the_closed_form_of_kokolis_et_al(interval_min):
    """One training job on a cluster with idle nodes to resume on (repairs take a minute), so it
    never queues. Its effective training time ratio (useful run time / wall time) against the
    first-order expectation ``1 - (restore + interval / 2) / MTTF``: each failure, one every MTTF
    on average, costs a restore and half an interval of lost progress."""
    mttf, restore = 800.0, 10.0
    rate = 1000.0 * 1440.0 / mttf
    spec = FailureSpec(node_failures_per_1000_node_days=rate, repair_min=RepairSpec(median=1.0, mean=1.0))
    ckpt = CheckpointSpec(interval_min=interval_min, restore_min=restore)
    job = training(0, 0.0, 20_000.0)
    ettr = []
    for seed in range(12):
        sim = Simulator(one_gpu_nodes(6), [job], failures=spec, failure_seed=seed,
                        restore=CheckpointRestore(ckpt))
        result = sim.run(get_policy("first_fit"))
        row = result.jobs.iloc[0]
        assert row["finished"] and row["wait_min"] == pytest.approx(0.0, abs=1e-9)
        ettr.append(row["duration_min"] / (row["end_min"] - row["arrival_min"]))
    expected = 1.0 - (restore + interval_min / 2.0) / mttf
    assert float(np.mean(ettr)) == pytest.approx(expected, rel=0.05)
    assert float(np.mean(ettr)) < 1.0 - 0.5 * (restore + interval_min / 2.0) / mttf  # failures cost


# ---------------------------------------------------------------------------- hand-built
def _run_failing_at(sim: Simulator, *events: tuple[float, int]):
    """Run First-Fit with the drawn failures replaced by these (time, node) ones (each failed
    node's repair and next failure are still drawn)."""
    sim.run_state.events.drop(NODE)
    for t, n in events:
        sim.run_state.events.push(t, NODE, (NodeFailures.FAIL, n), n)
    policy = get_policy("first_fit")
    while not sim.run_state.done:
        sim.step(policy.select(sim.run_state.state, sim.view.head_job))
    return sim.result("first_fit")


def test_a_failure_loses_exactly_the_progress_since_the_last_checkpoint():
    spec = FailureSpec(node_failures_per_1000_node_days=1.0, repair_min=RepairSpec(median=500, mean=500))
    ckpt = CheckpointSpec(interval_min=30.0, restore_min=2.0)
    sim = Simulator(one_gpu_nodes(2), [training(0, 0.0, 100.0)], failures=spec,
                    restore=CheckpointRestore(ckpt))
    result = _run_failing_at(sim, (45.0, 0))
    row = result.jobs.iloc[0]
    # Ran 0-45 on node 0 (checkpoint at 30: 15 lost), resumed at 45 on node 1: 2 + 70 minutes.
    assert row["interruptions"] == 1 and row["lost_min"] == pytest.approx(15.0)
    assert row["end_min"] == pytest.approx(117.0) and row["gpu_ids"] == [1]
    assert row["work_min"] == pytest.approx(115.0) and row["restore_min"] == pytest.approx(2.0)
    assert row["wait_min"] == pytest.approx(0.0) and row["run_min"] == pytest.approx(117.0)
    m = result.metrics
    assert m["node_failures"] == 1 and m["jobs_interrupted"] == 1
    assert m["lost_gpu_hours"] == pytest.approx(15.0 / 60)
    assert m["restore_gpu_hours"] == pytest.approx(2.0 / 60)
    assert m["goodput"] == pytest.approx(100.0 / 117.0)
    down = result.timeline.node_down
    assert down["node"].tolist() == [0] and down["start_min"].tolist() == [45.0]
    assert down["end_min"].iloc[0] == pytest.approx(545.0) or down["end_min"].iloc[0] == np.inf
    p = result.timeline.placements.sort_values("start_min")
    assert p["stop"].tolist() == ["failure", ""] and p["lost_min"].tolist() == pytest.approx([15.0, 0.0])
    assert p["restore_min"].tolist() == pytest.approx([0.0, 2.0])


def test_a_job_that_does_not_checkpoint_loses_everything_and_a_down_node_leaves_every_fit():
    spec = FailureSpec(node_failures_per_1000_node_days=1.0, repair_min=RepairSpec(median=100, mean=100))
    ckpt = CheckpointSpec(interval_min=30.0, types=("training",), restore_min=0.0)
    batch = Job(id=0, type="batch", arrival_min=0.0, duration_min=100.0, gpus=1, vram_gb=8.0, compute=1.0)
    sim = Simulator(one_gpu_nodes(1), [batch], failures=spec, restore=CheckpointRestore(ckpt))
    result = _run_failing_at(sim, (45.0, 0))
    row = result.jobs.iloc[0]
    # Lost all 45 minutes, waited for the repair (45 -> 145), then ran 100 minutes.
    assert row["lost_min"] == pytest.approx(45.0) and row["end_min"] == pytest.approx(245.0)
    assert row["wait_min"] == pytest.approx(100.0) and row["start_min"] == 0.0
    assert result.metrics["stall_min"] == 0.0  # a down GPU is not idle capacity


def test_a_resumed_job_pays_restore_once_per_resumption():
    spec = FailureSpec(node_failures_per_1000_node_days=1.0, repair_min=RepairSpec(median=1, mean=1))
    ckpt = CheckpointSpec(interval_min=10.0, restore_min=3.0)
    sim = Simulator(one_gpu_nodes(2), [training(0, 0.0, 100.0)], failures=spec,
                    restore=CheckpointRestore(ckpt))
    result = _run_failing_at(sim, (25.0, 0), (60.0, 1))
    row = result.jobs.iloc[0]
    # 0-25 on node 0 (keeps 20), 25-60 on node 1: 3 restore + 32 progress = 52 (keeps 50),
    # then 60 on node 0 (repaired at 26): 3 restore + 50 left = 113.
    assert row["interruptions"] == 2 and row["restore_min"] == pytest.approx(6.0)
    assert row["lost_min"] == pytest.approx(5.0 + 2.0) and row["end_min"] == pytest.approx(113.0)
    assert result.timeline.resumes["restore_min"].tolist() == [3.0, 3.0]


def test_the_checkpoint_and_failure_keys_are_validated():
    with pytest.raises(ScenarioError, match="failures.repair_min"):
        with_keys("fleet-16gpu", failures={"node_failures_per_1000_node_days": 1, "repair_min": {
            "median": 100, "mean": 50}})
    with pytest.raises(ScenarioError, match="checkpoint.interval_min"):
        with_keys("fleet-16gpu", checkpoint={"interval_min": 0})
    with pytest.raises(ScenarioError, match="checkpoint"):
        with_keys("fleet-16gpu", checkpoint={"interval_min": 5, "types": ["cooking"]})
    with pytest.raises(ScenarioError, match="queue.preemption_min_run_min"):
        with_keys("fleet-16gpu", queue={"window": 4, "preemption_min_run_min": 0})
    with pytest.raises(ScenarioError, match="failures.node_failures_per_1000_node_days"):
        with_keys("fleet-16gpu", failures={"node_failures_per_1000_node_days": -1})
    ok = with_keys("fleet-16gpu", failures={"node_failures_per_1000_node_days": 6.5},
                   checkpoint={"interval_min": 60}, queue={"window": 4, "preemption_min_run_min": 5})
    assert ok.preemption_min_run_min == 5 and ok.checkpoint.types == ("training",)
    assert scenario_from_dict(__import__("yaml").safe_load(ok.to_yaml())) == ok


def test_a_fork_copies_the_failure_process_and_the_stops():
    scenario = load_scenario("fleet-16gpu-failures")
    sim = make_simulator(scenario, 0)
    policy = get_policy("sjf+best_fit")
    policy.bind(sim.view)
    while sim.run_state.node_failures < 2 and not sim.run_state.done:
        slot, action = policy.decide(sim.view)
        sim.step(action, slot)
    twin = sim.fork()
    for s in (sim, twin):
        while not s.run_state.done:
            slot, action = policy.decide(s.view)
            s.step(action, slot)
    assert sim.metrics() == twin.metrics()
    ours, theirs = sim.run_state.log, twin.run_state.log
    assert ours.stops == theirs.stops and ours.node_events == theirs.node_events


# ---------------------------------------------------------------------------- the environment
@pytest.mark.parametrize("obs_version", [1, 3])
def test_the_environment_runs_failure_scenarios_and_masks_down_gpus(obs_version):
    from gpusched.env.env import GPUSchedulerEnv

    scenario = load_scenario("fleet-16gpu-failures").with_overrides(**{"workload.jobs": 150})
    env = GPUSchedulerEnv(scenario, obs_version=obs_version)
    env.reset(seed=0, options={"workload_seed": 3})
    rng = np.random.default_rng(0)
    n, saw_down, done = env.sim.setup.cluster.n_gpus, False, False
    total, info = 0.0, {}
    while not done:
        mask = env.action_masks()
        down = env.sim.run_state.gpu_down()
        if down.any():
            saw_down = True
            grid = mask[:-1].reshape(-1, env.max_gpus)[:, :n]
            assert not grid[:, down].any()  # no action places a job on a GPU that is down
        action = int(rng.choice(np.flatnonzero(mask)))
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    assert saw_down and info["end_reason"] == "completed"
    m = info["metrics"]
    assert m["node_failures"] > 0 and m["jobs_interrupted"] > 0 and m["lost_gpu_hours"] > 0
    assert total == pytest.approx(m["total_reward"])
    direct = make_simulator(scenario, 3)
    # the same faults as the command line's run
    assert direct.setup.failure_seed == env.sim.setup.failure_seed


def test_a_sweep_override_starts_a_failures_block_with_its_documented_defaults():
    """``failures.…`` over a preset without the block: the rate starts it with the default
    repairs (Schroeder and Gibson); a key that needs the rate says so, and how to add it."""
    scenario = load_scenario("fleet-16gpu")
    assert scenario.failures is None and scenario.checkpoint is None
    started = scenario.with_overrides(**{"failures.node_failures_per_1000_node_days": 6.5})
    assert started.failures == FailureSpec(node_failures_per_1000_node_days=6.5)
    assert started.failures.repair_min == RepairSpec()
    both = scenario.with_overrides(**{"failures.node_failures_per_1000_node_days": 130,
                                      "failures.repair_min.median": 10, "checkpoint.interval_min": 30})
    assert both.failures.repair_min.median == 10 and both.checkpoint == CheckpointSpec(interval_min=30)
    with pytest.raises(ScenarioError, match=r"no 'failures:' block.*override "
                                            r"failures\.node_failures_per_1000_node_days as well"):
        scenario.with_overrides(**{"failures.repair_min.median": 10})
    with pytest.raises(ScenarioError, match=r"no 'checkpoint:' block.*checkpoint\.interval_min as well"):
        scenario.with_overrides(**{"checkpoint.restore_min": 5})


def test_the_limits_keep_every_up_time_and_repair_finite():
    """At the lowest rate and the widest repair distribution the limits allow, a million draws
    are finite (a median of 5e-324 with a mean of 1e6 once drew infinite repairs)."""
    from gpusched.limits import MAX_REPAIR_MIN, MIN_FAILURE_RATE, MIN_REPAIR_MIN

    for spec in (FailureSpec(node_failures_per_1000_node_days=MIN_FAILURE_RATE,
                             repair_min=RepairSpec(median=MIN_REPAIR_MIN, mean=MAX_REPAIR_MIN)),
                 FailureSpec(node_failures_per_1000_node_days=1e6,
                             repair_min=RepairSpec(median=MIN_REPAIR_MIN, mean=MAX_REPAIR_MIN))):
        process = NodeFailures(10, spec, seed=0, start_min=0.0)
        times = [t for t, _, _ in process.first]
        t, kind = times[0], NodeFailures.FAIL
        for _ in range(100_000):  # one node's failures and repairs, drawn in turn
            t, kind = process.next_after(t, kind, 0)
            times.append(t)
        assert all(math.isfinite(t) for t in times)


def test_lost_work_adds_up_to_the_runs_metrics():
    from gpusched import compare, load_scenario
    from gpusched.experiment.lost_work import lost_work

    scenario = load_scenario("fleet-16gpu-failures").with_overrides(**{"workload.jobs": 120})
    comparison = compare(scenario, ["first_fit", "srtf"], [3])
    for row in lost_work(comparison, scenario.checkpoint.types):
        result = comparison.results[(row.policy, 3)]
        assert row.lost_gpu_hours == pytest.approx(result.metrics["lost_gpu_hours"])
        assert row.interruptions == result.jobs["interruptions"].sum()
        assert 0.0 <= row.unsaved_share <= 1.0
        if row.interruptions:
            assert row.lost_per_interruption_gpu_min == pytest.approx(
                result.metrics["lost_gpu_hours"] * 60 / row.interruptions)
