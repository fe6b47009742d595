"""A batched action (stop these, move those, start these at one instant) gives the same run as its
changes answered one decision at a time, where both are possible; it is one decision with one
bump of the view's epochs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpusched.core.actions import Batch, Migrate, Preempt
from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.failures import CheckpointSpec
from gpusched.core.jobs import Job
from gpusched.core.restore import CheckpointRestore
from gpusched.core.simulator import Simulator
from gpusched.core.speed import DEFAULT_SPEEDS, GpuSpeeds
from gpusched.core.speed_model import TableSpeeds
from gpusched.policies import get_policy
from gpusched.workload.synthetic import generate_jobs

FIRST_FIT = get_policy("first_fit")


def _simulator(seed: int, with_speeds: bool) -> Simulator:
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 4, 2), NodeGroup("V100-32GB", 32.0, 4, 1)])
    jobs = generate_jobs(40, 30.0, {"training": 0.5, "inference": 0.2, "batch": 0.3},
                         np.random.default_rng(seed), cluster.max_vram_gb_for_gpus())
    speeds = GpuSpeeds(cluster, DEFAULT_SPEEDS) if with_speeds else None
    return Simulator(cluster, jobs, window=40,
                     speed_model=TableSpeeds(cluster, speeds), preemption_min_run_min=1.0,
                     restore=CheckpointRestore(CheckpointSpec(interval_min=30.0, restore_min=2.0)))


def _first_fit_until_done(sim: Simulator) -> None:
    while not sim.run_state.done:
        sim.step(FIRST_FIT.select(sim.run_state.state, sim.view.head_job))


def _free_gang(sim: Simulator, job: Job, rng: np.random.Generator) -> tuple[int, ...] | None:
    """A gang where ``job`` fits now, picked at random among the GPUs where it fits, or ``None``."""
    fits = np.flatnonzero(sim.run_state.state.fit_mask(job))
    for gpu in rng.permutation(fits).tolist():
        gang = sim.setup.gang_rule.gang_for(sim.run_state.state, job, gpu)
        if gang:
            return gang
    return None


def _one_at_a_time(sim: Simulator, rng: np.random.Generator) -> Batch:
    """Apply random possible changes to ``sim`` one decision at a time (stops, then moves, then
    starts) and return them as one batch."""
    view, stops, moves, starts = sim.view, [], [], []
    for idx in rng.permutation(sorted(view.running_indices())).tolist():
        if view.preemptible(idx) and rng.random() < 0.5:
            sim.step(Preempt(idx))
            stops.append(idx)
    for idx in rng.permutation(sorted(view.running_indices())).tolist():
        if not view.preemptible(idx) or rng.random() < 0.5:
            continue
        held = view.job_gpus[idx]
        freed = sim.run_state.state.copy()
        freed.release(sim.run_state.jobs[idx], held)
        gang = _free_gang_on(sim, freed, sim.run_state.jobs[idx], rng)
        if gang is not None and sorted(gang) != sorted(held):
            sim.step(Migrate(idx, gang))
            moves.append(Migrate(idx, gang))
    for idx in list(sim.run_state.queue):  # the queue empties at the last start, if at all
        gang = _free_gang(sim, sim.run_state.jobs[idx], rng)
        if gang is not None and rng.random() < 0.7:
            assert sim.step(gang, list(sim.run_state.queue).index(idx))
            starts.append((idx, gang))
    return Batch(tuple(stops), tuple(moves), tuple(starts))


def _free_gang_on(sim: Simulator, state, job: Job, rng: np.random.Generator) -> tuple[int, ...] | None:
    fits = np.flatnonzero(state.fit_mask(job))
    for gpu in rng.permutation(fits).tolist():
        gang = sim.setup.gang_rule.gang_for(state, job, gpu)
        if gang:
            return gang
    return None


def _same_run(a: Simulator, b: Simulator) -> None:
    assert a.metrics() == b.metrics()
    pd.testing.assert_frame_equal(a.jobs_table(), b.jobs_table())
    for part in ("holds", "misroutes", "stops", "resumes", "node_events"):
        assert getattr(a.run_state.log, part) == getattr(b.run_state.log, part), part


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), st.integers(5, 40), st.booleans())
def test_a_batch_gives_the_same_run_as_its_changes_one_decision_at_a_time(seed, steps, with_speeds):
    sim = _simulator(seed % 1000, with_speeds)
    for _ in range(steps):
        if sim.run_state.done:
            return
        sim.step(FIRST_FIT.select(sim.run_state.state, sim.view.head_job))
    batched = sim.fork()
    epoch = batched.view.epoch
    batch = _one_at_a_time(sim, np.random.default_rng(seed))
    if not (batch.stop or batch.move or batch.start):
        return
    decisions, completed = batched.run_state.decisions, batched.view.jobs_completed
    assert batched.step(batch)
    assert batched.run_state.decisions == decisions + 1
    # The batch bumps the epoch once if it stops or moves a job; the advance to the next decision
    # after it bumps it once more per instant at which jobs complete (one or more jobs each).
    bumps, own = batched.view.epoch - epoch, (1 if batch.stop or batch.move else 0)
    ended = batched.view.jobs_completed - completed
    assert bumps == own if ended == 0 else own + 1 <= bumps <= own + ended
    ours, theirs = batched.run_state, sim.run_state
    assert ours.time_min == theirs.time_min and list(ours.queue) == list(theirs.queue)
    _first_fit_until_done(sim)
    _first_fit_until_done(batched)
    _same_run(sim, batched)


def _small() -> Simulator:
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 2, 2)])
    jobs = [Job(id=i, type="training", arrival_min=0.0, duration_min=100.0, gpus=1, vram_gb=40.0,
                compute=1.0) for i in range(5)]
    return Simulator(cluster, jobs, window=5, preemption_min_run_min=1.0)


def _four_running_at_minute_20() -> Simulator:
    """:func:`_small` with jobs 0-3 on GPUs 0-3 and job 4 queued, at minute 20."""
    sim = _small()
    for gpu in range(4):
        sim.step(gpu)
    sim.run_state.request_wakeup(20.0)
    sim.step(-1)
    return sim


def test_a_batch_applies_stops_then_moves_then_starts_at_one_instant():
    sim = _four_running_at_minute_20()
    assert sim.run_state.time_min == 20.0
    # stop job 0 (GPU 0), move job 1 from GPU 1 to GPU 0, start job 4 on GPU 1
    assert sim.step(Batch(stop=(0,), move=(Migrate(1, (0,)),), start=((4, (1,)),)))
    assert sim.run_state.time_min == 20.0 and list(sim.run_state.queue) == [0]
    assert sim.run_state.record.job_gpus[1] == (0,) and sim.run_state.record.job_gpus[4] == (1,)
    assert [s[2] for s in sim.run_state.log.stops] == ["preemption", "migration"]


def test_an_impossible_change_in_a_batch_raises():
    sim = _small()
    for gpu in range(4):
        sim.step(gpu)
    with pytest.raises(ValueError, match="not running"):
        sim.step(Batch(stop=(4,)))
    with pytest.raises(ValueError, match="does not fit"):
        sim.step(Batch(start=((4, (0,)),)))
    with pytest.raises(ValueError, match="not queued"):
        sim.step(Batch(start=((0, (0,)),)))


def _completions(sim: Simulator) -> list[tuple[float, int]]:
    return sorted((e[0], e[4]) for e in sim.run_state.events.heap if e[3] == "completion")


def test_a_batch_drops_exactly_the_completions_of_the_jobs_it_stops_or_moves():
    sim = _four_running_at_minute_20()
    before = dict((j, t) for t, j in _completions(sim))
    sim.step(Batch(stop=(0,), move=(Migrate(1, (0,)),), start=((4, (1,)),)))
    after = _completions(sim)
    jobs = [j for _, j in after]
    assert sorted(jobs) == [1, 2, 3, 4]  # job 0's is gone; job 1 has its new one only
    assert {j: t for t, j in after if j in (2, 3)} == {2: before[2], 3: before[3]}
    assert dict((j, t) for t, j in after)[1] == pytest.approx(20.0 + sim.run_state.record.run_min[1])


def test_a_refused_move_leaves_the_changes_before_it_applied_with_their_completions_dropped():
    sim = _four_running_at_minute_20()
    with pytest.raises(ValueError, match="does not fit"):
        sim.step(Batch(stop=(0,), move=(Migrate(1, (2,)),)))  # GPU 2 is job 2's
    assert sorted(j for _, j in _completions(sim)) == [1, 2, 3]
    assert 0 in sim.run_state.queue and sim.run_state.record.job_gpus[1] == (1,)
