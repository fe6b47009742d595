"""Accounting: the metrics and the jobs table of a run.

The per-run metrics (:func:`metrics`) and the jobs table (:func:`jobs_table`) are functions of
the run state (:mod:`gpusched.core.run_state`): its per-job record
(:mod:`gpusched.core.jobs_record`), its log and its integrals (:mod:`gpusched.core.integrals`),
computed when a run is packaged (their definitions are in :mod:`gpusched.core.simulator`'s docstring and
:mod:`gpusched.words.metric_names`).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from gpusched.core.cluster import MISROUTE_CAUSES
from gpusched.core.jobs import job_columns
from gpusched.core.urgency_metrics import urgency_columns, urgency_metrics

if TYPE_CHECKING:
    from gpusched.core.run_state import RunState

BSLD_FLOOR_MIN = 10.0
"""Bounded slowdown divides by ``max(ideal run, 10 min)``, so that very short jobs do not dominate it."""

def jobs_table(run: RunState) -> pd.DataFrame:
    """One row per submitted job: id, type, arrival, start, end, node, gpu ids, wait, finished,
    ``run_min`` (the true run time on the GPUs it got), ``ideal_run_min`` (its run time on the
    best GPU this cluster could give it: ``duration_min / best speed``), ``start_slot`` (the
    window slot it started from; -1 if it never started) and ``backfilled`` (started ahead of an earlier
    arrival that still waited); then ``interruptions`` (runs stopped by a node failure),
    ``preemptions``, ``migrations`` (times it moved to another gang while running),
    ``lost_min`` (progress thrown away, reference-speed minutes),
    ``work_min`` (progress made over all its runs, lost work included, reference-speed
    minutes; a finished job's is its duration plus its lost work) and ``restore_min`` (minutes
    spent restoring).

    Times are minutes. ``start_min`` is the first start; ``run_min`` every minute it held GPUs
    up to the end of the run (restores and lost work included; a job still running at the
    horizon counts the minutes it held them until then) and ``wait_min`` every minute it was
    queued, over its whole life; ``node`` and ``gpu_ids`` are those of its last run (none while
    it waits after a stop). An unstarted job has no start; its wait counts up to the end of the
    run (0 for a job that had not arrived by then).
    """
    arrival, started, wait = waits(run)
    finished = ~np.isnan(run.record.end_min)
    node = np.array([int(run.cluster.gpu_node[g[0]]) if g else -1 for g in run.record.job_gpus])
    n = len(run.jobs)
    lives = run.record.lives
    start = run.record.start_min.copy()
    held, _ = current_run(run)  # a run cut by the horizon counts the minutes it held GPUs
    current = np.where(np.isnan(run.record.end_min), held, run.record.run_min)  # a finished run: exactly
    run_time = np.where(np.isnan(start), np.nan, current)
    if lives is not None:
        start = np.where(lives.stopped, lives.first_start_min, start)
        run_time = lives.held_min + current
    work, restored = work_and_restore(run)
    return pd.DataFrame({
        "id": [j.id for j in run.jobs],
        "type": [j.type for j in run.jobs],
        "arrival_min": arrival,
        "start_min": start,
        "end_min": run.record.end_min.copy(),
        "duration_min": [j.duration_min for j in run.jobs],
        "gpus": [j.gpus for j in run.jobs],
        "vram_gb": [j.vram_gb for j in run.jobs],
        "compute": [j.compute for j in run.jobs],
        "priority": [j.priority for j in run.jobs],
        **job_columns(run.jobs, run.estimator.estimate_min),
        "node": node,
        "gpu_ids": [list(g) for g in run.record.job_gpus],
        "wait_min": wait,
        "finished": finished,
        "run_min": run_time,
        "ideal_run_min": ideal_run_min(run),
        "start_slot": run.record.start_slot.copy(),
        "backfilled": run.record.start_slot > 0,
        "interruptions": np.zeros(n, dtype=np.int64) if lives is None else lives.interruptions.copy(),
        "preemptions": np.zeros(n, dtype=np.int64) if lives is None else lives.preemptions.copy(),
        "migrations": np.zeros(n, dtype=np.int64) if lives is None else lives.migrations.copy(),
        "lost_min": np.zeros(n) if lives is None else lives.lost_min.copy(),
        "work_min": work,
        "restore_min": restored,
        **urgency_columns(run, held),
    })

def current_run(run: RunState) -> tuple[np.ndarray, np.ndarray]:
    """Per job, the minutes its current or last run has held GPUs (up to now; 0 if it holds
    none) and the minutes of that run after its restore."""
    start, end = run.record.start_min, run.record.end_min
    on = ~np.isnan(start)
    until = np.where(np.isnan(end), run.time_min, end)
    held = np.where(on, np.minimum(until - np.where(on, start, 0.0), np.where(on, run.record.run_min, 0.0)),
                    0.0)
    restore = 0.0 if run.record.lives is None else run.record.lives.current_restore_min
    return held, np.maximum(held - restore, 0.0)

def work_and_restore(run: RunState) -> tuple[np.ndarray, np.ndarray]:
    """Per job, its progress over all its runs (reference-speed minutes, lost work included)
    and the minutes it spent restoring."""
    held, after = current_run(run)
    lives = run.record.lives
    if lives is None:  # one run per job, at speed duration / run_min
        duration = np.array([j.duration_min for j in run.jobs], dtype=float)
        work = np.where(after > 0, after * duration / np.where(after > 0, run.record.run_min, 1.0), 0.0)
        return work, np.zeros(len(run.jobs))
    return (lives.work_min + after * run.record.gang_speed,
            lives.ended_restore_min + np.minimum(held, lives.current_restore_min))

def metrics(run: RunState) -> dict[str, float]:
    """The per-run metrics (keys of :data:`gpusched.core.metrics.METRIC_KEYS`)."""
    n = len(run.jobs)
    _, started, wait = waits(run)
    span = run.time_min - run.start_time_min
    completed = int((~np.isnan(run.record.end_min)).sum())
    causes = Counter(m[3] for m in run.log.misroutes)
    queue = queue_metrics(run, wait, started)
    jct, held = jct_min(run, wait, started), current_run(run)[0]
    return {
        "jobs_submitted": n,
        "jobs_completed": completed,
        "jobs_unfinished": n - completed,
        "avg_wait_min": float(wait.mean()) if n else 0.0,
        "p95_wait_min": float(np.percentile(wait, 95)) if n else 0.0,
        "max_wait_min": float(wait.max()) if n else 0.0,
        "avg_util": run.integrals.util_min / span if span > 0 else 0.0,
        "util_in_band_frac": run.integrals.in_band_min / span if span > 0 else 0.0,
        "gini": run.integrals.gini_min / span if span > 0 else 0.0,
        "makespan_min": span,
        "stall_min": run.integrals.stall_min,
        "misroutes": len(run.log.misroutes),
        **{f"misroutes_{c}": causes[c] for c in MISROUTE_CAUSES},
        "idle_gpu_min_queued": run.integrals.idle_gpu_min_stalled + run.integrals.idle_gpu_min_blocked,
        "idle_gpu_min_stalled": run.integrals.idle_gpu_min_stalled,
        "idle_gpu_min_blocked": run.integrals.idle_gpu_min_blocked,
        **queue,
        **failure_metrics(run),
        **urgency_metrics(run, jct, held),
        "total_reward": run.integrals.total_reward,
    }

def failure_metrics(run: RunState) -> dict[str, float]:
    """Node failures, interrupted jobs, preemptions, migrations and the GPU-hours restoring
    after them (a run cut during one counts the minutes up to the cut), lost and restore
    GPU-hours, and goodput:
    the GPU-hours jobs held doing useful work (neither thrown away nor restoring) over all the
    GPU-hours they held (1.0 when nothing was lost or restored)."""
    lives = run.record.lives
    if lives is None:
        return {"node_failures": run.node_failures, "jobs_interrupted": 0, "preemptions": 0,
                "migrations": 0, "migration_restore_gpu_hours": 0.0,
                "lost_gpu_hours": 0.0, "restore_gpu_hours": 0.0, "goodput": 1.0}
    gpus = np.array([j.gpus for j in run.jobs], dtype=float)
    held, _ = current_run(run)
    held_gpu_min = float(((lives.held_min + held) * gpus).sum())
    _, restored = work_and_restore(run)
    lost_gpu_min = float((lives.lost_held_min * gpus).sum())
    restore_gpu_min = float((restored * gpus).sum())
    useful = held_gpu_min - lost_gpu_min - restore_gpu_min
    moved = lives.ended_moved_restore_min + np.minimum(held, lives.current_moved_restore_min)
    return {
        "node_failures": run.node_failures,
        "jobs_interrupted": int((lives.interruptions > 0).sum()),
        "preemptions": run.preemptions,
        "migrations": run.migrations,
        "migration_restore_gpu_hours": float((moved * gpus).sum()) / 60.0,
        "lost_gpu_hours": lost_gpu_min / 60.0,
        "restore_gpu_hours": restore_gpu_min / 60.0,
        "goodput": useful / held_gpu_min if held_gpu_min > 0 else 1.0,
    }

def ideal_run_min(run: RunState) -> np.ndarray:
    """Each job's run time on the best GPU this cluster could give it (minutes)."""
    duration = np.array([j.duration_min for j in run.jobs], dtype=float)
    return duration if run.uniform else duration / run.best_speed

