"""Accounting: the integrals over time, the reward from them, and the metrics and jobs table.

The simulator updates :class:`Integrals` when the clock moves (:meth:`Integrals.accumulate`), when
GPUs change (:meth:`Integrals.on_util_change`), when jobs complete and when the policy holds; the
reward is a function of the integrals alone (:func:`gpusched.core.reward.reward_for`). The per-run
metrics (:func:`metrics`) and the jobs table (:func:`jobs_table`) are functions of the simulator's
per-job record (:mod:`gpusched.core.jobs_record`) and the integrals, computed when a run is
packaged (their definitions are in :mod:`gpusched.core.simulator`'s docstring and
:mod:`gpusched.core.metric_names`).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from gpusched.core.cluster import MISROUTE_CAUSES
from gpusched.core.jobs import job_columns
from gpusched.core.metrics import RunningGini
from gpusched.core.reward import RewardSpec, reward_for
from gpusched.core.urgency_metrics import urgency_columns, urgency_metrics

if TYPE_CHECKING:
    from gpusched.core.simulator import Simulator

BSLD_FLOOR_MIN = 10.0
"""Bounded slowdown divides by ``max(ideal run, 10 min)``, so that very short jobs do not dominate it."""

_RESYNC_EVERY = 4096
"""Recompute the running pairwise-difference sum exactly after this many updates."""


class Integrals:
    """The integrals of one run over time, and the reward so far.

    ``util_min`` (cluster utilisation, minutes), ``in_band_min`` (minutes with the utilisation in
    the target band), ``gini_min`` (Gini of GPU compute, minutes), ``waiting_job_min`` and
    ``system_job_min`` (jobs queued, and queued or running, job-minutes), ``busy_gpu_min`` (GPUs
    running at least one job, GPU-minutes), ``stall_min`` (minutes the policy held while a window
    job could fit), ``idle_gpu_min_stalled`` and ``idle_gpu_min_blocked`` (idle GPU-minutes while
    jobs waited, stalled or blocked), ``total_reward``.

    :param compute_used: the cluster state's compute per GPU (read at every change).
    :param n_gpus: the cluster's GPUs.
    :param util_band: the target band of cluster utilisation (fractions 0-1).
    :param reward: the reward weights.
    """

    FLOATS = ("util_min", "in_band_min", "gini_min", "waiting_job_min", "system_job_min", "stall_min",
              "idle_gpu_min_stalled", "idle_gpu_min_blocked", "busy_gpu_min", "total_reward")

    def __init__(self, compute_used: np.ndarray, n_gpus: int, util_band: tuple[float, float],
                 reward: RewardSpec):
        self.gini = RunningGini(compute_used)  # also keeps the utilisation sum
        self.updates = 0
        self.n_gpus = n_gpus
        self.util_band = util_band
        self.reward = reward
        self._weights = (reward.completion * 0, reward.wait, reward.util_band, reward.imbalance, reward.jct)
        self._completion_gain: dict[int, float] = {}
        """The reward of ``n`` completions at one instant, by ``n`` (the weights are fixed for
        the run)."""
        for name in self.FLOATS:
            setattr(self, name, 0.0)

    def copy(self) -> Integrals:
        """An independent copy."""
        twin = object.__new__(Integrals)
        twin.__dict__.update(self.__dict__)
        twin.gini = self.gini.copy()
        twin._completion_gain = dict(self._completion_gain)
        return twin

    def on_util_change(self, compute_used: np.ndarray, gpus: tuple[int, ...], before: list[float]) -> None:
        """Update the running sums behind cluster utilisation and Gini after GPUs changed."""
        self.updates += 1
        if self.updates % _RESYNC_EVERY == 0:
            self.gini.resync(compute_used)
            return
        for g, old in zip(gpus, before, strict=True):
            self.gini.update(old, float(compute_used[g]))

    def accumulate(self, dt: float, queued: int, running: int, idle_gpus: int) -> None:
        """Integrate ``dt`` minutes (> 0) with ``queued`` and ``running`` jobs and ``idle_gpus``.

        The reward of the stretch is :func:`~gpusched.core.reward.reward_for`'s formula with no
        completion, written out here with the weights taken once (it runs at every jump of the
        clock); its floating-point operations are the same, in the same order."""
        n = self.n_gpus
        gini = self.gini
        util = gini.total / n
        gini_now = gini.value()
        lo, hi = self.util_band
        in_band = dt if lo <= util <= hi else 0.0
        waiting = queued * dt
        in_system = waiting + running * dt
        gini_dt = gini_now * dt
        self.busy_gpu_min += (n - idle_gpus) * dt
        self.util_min += util * dt
        self.in_band_min += in_band
        self.gini_min += gini_dt
        self.waiting_job_min += waiting
        self.system_job_min += in_system
        no_completion, wait, band, imbalance, jct = self._weights
        self.total_reward += (no_completion - wait * waiting / 60.0 + band * in_band / 60.0
                              - imbalance * gini_dt / 60.0 - jct * in_system / 60.0)

    def completions(self, completed: int) -> None:
        """``completed`` jobs completed at one instant (the reward's completion term)."""
        gain = self._completion_gain.get(completed)
        if gain is None:
            gain = self._completion_gain[completed] = reward_for(self.reward, completed, 0.0, 0.0, 0.0)
        self.total_reward += gain

    def hold(self, held_min: float, idle_gpus: int, could_fit: bool) -> None:
        """The policy held for ``held_min`` with ``idle_gpus`` up and idle: stalled if a window job
        could fit, else blocked."""
        if could_fit:
            self.stall_min += held_min
            self.idle_gpu_min_stalled += idle_gpus * held_min
        else:
            self.idle_gpu_min_blocked += idle_gpus * held_min


def jobs_table(sim: Simulator) -> pd.DataFrame:
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
    arrival, started, wait = waits(sim)
    finished = ~np.isnan(sim.end_min)
    node = np.array([int(sim.cluster.gpu_node[g[0]]) if g else -1 for g in sim.job_gpus])
    n = len(sim.jobs)
    lives = sim.lives
    start = sim.start_min.copy()
    held, _ = current_run(sim)  # a run cut by the horizon counts the minutes it held GPUs
    current = np.where(np.isnan(sim.end_min), held, sim.run_min)  # a finished run: exactly
    run = np.where(np.isnan(start), np.nan, current)
    if lives is not None:
        start = np.where(lives.stopped, lives.first_start_min, start)
        run = lives.held_min + current
    work, restored = work_and_restore(sim)
    return pd.DataFrame({
        "id": [j.id for j in sim.jobs],
        "type": [j.type for j in sim.jobs],
        "arrival_min": arrival,
        "start_min": start,
        "end_min": sim.end_min.copy(),
        "duration_min": [j.duration_min for j in sim.jobs],
        "gpus": [j.gpus for j in sim.jobs],
        "vram_gb": [j.vram_gb for j in sim.jobs],
        "compute": [j.compute for j in sim.jobs],
        "priority": [j.priority for j in sim.jobs],
        **job_columns(sim.jobs, sim.estimator.estimate_min),
        "node": node,
        "gpu_ids": [list(g) for g in sim.job_gpus],
        "wait_min": wait,
        "finished": finished,
        "run_min": run,
        "ideal_run_min": ideal_run_min(sim),
        "start_slot": sim.start_slot.copy(),
        "backfilled": sim.start_slot > 0,
        "interruptions": np.zeros(n, dtype=np.int64) if lives is None else lives.interruptions.copy(),
        "preemptions": np.zeros(n, dtype=np.int64) if lives is None else lives.preemptions.copy(),
        "migrations": np.zeros(n, dtype=np.int64) if lives is None else lives.migrations.copy(),
        "lost_min": np.zeros(n) if lives is None else lives.lost_min.copy(),
        "work_min": work,
        "restore_min": restored,
        **urgency_columns(sim, held),
    })

def current_run(sim: Simulator) -> tuple[np.ndarray, np.ndarray]:
    """Per job, the minutes its current or last run has held GPUs (up to now; 0 if it holds
    none) and the minutes of that run after its restore."""
    start, end = sim.start_min, sim.end_min
    on = ~np.isnan(start)
    until = np.where(np.isnan(end), sim.time_min, end)
    held = np.where(on, np.minimum(until - np.where(on, start, 0.0), np.where(on, sim.run_min, 0.0)),
                    0.0)
    restore = 0.0 if sim.lives is None else sim.lives.restore_min
    return held, np.maximum(held - restore, 0.0)

def work_and_restore(sim: Simulator) -> tuple[np.ndarray, np.ndarray]:
    """Per job, its progress over all its runs (reference-speed minutes, lost work included)
    and the minutes it spent restoring."""
    held, after = current_run(sim)
    lives = sim.lives
    if lives is None:  # one run per job, at speed duration / run_min
        duration = np.array([j.duration_min for j in sim.jobs], dtype=float)
        work = np.where(after > 0, after * duration / np.where(after > 0, sim.run_min, 1.0), 0.0)
        return work, np.zeros(len(sim.jobs))
    return (lives.work_min + after * sim.gang_speed,
            lives.restored_min + np.minimum(held, lives.restore_min))

def metrics(sim: Simulator) -> dict[str, float]:
    """The per-run metrics (keys of :data:`gpusched.core.metrics.METRIC_KEYS`)."""
    n = len(sim.jobs)
    _, started, wait = waits(sim)
    span = sim.time_min - sim.start_time_min
    completed = int((~np.isnan(sim.end_min)).sum())
    causes = Counter(m[3] for m in sim.misroutes)
    queue = queue_metrics(sim, wait, started)
    jct, held = jct_min(sim, wait, started), current_run(sim)[0]
    return {
        "jobs_submitted": n,
        "jobs_completed": completed,
        "jobs_unfinished": n - completed,
        "avg_wait_min": float(wait.mean()) if n else 0.0,
        "p95_wait_min": float(np.percentile(wait, 95)) if n else 0.0,
        "max_wait_min": float(wait.max()) if n else 0.0,
        "avg_util": sim.integrals.util_min / span if span > 0 else 0.0,
        "util_in_band_frac": sim.integrals.in_band_min / span if span > 0 else 0.0,
        "gini": sim.integrals.gini_min / span if span > 0 else 0.0,
        "makespan_min": span,
        "stall_min": sim.integrals.stall_min,
        "misroutes": len(sim.misroutes),
        **{f"misroutes_{c}": causes[c] for c in MISROUTE_CAUSES},
        "idle_gpu_min_queued": sim.integrals.idle_gpu_min_stalled + sim.integrals.idle_gpu_min_blocked,
        "idle_gpu_min_stalled": sim.integrals.idle_gpu_min_stalled,
        "idle_gpu_min_blocked": sim.integrals.idle_gpu_min_blocked,
        **queue,
        **failure_metrics(sim),
        **urgency_metrics(sim, jct, held),
        "total_reward": sim.integrals.total_reward,
    }

def failure_metrics(sim: Simulator) -> dict[str, float]:
    """Node failures, interrupted jobs, preemptions, migrations and the GPU-hours restoring
    after them (a run cut during one counts the minutes up to the cut), lost and restore
    GPU-hours, and goodput:
    the GPU-hours jobs held doing useful work (neither thrown away nor restoring) over all the
    GPU-hours they held (1.0 when nothing was lost or restored)."""
    lives = sim.lives
    if lives is None:
        return {"node_failures": sim.node_failures, "jobs_interrupted": 0, "preemptions": 0,
                "migrations": 0, "migration_restore_gpu_hours": 0.0,
                "lost_gpu_hours": 0.0, "restore_gpu_hours": 0.0, "goodput": 1.0}
    gpus = np.array([j.gpus for j in sim.jobs], dtype=float)
    held, _ = current_run(sim)
    held_gpu_min = float(((lives.held_min + held) * gpus).sum())
    _, restored = work_and_restore(sim)
    lost_gpu_min = float((lives.lost_held_min * gpus).sum())
    restore_gpu_min = float((restored * gpus).sum())
    useful = held_gpu_min - lost_gpu_min - restore_gpu_min
    moved = lives.moved_restored_min + np.minimum(held, lives.moved_restore_min)
    return {
        "node_failures": sim.node_failures,
        "jobs_interrupted": int((lives.interruptions > 0).sum()),
        "preemptions": sim.preemptions,
        "migrations": sim.migrations,
        "migration_restore_gpu_hours": float((moved * gpus).sum()) / 60.0,
        "lost_gpu_hours": lost_gpu_min / 60.0,
        "restore_gpu_hours": restore_gpu_min / 60.0,
        "goodput": useful / held_gpu_min if held_gpu_min > 0 else 1.0,
    }

def ideal_run_min(sim: Simulator) -> np.ndarray:
    """Each job's run time on the best GPU this cluster could give it (minutes)."""
    duration = np.array([j.duration_min for j in sim.jobs], dtype=float)
    return duration if sim.speed_model.uniform else duration / sim.best_speed

def waits(sim: Simulator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(arrival, started, wait) per job, minutes: an unstarted job waits up to the end of the
    run (0 if it had not arrived by then); a job that stopped and resumed waits every minute it
    was queued (``started`` is whether it ever started)."""
    arrival = np.array([j.arrival_min for j in sim.jobs], dtype=float)
    started = ~np.isnan(sim.start_min)
    lives = sim.lives
    if lives is None:
        wait = np.where(started, sim.start_min - arrival, np.maximum(sim.time_min - arrival, 0.0))
        return arrival, started, wait
    before = lives.held_min
    queued = np.where(lives.stopped, sim.time_min - arrival - before,
                      np.maximum(sim.time_min - arrival, 0.0))
    wait = np.where(started, sim.start_min - arrival - before, queued)
    return arrival, started | lives.stopped, wait

def jct_min(sim: Simulator, wait: np.ndarray, started: np.ndarray) -> np.ndarray:
    """Per job, its JCT (minutes): its wait plus every minute it held GPUs, up to the end of the
    run for a job that has not finished."""
    lives = sim.lives
    if lives is None:
        return wait + np.where(started, np.minimum(sim.run_min, sim.time_min - sim.start_min), 0.0)
    held, _ = current_run(sim)
    return wait + lives.held_min + held


def queue_metrics(sim: Simulator, wait: np.ndarray, started: np.ndarray) -> dict[str, float]:
    """Job completion time, slowdown against the ideal run time, bounded slowdown, speed
    loss, priority-weighted and p99 wait, backfilled jobs and busy GPU-hours. A job that has
    not finished counts up to the end of the run; a job that stopped and resumed counts its
    whole life, and its speed loss is its useful run time (held, less lost work and restores)
    less its ideal run time."""
    if not len(sim.jobs):
        return {"avg_jct_min": 0.0, "avg_slowdown": 0.0, "avg_bsld": 0.0, "speed_loss_min": 0.0,
                "weighted_wait_min": 0.0, "p99_wait_min": 0.0, "backfilled_jobs": 0,
                "gpu_hours": 0.0}
    lives = sim.lives
    if lives is None:
        run = sim.run_min
    else:
        _, restored = work_and_restore(sim)
        run = lives.held_min + np.where(np.isnan(sim.run_min), 0.0, sim.run_min)
        run = run - lives.lost_held_min - restored
    jct = jct_min(sim, wait, started)
    ideal = ideal_run_min(sim)
    priority = np.array([j.priority for j in sim.jobs], dtype=float)
    loss = np.maximum(run[started] - ideal[started], 0.0)
    return {
        "avg_jct_min": float(jct.mean()),
        "avg_slowdown": float((jct / ideal).mean()),
        "avg_bsld": float(np.maximum(1.0, jct / np.maximum(ideal, BSLD_FLOOR_MIN)).mean()),
        "speed_loss_min": float(loss.mean()) if loss.size else 0.0,
        "weighted_wait_min": float((priority * wait).sum() / priority.sum()),
        "p99_wait_min": float(np.percentile(wait, 99)),
        "backfilled_jobs": int((sim.start_slot > 0).sum()),
        "gpu_hours": sim.integrals.busy_gpu_min / 60.0,
    }
