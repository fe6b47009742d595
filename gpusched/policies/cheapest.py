"""``cheapest_fit``: the cheapest GPUs on which a job still meets its deadline, else the fastest.

Among the gangs where the job fits now, each is judged by the job's declared (or predicted) run
time on it, ``duration / speed`` (the job as the view shows it, so the declared duration; a job
that resumes is judged on its whole declared run, which can only overstate it):

1. the gangs on which it would end by its deadline (``arrival + deadline_min``; every gang for a
   job without a deadline) are *on time*;
2. among the on-time gangs, the one whose run costs least (``run / 60 * sum of the gang's USD per
   GPU-hour``, :mod:`gpusched.core.prices`; a gang with an unpriced GPU counts as the most
   expensive), ties to the lowest GPU index;
3. when no gang is on time, the fastest gang (ties to the cheapest, then the lowest index): the
   job misses its deadline by as little as it can now.

It reads run times (refused with ``declared_run_time: none``). The prices are fixed; a placement
on dynamic prices would read the price of now from the view instead (``docs/metrics.md``). The
idea of choosing the cheapest resources that still meet a deadline is the cost-aware
deadline-constrained scheduling of cloud workflows (Abrishami, Naghibzadeh, Epema, "Deadline-
constrained workflow scheduling algorithms for Infrastructure as a Service Clouds", FGCS 29(1),
2013), here per job and per gang.
"""

from __future__ import annotations

import math

import numpy as np

from gpusched.core.cluster import EPS, ClusterState
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.simulator import HOLD, Action
from gpusched.core.view import SchedulerView


class CheapestFit:
    """The ``cheapest_fit`` placement (see the module docstring)."""

    name = "cheapest_fit"

    def __init__(self) -> None:
        self.view: SchedulerView | None = None

    def bind(self, view: SchedulerView) -> None:
        """Read the clock, the speed model and the prices of the run it places jobs for."""
        self.view = view

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        view = self.view
        if view is None:
            raise RuntimeError("cheapest_fit needs bind(view) before select (Simulator.run does it)")
        fits = state.fit_mask(job)
        if not fits.any():
            return HOLD
        prices = view.prices
        now, speed_of = view.time_min, view.speed_model.of
        due = math.inf if job.deadline_min is None else job.arrival_min + job.deadline_min
        seen: set[tuple[int, ...]] = set()
        on_time: list[tuple[float, int, tuple[int, ...]]] = []
        late: list[tuple[float, float, int, tuple[int, ...]]] = []
        for g in np.flatnonzero(fits).tolist():
            gang = state.gang_for(job, g)
            if not gang or gang in seen:
                continue
            seen.add(gang)
            run = job.declared_min / speed_of(job, gang)
            per_hour = math.inf if prices is None else float(prices[list(gang)].sum())
            cost = math.inf if math.isnan(per_hour) else run / 60.0 * per_hour
            if now + run <= due + EPS:
                on_time.append((cost, gang[0], gang))
            else:
                late.append((run, cost, gang[0], gang))
        if on_time:
            return min(on_time)[2]
        return min(late)[3] if late else HOLD
