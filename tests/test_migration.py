"""Migration: the Migrate action, the placement fastest_move on hand-built cases, and properties of
runs that move jobs (no job lost or counted twice, work conserved, goodput by its formula)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.failures import CheckpointSpec
from gpusched.core.jobs import Job
from gpusched.core.restore import CheckpointRestore
from gpusched.core.simulator import HOLD, Migrate, Simulator
from gpusched.core.speed import GpuSpeeds
from gpusched.core.speed_model import TableSpeeds
from gpusched.core.view import as_scheduler
from gpusched.figures.replay import STOP_LEGENDS, gantt_figure
from gpusched.paths import REPO_ROOT
from gpusched.policies import get_policy, moving_policy_names
from gpusched.workload.build import make_simulator
from gpusched.workload.scenario_yaml import scenario_from_dict
from gpusched.workload.synthetic import generate_jobs

RESTORE_MIN = 5.0
GUARD_MIN = 10.0


def cluster(*models: str) -> Cluster:
    """One node of one GPU per model, in the order given."""
    return Cluster([NodeGroup(m, 16.0, 1) for m in models])


SPEED = {"V100": 1.0, "P100": 0.5, "K80": 0.25}
"""Speeds relative to the V100 for the hand-built cases."""


def speeds(c: Cluster) -> GpuSpeeds:
    return GpuSpeeds(c, {m: {"training": s} for m, s in SPEED.items()})


def job(idx: int, duration: float, arrival: float = 0.0) -> Job:
    return Job(id=idx, type="training", arrival_min=arrival, duration_min=duration, gpus=1, vram_gb=1.0,
               compute=1.0)


def simulator(c: Cluster, jobs: list[Job], restore: float = RESTORE_MIN) -> Simulator:
    return Simulator(c, jobs, speed_model=TableSpeeds(c, speeds(c)), preemption_min_run_min=GUARD_MIN,
                     restore=CheckpointRestore(CheckpointSpec(interval_min=60.0, restore_min=restore)))


def test_a_job_on_a_k80_moves_to_a_v100_that_frees_and_pays_its_restore():
    c = cluster("V100", "K80")
    jobs = [job(0, 60.0), job(1, 600.0)]
    result = simulator(c, jobs).run(get_policy("fcfs+fastest_move"))
    # Job 0 takes the V100 (Fastest-Fit) and ends at 60; job 1 runs on the K80 at 0.25 meanwhile:
    # 60 min x 0.25 = 15 V100-minutes of progress, 585 left. Staying: 585 / 0.25 = 2,340 min more;
    # moving: 5 (restore) + 585 / 1.0 = 590, shorter. It moves at 60 and ends at 60 + 590 = 650.
    t = result.jobs
    assert t["end_min"].tolist() == [60.0, 650.0]
    assert t["migrations"].tolist() == [0, 1]
    assert t["gpu_ids"].tolist() == [[0], [0]]
    assert t.loc[1, "restore_min"] == RESTORE_MIN and t.loc[1, "lost_min"] == 0.0
    assert t.loc[1, "run_min"] == 650.0 and t.loc[1, "wait_min"] == 0.0
    m = result.metrics
    assert m["migrations"] == 1 and m["preemptions"] == 0
    assert m["migration_restore_gpu_hours"] == m["restore_gpu_hours"] == RESTORE_MIN / 60.0
    assert m["avg_jct_min"] == (60.0 + 650.0) / 2
    # Without moves it would end at 600 / 0.25 = 2,400.
    assert simulator(c, jobs).run(get_policy("fcfs+fastest_fit")).jobs["end_min"].tolist() == [60.0, 2400.0]
    # The record: one stop of kind migration and one resumption on the V100, at 60.
    tl = result.timeline
    assert tl.stops[["time_min", "job", "kind"]].values.tolist() == [[60.0, 1, "migration"]]
    assert tl.resumes[["time_min", "job", "restore_min"]].values.tolist() == [[60.0, 1, RESTORE_MIN]]
    names = {trace.name for trace in gantt_figure(result).data}
    assert STOP_LEGENDS["migration"] in names


def test_without_a_checkpoint_block_a_move_is_free():
    # As above, with no restore: the job moves at 60 and ends at 60 + 585 = 645.
    c = cluster("V100", "K80")
    sim = Simulator(c, [job(0, 60.0), job(1, 600.0)],
                    speed_model=TableSpeeds(c, speeds(c)), preemption_min_run_min=GUARD_MIN)
    result = sim.run(get_policy("fastest_move"))
    assert result.jobs["end_min"].tolist() == [60.0, 645.0]
    assert result.metrics["migrations"] == 1 and result.metrics["migration_restore_gpu_hours"] == 0.0
    assert result.metrics["goodput"] == 1.0


def test_a_move_must_win_back_its_restore():
    # At 60 the job on the K80 has 15 V100-minutes left of 30 declared: staying takes 60 min,
    # moving 50 + 15 = 65. It stays and ends at 120.
    c = cluster("V100", "K80")
    result = simulator(c, [job(0, 60.0), job(1, 30.0)], restore=50.0).run(get_policy("fastest_move"))
    assert result.jobs["end_min"].tolist() == [60.0, 120.0] and result.metrics["migrations"] == 0


def test_a_move_pays_move_restore_min_and_a_resumption_from_the_queue_restore_min():
    # The first case with a move that costs 2 min and a resumption 50: the job moves at 60 and
    # ends at 60 + 2 + 585 = 647 (with 50 it would still move, 50 + 585 < 2,340, and end at 695).
    c = cluster("V100", "K80")
    spec = CheckpointSpec(interval_min=60.0, restore_min=50.0, move_restore_min=2.0)
    sim = Simulator(c, [job(0, 60.0), job(1, 600.0)], speed_model=TableSpeeds(c, speeds(c)),
                    preemption_min_run_min=GUARD_MIN, restore=CheckpointRestore(spec))
    t = sim.run(get_policy("fcfs+fastest_move")).jobs
    assert t["end_min"].tolist() == [60.0, 647.0]
    assert t.loc[1, "restore_min"] == 2.0 and t["migrations"].tolist() == [0, 1]
    # Preempted to the queue, a job pays restore_min: on one V100 srtf preempts job 0 (100 min) at
    # 20 for job 1 (5 min, 20 -> 25); job 0 resumes at 25 and ends at 25 + 50 + 80 = 155.
    one = cluster("V100")
    sim = Simulator(one, [job(0, 100.0), job(1, 5.0, arrival=20.0)],
                    speed_model=TableSpeeds(one, speeds(one)), window=4, restore=CheckpointRestore(spec))
    t = sim.run(get_policy("srtf+best_fit")).jobs
    assert t["end_min"].tolist() == [155.0, 25.0] and t.loc[0, "restore_min"] == 50.0


def test_the_move_rule_reads_the_cost_of_a_move():
    # A move that costs 65 min does not pay back (65 + 15 > 60 left on the K80) even when a
    # resumption costs nothing; one that costs 0 does, whatever a resumption costs.
    c = cluster("V100", "K80")
    ends = {}
    for restore, move in ((0.0, 65.0), (80.0, 0.0)):
        spec = CheckpointSpec(interval_min=60.0, restore_min=restore, move_restore_min=move)
        sim = Simulator(c, [job(0, 60.0), job(1, 30.0)], speed_model=TableSpeeds(c, speeds(c)),
                        preemption_min_run_min=GUARD_MIN, restore=CheckpointRestore(spec))
        ends[move] = sim.run(get_policy("fastest_move")).jobs["end_min"].tolist()
    assert ends == {65.0: [60.0, 120.0], 0.0: [60.0, 75.0]}


def test_where_no_run_time_is_declared_a_job_moves_whenever_the_gang_is_faster():
    # The case above with nothing declared: its work left is unknown, so unbounded; the move wins
    # back any restore. It moves at 60 (15 V100-minutes done, 15 left) and ends at 60 + 50 + 15.
    from gpusched.core.estimator import UndeclaredRuntime

    c = cluster("V100", "K80")
    sim = Simulator(c, [job(0, 60.0), job(1, 30.0)],
                    speed_model=TableSpeeds(c, speeds(c)), preemption_min_run_min=GUARD_MIN,
                    restore=CheckpointRestore(CheckpointSpec(interval_min=60.0, restore_min=50.0)),
                    estimator=UndeclaredRuntime)
    result = sim.run(get_policy("fastest_move"))
    assert result.jobs["end_min"].tolist() == [60.0, 125.0] and result.metrics["migrations"] == 1


def test_a_job_is_not_moved_twice_within_the_guard():
    c = cluster("V100", "P100", "K80")
    jobs = [job(0, 62.0), job(1, 30.0), job(2, 600.0)]
    result = simulator(c, jobs).run(get_policy("fastest_move"))
    # 0 -> V100 (ends 62), 1 -> P100 (30 / 0.5: ends 60), 2 -> K80. At 60 job 2 has 15 done and
    # moves to the P100 (5 + 585 / 0.5 = 1,175 < 585 / 0.25 = 2,340), restoring until 65. The V100
    # frees at 62, but job 2 may move again only at 60 + 5 (restore) + 10 (guard) = 75. By then it
    # has 15 + 10 x 0.5 = 20 done; it moves (5 + 580 < 580 / 0.5) and ends at 75 + 5 + 580 = 660.
    t = result.jobs
    assert t["end_min"].tolist() == [62.0, 60.0, 660.0]
    assert result.timeline.stops["time_min"].tolist() == [60.0, 75.0]
    assert result.metrics["migrations"] == 2
    assert result.metrics["migration_restore_gpu_hours"] == 2 * RESTORE_MIN / 60.0


def _running_sim() -> Simulator:
    """Job 0 on the V100 (60 min) and job 1 on the K80 from minute 0; jobs 2 and 3 arrive at 5
    and 20. Returns at minute 5."""
    sim = simulator(cluster("V100", "K80"), [job(0, 60.0), job(1, 600.0), job(2, 30.0, arrival=5.0),
                                             job(3, 30.0, arrival=20.0)])
    sim.step((0,))
    sim.step((1,))
    assert sim.run_state.time_min == 5.0
    return sim


def test_an_invalid_migration_raises():
    sim = _running_sim()
    with pytest.raises(ValueError, match="yet"):  # within the guard
        sim.step(Migrate(1, (0,)))
    with pytest.raises(ValueError, match="not running"):
        sim.step(Migrate(2, (0,)))
    sim.step(HOLD)  # to minute 20, job 2 arrives
    assert sim.run_state.time_min == 20.0 and sim.view.preemptible(1)
    with pytest.raises(ValueError, match="does not fit"):  # the V100 holds job 0
        sim.step(Migrate(1, (0,)))
    with pytest.raises(ValueError, match="runs there already"):
        sim.step(Migrate(1, (1,)))
    with pytest.raises(ValueError, match="does not fit"):  # no such GPU
        sim.step(Migrate(1, (7,)))
    assert sim.run_state.migrations == 0 and sim.run_state.record.job_gpus[1] == (1,)


def test_with_an_empty_queue_only_hold_preempt_or_migrate_apply():
    sim = simulator(cluster("V100", "K80"), [job(0, 60.0), job(1, 600.0)])
    sim.view.request_event_decisions()
    sim.step((0,))
    sim.step((1,))  # the queue is empty: the next event (job 0 ends at 60) is a decision point
    assert sim.run_state.time_min == 60.0 and not sim.run_state.queue and not sim.run_state.done
    with pytest.raises(ValueError, match="queue is empty"):
        sim.step((0,))
    sim.step(Migrate(1, (0,)))
    assert sim.run_state.time_min == 60.0 and sim.run_state.record.job_gpus[1] == (0,)
    sim.step(HOLD)  # job 1 ends at 60 + 5 + 585 = 650
    assert sim.run_state.time_min == 650.0
    sim.step(HOLD)
    run = sim.run_state
    assert run.done and run.end_reason == "completed" and run.record.end_min.tolist() == [60.0, 650.0]


def test_a_migration_is_a_disruption_and_a_fork_copies_its_state():
    sim = _running_sim()
    sim.step(HOLD)  # minute 20
    sim.step(HOLD)  # minute 60: job 0 ends, the V100 frees
    assert sim.run_state.time_min == 60.0 and not sim.run_state.is_running(0)
    before = (sim.run_state.epoch, sim.run_state.disruptions)
    sim.step(Migrate(1, (0,)))
    assert (sim.run_state.epoch, sim.run_state.disruptions) == (before[0] + 1, before[1] + 1)
    twin = sim.fork()
    assert twin.run_state.migrations == 1 and twin.run_state.record.lives.migrations.tolist() == [0, 1, 0, 0]
    assert twin.run_state.record.lives.current_moved_restore_min[1] == RESTORE_MIN
    twin.run_state.record.lives.migrations[1] = 7
    assert twin.run_state.migrations == 7
    assert sim.run_state.record.lives.migrations[1] == 1 and sim.run_state.migrations == 1
    a, b = sim.fork(), sim.fork()
    for s in (a, b):
        policy = as_scheduler(get_policy("fastest_move"))
        policy.bind(s.view)
        while not s.run_state.done:
            slot, action = policy.decide(s.view)
            s.step(action, slot)
    assert a.metrics() == b.metrics() and a.metrics()["migrations"] >= 1
    assert sim.run_state.migrations == 1 and not sim.run_state.done and sim.run_state.time_min == 60.0


@pytest.mark.parametrize("name", moving_policy_names())
def test_every_order_moves_up(name):
    c = cluster("V100", "K80")
    result = simulator(c, [job(0, 60.0), job(1, 600.0)]).run(get_policy(name))
    assert result.jobs["end_min"].tolist() == [60.0, 650.0], name
    assert result.policy == name


def test_without_speeds_fastest_move_is_best_fit_and_moves_nothing():
    c = Cluster([NodeGroup("A100-80GB", 80.0, 2), NodeGroup("T4-16GB", 16.0, 2)])
    jobs = generate_jobs(40, 12.0, {"training": 1.0}, np.random.default_rng(3), c.max_vram_gb_for_gpus())
    moved = Simulator(c, jobs).run(get_policy("fastest_move"))
    best = Simulator(c, jobs).run(get_policy("best_fit"))
    assert moved.metrics["migrations"] == 0
    assert moved.jobs.drop(columns="gpu_ids").equals(best.jobs.drop(columns="gpu_ids"))


GAVEL_DIR = REPO_ROOT / "benchmarks" / "gavel"
TIER2_LISTS = [f"t2-{n}-{n}-{n}-300-s{s}" for n in (4, 8) for s in (0, 1, 2)]
"""The mixed-GPU job lists Gavel's simulator ran with ``fifo_perf`` (its stored outputs)."""