def waits(run: RunState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(arrival, started, wait) per job, minutes: an unstarted job waits up to the end of the
    run (0 if it had not arrived by then); a job that stopped and resumed waits every minute it
    was queued (``started`` is whether it ever started)."""
    arrival = np.array([j.arrival_min for j in run.jobs], dtype=float)
    started = ~np.isnan(run.record.start_min)
    lives = run.record.lives
    if lives is None:
        wait = np.where(started, run.record.start_min - arrival, np.maximum(run.time_min - arrival, 0.0))
        return arrival, started, wait
    before = lives.held_min
    queued = np.where(lives.stopped, run.time_min - arrival - before,
                      np.maximum(run.time_min - arrival, 0.0))
    wait = np.where(started, run.record.start_min - arrival - before, queued)
    return arrival, started | lives.stopped, wait

def jct_min(run: RunState, wait: np.ndarray, started: np.ndarray) -> np.ndarray:
    """Per job, its JCT (minutes): its wait plus every minute it held GPUs, up to the end of the
    run for a job that has not finished."""
    lives = run.record.lives
    if lives is None:
        rec = run.record
        return wait + np.where(started, np.minimum(rec.run_min, run.time_min - rec.start_min), 0.0)
    held, _ = current_run(run)
    return wait + lives.held_min + held


def queue_metrics(run: RunState, wait: np.ndarray, started: np.ndarray) -> dict[str, float]:
    """Job completion time, slowdown against the ideal run time, bounded slowdown, speed
    loss, priority-weighted and p99 wait, backfilled jobs and busy GPU-hours. A job that has
    not finished counts up to the end of the run; a job that stopped and resumed counts its
    whole life, and its speed loss is its useful run time (held, less lost work and restores)
    less its ideal run time."""
    if not len(run.jobs):
        return {"avg_jct_min": 0.0, "avg_slowdown": 0.0, "avg_bsld": 0.0, "speed_loss_min": 0.0,
                "weighted_wait_min": 0.0, "p99_wait_min": 0.0, "backfilled_jobs": 0,
                "gpu_hours": 0.0}
    lives = run.record.lives
    if lives is None:
        run_time = run.record.run_min
    else:
        _, restored = work_and_restore(run)
        run_time = lives.held_min + np.where(np.isnan(run.record.run_min), 0.0, run.record.run_min)
        run_time = run_time - lives.lost_held_min - restored
    jct = jct_min(run, wait, started)
    ideal = ideal_run_min(run)
    priority = np.array([j.priority for j in run.jobs], dtype=float)
    loss = np.maximum(run_time[started] - ideal[started], 0.0)
    return {
        "avg_jct_min": float(jct.mean()),
        "avg_slowdown": float((jct / ideal).mean()),
        "avg_bsld": float(np.maximum(1.0, jct / np.maximum(ideal, BSLD_FLOOR_MIN)).mean()),
        "speed_loss_min": float(loss.mean()) if loss.size else 0.0,
        "weighted_wait_min": float((priority * wait).sum() / priority.sum()),
        "p99_wait_min": float(np.percentile(wait, 99)),
        "backfilled_jobs": int((run.record.start_slot > 0).sum()),
        "gpu_hours": run.integrals.busy_gpu_min / 60.0,
    }
