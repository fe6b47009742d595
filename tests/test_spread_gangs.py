"""Gangs across servers: ``cluster.gang_placement: spread`` (:class:`gpusched.core.gang.SpreadGang`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpusched.core.cluster import Cluster, ClusterState, NodeGroup
from gpusched.core.gang import SpreadGang, spread_rule
from gpusched.core.gavel_speeds import gavel_speed_rows, spread_speed_table
from gpusched.core.jobs import Job
from gpusched.core.simulator import Simulator
from gpusched.core.speed import GpuSpeeds
from gpusched.core.speed_model import TableSpeeds
from gpusched.paths import GAVEL_THROUGHPUTS
from gpusched.policies import get_policy
from gpusched.policies.eft import earliest_finish
from gpusched.policies.queue import reservation
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

RESNET = "ResNet-18 (batch size 64)"


def _job(i: int, gpus: int, duration: float = 60.0, arrival: float = 0.0, model: str | None = RESNET) -> Job:
    return Job(i, "training", arrival, duration, gpus, 1.0, 1.0, model=model)


def _measured(gpu: str, gpus: int, unconsolidated: bool) -> float:
    """The throughput (steps/s) of the shipped JSON, read here without gpusched's reader."""
    data = json.loads(GAVEL_THROUGHPUTS.read_text(encoding="utf-8"))
    key = gpu.lower() + ("_unconsolidated" if unconsolidated else "")
    return data[key][f"('{RESNET}', {gpus})"]["null"]


def _gavel_cluster(groups) -> Cluster:
    return Cluster(groups, gang=spread_rule(spread_speed_table()))


def test_rule_prefers_one_node_then_the_fewest_nodes():
    # 3 V100 nodes of 1 GPU, 2 K80 nodes of 2 GPUs (GPUs 3-4 and 5-6).
    cluster = _gavel_cluster([NodeGroup("V100", 16, 1, count=3), NodeGroup("K80", 12, 2, count=2)])
    state = ClusterState(cluster)
    two, three, four = _job(0, 2), _job(1, 3), _job(2, 4)
    # A 2-GPU gang packs on a K80 node: no spread gang is offered.
    assert state.fit_mask(two).tolist() == [False] * 3 + [True] * 4
    assert state.gang_for(two, 0) == () and state.gang_for(two, 5) == (5, 6)
    # A 3-GPU gang: 2 K80 nodes beat 3 V100 nodes.
    assert state.fit_mask(three).tolist() == [False] * 3 + [True] * 4
    assert state.gang_for(three, 3) == (3, 4, 5) and state.gang_for(three, 6) == (6, 5, 3)
    # A 4-GPU gang fits only on the two K80 nodes; the V100s hold only 3.
    assert state.fit_mask(four).tolist() == [False] * 3 + [True] * 4
    v100s = [NodeGroup("V100", 16, 1, count=3)]
    assert cluster.could_ever_hold(four) and not Cluster(v100s, gang=spread_rule()).could_ever_hold(four)
    # The same cluster under the one-node rule holds no gang above 2.
    one_node = Cluster([NodeGroup("V100", 16, 1, count=3), NodeGroup("K80", 12, 2, count=2)])
    assert not one_node.could_ever_hold(three)


def test_fewest_nodes_by_largest_rooms_first():
    # Nodes of 4 GPUs with 3, 1 and 2 GPUs free: a 5-GPU gang takes the rooms of 3 and 2 (2 nodes).
    cluster = Cluster([NodeGroup("V100", 16, 4, count=3)], gang=spread_rule())
    sim = Simulator(cluster, [_job(0, 1, 500), _job(1, 3, 500), _job(2, 2, 500), _job(3, 5)])
    for gang in ((0,), (4, 5, 6), (8, 9)):
        assert sim.step(gang)
    state, big = sim.run_state.state, sim.run_state.jobs[3]
    mask = state.fit_mask(big)
    # Node 1 (room 1, GPU 7) would need 3 nodes: left out; nodes 0 and 2 form 2-node gangs.
    assert np.flatnonzero(mask).tolist() == [1, 2, 3, 10, 11]
    assert state.gang_for(big, 10) == (10, 11, 1, 2, 3)
    assert state.gang_for(big, 1) == (1, 2, 3, 10, 11)
    assert state.gang_for(big, 7) == ()