@pytest.mark.parametrize("name", TIER2_LISTS)
def test_fcfs_fastest_move_with_free_moves_is_within_3_percent_of_gavels_fifo_perf(name):
    """On the job lists of the stored Gavel runs (V100, P100 and K80 servers of one GPU, ``speed:
    gavel``), free moves (no checkpoint block) give a mean JCT within 3 % of Gavel's ``fifo_perf`` at
    60 s rounds with no wait between allocation resets."""
    n = int(name.split("-")[1])
    scenario = scenario_from_dict({
        "name": name, "speed": "gavel",
        "cluster": {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 1, "count": n}
                              for m in ("V100", "P100", "K80")]},
        "workload": {"jobs": 300, "trace": {"jobs": str(GAVEL_DIR / "jobs" / f"{name}.csv")}}}, name)
    gavel_s = json.loads((GAVEL_DIR / "references.json").read_text(encoding="utf-8"))["runs"][
        f"{name}-r60w0"]["mean_jct_s"]
    moved = make_simulator(scenario, 0).run(get_policy("fcfs+fastest_move")).metrics
    fixed = make_simulator(scenario, 0).run(get_policy("fcfs+fastest_fit")).metrics
    assert moved["migrations"] > 0
    assert abs(moved["avg_jct_min"] * 60.0 / gavel_s - 1.0) <= 0.03
    assert moved["avg_jct_min"] < fixed["avg_jct_min"]


