"""Co-located pairs in rounds (gpusched.core.rounds.pairs): two jobs share one GPU at Gavel's
measured pair throughputs, a survivor goes on alone at its own speed, and every run under
max_min_fairness_packed ends with each job's work done and no GPU held by more than one pair."""

from __future__ import annotations

import ast
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.failures import CheckpointSpec
from gpusched.core.jobs import Job
from gpusched.core.restore import CheckpointRestore
from gpusched.core.rounds.mechanism import RoundSpec
from gpusched.core.simulator import Simulator
from gpusched.core.speed_model import TableSpeeds
from gpusched.paths import GAVEL_THROUGHPUTS
from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.scenario_yaml import scenario_from_dict

PACKED = "max_min_fairness_packed"
MODEL = "ResNet-18 (batch size 128)"
RESTORE_MIN = 0.75


def _measured_factor(model: str, gpu: str) -> float:
    """A job's throughput beside a job of its own model ÷ alone, read from the shipped file."""
    entry = json.loads(GAVEL_THROUGHPUTS.read_text(encoding="utf-8"))[gpu.lower()][str((model, 1))]
    return entry[str((model, 1))][0] / entry["null"]


def _one_v100() -> tuple[Cluster, object]:
    nodes = [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 1, "count": 1}]
    scenario = scenario_from_dict({"name": "one-v100", "cluster": {"nodes": nodes},
                                   "workload": {"jobs": 1, "arrival_rate_per_hour": 1}, "speed": "gavel"})
    cluster = Cluster([NodeGroup(**n) for n in nodes])
    return cluster, scenario.gpu_speeds(cluster)


def _job(i: int, duration: float, model: str = MODEL) -> Job:
    return Job(id=i, type="training", arrival_min=0.0, duration_min=duration, gpus=1, vram_gb=0.0,
               compute=1.0, model=model)


def _packed_run(jobs: list[Job]) -> Simulator:
    cluster, speeds = _one_v100()
    sim = Simulator(cluster, jobs, speed_model=TableSpeeds(cluster, speeds), rounds=RoundSpec(),
                    round_seed=0, restore=CheckpointRestore(CheckpointSpec(
                        interval_min=60, types=("training",), restore_min=RESTORE_MIN)))
    sim.run(get_policy(PACKED, 0))
    return sim


def test_two_jobs_share_one_gpu_and_end_at_the_pair_speed():
    # Two ResNet-18 jobs (batch 128) on one V100: pairing gives each its measured pair speed f > 1/2,
    # more than half a GPU alone, so the allocation pairs them for all their time. Job 0 (20 min
    # of V100 work) ends at 20/f, inside the round 24-30; job 1 (40 min) runs on at f to the round's
    # end at 30, then alone at speed 1 after its restore.
    f = _measured_factor(MODEL, "V100")
    assert 0.5 < f < 1.0
    sim = _packed_run([_job(0, 20.0), _job(1, 40.0)])
    end = sim.jobs_table().set_index("id")["end_min"]
    assert 24.0 < 20.0 / f < 30.0
    assert end[0] == pytest.approx(20.0 / f, abs=1e-9)
    assert end[1] == pytest.approx(30.0 + RESTORE_MIN + (40.0 - 30.0 * f), abs=1e-9)
    # both ran on GPU 0 from minute 0, kept their lease round after round, and only job 1 stopped
    # (at 30, when its partner had gone) to start again alone
    assert [(t, j, tuple(g)) for t, j, _, _, g, _, _ in sim.run_state.log.stops] == [(30.0, 1, (0,))]
    assert [(t, j, tuple(g), r) for t, j, g, r in sim.run_state.log.resumes] == [(30.0, 1, (0,), RESTORE_MIN)]
    rounds = sim.run_state.rounds
    np.testing.assert_allclose(rounds.work_min.sum(axis=1), [20.0, 40.0], atol=1e-9)
    # service: each member's own minutes on the GPU (job 1 holds it until its end, restore included)
    np.testing.assert_allclose(rounds.service_min[:, 0], [20.0 / f, end[1]], atol=1e-9)
    assert not rounds.colocated.partner and not rounds.colocated.rider
    assert float(sim.run_state.state.compute_used.sum()) == pytest.approx(0.0, abs=1e-12)