@pytest.mark.parametrize("gpu", ["V100", "K80"])
def test_spread_gang_runs_at_the_unconsolidated_speed(gpu):
    # Four one-GPU servers: a 4-GPU ResNet-18 gang must span them all.
    cluster = _gavel_cluster([NodeGroup(gpu, 16, 1, count=4)])
    speeds = GpuSpeeds(cluster, gavel_speed_rows())
    sim = Simulator(cluster, [_job(0, 4, duration=60.0, arrival=5.0)],
                    speed_model=TableSpeeds(cluster, speeds))
    result = sim.run(get_policy("first_fit"))
    # duration_min is the run time on packed V100s: steps = 60 min x V100 throughput; spread, the
    # gang does the same steps at the unconsolidated throughput of its GPU type.
    expected_run = 60.0 * _measured("V100", 4, False) / _measured(gpu, 4, True)
    row = result.jobs.iloc[0]
    assert list(row["gpu_ids"]) == [0, 1, 2, 3]
    assert row["end_min"] == pytest.approx(5.0 + expected_run, rel=1e-12)
    # Only a spread gang could ever hold it, so its ideal run is that gang's: no speed loss.
    assert row["ideal_run_min"] == pytest.approx(expected_run, rel=1e-12)
    if gpu == "V100":  # the shared README's figures: 95.6 steps/s packed, 38.3 spread
        assert row["end_min"] == pytest.approx(5.0 + 60.0 * 95.6 / 38.3, rel=2e-3)


def test_packed_gang_keeps_the_consolidated_speed_and_no_value_means_no_penalty():
    cluster = _gavel_cluster([NodeGroup("V100", 16, 4, count=1), NodeGroup("V100", 16, 1, count=2)])
    speeds = GpuSpeeds(cluster, gavel_speed_rows())
    sim = Simulator(cluster, [_job(0, 4)], speed_model=TableSpeeds(cluster, speeds))
    assert sim.setup.speed_model.of(sim.run_state.jobs[0], (0, 1, 2, 3)) == 1.0
    assert sim.setup.speed_model.of(sim.run_state.jobs[0], (0, 1, 4, 5)) == pytest.approx(
        _measured("V100", 4, True) / _measured("V100", 4, False))
    # A job model the table does not name: no penalty, unless cluster.spread_speed says otherwise.
    plain = _job(1, 2, model=None)
    assert sim.setup.speed_model.of(plain, (4, 5)) == 1.0
    slow = Simulator(Cluster([NodeGroup("V100", 16, 1, count=2)], gang=spread_rule(default_factor=0.5)),
                     [plain])
    assert slow.setup.speed_model.of(plain, (0, 1)) == 0.5 and not slow.setup.speed_model.uniform


def test_spread_penalty_three_values_of_the_json():
    table = spread_speed_table()
    for gpu, gpus in (("V100", 4), ("K80", 2), ("P100", 8)):
        assert table[gpu][RESNET][gpus] == pytest.approx(
            _measured(gpu, gpus, True) / _measured(gpu, gpus, False), rel=1e-12)
    assert 1 not in table["V100"][RESNET]


def test_a_failure_of_one_node_stops_the_spread_gang():
    cluster = Cluster([NodeGroup("V100", 16, 1, count=4)], gang=spread_rule())
    sim = Simulator(cluster, [_job(0, 3, 100.0), _job(1, 1, 100.0), _job(2, 1, 5.0, arrival=10.0)])
    assert sim.step((0, 1, 2)) and sim.step((3,))
    assert sim.run_state.time_min == 10.0
    assert isinstance(sim.setup.gang_rule, SpreadGang)
    assert sim.setup.gang_rule.holds_node((0, 1, 2), 2) and not sim.setup.gang_rule.holds_node((0, 1, 2), 3)
    sim.lifecycle.fail_node(sim.run_state, 2)  # the gang's last node
    assert not sim.run_state.is_running(0) and sim.run_state.is_running(1)
    assert [s[1] for s in sim.run_state.log.stops] == [0] and list(sim.run_state.queue) == [0, 2]
    assert sim.run_state.state.jobs_running.tolist() == [0, 0, 0, 1]
    # While node 2 is down, GPUs 0, 1 and 3 cannot form the gang (GPU 3 is busy).
    assert not sim.run_state.state.fit_mask(sim.run_state.jobs[0]).any()