def test_the_stop_and_resume_tables_are_the_logs_row_for_row():
    """The timeline builds its stop and resume tables column by column: the same frames, dtypes
    included, as the run's logs read one row at a time (and an empty log an empty table)."""
    import pandas as pd

    from gpusched.core.timeline import RESUME_COLUMNS, STOP_COLUMNS

    c = cluster("V100", "K80")
    sim = simulator(c, [job(0, 60.0), job(1, 600.0), job(2, 30.0, arrival=5.0)])
    result = sim.run(get_policy("srtf+fastest_move"))
    log, ids = sim.run_state.log, result.jobs.sort_index()["id"].to_numpy()
    assert len(log.stops) and len(log.resumes)
    stops = pd.DataFrame([(t, ids[i], k, st, list(g), lo, lh) for t, i, k, st, g, lo, lh in log.stops],
                         columns=list(STOP_COLUMNS))
    resumes = pd.DataFrame([(t, ids[i], list(g), r) for t, i, g, r in log.resumes],
                           columns=list(RESUME_COLUMNS))
    pd.testing.assert_frame_equal(result.timeline.stops, stops, check_exact=True)
    pd.testing.assert_frame_equal(result.timeline.resumes, resumes, check_exact=True)
    quiet = simulator(c, [job(0, 60.0)]).run(get_policy("fcfs+fastest_fit")).timeline
    pd.testing.assert_frame_equal(quiet.stops, pd.DataFrame([], columns=list(STOP_COLUMNS)))
