"""Observation versions 3, 4 and 5: the queue window, GPU speeds, and every (window job, GPU) pair.

Version 4 adds what failures and preemption change: per GPU whether its node is down, and per
window job its attained service, its declared remaining work and whether it ran before (version 3
has none of them, and models trained on it keep reading version 3).

Version 5 adds what a scheduler that is not told run times knows of urgency, per window job:
whether a run time is known at all, whether it is a prediction from history and how many
completed jobs the prediction rests on (``workload.declared_run_time``), its deadline slack, its
weight, and its model family (a one-hot of :data:`MODEL_FAMILIES`). Where no run time is declared
(``declared_run_time: none``) every run-time feature reads 0 and ``known`` says so; versions 3 and
4 read declared run times and are refused on such a run
(:func:`gpusched.agent.scheduler.check_agent_told`).

The agent chooses which window job starts and on which GPU, or HOLD. One
:class:`WindowObservationBuilder` serves the environment and the trained agent inside
:meth:`gpusched.core.simulator.Simulator.run`, so both see the same features; a compiled kernel
(:func:`gpusched.env.kernels.window_observation_arrays`) writes them. Every feature is roughly
0-1; VRAM is divided by ``vram_scale_gb``; run times are ``log1p(minutes) / log1p(1440)``.

Actions: ``slot * max_gpus + gpu`` starts the window job in ``slot`` on ``gpu`` (a multi-GPU job
takes ``gpu`` and the lowest-index fitting GPUs of its node: the simulator's gang rule), and the
last action, ``max_window * max_gpus``, is HOLD. With a window of 1 and no speed table this is the
FIFO problem of versions 1 and 2, so one model serves both.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from gpusched.core.cluster import Cluster
from gpusched.core.simulator import HOLD, Simulator
from gpusched.core.speed import GpuSpeeds
from gpusched.core.view import SchedulerView
from gpusched.env.kernels import (
    N_PAIR_FEATURES,
    N_WINDOW_GLOBAL_FEATURES,
    N_WINDOW_GPU_FEATURES,
    N_WINDOW_JOB_FEATURES,
    window_observation_arrays,
)

WINDOW_OBS_VERSIONS: tuple[int, ...] = (3, 4, 5)
"""The observation versions of the window layout (a model's sidecar names its own)."""

WINDOW_OBS_VERSION = 4
"""The window layout new window agents train on by default (the shipped window agent's)."""

URGENCY_OBS_VERSION = 5
"""The layout of an agent that may not be told run times (:data:`JOB_FEATURES_V5`)."""

UNTOLD_OBS_VERSIONS: tuple[int, ...] = (5,)
"""The layouts that run where no run time is declared (the others read declared run times)."""

GPU_FEATURES_V3: tuple[str, ...] = (
    "present", "vram_total", "vram_free", "compute_used", "jobs_running", "node_size", "idle",
    "release_next", "release_last", "speed_training", "speed_inference", "speed_batch")
"""Per GPU: present; VRAM capacity and free / scale; compute in use (0-1); jobs / 8; node size / 8;
idle; log1p(minutes until its first and last running job end, declared) / log1p(1440); its speed
for each job type (1.0 without a speed table)."""
JOB_FEATURES_V3: tuple[str, ...] = (
    "present", "gpus", "vram", "compute", "declared", "priority", "is_training", "is_inference",
    "is_batch", "is_other", "wait", "fits_anywhere", "fit_share", "slot")
"""Per window job: present; GPUs / 8; VRAM per GPU / scale; compute (0-1); log1p(declared run
time at speed 1) / log1p(1440); priority / 3; type one-hot; log1p(minutes waited) / log1p(1440);
fits somewhere now; share of GPUs where it fits; its slot / the largest window."""
PAIR_FEATURES: tuple[str, ...] = ("fits", "vram_left_after", "compute_left_after", "speed", "run_time",
                                  "node_room")
"""Per (job, GPU): the job (its gang) fits there now; VRAM and compute left on that GPU after
placing it (0 without a fit); its speed there (the view's speed model's for that job: its
model's, else its type's); log1p(its declared run time there) / log1p(1440);
the share of the GPU's node that could take one of its GPUs."""
GLOBAL_FEATURES_V3: tuple[str, ...] = (
    "queue_len", "beyond_window", "window", "cluster_util", "cluster_vram_used", "running", "idle_share",
    "elapsed", "arrived_share")
"""log1p(queued jobs) / log1p(1000); log1p(queued jobs beyond the window) / log1p(1000); the
scenario's window / the largest; cluster utilisation; VRAM in use / cluster VRAM; running jobs /
GPUs; idle GPUs / GPUs; minutes since the first arrival / one week; share of the workload arrived."""

GPU_FEATURES_V4: tuple[str, ...] = (*GPU_FEATURES_V3, "down")
"""Version 4 adds, per GPU: its node is down (failed, not yet repaired; no job fits there)."""
JOB_FEATURES_V4: tuple[str, ...] = (*JOB_FEATURES_V3, "attained", "remaining", "resumed")
"""Version 4 adds, per window job: log1p(attained service, GPU-minutes held so far over all its
runs) / log1p(8 * 1440); log1p(its restore plus declared remaining work, reference-speed minutes)
/ log1p(1440); it ran before (stopped by a failure or a preemption)."""
MODEL_FAMILIES: tuple[str, ...] = ("ResNet-18", "ResNet-50", "Transformer", "LM", "Recommendation",
                                   "CycleGAN", "A3C")
"""The job-model families of Gavel's measured models (a model's name before its batch size, e.g.
``ResNet-50 (batch size 64)``); a model of no listed family is ``family_other``, a job without a
model none of them."""
JOB_FEATURES_V5: tuple[str, ...] = (
    *JOB_FEATURES_V4, "known", "predicted", "basis", "has_deadline", "slack", "overdue", "weight",
    *(f"family_{f}" for f in MODEL_FAMILIES), "family_other")
"""Version 5 adds, per window job: a run time is declared or predicted (0 under
``declared_run_time: none``, where every run-time feature reads 0); it is a prediction from history;
log1p(completed jobs the prediction rests on) / log1p(1000); it has a deadline; log1p(its slack:
minutes to its deadline minus its declared remaining work on its fastest GPU, when positive) /
log1p(1440); log1p(minutes it is past that point) / log1p(1440); its weight / 5 (at most 1.5); its
model family one-hot."""
EXTRA_GPU_FEATURES = {3: 0, 4: 1, 5: 1}
"""GPU features a version adds after the version-3 block."""
EXTRA_JOB_FEATURES = {3: 0, 4: 3, 5: len(JOB_FEATURES_V5) - len(JOB_FEATURES_V3)}
"""Job features a version adds after the version-3 block."""

_LOG_DAY = float(np.log1p(1440.0))
_LOG_GPU_DAYS = float(np.log1p(8 * 1440.0))
_LOG_BASIS = float(np.log1p(1000.0))
_FAMILY_INDEX = {f: k for k, f in enumerate(MODEL_FAMILIES)}


def model_family(model: str | None) -> int:
    """The index of a job model's family in :data:`MODEL_FAMILIES` (``len(MODEL_FAMILIES)`` for
    another model, -1 for none)."""
    if model is None:
        return -1
    return _FAMILY_INDEX.get(model.split(" (", 1)[0], len(MODEL_FAMILIES))

TYPE_INDEX: dict[str, int] = {"training": 0, "inference": 1, "batch": 2}
"""Job types with a feature of their own; any other type (trace jobs) is index 3."""

_SPEED_ROWS = ("training", "inference", "batch", "trace")


def check_window_version(version: int) -> int:
    """``version`` if it is a window layout.

    :raises ValueError: otherwise.
    """
    if version not in WINDOW_OBS_VERSIONS:
        raise ValueError(f"not a window observation version: {version} (known: {WINDOW_OBS_VERSIONS})")
    return version


def window_observation_space(max_window: int, max_gpus: int,
                             version: int = WINDOW_OBS_VERSION) -> spaces.Dict:
    """The observation space of a window layout (``version``) for ``max_window`` job slots and
    ``max_gpus`` GPU slots."""
    check_window_version(version)
    big = 4.0
    n_gpu = N_WINDOW_GPU_FEATURES + EXTRA_GPU_FEATURES[version]
    n_job = N_WINDOW_JOB_FEATURES + EXTRA_JOB_FEATURES[version]
    return spaces.Dict({
        "gpus": spaces.Box(0.0, big, shape=(max_gpus, n_gpu), dtype=np.float32),
        "gpu_present": spaces.Box(0.0, 1.0, shape=(max_gpus,), dtype=np.float32),
        "jobs": spaces.Box(0.0, big, shape=(max_window, n_job), dtype=np.float32),
        "job_present": spaces.Box(0.0, 1.0, shape=(max_window,), dtype=np.float32),
        "pairs": spaces.Box(0.0, big, shape=(max_window, max_gpus, N_PAIR_FEATURES), dtype=np.float32),
        "globals": spaces.Box(0.0, big, shape=(N_WINDOW_GLOBAL_FEATURES,), dtype=np.float32),
    })


def window_action_space(max_window: int, max_gpus: int) -> spaces.Discrete:
    """``max_window * max_gpus`` (slot, GPU) actions, then HOLD."""
    return spaces.Discrete(max_window * max_gpus + 1)


class WindowObservationBuilder:
    """Build window observations (version 3 or 4) and masks for one cluster, padded to
    ``max_window`` job slots and ``max_gpus`` GPU slots.

    :param cluster: the cluster (at most ``max_gpus`` GPUs).
    :param max_gpus: GPU slots.
    :param max_window: job slots (at least the simulator's window).
    :param speeds: the simulator's GPU speeds (``None``: every GPU at 1.0).
    :param vram_scale_gb: VRAM normaliser (GB).
    :param version: the layout (:data:`WINDOW_OBS_VERSIONS`).
    """

    def __init__(self, cluster: Cluster, max_gpus: int, max_window: int, speeds: GpuSpeeds | None = None,
                 vram_scale_gb: float = 80.0, version: int = WINDOW_OBS_VERSION):
        self.version = check_window_version(version)
        if cluster.n_gpus > max_gpus:
            raise ValueError(f"cluster has {cluster.n_gpus} GPUs, more than max_gpus={max_gpus}")
        self.cluster = cluster
        self.speeds = speeds
        self.n = cluster.n_gpus
        self.max_gpus = max_gpus
        self.max_window = max_window
        self.hold_action = max_window * max_gpus
        self.scale = float(vram_scale_gb)
        node_size = cluster.node_gpu_count[cluster.gpu_node].astype(float)
        self._gpu_static = np.stack([cluster.gpu_vram_gb, cluster.gpu_vram_gb / self.scale, node_size,
                                     np.minimum(node_size / 8.0, 1.0)])
        self._constants = np.array([1.0 / self.scale, float(cluster.gpu_vram_gb.sum()), float(max_window)])
        self._gpu_node = cluster.gpu_node.astype(np.int64)
        self._node_count = np.zeros(cluster.n_nodes, dtype=np.int64)
        ones = np.ones(self.n)
        self._speed = np.stack([ones if speeds is None else speeds.row(t) for t in _SPEED_ROWS]).astype(float)
        # A job's pair features read its own speeds (its model's, through the view's speed model);
        # a job without a model reads its type's row, as the GPU features do.
        self._rows: dict[int, int] = {}
        self._row_objects: list[np.ndarray] = []
        self._present = np.zeros(max_gpus, dtype=np.float32)
        self._present[: self.n] = 1.0
        self._key: tuple | None = None
        self._key_state = None
        self._fits = np.zeros((max_window, self.n), dtype=bool)
        self._single = np.zeros((max_window, self.n), dtype=bool)

    def _window_fits(self, view: SchedulerView) -> tuple[list[int], np.ndarray, np.ndarray]:
        """The window's arrival indices and their gang and single-GPU fit masks (from the
        simulator's own :class:`~gpusched.core.cluster.ClusterState`), once per decision."""
        window = view.window_indices() if not view.done else []
        key = (view.state.version, tuple(window))
        if view.state is not self._key_state or key != self._key:  # the state itself, not its id
            fits, single = self._fits, self._single
            fits[:] = False
            single[:] = False
            state, jobs = view.state, view.jobs
            for k, idx in enumerate(window[: self.max_window]):
                fits[k] = state.fit_mask(jobs[idx])
                single[k] = state.single_gpu_fit(jobs[idx])
            self._key, self._key_state = key, view.state
        return window, self._fits, self._single

    def mask(self, view: SchedulerView) -> np.ndarray:
        """Valid actions: every (slot, GPU) where that window job fits, then HOLD (last). HOLD is
        valid unless holding would dead-stall the run, or when nothing else is."""
        _, fits, _ = self._window_fits(view)
        mask = np.zeros(self.hold_action + 1, dtype=bool)
        grid = mask[: self.hold_action].reshape(self.max_window, self.max_gpus)
        grid[:, : self.n] = fits
        mask[-1] = not view.hold_would_dead_stall() or not mask.any()
        return mask

    def decode(self, action: int) -> tuple[int, int]:
        """The (window slot, GPU or :data:`HOLD`) of an action; a padding slot is a HOLD."""
        action = int(action)
        if action >= self.hold_action or action < 0:
            return 0, HOLD
        slot, gpu = divmod(action, self.max_gpus)
        return (0, HOLD) if gpu >= self.n else (slot, gpu)

    def _speed_row_of(self, row: np.ndarray) -> int:
        """The row of the speed matrix that holds ``row`` (a speed model's row for a job), added
        on first sight (a speed model answers with the same array for jobs alike)."""
        k = self._rows.get(id(row))
        if k is None:
            k = self._rows[id(row)] = len(self._speed)
            self._row_objects.append(row)  # keeps the id valid
            self._speed = np.vstack([self._speed, np.asarray(row, dtype=float)[None, :]])
        return k

    def observe(self, view: SchedulerView) -> dict[str, np.ndarray]:
        """The observation for the simulator's current decision."""
        window, fits, single = self._window_fits(view)
        window = window[: self.max_window]
        jobs, now = view.jobs, view.time_min
        job_num = np.zeros((self.max_window, 7))
        job_type = np.zeros(self.max_window, dtype=np.int64)
        job_present = np.zeros(self.max_window, dtype=np.float32)
        for k, idx in enumerate(window):
            j = jobs[idx]
            job_num[k] = (j.gpus, j.vram_gb, j.vram_frac, j.compute, view.declared_min[idx], j.priority,
                          now - j.arrival_min)
            job_type[k] = TYPE_INDEX.get(j.type, 3)
            job_present[k] = 1.0
        if self.version in UNTOLD_OBS_VERSIONS:  # an undeclared run time reads 0 (``known`` says so)
            np.nan_to_num(job_num, copy=False, nan=0.0)
        speed_row = job_type.copy()
        if not view.speed_model.uniform:
            for k, idx in enumerate(window):
                if jobs[idx].model is not None:
                    speed_row[k] = self._speed_row_of(view.speed_model.row(jobs[idx]))
        first, last = view.gpu_release_min()
        if self.version in UNTOLD_OBS_VERSIONS:
            first, last = np.nan_to_num(first, nan=0.0), np.nan_to_num(last, nan=0.0)
        n_jobs = len(jobs)
        globals_in = np.array([len(view.queue), view.running_count, now - view.start_time_min,
                               1.0 - view.arrivals_left / n_jobs if n_jobs else 1.0, float(view.window)])
        gpus_block = np.empty((self.max_gpus, N_WINDOW_GPU_FEATURES), dtype=np.float32)
        jobs_block = np.empty((self.max_window, N_WINDOW_JOB_FEATURES), dtype=np.float32)
        pairs = np.empty((self.max_window, self.max_gpus, N_PAIR_FEATURES), dtype=np.float32)
        glob = np.empty(N_WINDOW_GLOBAL_FEATURES, dtype=np.float32)
        state = view.state
        window_observation_arrays(
            self._gpu_static, self._constants, self._gpu_node, self._node_count, state.vram_free_gb,
            state.vram_used_gb, state.compute_used, state.jobs_running, np.asarray(first), np.asarray(last),
            self._speed, fits, single, job_num, job_type, speed_row, len(window), globals_in, gpus_block,
            jobs_block, pairs, glob)
        if self.version >= 4:
            # each window job's restore plus declared remaining work (reference-speed minutes;
            # NaN where none is declared), read by versions 4 and 5
            left = np.array([view.resume_cost_min(i) + view.declared_left_min(i) for i in window])
            gpus_block, jobs_block = self._version_4(view, window, left, gpus_block, jobs_block)
        if self.version >= 5:
            jobs_block = self._version_5(view, window, left, jobs_block)
        return {"gpus": gpus_block, "gpu_present": self._present.copy(), "jobs": jobs_block,
                "job_present": job_present, "pairs": pairs, "globals": glob}

    def _version_4(self, view: SchedulerView, window: list[int], left: np.ndarray, gpus_block: np.ndarray,
                   jobs_block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The version-3 blocks with version 4's columns appended (see :data:`GPU_FEATURES_V4` and
        :data:`JOB_FEATURES_V4`); ``left`` is each window job's restore plus declared remaining
        work."""
        down = np.zeros((self.max_gpus, 1), dtype=np.float32)
        down[: self.n, 0] = view.gpu_down()
        extra = np.zeros((self.max_window, 3), dtype=np.float32)
        if window:
            k = len(window)
            extra[:k, 0] = np.log1p(view.attained_service_gpu_min(window)) / _LOG_GPU_DAYS
            extra[:k, 1] = np.log1p(left) / _LOG_DAY
            extra[:k, 2] = view.stopped(window)
            if self.version in UNTOLD_OBS_VERSIONS:
                np.nan_to_num(extra, copy=False, nan=0.0)
        return np.concatenate([gpus_block, down], axis=1), np.concatenate([jobs_block, extra], axis=1)

    def _version_5(self, view: SchedulerView, window: list[int], left: np.ndarray,
                   jobs_block: np.ndarray) -> np.ndarray:
        """The version-4 job block with version 5's columns appended (:data:`JOB_FEATURES_V5`);
        ``left`` as for :meth:`_version_4`."""
        extra = np.zeros((self.max_window, len(JOB_FEATURES_V5) - len(JOB_FEATURES_V4)), dtype=np.float32)
        if window:
            k, jobs, now = len(window), view.jobs, view.time_min
            idx = np.asarray(window, dtype=np.int64)
            declared = view.declared_min[idx]
            known = ~np.isnan(declared)
            basis = view.declared_basis(window)
            extra[:k, 0] = known
            extra[:k, 1] = known & (basis >= 0)
            extra[:k, 2] = np.log1p(np.maximum(basis, 0)) / _LOG_BASIS
            left = np.where(known, left / view.best_speed[idx], 0.0)
            for r, i in enumerate(window):
                j = jobs[i]
                if j.deadline_min is not None:
                    slack = j.arrival_min + j.deadline_min - now - left[r]
                    extra[r, 3] = 1.0
                    extra[r, 4 if slack >= 0 else 5] = min(np.log1p(abs(slack)) / _LOG_DAY, 1.5)
                extra[r, 6] = min(j.weight / 5.0, 1.5)
                family = model_family(j.model)
                if family >= 0:
                    extra[r, 7 + family] = 1.0
        return np.concatenate([jobs_block, extra], axis=1)


def warm_up() -> None:
    """Compile (or load from the disk cache) the version-3 kernel on a one-GPU cluster."""
    from gpusched.core.cluster import NodeGroup
    from gpusched.core.jobs import Job

    sim = Simulator(Cluster([NodeGroup("warm-up", 16.0, 1)]),
                    [Job(id=0, type="batch", arrival_min=0.0, duration_min=1.0, gpus=1, vram_gb=1.0,
                         compute=0.1)])
    builder = WindowObservationBuilder(sim.setup.cluster, 1, 1, version=3)
    builder.observe(sim.view)
    builder.mask(sim.view)
