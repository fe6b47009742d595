"""A job's lifecycle: start, complete, stop (a failure or a preemption), resume and migrate.

Each function changes one simulator's cluster state, per-job record
(:mod:`gpusched.core.jobs_record`), event queue (:mod:`gpusched.core.events`) and integrals
(:mod:`gpusched.core.accounting`) together, by the rules of :mod:`gpusched.core.simulator`'s
docstring; the speed (:mod:`gpusched.core.speed_model`), the gang's nodes
(:mod:`gpusched.core.gang`) and what a stop keeps and a resumption pays
(:mod:`gpusched.core.restore`) come from the simulator's mechanisms. A transition that
disrupts the run (a failure, a preemption, a migration) ends by calling
:meth:`Simulator.disrupted <gpusched.core.simulator.Simulator.disrupted>`, which bumps the view
epoch every cached plan checks. A migration is a stop that keeps the job off the queue and a
resumption on its new gang at the same instant (one stop and one resume in the run's record).
"""

from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING

import numpy as np

from gpusched.core.events import COMPLETION
from gpusched.core.jobs import Job
from gpusched.core.readonly import QUEUE_OPS

if TYPE_CHECKING:
    from gpusched.core.simulator import Simulator

_insert = QUEUE_OPS[3]


def _release(sim: Simulator, job: Job, gpus: tuple[int, ...]) -> None:
    state = sim.state
    before = [float(state.compute_used[g]) for g in gpus]
    state.release(job, gpus)
    sim.integrals.on_util_change(state.compute_used, gpus, before)


def start(sim: Simulator, job_idx: int, job: Job, gpus: tuple[int, ...]) -> None:
    """Start (or resume, after a stop) the job on ``gpus``: its true and declared ends there."""
    state = sim.state
    used = state.compute_used
    before = [float(used[g]) for g in gpus]
    state.place(job, gpus)
    sim.integrals.on_util_change(used, gpus, before)
    rec, now = sim.record, sim.time_min
    rec.start_min[job_idx] = now
    list.__setitem__(rec.job_gpus, job_idx, gpus)
    model = sim.speed_model
    speed = 1.0 if model.uniform else model.of(job, gpus)  # uniform: every gang runs at 1.0
    rec.gang_speed[job_idx] = speed
    lives = rec.lives
    if lives is not None and lives.stopped[job_idx]:  # a resumption
        saved, restore = float(lives.saved_min[job_idx]), sim.restore.restore_min(job, gpus)
        lives.restore_min[job_idx] = restore
        run = restore + max(job.duration_min - saved, 0.0) / speed
        declared = restore + max(float(sim.declared_min[job_idx]) - saved, 0.0) / speed
        sim.resumes.append((now, job_idx, gpus, restore))
    else:
        run = job.duration_min / speed
        declared = sim.declared_min[job_idx] / speed
    rec.run_min[job_idx] = run
    rec.declared_end_min[job_idx] = now + declared
    sim.events.push_completion(now + run, job_idx)
    sim.running[job_idx] = None


def complete(sim: Simulator, job_idx: int) -> None:
    """The job's run ended at its true end: free its GPUs."""
    rec, state = sim.record, sim.state
    gpus, used = rec.job_gpus[job_idx], state.compute_used
    before = [float(used[g]) for g in gpus]
    state.release(sim.jobs[job_idx], gpus)
    sim.integrals.on_util_change(used, gpus, before)
    rec.end_min[job_idx] = rec.start_min[job_idx] + rec.run_min[job_idx]
    del sim.running[job_idx]


def stop(sim: Simulator, job_idx: int, kind: str) -> None:
    """Stop a running job (``failure`` or ``preemption``): count its progress, keep what the
    restore model keeps, free its GPUs, and put it back in the queue at its arrival position. The
    caller drops its completion from the event queue."""
    _end_run(sim, job_idx, kind)
    queue = sim.queue
    _insert(queue, bisect.bisect_right(queue, job_idx), job_idx)  # bisect.insort, on the read-only queue