def _busy_line(gang_placement_gang):
    """4 one-GPU V100 servers: job 0 runs on GPU 0 until 100, job 1 on GPU 1 until 50; job 2 asks
    for 3 GPUs."""
    cluster = Cluster([NodeGroup("V100", 16, 1, count=4)], gang=gang_placement_gang)
    jobs = [_job(0, 1, 100.0), _job(1, 1, 50.0), _job(2, 3, 30.0, arrival=1.0), _job(3, 1, 10.0, arrival=2.0)]
    return Simulator(cluster, jobs, window=4)


def test_easy_reservation_names_a_spread_gang():
    sim = _busy_line(spread_rule())
    assert sim.step((0,)) and sim.step((1,))
    assert sim.run_state.time_min == 1.0 and list(sim.run_state.queue) == [2]
    res = reservation(sim.view, 2)
    assert res.start_min == 50.0 and np.flatnonzero(res.gpus).tolist() == [1, 2, 3]
    # Under the one-node rule a 3-GPU job could never start here.
    assert not Cluster([NodeGroup("V100", 16, 1, count=4)]).could_ever_hold(sim.run_state.jobs[2])


def test_eft_plans_a_spread_gang():
    sim = _busy_line(spread_rule())
    assert sim.step((0,)) and sim.step((1,))
    plan = earliest_finish(sim.view, 2)
    assert (plan.start_min, plan.finish_min, plan.gpus) == (50.0, 80.0, (1, 2, 3))


def test_easy_and_eft_runs_with_spread_gangs():
    for policy in ("easy", "easy+eft", "sjf+eft", "fcfs+eft"):
        sim = _busy_line(spread_rule())
        result = sim.run(get_policy(policy))
        t = result.jobs.set_index("id")
        assert result.metrics["jobs_completed"] == 4, policy
        assert t.loc[2, "start_min"] == 50.0 and len(t.loc[2, "gpu_ids"]) == 3, policy
        # Job 3 backfills on a free GPU without delaying the reservation; FCFS never backfills.
        assert t.loc[3, "start_min"] == (80.0 if policy == "fcfs+eft" else 2.0), policy


@pytest.mark.parametrize("policy", ["first_fit", "best_fit", "fastest_fit", "least_loaded",
                                    "least_loaded_fit", "least_loaded_jobs", "least_loaded_vram", "eft",
                                    "random", "easy+fastest_fit", "sjf+best_fit"])
def test_placements_choose_a_gang_across_nodes(policy):
    cluster = _gavel_cluster([NodeGroup("K80", 12, 1, count=4), NodeGroup("V100", 16, 1, count=4)])
    jobs = [_job(i, 4, 60.0 + 7 * i, arrival=10.0 * i) for i in range(6)]
    result = Simulator(cluster, jobs,
                       speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, gavel_speed_rows())),
                       window=2).run(get_policy(policy, seed=1))
    t = result.jobs
    assert result.metrics["jobs_completed"] == 6
    for gpus in t["gpu_ids"]:
        assert len(gpus) == 4 and len({cluster.gpu_model[g] for g in gpus}) == 1
    if policy in ("fastest_fit", "eft"):  # the first job goes to the faster V100s
        assert {cluster.gpu_model[g] for g in t["gpu_ids"].iloc[0]} == {"V100"}