def test_the_survivor_runs_alone_at_its_solo_speed_in_the_next_round():
    # the same pair with the partner's work cut so that it ends in the first round: from the
    # second round on, job 1 runs alone at speed 1 (a V100 job on the V100)
    f = _measured_factor(MODEL, "V100")
    sim = _packed_run([_job(0, 3.0), _job(1, 40.0)])
    end = sim.jobs_table().set_index("id")["end_min"]
    assert end[0] == pytest.approx(3.0 / f, abs=1e-9)
    assert end[1] == pytest.approx(6.0 + RESTORE_MIN + (40.0 - 6.0 * f), abs=1e-9)
    assert sim.run_state.rounds.prev_partner[1] == -1  # its last round was alone


def test_a_pair_uses_the_measured_factor_of_each_member():
    # two models measured together: each member's progress in the pair follows its own factor
    a, b = "Transformer (batch size 16)", "LM (batch size 10)"
    data = json.loads(GAVEL_THROUGHPUTS.read_text(encoding="utf-8"))["v100"]
    pair = data[str((a, 1))][str((b, 1))]
    fa, fb = pair[0] / data[str((a, 1))]["null"], pair[1] / data[str((b, 1))]["null"]
    cluster, speeds = _one_v100()
    sim = Simulator(cluster, [_job(0, 60.0, a), _job(1, 60.0, b)],
                    speed_model=TableSpeeds(cluster, speeds), rounds=RoundSpec(), round_seed=0)
    view = sim.view
    policy = get_policy(PACKED, 0)
    policy.bind(view)
    slot, plan = policy.decide(view)
    assert plan.pairs == ((0, 1, pytest.approx(fa), pytest.approx(fb)),)
    sim.step(plan, slot)
    while sim.run_state.rounds.pending:  # to the end of the first round
        slot, action = policy.decide(view)
        sim.step(action, slot)
    work = sim.run_state.rounds.work_min[:, 0]
    np.testing.assert_allclose(work, [6.0 * fa, 6.0 * fb], rtol=1e-12)


def test_a_fork_with_pairs_continues_like_the_original():
    scenario = scenario_from_dict(_gavel_case(v100=1, p100=1, k80=1, jobs=10, load=1.5, seed=4))
    sim = make_simulator(scenario, rounds=True)
    reference = sim.run(get_policy(PACKED, 0)).jobs
    sim.reset()
    first = get_policy(PACKED, 0)
    first.bind(sim.view)
    for _ in range(30):
        slot, action = first.decide(sim.view)
        sim.step(action, slot)
    twin = sim.fork()
    second = get_policy(PACKED, 0)
    second.bind(twin.view)
    for run, policy in ((sim, first), (twin, second)):
        while not run.run_state.done:
            slot, action = policy.decide(run.view)
            run.step(action, slot)
        np.testing.assert_array_equal(run.jobs_table()["end_min"].to_numpy(), reference["end_min"].to_numpy())
    assert twin.run_state.rounds.colocated is not sim.run_state.rounds.colocated