def _end_run(sim: Simulator, job_idx: int, kind: str) -> None:
    """End a running job's run for ``kind`` (``failure``, ``preemption`` or ``migration``):
    count its progress, keep what the restore model keeps, and free its GPUs."""
    rec = sim.record
    lives, job, now = rec.ensure_lives(), sim.jobs[job_idx], sim.time_min
    gpus = rec.job_gpus[job_idx]
    start_min = float(rec.start_min[job_idx])
    speed = sim.speed_model.of(job, gpus)
    restore = float(lives.restore_min[job_idx])
    held = now - start_min
    done = max(held - restore, 0.0) * speed
    saved = float(lives.saved_min[job_idx])
    progress = saved + done
    kept = sim.restore.kept_min(job, kind, progress, saved)
    if kind == "preemption":
        lives.preemptions[job_idx] += 1
    elif kind == "migration":
        lives.migrations[job_idx] += 1
    else:
        lives.interruptions[job_idx] += 1
    lost = progress - kept
    if np.isnan(lives.first_start_min[job_idx]):
        lives.first_start_min[job_idx] = start_min
    lives.stopped[job_idx] = True
    lives.held_min[job_idx] += held
    lives.work_min[job_idx] += done
    lives.lost_min[job_idx] += lost
    lives.lost_held_min[job_idx] += lost / speed
    lives.restored_min[job_idx] += min(restore, held)
    lives.moved_restored_min[job_idx] += min(float(lives.moved_restore_min[job_idx]), held)
    lives.saved_min[job_idx] = kept
    lives.restore_min[job_idx] = 0.0
    lives.moved_restore_min[job_idx] = 0.0
    sim.stops.append((now, job_idx, kind, start_min, gpus, lost, lost / speed))
    _release(sim, job, gpus)
    rec.start_min[job_idx] = np.nan
    rec.run_min[job_idx] = np.nan
    rec.declared_end_min[job_idx] = np.nan
    list.__setitem__(rec.job_gpus, job_idx, ())


def _drop_completions(sim: Simulator, victims: list[int]) -> None:
    """Forget the completions of jobs that stopped."""
    sim.events.drop(COMPLETION, victims)
    for idx in victims:
        del sim.running[idx]


def is_running(sim: Simulator, job_idx: int) -> bool:
    """Whether the job with this arrival index holds GPUs now."""
    rec = sim.record
    return bool(rec.job_gpus[job_idx]) and math.isnan(rec.end_min[job_idx])


def preempt(sim: Simulator, job_idx: int) -> None:
    """Preempt a running job that may be preempted (see the simulator's docstring).

    :raises ValueError: if it does not run, or may not be preempted yet.
    """
    if not 0 <= job_idx < len(sim.jobs) or not is_running(sim, job_idx):
        raise ValueError(f"cannot preempt job index {job_idx}: it is not running")
    if not sim.preemptible(job_idx):
        raise ValueError(f"cannot preempt job index {job_idx} yet: it has run less than "
                         f"{sim.preemption_min_run_min:g} min since it last started")
    stop(sim, job_idx, "preemption")
    _drop_completions(sim, [job_idx])
    sim.preemptions += 1
    sim.disrupted()


def migrate(sim: Simulator, job_idx: int, gang: tuple[int, ...]) -> None:
    """Move a running job that may be preempted to ``gang`` (see the simulator's docstring): it
    saves its progress, frees its GPUs and resumes on ``gang`` now, after its restore there.

    :raises ValueError: if it does not run, may not move yet, or does not fit on ``gang`` once
        its own GPUs are freed (or ``gang`` is the gang it holds).
    """
    if not 0 <= job_idx < len(sim.jobs) or not is_running(sim, job_idx):
        raise ValueError(f"cannot migrate job index {job_idx}: it is not running")
    if not sim.preemptible(job_idx):
        raise ValueError(f"cannot migrate job index {job_idx} yet: it has run less than "
                         f"{sim.preemption_min_run_min:g} min since it last started")
    job, held = sim.jobs[job_idx], sim.record.job_gpus[job_idx]
    if sorted(gang) == sorted(held):
        raise ValueError(f"cannot migrate job index {job_idx} to {list(gang)}: it runs there already")
    freed = sim.state.copy()
    freed.release(job, held)
    if not sim.gang_rule.can_place(freed, job, gang):
        raise ValueError(f"cannot migrate job index {job_idx} to GPUs {list(gang)}: it does not fit "
                         "there once its own GPUs are freed")
    _end_run(sim, job_idx, "migration")
    _drop_completions(sim, [job_idx])
    start(sim, job_idx, job, gang)
    lives = sim.record.lives
    lives.moved_restore_min[job_idx] = lives.restore_min[job_idx]
    sim.migrations += 1
    sim.disrupted()


def fail_node(sim: Simulator, node: int) -> None:
    """Stop every job whose gang holds the node (they lose the progress since their last
    checkpoint) and take the node out of every fit."""
    holds, job_gpus = sim.gang_rule.holds_node, sim.record.job_gpus
    victims = sorted(i for i in sim.running if holds(job_gpus[i], node))
    for idx in victims:
        stop(sim, idx, "failure")
    _drop_completions(sim, victims)
    sim.state.set_node_down(node, True)
    sim.node_failures += 1
    sim.node_events.append((sim.time_min, node, "failure"))
    sim.disrupted()


def repair_node(sim: Simulator, node: int) -> None:
    """The node is back in every fit."""
    sim.state.set_node_down(node, False)
    sim.node_events.append((sim.time_min, node, "repair"))
    sim.disrupted()

