"""Rounds in the simulator (gpusched.core.rounds.mechanism): leases, restores, service, runs that
end under every round policy, and the command line."""

from __future__ import annotations

import json
import subprocess
import sys

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
from gpusched.policies import get_policy
from gpusched.policies.rounds import round_policy_names
from gpusched.workload.build import make_simulator
from gpusched.workload.scenario_yaml import scenario_from_dict

RESTORE_MIN = 0.75


def _cluster(v100: int = 1, k80: int = 1) -> Cluster:
    return Cluster([NodeGroup("V100", 16, v100, 1), NodeGroup("K80", 16, k80, 1)])


def _job(i: int, arrival: float, duration: float) -> Job:
    return Job(id=i, type="training", arrival_min=arrival, duration_min=duration, gpus=1, vram_gb=1.0,
               compute=1.0)


def _speeds(cluster: Cluster):
    scenario = scenario_from_dict({"name": "s", "cluster": {"nodes": [
        {"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 1, "count": 1},
        {"gpu_model": "K80", "vram_gb": 16, "gpus_per_node": 1, "count": 1}]},
        "workload": {"jobs": 1, "arrival_rate_per_hour": 1}, "speed": {"V100": {"training": 1.0},
                                                                       "K80": {"training": 0.5}}})
    return scenario.gpu_speeds(cluster)


def _run(policy: str, jobs: list[Job], *, restore: float = RESTORE_MIN, length: float = 6.0,
         seed: int = 0, move: float | None = None) -> Simulator:
    cluster = _cluster()
    sim = Simulator(cluster, jobs, speed_model=TableSpeeds(cluster, _speeds(cluster)),
                    rounds=RoundSpec(length_min=length, reset_min=0), round_seed=seed,
                    restore=CheckpointRestore(CheckpointSpec(interval_min=60, types=("training",),
                                                             restore_min=restore, move_restore_min=move)))
    sim.run(get_policy(policy, seed))
    return sim


def test_a_job_that_keeps_its_gpus_pays_no_restore():
    # alone on the cluster under a _perf policy, the job stays on the V100 round after round
    sim = _run("max_min_fairness_perf", [_job(0, 0.0, 50.0)])
    table = sim.jobs_table()
    assert sim.run_state.rounds.rounds >= 8  # 50 min of work in 6-min rounds
    assert sim.run_state.log.resumes == [] and sim.run_state.log.stops == []
    assert table.loc[0, "restore_min"] == 0.0
    assert table.loc[0, "end_min"] == pytest.approx(50.0, abs=1e-9)  # on the V100, speed 1


def test_a_job_that_changes_gpus_pays_exactly_the_restore():
    # the agnostic policy splits time evenly over the types: jobs change GPUs between rounds
    jobs = [_job(i, 0.0, 40.0) for i in range(3)]
    sim = _run("max_min_fairness", jobs)
    resumes = sim.run_state.log.resumes
    assert resumes, "no job changed GPUs"
    assert all(restore == RESTORE_MIN for *_, restore in resumes)
    table = sim.jobs_table().set_index("id")
    counts = {i: sum(1 for _, j, _, _ in resumes if j == i) for i in range(3)}
    for i in range(3):
        assert table.loc[i, "restore_min"] == pytest.approx(RESTORE_MIN * counts[i], abs=1e-9)
    # a job that runs in two rounds in a row on the same GPUs renews its lease: it is never
    # stopped and resumed there at one instant
    stops = {(t, j, tuple(g)) for t, j, _, _, g, _, _ in sim.run_state.log.stops}
    assert not [r for r in resumes if (r[0], r[1], tuple(r[2])) in stops]


def test_a_job_that_moves_between_rounds_pays_the_move_and_one_back_from_the_queue_the_restore():
    # four jobs on two GPUs under the agnostic policy: some run two rounds in a row on other GPUs
    # (a move), others come back after a round in the queue (a resumption)
    move = 0.25
    sim = _run("max_min_fairness", [_job(i, 0.0, 40.0) for i in range(4)], move=move)
    moved = {(t, j) for t, j, kind, *_ in sim.run_state.log.stops if kind == "migration"}
    paid = {"move": set(), "queue": set()}
    for t, j, _, restore in sim.run_state.log.resumes:
        paid["move" if (t, j) in moved else "queue"].add(restore)
    assert paid == {"move": {move}, "queue": {RESTORE_MIN}}


@pytest.mark.parametrize("policy", ["max_min_fairness", "max_min_fairness_perf", "fifo_perf",
                                    "finish_time_fairness_perf"])
def test_service_received_sums_to_each_jobs_work(policy):
    rng = np.random.default_rng(5)
    jobs = [_job(i, float(rng.uniform(0, 30)), float(rng.uniform(5, 40))) for i in range(6)]
    sim = _run(policy, jobs)
    rounds = sim.run_state.rounds
    table = sim.jobs_table().sort_values("arrival_min", kind="stable")
    assert sim.run_state.end_reason == "completed"
    duration = np.array([j.duration_min for j in sim.setup.all_jobs])
    np.testing.assert_allclose(rounds.work_min.sum(axis=1), duration, rtol=1e-9, atol=1e-9)
    # minutes held in rounds are the minutes the jobs table says each job held GPUs
    np.testing.assert_allclose(rounds.service_min.sum(axis=1), table["run_min"].to_numpy(), atol=1e-6)


GAVEL = st.fixed_dictionaries({
    "v100": st.integers(0, 2), "p100": st.integers(0, 2), "k80": st.integers(1, 2),
    "jobs": st.integers(1, 12), "load": st.floats(0.1, 2.0), "seed": st.integers(0, 1000),
    "length": st.floats(1.0, 30.0), "reset": st.sampled_from([0.0, 32.0]),
})


@pytest.mark.parametrize("policy", round_policy_names())
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=GAVEL)
def test_every_run_ends_under_every_round_policy(policy, case):
    nodes = [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": case[m.lower()], "count": 1}
             for m in ("V100", "P100", "K80") if case[m.lower()]]
    scenario = scenario_from_dict({
        "name": "r", "cluster": {"nodes": nodes}, "speed": "gavel",
        "workload": {"generator": "gavel", "jobs": case["jobs"], "load": case["load"], "seed": case["seed"]},
        "rounds": {"length_min": case["length"], "reset_min": case["reset"]}})
    sim = make_simulator(scenario, rounds=True)
    result = sim.run(get_policy(policy, case["seed"]))
    assert result.end_reason == "completed"
    assert bool(result.jobs["finished"].all())
    assert result.metrics["rounds"] >= 1