def _gavel_case(*, v100: int, p100: int, k80: int, jobs: int, load: float, seed: int,
                length: float = 6.0, reset: float = 32.0, multi_gpu: bool = False,
                failures: float | None = None) -> dict:
    counts = {"V100": v100, "P100": p100, "K80": k80}
    nodes = [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": c, "count": 1} for m, c in counts.items() if c]
    case = {"name": "pairs", "cluster": {"nodes": nodes}, "speed": "gavel",
            "workload": {"generator": "gavel", "jobs": jobs, "load": load, "seed": seed,
                         "multi_gpu": multi_gpu},
            "rounds": {"length_min": length, "reset_min": reset}}
    if failures is not None:
        case["failures"] = {"node_failures_per_1000_node_days": failures}
        case["checkpoint"] = {"interval_min": 30, "types": ["training"], "restore_min": 1}
    return case


def _check_gpus(sim: Simulator) -> int:
    """No GPU is held by two jobs unless they are partners on the same gang; returns the pairs."""
    run = sim.run_state
    partner = run.rounds.colocated.partner
    holders: dict[int, list[int]] = {}
    for i in run.running:
        for g in run.record.job_gpus[i]:
            holders.setdefault(g, []).append(i)
    for g, jobs in holders.items():
        assert len(jobs) <= 2, f"GPU {g} held by {jobs}"
        if len(jobs) == 2:
            a, b = jobs
            assert partner.get(a) == b and partner.get(b) == a
            assert sorted(run.record.job_gpus[a]) == sorted(run.record.job_gpus[b])
    assert (run.state.compute_used <= 1.0 + 1e-9).all()
    return sum(len(j) == 2 for j in holders.values())


CASES = st.fixed_dictionaries({
    "v100": st.integers(0, 2), "p100": st.integers(0, 2), "k80": st.integers(1, 2),
    "jobs": st.integers(2, 12), "load": st.floats(0.5, 3.0), "seed": st.integers(0, 1000),
    "length": st.floats(1.0, 30.0), "reset": st.sampled_from([0.0, 32.0]), "multi_gpu": st.booleans(),
})


def _run_packed(scenario, seed: int) -> tuple[Simulator, int]:
    """``scenario`` run to its end under the packed policy, :func:`_check_gpus` after every
    decision; the simulator and the most pairs seen sharing GPUs at once."""
    sim = make_simulator(scenario, rounds=True)
    policy = get_policy(PACKED, seed)
    policy.bind(sim.view)
    shared = 0
    while not sim.run_state.done:
        slot, action = policy.decide(sim.view)
        sim.step(action, slot)
        shared = max(shared, _check_gpus(sim))
    return sim, shared


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=CASES)
def test_every_packed_run_ends_with_each_jobs_work_and_gpus_shared_by_pairs_only(case):
    if case["multi_gpu"]:  # Gavel's gangs reach 8 GPUs and some name their models: 8 of each
        case = {**case, "v100": 8, "p100": 8, "k80": 8}
    scenario = scenario_from_dict(_gavel_case(**case))
    sim, _ = _run_packed(scenario, case["seed"])
    result = sim.result(policy_name=PACKED)
    assert result.end_reason == "completed"
    assert bool(result.jobs["finished"].all())
    rounds = sim.run_state.rounds
    duration = np.array([j.duration_min for j in sim.setup.all_jobs])
    np.testing.assert_allclose(rounds.work_min.sum(axis=1), duration, rtol=1e-9, atol=1e-9)
    table = sim.jobs_table().sort_values("arrival_min", kind="stable")
    np.testing.assert_allclose(rounds.service_min.sum(axis=1), table["run_min"].to_numpy(), atol=1e-6)


def test_a_loaded_cluster_forms_pairs_that_change_the_run():
    # 24 single-GPU jobs on 2 V100s and 2 P100s at 3x load: pairs share GPUs under the packed
    # policy, and its jobs end at other times than under max_min_fairness_perf on the same jobs
    scenario = scenario_from_dict(_gavel_case(v100=2, p100=2, k80=0, jobs=24, load=3.0, seed=11))
    sim, shared = _run_packed(scenario, 0)
    assert shared >= 1
    packed = sim.result(policy_name=PACKED).jobs
    alone = make_simulator(scenario, rounds=True).run(get_policy("max_min_fairness_perf", 0)).jobs
    assert packed["finished"].all() and alone["finished"].all()
    assert not np.array_equal(packed["end_min"].to_numpy(), alone["end_min"].to_numpy())


def test_packed_rounds_run_through_node_failures():
    scenario = scenario_from_dict(_gavel_case(v100=2, p100=2, k80=2, jobs=30, load=2.0, seed=5,
                                              failures=1000.0))
    sim, _ = _run_packed(scenario, 0)
    result = sim.result(policy_name=PACKED)
    assert result.end_reason == "completed" and result.metrics["node_failures"] > 0
    finished = result.jobs["finished"].to_numpy()
    duration = np.array([j.duration_min for j in sim.setup.all_jobs])
    np.testing.assert_allclose(sim.run_state.rounds.work_min.sum(axis=1)[finished], duration[finished],
                               rtol=1e-9, atol=1e-6)


