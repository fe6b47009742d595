"""Moving up: the placement ``fastest_move``, Fastest-Fit that moves running jobs to faster GPUs.

``fastest_move`` places the job it is given as Fastest-Fit does (the GPU where it fits and runs
fastest, ties by Best-Fit; :class:`~gpusched.policies.heuristics.FastestFit`). In addition,
whenever GPUs free up (the view's :attr:`~gpusched.core.view.SchedulerView.epoch` moved: a
completion, a node failure or repair, a preemption, a migration), it walks the running jobs
oldest first (by arrival) and moves the first one that would finish sooner on a gang of the free
GPUs (:class:`~gpusched.core.simulator.Migrate`), before the order starts any waiting job. The
rule reads declared times only. For a running job with declared work left ``W`` (reference-speed
minutes: its declared end less now less what remains of its restore, times its gang's speed),
``s_now`` the speed of its gang, ``r_left`` what remains of its current restore, and ``s_new``
and ``r_new`` the speed and the restore on the gang Fastest-Fit gives it among the free GPUs
(its own not counted), it moves when

    ``r_new + W / s_new < r_left + W / s_now`` (strictly, by more than the simulator's tolerance),

so a move must win back its restore, and a job past its declared time (``W = 0``) never moves.
Where no run time is declared (``workload.declared_run_time: none``) ``W`` is unknown and taken as
unbounded: a job moves whenever the gang is faster (any finite restore is won back), so the rule
reads no run time there and is not refused.
A job may move only when the simulator's guard allows it (it has run ``preemption_min_run_min``
since it last started or moved, after its restore); one that would move but may not yet asks to
decide again when it may. One move per decision; the next decision, at the same instant, moves
the next job or lets the order start one. The policy asks to decide at every event even with an
empty queue (:meth:`~gpusched.core.view.SchedulerView.request_event_decisions`), so that GPUs
freeing up while no job waits still take a running job. Without a speed table it never moves a
job, and it is Fastest-Fit (then Best-Fit).

It is the analogue of ``fifo_perf`` in Gavel's simulator (Narayanan et al., "Heterogeneity-Aware
Cluster Scheduling Policies for Deep Learning Workloads", OSDI 2020), which recomputes the
allocation in arrival order every round and gives each job the fastest GPU type with room, so
older jobs move up to faster GPUs for free as those free up. Here a move costs the restore model's
restore (``checkpoint.restore_min``; 0 without a checkpoint block), a job is not moved twice
within the guard, decisions follow events rather than rounds, and a running job moves only onto
free GPUs: it never displaces a younger running job.

``ORDER+fastest_move`` works with every order (:mod:`gpusched.policies.queue`): the order chooses
which waiting job starts, Fastest-Fit places it, and this wrapper moves running jobs first (with a
preemptive order, it wraps the preemptive policy: moves come before preemptions).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpusched.core.cluster import EPS, ClusterState
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.simulator import HOLD, Action, Migrate
from gpusched.core.view import SchedulerView
from gpusched.policies.heuristics import FastestFit

MOVING_PLACEMENT = "fastest_move"
"""The registry name of the placement that moves running jobs."""


def move_for(view: SchedulerView, fit: FastestFit) -> tuple[Migrate | None, float]:
    """The move to make now by the rule of the module docstring (the oldest running job that
    gains, and its gang), or ``None``; and the earliest time (minutes) an older job that would
    gain may move, when only the guard stops it (``inf`` if none).

    :param view: the run.
    :param fit: a Fastest-Fit bound to the run (it picks the gang among the free GPUs).
    """
    running = sorted(view.running_indices())
    model = view.speed_model
    if not running or model.uniform:
        return None, float("inf")
    state, jobs, now = view.state, view.jobs, view.time_min
    free = state.compute_free > EPS  # GPUs with room for some job
    if state.down is not None:
        free &= ~state.down
    if not free.any():
        return None, float("inf")
    fastest_free: dict[int, float] = {}  # per speed row: the fastest free GPU (an upper bound)
    idx = np.array(running, dtype=np.int64)
    restore = view.run_restore_min(idx)
    restore_left = np.maximum(view.start_min[idx] + restore - now, 0.0)
    speed_now = view.gang_speed[idx]
    work = np.maximum(view.declared_end_min[idx] - now - restore_left, 0.0) * speed_now
    ready = view.may_stop_from_min(idx)
    wake = float("inf")
    for k, job_idx in enumerate(running):
        if work[k] <= 0.0:
            continue
        job = jobs[job_idx]
        row = model.row(job)
        if row is None:  # no speed table: every GPU runs it at the same speed
            continue
        bound = fastest_free.get(id(row))
        if bound is None:
            bound = fastest_free[id(row)] = float(row[free].max())
        if bound <= speed_now[k] + 1e-12:
            continue  # no free GPU is faster for it
        gang = view.gang_of(job, fit.select(state, job))
        if not gang:
            continue
        speed_new = model.of(job, gang)
        if speed_new <= speed_now[k] + 1e-12:
            continue
        if not math.isnan(work[k]):  # unknown work (none declared) is unbounded: faster wins
            stay = restore_left[k] + work[k] / speed_now[k]
            move = view.restore_min_on(job_idx, gang) + work[k] / speed_new
            if move >= stay - EPS:
                continue
        if ready[k] <= now + EPS:
            return Migrate(job_idx, gang), wake
        wake = min(wake, float(ready[k]))
    return None, wake


class FastestMove:
    """``ORDER+fastest_move``: move running jobs up (see the module docstring), else let
    ``inner`` (the order with Fastest-Fit) decide. As a placement of a job it is given
    (``select``), it is Fastest-Fit.

    :param inner: the policy that starts waiting jobs (``ORDER+fastest_fit``, or its preemptive
        wrapper).
    :param name: registry name reported in results.
    """

    def __init__(self, inner: Any, name: str = MOVING_PLACEMENT):
        self.inner = inner
        self.name = name
        self._fit = FastestFit()
        self._checked: tuple[int, float] | None = None  # (epoch, wake time) of the last check

    def bind(self, view: SchedulerView) -> None:
        """Attach to the run, ask to decide at every event, and attach the inner policy."""
        self._fit.bind(view)
        self._checked = None
        view.request_event_decisions()
        if hasattr(self.inner, "bind"):
            self.inner.bind(view)

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        """Fastest-Fit's placement of ``job``."""
        return self._fit.select(state, job)

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        """``(0, Migrate(job, gang))``, or the inner policy's decision (``(0, HOLD)`` with an empty
        queue)."""
        checked = self._checked
        if checked is None or checked[0] != view.epoch or view.time_min >= checked[1] - EPS:
            move, wake = move_for(view, self._fit)
            if move is not None:
                return 0, move
            self._checked = (view.epoch, wake)
            if wake < float("inf"):
                view.request_wakeup(wake)
        if not view.queue:
            return 0, HOLD
        return self.inner.decide(view)