TINY = {"name": "tiny-rounds",
        "cluster": {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 1, "count": 1}
                              for m in ("V100", "P100", "K80")]},
        "workload": {"generator": "gavel", "jobs": 5, "load": 0.8, "seed": 2},
        "speed": "gavel", "rounds": {"length_min": 6, "reset_min": 32}}


@pytest.mark.parametrize("policy", round_policy_names())
def test_each_round_policy_runs_from_the_command_line(policy, tmp_path):
    path = tmp_path / "s.json"
    scenario = tmp_path / "s.yaml"
    scenario.write_text(json.dumps(TINY), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "gpusched", "simulate", "--scenario", str(scenario),
                          "--policy", policy, "--json", str(path)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["policy"] == policy and data["metrics"]["jobs_completed"] == 5
    assert data["metrics"]["rounds"] >= 1 and data["metrics"]["round_solves"] >= 1
    assert data["metrics"]["round_solve_total_s"] >= data["metrics"]["round_solve_median_s"] >= 0


def test_compare_runs_round_policies_beside_event_driven_ones(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text(json.dumps(TINY), encoding="utf-8")
    path = tmp_path / "c.json"
    out = subprocess.run([sys.executable, "-m", "gpusched", "compare", "--scenario", str(scenario),
                          "--policies", "fifo_perf,max_min_fairness,first_fit", "--seed-list", "1",
                          "--json", str(path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    runs = json.loads(path.read_text(encoding="utf-8"))["runs"]
    assert {r["policy"] for r in runs} == {"fifo_perf", "max_min_fairness", "first_fit"}
    assert all(r["metrics"]["jobs_completed"] == 5 for r in runs)


def test_a_solver_failure_names_the_policy_and_the_round():
    from gpusched.core.rounds import RoundSolveError
    from gpusched.policies.rounds.base import RoundPolicy
    from gpusched.policies.rounds.scheduler import RoundFailedError, RoundScheduler

    class Failing(RoundPolicy):
        name = "failing"

        def solve(self, problem):
            raise RoundSolveError("round policy failing: solver status 2 (infeasible)")

    cluster = _cluster()
    sim = Simulator(cluster, [_job(0, 3.0, 10.0)],
                    speed_model=TableSpeeds(cluster, _speeds(cluster)), rounds=RoundSpec())
    expected = r"policy 'failing', the round at minute 3\.0 \(round 1\): .*infeasible"
    with pytest.raises(RoundFailedError, match=expected):
        sim.run(RoundScheduler(Failing()))


@pytest.mark.parametrize("policy", ["max_min_fairness_perf", "fifo_perf", "max_min_fairness"])
def test_rounds_run_through_node_failures(policy):
    from gpusched.workload.presets import load_scenario

    scenario = load_scenario("fleet-16gpu-failures").with_overrides(
        **{"failures.node_failures_per_1000_node_days": 1500.0})
    sim = make_simulator(scenario, seed=0, n_jobs=40, rounds=True)
    result = sim.run(get_policy(policy, 0))
    assert result.end_reason == "completed" and result.metrics["node_failures"] > 0
    finished = result.jobs["finished"].to_numpy()
    duration = np.array([j.duration_min for j in sim.setup.all_jobs])
    # a job's progress per type, lost work subtracted, adds up to its work once it has finished
    np.testing.assert_allclose(sim.run_state.rounds.work_min.sum(axis=1)[finished], duration[finished],
                               rtol=1e-9, atol=1e-6)


def test_a_fork_in_rounds_continues_like_the_original():
    rng = np.random.default_rng(3)
    jobs = [_job(i, float(rng.uniform(0, 40)), float(rng.uniform(5, 30))) for i in range(8)]
    sim = _run("max_min_fairness", jobs)
    reference = sim.jobs_table()
    sim.reset()
    first = get_policy("max_min_fairness", 0)
    first.bind(sim.view)
    for _ in range(25):
        slot, action = first.decide(sim.view)
        sim.step(action, slot)
    twin = sim.fork()
    second = get_policy("max_min_fairness", 0)
    second.bind(twin.view)
    for run, policy in ((sim, first), (twin, second)):
        while not run.run_state.done:
            slot, action = policy.decide(run.view)
            run.step(action, slot)
    for run in (sim, twin):
        table = run.jobs_table()
        np.testing.assert_array_equal(table["end_min"].to_numpy(), reference["end_min"].to_numpy())
    assert twin.run_state.rounds is not sim.run_state.rounds


def _round_arrays(rounds) -> dict[str, np.ndarray]:
    from gpusched.core.rounds.mechanism import _COPIED

    lists = ("prev_gpus", "placed", "last_placed", "placed_pairs")
    return {name: np.array(getattr(rounds, name), dtype=object if name in lists else None)
            for name in _COPIED if name != "colocated"}


def test_a_round_plan_dropped_or_applied_to_a_fork_leaves_its_source_as_it_was():
    """A round's plan shares the arrays of the state it was made from until it changes them (copy
    on write, RoundsRun.fork): made and dropped, the state is unchanged; applied to a fork of the
    simulator, the fork runs on its own copy and the source run ends as it would have."""
    from gpusched.core.rounds.mechanism import RoundPlan

    rng = np.random.default_rng(5)
    jobs = [_job(i, float(rng.uniform(0, 40)), float(rng.uniform(5, 30))) for i in range(8)]
    reference = _run("max_min_fairness", jobs).jobs_table()["end_min"].to_numpy()
    sim = _run("max_min_fairness", jobs)
    sim.reset()
    first = get_policy("max_min_fairness", 0)
    first.bind(sim.view)
    plans = 0
    twins = []
    while not sim.run_state.done:
        slot, action = first.decide(sim.view)
        if isinstance(action, RoundPlan) and plans < 6:
            plans += 1
            before = _round_arrays(sim.run_state.rounds)
            twin = sim.fork()
            second = get_policy("max_min_fairness", 0)
            second.bind(twin.view)  # before the step: a fork asks for decisions once bound
            twin.step(action, slot)  # the plan made on sim, installed on its fork
            twins.append((twin, second))
            after = _round_arrays(sim.run_state.rounds)
            for name, value in before.items():
                assert np.array_equal(value, after[name]), name
            slot, action = first.decide(sim.view)  # the same plan again, made afresh
        sim.step(action, slot)
    assert plans == 6
    np.testing.assert_array_equal(sim.jobs_table()["end_min"].to_numpy(), reference)
    for twin, policy in twins:
        while not twin.run_state.done:
            slot, action = policy.decide(twin.view)
            twin.step(action, slot)
        np.testing.assert_array_equal(twin.jobs_table()["end_min"].to_numpy(), reference)


@pytest.mark.parametrize(("policy", "recompute"), [
    ("fifo_perf", "held"), ("allox", "held"), ("max_min_fairness_perf", "held"),
    ("max_sum_throughput_perf", "held"), ("max_min_fairness", "held"),
    ("max_sum_throughput_perf", "on_change"), ("finish_time_fairness_perf", "on_change"),
    ("allox", "on_change")])
def test_reusing_a_fixed_point_placement_gives_the_same_run(policy, recompute, monkeypatch):
    """Rounds whose placement is a fixed point of the priority rule reuse it
    (gpusched.core.rounds.assign.order_free); computing every round in full gives the same run.
    Under ``on_change`` a reset of the time received (and of the deficits) can come between two
    allocations: the round after it places again."""
    import gpusched.core.rounds.mechanism as mechanism

    on_change = recompute == "on_change"
    scenario = scenario_from_dict({**TINY, "workload": {"generator": "gavel", "jobs": 12, "load": 1.5,
                                                        "seed": 16 if on_change else 3},
                                   "rounds": {**TINY["rounds"], "recompute": recompute,
                                              "reset_min": 12 if on_change else 32}})
    fast = make_simulator(scenario, rounds=True).run(get_policy(policy, 0))
    reused = []
    real = mechanism.order_free
    monkeypatch.setattr(mechanism, "order_free", lambda *a, **kw: reused.append(real(*a, **kw)) and False)
    slow = make_simulator(scenario, rounds=True).run(get_policy(policy, 0))
    if policy in ("fifo_perf", "max_sum_throughput_perf"):
        assert any(reused)  # the case does reach fixed points
    assert fast.jobs.equals(slow.jobs)
    keep = [k for k in fast.metrics if "solve" not in k]
    assert {k: fast.metrics[k] for k in keep} == {k: slow.metrics[k] for k in keep}


def test_the_work_a_round_policy_reads_falls_while_a_job_keeps_its_gpus() -> None:
    """One job alone on one GPU keeps its lease round after round (it is never stopped); a second
    job arriving later makes the allocation be computed again. The first job's remaining work at
    that computation is its work less what it has done, not its whole work (Gavel's
    ``_get_remaining_steps``: total steps less the steps run, counted at every round's end)."""
    from gpusched.core.rounds import Allocation
    from gpusched.policies.rounds.base import RoundPolicy
    from gpusched.policies.rounds.scheduler import RoundScheduler

    seen: list[tuple[float, ...]] = []

    class Recorder(RoundPolicy):
        name = "recorder"
        label = "records the remaining work"
        run_times = True

        def solve(self, problem):
            seen.append(tuple(float(x) for x in problem.remaining))
            return Allocation(share=np.eye(problem.n_jobs, 1))

    cluster = Cluster([NodeGroup("V100", 16, 1, 1)])
    jobs = [Job(id=0, type="training", arrival_min=0.0, duration_min=30.0, gpus=1, vram_gb=1.0, compute=1.0),
            Job(id=1, type="training", arrival_min=10.5, duration_min=5.0, gpus=1, vram_gb=1.0, compute=1.0)]
    sim = Simulator(cluster, jobs, rounds=RoundSpec(length_min=2.0, reset_min=0.0))
    sim.run(RoundScheduler(Recorder()))
    # the second computation is at the first round boundary after minute 10.5: minute 12
    assert seen[0] == (30.0 * 60.0,)
    assert seen[1] == pytest.approx((18.0 * 60.0, 5.0 * 60.0))


def _three_arrivals(recompute: str):
    """Three 100-min jobs on one GPU, arriving at minutes 0, 10 and 20; 2-min rounds, 60 min
    between resets."""
    jobs = [_job(i, arrival, 100.0) for i, arrival in enumerate((0.0, 10.0, 20.0))]
    cluster = Cluster([NodeGroup("V100", 16, 1, 1)])
    sim = Simulator(cluster, jobs, rounds=RoundSpec(length_min=2.0, reset_min=60.0, recompute=recompute))
    return sim, sim.run(get_policy("max_min_fairness", 0))


def test_on_change_recomputes_the_allocation_at_every_arrival_and_holds_only_the_reset():
    """Held (Gavel's simulator): the arrival at minute 0 resets (a reset at time 0 counts as none,
    so the next change resets again), the one at minute 10 resets, and the one at minute 20 comes
    before the 60 min are up: job 2 has no allocation and waits. On change (Gavel's physical
    scheduler): the allocation is recomputed at minute 20 too, so job 2 starts sooner, and the
    time received is not reset until the 60 min are up: resets at 0, 10, 70 (the first round 60 min
    after 10, an allocation having changed since) and 276 (job 0 ends); job 1 ends at 298, 22 min
    later: its allocation is computed, the reset waits, and the run ends at 300 first."""
    held_sim, held = _three_arrivals("held")
    sim, on_change = _three_arrivals("on_change")
    assert on_change.metrics["round_solves"] == held.metrics["round_solves"] + 1
    start = {name: float(r.jobs.set_index("id").loc[2, "start_min"]) for name, r in
             (("held", held), ("on_change", on_change))}
    assert start["on_change"] < start["held"]
    assert start["on_change"] == pytest.approx(20.0)
    ends = on_change.jobs.set_index("id")["end_min"]
    assert (ends[0], ends[1]) == (pytest.approx(276.0), pytest.approx(298.0))
    assert sim.run_state.rounds.last_reset_min == pytest.approx(276.0)


def test_on_change_asks_for_an_allocation_at_a_change_that_held_would_wait_for():
    from gpusched.core.rounds.mechanism import RoundsRun
    rounds = RoundsRun.start(RoundSpec(length_min=2.0, reset_min=60.0, recompute="on_change"),
                             ["V100"], 3, 0, 0.0)
    rounds.joined[:] = True
    rounds.last_reset_min = 10.0
    rounds.changed = True
    assert rounds.needs_allocation(20.0, np.array([0, 1, 2]))  # a change: recompute now
    held = RoundsRun.start(RoundSpec(length_min=2.0, reset_min=60.0), ["V100"], 3, 0, 0.0)
    held.joined[:] = True
    held.last_reset_min, held.changed = 10.0, True
    assert not held.needs_allocation(20.0, np.array([0, 1, 2]))  # held to 60 min after the reset
    assert held.needs_allocation(70.0, np.array([0, 1, 2]))


def test_a_recompute_mode_is_one_of_two():
    from pydantic import ValidationError
    with pytest.raises(ValidationError):
        RoundSpec(recompute="sometimes")


@pytest.mark.parametrize("policy", ["max_min_fairness", "fifo_perf", "max_min_fairness_packed"])
def test_each_rounds_starting_progress_is_the_lifecycles(policy, monkeypatch):
    # A round reads the progress its jobs had at the last round's end when they kept their runs
    # (RoundsRun._ended); it must be what the lifecycle computes now, for every placed job, whether
    # it kept its run, moved, or was stopped and started again (here a stop keeps only half the
    # work since the last saved state, so a stale reading would differ).
    from gpusched.core.rounds.mechanism import RoundMechanism

    begin, checked, reused = RoundMechanism.begin, [], []

    def checking_begin(self, run, plan):
        ended = plan.rounds._ended if plan.rounds._ended_at == run.time_min else {}
        begin(self, run, plan)
        for i, _, progress in run.rounds.placed:
            assert progress == self.lifecycle.progress_min(run, i)
            checked.append(i)
            reused.extend([i] if i in ended else [])

    monkeypatch.setattr(RoundMechanism, "begin", checking_begin)
    rng = np.random.default_rng(3)
    jobs = [Job(id=i, type="training", arrival_min=float(rng.uniform(0, 60)),
                duration_min=float(rng.uniform(20, 90)), gpus=1, vram_gb=1.0, compute=1.0,
                model=str(rng.choice(["ResNet-18", "LM"]))) for i in range(8)]

    class HalfKept(CheckpointRestore):
        def kept_min(self, job, kind, progress_min, saved_min):
            return saved_min + (progress_min - saved_min) / 2.0

    cluster = _cluster()
    sim = Simulator(cluster, jobs, speed_model=TableSpeeds(cluster, _speeds(cluster)),
                    rounds=RoundSpec(length_min=5.0, reset_min=0),
                    restore=HalfKept(CheckpointSpec(interval_min=60, types=("training",), restore_min=0.5)))
    sim.run(get_policy(policy, 0))
    assert sim.run_state.end_reason == "completed"
    assert checked and reused  # some rounds read the kept progress
    if policy == "max_min_fairness":
        assert sim.run_state.log.stops  # and some jobs were stopped or moved between rounds


def test_progress_at_reads_as_progress_min_at_each_time(monkeypatch):
    """``Lifecycle.progress_at`` (the quiet rounds' progress, as arrays) gives, for every running
    job at every round's end and a little later, exactly what ``progress_min`` gives with the
    clock there: on jobs that move, stop and restore (their saved work and restore are not 0)."""
    from gpusched.core.rounds.mechanism import RoundMechanism

    real = RoundMechanism._close_round
    checked = {"times": 0, "restoring": 0}

    def checking(self, run, r, t):
        life = self.lifecycle
        jobs = np.array(sorted(run.running), dtype=np.int64)
        if len(jobs):
            times = np.array([t, t + 0.4, t + 3.0])
            got = life.progress_at(run, jobs, times)
            now = run.time_min
            for row, when in enumerate(times.tolist()):
                run.time_min = when
                want = [life.progress_min(run, i) for i in jobs.tolist()]
                assert got[row].tolist() == want
            run.time_min = now
            checked["times"] += 1
            lives = run.record.lives
            checked["restoring"] += lives is not None and bool((lives.current_restore_min[jobs] > 0).any())
        return real(self, run, r, t)

    monkeypatch.setattr(RoundMechanism, "_close_round", checking)
    _run("max_min_fairness", [_job(i, 2.0 * i, 40.0) for i in range(3)])
    assert checked["times"] > 10 and checked["restoring"] > 0