def test_the_shipped_pairs_are_read_in_each_members_order():
    from gpusched.core.gavel_speeds import colocation_factors, pair_throughputs

    raw = json.loads(GAVEL_THROUGHPUTS.read_text(encoding="utf-8"))["p100"]
    a_key = next(iter(raw))
    a = ast.literal_eval(a_key)
    b_key = [k for k in raw[a_key] if k != "null"][-1]
    b = ast.literal_eval(b_key)
    assert pair_throughputs()["P100"][((a[0], a[1]), (b[0], b[1]))] == tuple(raw[a_key][b_key])
    fa, fb = colocation_factors(a[0], b[0], a[1], "P100")
    if min(raw[a_key][b_key]) > 0:
        assert fa == pytest.approx(raw[a_key][b_key][0] / raw[a_key]["null"])
        assert fb == pytest.approx(raw[a_key][b_key][1] / raw[b_key]["null"])
    assert colocation_factors(a[0], b[0], a[1], "A100") == (0.0, 0.0)


def test_a_unit_is_skipped_when_a_member_is_placed_and_leftover_gpus_go_by_deficit():
    from gpusched.core.rounds.pairs import assign_units

    # rows 0-2 single jobs, unit 3 the pair (0, 1), unit 4 the pair (1, 2); one type of 2 GPUs
    members = [(0,), (1,), (2,), (0, 1), (1, 2)]
    share = np.array([[0.5], [0.0], [0.0], [0.5], [0.0]])
    priority = np.array([[2.0], [0.0], [0.0], [1.0], [0.0]])
    deficit = np.array([[0.0], [-1.0], [0.0], [0.0], [3.0]])
    kw = dict(scale=np.ones(5, dtype=np.int64), runs=np.ones((5, 1), dtype=bool), capacity=np.array([2]),
              type_order=[0], previous_type=np.full(5, -1), previous_gpus=[()] * 5,
              allocated=np.ones(5, dtype=bool))
    placed = assign_units(members, share, priority, deficit, **kw)
    # job 0 alone first; the pair (0, 1) is skipped (0 is placed); of the priority-0 units the
    # pair (1, 2), deficit 3, takes the last GPU ahead of the singles 1 and 2
    assert placed.gpu_type.tolist() == [0, -1, -1, -1, 0]
    assert placed.gpus[0] == (0,) and placed.gpus[4] == (1,)
    # under FIFO's rule units of priority 0 are skipped, and the GPU stays free
    fifo = assign_units(members, share, priority, deficit, **kw, fifo=True)
    assert fifo.gpu_type.tolist() == [0, -1, -1, -1, -1]
    # a unit that held GPU 1 as this same unit keeps it (its lease)
    renewed = assign_units(members, share, priority, deficit,
                           **{**kw, "previous_type": np.array([0, -1, -1, -1, -1]),
                              "previous_gpus": [(1,), (), (), (), ()]})
    assert renewed.gpus[0] == (1,) and renewed.gpus[4] == (0,)


def test_the_timeline_counts_a_shared_gpu_once():
    # the replay's frames and utilisation are derived from the run's record: a GPU two members
    # share is busy once (compute at most 1, two jobs on it), and the timeline's mean utilisation
    # is the run's own avg_util metric, integrated as the run went
    scenario = scenario_from_dict(_gavel_case(v100=2, p100=2, k80=0, jobs=24, load=3.0, seed=11))
    result = make_simulator(scenario, rounds=True).run(get_policy(PACKED, 0))
    timeline = result.timeline
    assert len(timeline.shared) > 0
    frames = timeline.gpu_frames(timeline.frame_times(400))
    assert frames.compute_used.max() <= 1.0 + 1e-9 and frames.jobs_running.max() == 2
    t, util = timeline.cluster_util_steps()
    assert util.max() <= 1.0 + 1e-9
    mean = float((util[:-1] * np.diff(t)).sum() / (t[-1] - t[0]))
    assert mean == pytest.approx(result.metrics["avg_util"], rel=1e-9)
