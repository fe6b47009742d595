"""Classic placement heuristics.

Every policy returns :data:`~gpusched.core.simulator.HOLD` when the head job fits nowhere, except
the three forms of Least-Loaded that, as they are usually written, do not check the fit at all:
``least_loaded`` (lowest compute use), ``least_loaded_jobs`` (fewest running jobs) and
``least_loaded_vram`` (most free VRAM). They differ only in what "load" means.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpusched.core.cluster import ClusterState
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.simulator import HOLD, Action
from gpusched.core.speed_model import SpeedModel
from gpusched.core.view import SchedulerView
from gpusched.policies.base import argmin_masked, first_true


class FirstFit:
    """The first GPU, in cluster order, where the head job fits."""

    name = "first_fit"

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        return first_true(state.fit_mask(job))


class LeastLoaded:
    """Least-Loaded as usually written: the GPU with the lowest compute utilisation, ties broken
    by the most free VRAM (then the lowest index). It does **not** check that the job fits.

    On a heterogeneous cluster it keeps sending big jobs to small idle GPUs that cannot hold them;
    the simulator then holds the job at the head of the queue until the next event, and the
    whole queue waits (the head-of-line stall).
    """

    name = "least_loaded"

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        util = state.compute_used
        free_vram = state.vram_free_gb
        least = np.flatnonzero(util <= util.min() + 1e-12)
        return int(least[int(free_vram[least].argmax())])


class LeastLoadedJobs:
    """Least-Loaded by job count, as an agent that observes the number of jobs per GPU would
    write it: the GPU with the fewest running jobs, ties broken by the most free VRAM (then the
    lowest index). It does **not** check that the job fits."""

    name = "least_loaded_jobs"

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        running = state.jobs_running
        fewest = np.flatnonzero(running == running.min())
        return int(fewest[int(state.vram_free_gb[fewest].argmax())])


class LeastLoadedVram:
    """Least-Loaded by memory: the GPU with the most free VRAM (lowest index on ties). It does
    **not** check that the job fits: on a heterogeneous cluster the biggest idle GPU usually holds
    the job, but a gang or a compute-heavy job can still be sent where it does not fit."""

    name = "least_loaded_vram"

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        return int(state.vram_free_gb.argmax())


class LeastLoadedFit:
    """The corrected Least-Loaded: the least-utilised GPU among those where the job fits
    (ties by most free VRAM, then lowest index)."""

    name = "least_loaded_fit"

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        candidates = np.flatnonzero(state.fit_mask(job))
        if candidates.size == 0:
            return HOLD
        util = np.round(state.compute_used[candidates], 9)
        order = np.lexsort((-state.vram_free_gb[candidates], util))
        return int(candidates[order[0]])


class BestFit:
    """The GPU where the job fits with the least VRAM left after placement (lowest index on ties)."""

    name = "best_fit"

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        fits = state.fit_mask(job)
        left = state.vram_free_gb - state.vram_need_gb(job)
        return argmin_masked(left, fits)


class FastestFit:
    """Among the GPUs where the job fits, the one where it runs fastest (the run's speed model,
    for the job: its model, then its type), ties broken by Best-Fit (least VRAM left after
    placement, then the lowest index). Without a speed table it is Best-Fit. A gang that must span
    nodes (``gang_placement: spread``) is ranked by its speed spread over nodes (the speed model's
    :meth:`~gpusched.core.speed_model.SpeedModel.fit_row`)."""

    name = "fastest_fit"

    def __init__(self) -> None:
        self._row: Callable[[DeclaredJob], np.ndarray | None] | None = None
        self._model: SpeedModel | None = None

    def bind(self, view: SchedulerView) -> None:
        """Read the speed model of the run it places jobs for (its speed of each GPU for a job)."""
        model = view.speed_model
        self._row = None if model.uniform else model.row
        self._model = model if view.cluster.gang_placement == "spread" else None

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        fits = state.fit_mask(job)
        left = state.vram_free_gb - state.vram_need_gb(job)
        if self._model is not None and fits.any():
            speed = self._model.fit_row(job, state.single_gpu_fit(job))
            if speed is None:
                return argmin_masked(left, fits)
        elif self._row is None or not fits.any():
            return argmin_masked(left, fits)
        else:  # not uniform without spread: the table has a row for the job
            speed = self._row(job)
        return argmin_masked(left, fits & (speed >= speed[fits].max() - 1e-12))


class RandomFit:
    """Uniformly random among the GPUs where the job fits, from a seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        candidates = np.flatnonzero(state.fit_mask(job))
        if candidates.size == 0:
            return HOLD
        return int(candidates[self.rng.integers(candidates.size)])