def test_fastest_fit_ranks_spread_gangs_by_their_spread_speed():
    # ResNet-18 (batch 64) on 2 GPUs: V100 and P100 are both spread; the penalties differ.
    cluster = _gavel_cluster([NodeGroup("P100", 16, 1, count=2), NodeGroup("V100", 16, 1, count=2)])
    sim = Simulator(cluster, [_job(0, 2)],
                    speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, gavel_speed_rows())))
    first = sim.run_state.jobs[0]
    spread = {g: sim.setup.speed_model.of(first, gang) for g, gang in (("P100", (0, 1)), ("V100", (2, 3)))}
    result = sim.run(get_policy("fastest_fit"))
    chosen = cluster.gpu_model[result.jobs["gpu_ids"].iloc[0][0]]
    assert chosen == max(spread, key=spread.get)


def test_env_masks_follow_the_spread_rule():
    from gpusched.env.env import GPUSchedulerEnv

    scenario = load_scenario("phase1-8gpu")
    spread = scenario.with_overrides(**{"cluster.gang_placement": "spread"})
    env = GPUSchedulerEnv(spread, n_jobs=30)
    env.reset(seed=0)
    sim = env.sim
    assert sim.setup.cluster.gang_placement == "spread"
    for _ in range(200):
        if sim.run_state.done:
            break
        mask = env.action_masks()
        job = sim.view.head_job
        fits = sim.run_state.state.fit_mask(job)
        assert mask[:sim.setup.cluster.n_gpus].tolist() == fits.tolist()
        choices = np.flatnonzero(mask[:-1])
        env.step(int(choices[0]) if choices.size else env.hold_action)
    assert sim.run_state.done


def test_the_observation_tells_a_spread_gang_from_a_packed_one():
    from gpusched.env.observation import GPU_FEATURES, ObservationBuilder

    cluster = Cluster([NodeGroup("V100", 16, 2, count=1), NodeGroup("V100", 16, 1, count=2)],
                      gang=spread_rule())
    builder = ObservationBuilder(cluster, 4)
    room, size, fits = (GPU_FEATURES.index(n) for n in ("node_room", "node_size", "head_fits"))
    for gpus, spread in ((2, False), (3, True)):
        sim = Simulator(cluster, [_job(0, gpus)])
        obs = builder.observe(sim.view, sim.run_state.state.fit_mask(sim.view.head_job))["gpus"]
        free_on_node = np.rint(obs[:, room] * obs[:, size] * 8)
        spans = (obs[:, fits] > 0) & (free_on_node < gpus)
        assert spans.any() == spread


def test_scenario_key_default_is_node_and_bit_identical():
    scenario = load_scenario("fleet-16gpu")
    assert scenario.cluster.gang_placement == "node"
    explicit = scenario.with_overrides(**{"cluster.gang_placement": "node"})
    a = make_simulator(scenario, n_jobs=150).run(get_policy("easy+eft"))
    b = make_simulator(explicit, n_jobs=150).run(get_policy("easy+eft"))
    assert a.metrics == b.metrics and a.jobs.equals(b.jobs)


def test_gavel_multi_gpu_on_one_gpu_servers_needs_spread():
    from gpusched.errors import ScenarioError

    text = """
name: s
cluster:
  nodes:
    - {gpu_model: V100, vram_gb: 16, gpus_per_node: 1, count: 8}
    - {gpu_model: K80, vram_gb: 12, gpus_per_node: 1, count: 8}
  gang_placement: spread
workload: {jobs: 60, arrival_rate_per_hour: 4, generator: gavel, multi_gpu: true, seed: 3}
speed: gavel
"""
    from gpusched.workload.scenario_yaml import scenario_from_yaml

    scenario = scenario_from_yaml(text)
    result = make_simulator(scenario).run(get_policy("fastest_fit"))
    t = result.jobs
    assert result.metrics["jobs_completed"] == 60
    assert any(len({int(g) for g in gpus}) > 1 for gpus in t["gpu_ids"])
    with pytest.raises(ScenarioError, match="multi_gpu"):
        make_simulator(scenario.with_overrides(**{"cluster.gang_placement": "node"}))
