"""Turn simulator state into the agent's observation and action mask.

One :class:`ObservationBuilder` is shared by the Gymnasium environment and by the trained agent
when it runs inside :meth:`gpusched.core.simulator.Simulator.run`, so both see exactly the same
features. Every feature is normalised to roughly 0-1; VRAM is divided by ``vram_scale_gb``.
"""

from __future__ import annotations

import math
from itertools import islice

import numpy as np
from gymnasium import spaces

from gpusched.core.cluster import Cluster
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.jobs import Job
from gpusched.env.kernels import LOG_DAY, observation_arrays

OBS_VERSION = 1
"""The default version of the observation layout. A saved model records its version; the
environment and the loader read every version of :data:`OBS_VERSIONS`."""
OBS_VERSIONS: tuple[int, ...] = (1, 2)
"""Observation layouts: 1 is the base; 2 adds run-time information (see :func:`feature_names`)."""
NEXT_JOBS = 4
"""Queued jobs behind the head that version 2 describes one by one."""

GPU_FEATURES: tuple[str, ...] = (
    "present",          # 1 for a real GPU, 0 for a padding slot
    "vram_total",       # VRAM capacity / vram_scale_gb
    "vram_free",        # free VRAM / vram_scale_gb
    "compute_used",     # compute in use (fraction 0-1)
    "jobs_running",     # jobs on the GPU / 8, clipped to 1
    "head_fits",        # 1 if the head job (its whole gang) fits with this GPU
    "vram_left_after",  # VRAM left after placing the head job here / vram_scale_gb (0 if no fit)
    "compute_left_after",  # compute left after placing the head job here (0 if no fit)
    "node_room",        # share of this node's GPUs that could each take one of the head's GPUs
                        # (for a one-GPU head job: 1 if it fits here)
    "node_size",        # GPUs of this GPU's node / 8, clipped to 1
    "idle",             # 1 if no job runs on the GPU
    "could_ever_hold",  # 1 if the head job would fit here on an empty node
)
JOB_FEATURES: tuple[str, ...] = (
    "gpus",             # GPUs asked / 8
    "vram",             # VRAM per GPU / vram_scale_gb
    "compute",          # compute per GPU (fraction 0-1)
    "duration",         # log1p(declared run time in minutes) / log1p(1440)
    "priority",         # priority / 3
    "is_training", "is_inference", "is_batch",
    "wait",             # log1p(minutes waited so far) / log1p(1440), clipped to 1
    "fit_share",        # share of the cluster's GPUs where it fits now
)
QUEUE_FEATURES: tuple[str, ...] = (
    "queue_len",        # log1p(jobs in queue) / log1p(1000), clipped to 1
    "next_count",       # jobs behind the head in the window / window
    "next_vram_demand",  # sum of gpus * VRAM of the next jobs / cluster VRAM, clipped to 2
    "next_compute_demand",  # sum of gpus * compute of the next jobs / cluster GPUs, clipped to 2
    "next_max_vram",    # largest VRAM per GPU among the next jobs / vram_scale_gb
    "cluster_util",     # mean compute in use over the cluster's GPUs
    "cluster_vram_used",  # VRAM in use / cluster VRAM
    "running",          # jobs running / cluster GPUs, clipped to 2
)
TIME_FEATURES: tuple[str, ...] = (
    "elapsed",          # minutes since the first arrival / (7 * 1440), clipped to 1
    "arrived_share",    # share of the workload that has arrived
)

GPU_FEATURES_V2: tuple[str, ...] = (
    "release_next",     # log1p(minutes until its first running job ends) / log1p(1440), 0 if idle
    "release_last",     # log1p(minutes until its last running job ends) / log1p(1440), 0 if idle
)
"""Per-GPU features that version 2 adds after :data:`GPU_FEATURES`."""
QUEUE_FEATURES_V2: tuple[str, ...] = tuple(
    f"next{k}_{name}" for k in range(1, NEXT_JOBS + 1)
    for name in ("gpus", "vram", "compute", "duration"))  # / 8, / vram_scale_gb, 0-1, log1p / log1p(1440)
"""Queue features that version 2 adds after :data:`QUEUE_FEATURES`: the next jobs one by one
(zeros where the queue is shorter)."""


def feature_names(obs_version: int) -> dict[str, tuple[str, ...]]:
    """The feature names of each observation key for a layout version."""
    if obs_version not in OBS_VERSIONS:
        raise ValueError(f"unknown observation version {obs_version!r} (known: {OBS_VERSIONS})")
    extra = obs_version >= 2
    return {"gpus": GPU_FEATURES + (GPU_FEATURES_V2 if extra else ()), "job": JOB_FEATURES,
            "queue": QUEUE_FEATURES + (QUEUE_FEATURES_V2 if extra else ()), "time": TIME_FEATURES}


def observation_space(max_gpus: int, obs_version: int = OBS_VERSION) -> spaces.Dict:
    """The observation space for ``max_gpus`` GPU slots and a layout version."""
    names = feature_names(obs_version)
    big = 4.0
    return spaces.Dict({
        "gpus": spaces.Box(0.0, big, shape=(max_gpus, len(names["gpus"])), dtype=np.float32),
        "gpu_present": spaces.Box(0.0, 1.0, shape=(max_gpus,), dtype=np.float32),
        "job": spaces.Box(0.0, big, shape=(len(names["job"]),), dtype=np.float32),
        "queue": spaces.Box(0.0, big, shape=(len(names["queue"]),), dtype=np.float32),
        "time": spaces.Box(0.0, 1.0, shape=(len(names["time"]),), dtype=np.float32),
    })


_NO_JOB = np.zeros(0)  # the kernel writes zero job features when there is no head job


class ObservationBuilder:
    """Build observations for one cluster, padded to ``max_gpus`` GPU slots.

    :param cluster: the cluster (its GPU count must be at most ``max_gpus``).
    :param max_gpus: number of GPU slots in the observation.
    :param queue_window: jobs behind the head summarised in the queue features.
    :param vram_scale_gb: VRAM normaliser (GB).
    :param obs_version: layout version (:data:`OBS_VERSIONS`).
    """

    def __init__(self, cluster: Cluster, max_gpus: int, queue_window: int = 8,
                 vram_scale_gb: float = 80.0, obs_version: int = OBS_VERSION):
        if cluster.n_gpus > max_gpus:
            raise ValueError(f"cluster has {cluster.n_gpus} GPUs, more than max_gpus={max_gpus}")
        feature_names(obs_version)  # refuses an unknown version
        self.obs_version = obs_version
        self.cluster = cluster
        self.max_gpus = max_gpus
        self.queue_window = queue_window
        self.scale = float(vram_scale_gb)
        n = cluster.n_gpus
        self.n = n
        # Fixed inputs of the compiled kernel (see gpusched.env.kernels.observation_arrays).
        node_size = cluster.node_gpu_count[cluster.gpu_node].astype(float)
        self._gpu_static = np.stack([cluster.gpu_vram_gb, cluster.gpu_vram_gb / self.scale,
                                     node_size, np.minimum(node_size / 8.0, 1.0)])
        self._constants = np.array([1.0 / self.scale, float(cluster.gpu_vram_gb.sum()), float(queue_window)])
        self._gpu_node = cluster.gpu_node.astype(np.int64)
        self._node_count = np.zeros(cluster.n_nodes, dtype=np.int64)
        self._no_fit = np.zeros(n, dtype=bool)
        self._no_fit.flags.writeable = False  # like the fit masks, so the kernel compiles once
        self._present = np.zeros(max_gpus, dtype=np.float32)
        self._present[:n] = 1.0
        self._zero_mask = np.zeros(max_gpus + 1, dtype=bool)
        self._job_key: DeclaredJob | None = None
        self._job_part = _NO_JOB
        self._window_key: tuple | None = None
        self._window = np.zeros(4)
        self._next_jobs = np.zeros(len(QUEUE_FEATURES_V2) if obs_version >= 2 else 0)
        self._block_shape = (max_gpus, len(GPU_FEATURES))
        self._vec_len = len(JOB_FEATURES) + len(QUEUE_FEATURES) + len(self._next_jobs) + len(TIME_FEATURES)
        self._vec_split = (len(JOB_FEATURES), self._vec_len - len(TIME_FEATURES))

    # ---------------------------------------------------------------- mask
    def mask(self, view, fits: np.ndarray | None) -> np.ndarray:
        """Valid actions: GPUs where the head job fits (``fits``), then HOLD (last).

        HOLD is valid unless holding would dead-stall the run; it is also valid when nothing else
        is (a finished run), so the mask always has a valid action.
        """
        mask = self._zero_mask.copy()
        if fits is not None:
            mask[:self.n] = fits
        mask[-1] = not view.hold_would_dead_stall() or not mask.any()
        return mask

    # ---------------------------------------------------------------- observation
    def _job_features(self, state, job: DeclaredJob) -> np.ndarray:
        """The head job's own features (the first eight of :data:`JOB_FEATURES`), kept while the
        same job stays at the head."""
        if self._job_key is not job:
            need = state.vram_need_gb(job) if job.vram_frac else job.vram_gb
            mean_need = need if isinstance(need, float) else float(np.mean(need))
            kind = job.type
            self._job_part = np.array((
                job.gpus * 0.125, mean_need * (1.0 / self.scale),
                job.compute, math.log1p(job.declared_min) / LOG_DAY, job.priority / 3.0,
                kind == "training", kind == "inference", kind == "batch",
            ))
            self._job_key = job
        return self._job_part

    def _queue_window(self, view, queue, q_len: int) -> np.ndarray:
        """Count, total GPUs x VRAM (GB), total GPUs x compute and largest VRAM (GB) of the jobs
        behind the head, up to ``queue_window`` of them.

        The FIFO queue only loses its head and gains arrivals at its tail, so the window is fixed
        by the head job and the queue length (capped at the window): that pair keys the cache.
        """
        key = (view, queue[0], min(q_len, self.queue_window + 1)) if q_len else None
        if key is not None and self._window_key == key:
            return self._window
        nxt_count = nxt_vram = nxt_compute = nxt_max = 0.0
        if q_len > 1:
            jobs = view.jobs
            for i in islice(queue, 1, self.queue_window + 1):
                j = jobs[i]
                nxt_count += 1.0
                nxt_vram += j.gpus * j.vram_gb
                nxt_compute += j.gpus * j.compute
                if j.vram_gb > nxt_max:
                    nxt_max = j.vram_gb
        self._window = np.array((nxt_count, nxt_vram, nxt_compute, nxt_max))
        self._window_key = key
        if self.obs_version >= 2:
            self._next_jobs = self._next_job_features(view, queue)
        return self._window

    def _next_job_features(self, view, queue) -> np.ndarray:
        """Version 2: the :data:`NEXT_JOBS` jobs behind the head one by one, zeros past the queue."""
        values: list[float] = []
        for i in islice(queue, 1, NEXT_JOBS + 1):
            j = view.jobs[i]
            values += (j.gpus * 0.125, j.vram_gb / self.scale, j.compute,
                       math.log1p(j.declared_min) / LOG_DAY)
        return np.array((*values, *(0.0,) * (len(QUEUE_FEATURES_V2) - len(values))))

    def _release_features(self, view, gpus: np.ndarray) -> np.ndarray:
        """Version 2: the per-GPU block widened by the release-time features."""
        first, last = view.gpu_release_min()
        wide = np.zeros((self.max_gpus, gpus.shape[1] + len(GPU_FEATURES_V2)), dtype=np.float32)
        wide[:, :gpus.shape[1]] = gpus
        wide[:self.n, gpus.shape[1]] = np.log1p(first) / LOG_DAY
        wide[:self.n, gpus.shape[1] + 1] = np.log1p(last) / LOG_DAY
        return wide

    def observe(self, view, fits: np.ndarray | None) -> dict[str, np.ndarray]:
        """The observation for the simulator's current decision (``fits`` is the head's fit mask)."""
        state = view.state
        job: DeclaredJob | None = view.head_job
        if job is None or fits is None:
            job_part, fits = _NO_JOB, self._no_fit
            single = fits
            vram_gb = vram_frac = compute = wait_min = 0.0
            gpus = 1
        else:
            job_part = self._job_features(state, job)
            single = state.single_gpu_fit(job)
            vram_gb, vram_frac, compute, gpus = job.vram_gb, job.vram_frac, job.compute, job.gpus
            wait_min = view.time_min - job.arrival_min
        queue = view.queue
        q_len = len(queue)
        window = self._queue_window(view, queue, q_len)
        n_jobs = len(view.declared_min)
        gpus_block = np.empty(self._block_shape, dtype=np.float32)
        vec = np.empty(self._vec_len, dtype=np.float32)
        observation_arrays(
            self._gpu_static, self._constants, self._gpu_node, self._node_count,
            state.vram_free_gb, state.vram_used_gb, state.compute_used, state.jobs_running, fits, single,
            job_part, vram_gb, vram_frac, compute, gpus, wait_min, window, self._next_jobs, q_len,
            view.running_count, view.time_min - view.start_time_min,
            1.0 - view.arrivals_left / n_jobs if n_jobs else 1.0, gpus_block, vec)
        j_end, q_end = self._vec_split
        if self.obs_version >= 2:
            gpus_block = self._release_features(view, gpus_block)
        return {
            "gpus": gpus_block,
            "gpu_present": self._present.copy(),
            "job": vec[:j_end],
            "queue": vec[j_end:q_end],
            "time": vec[q_end:],
        }


def warm_up() -> None:
    """Compile (or load from the disk cache) the observation kernel now, on a one-GPU cluster,
    so that the first real decision does not wait for it."""
    from gpusched.core.cluster import NodeGroup
    from gpusched.core.simulator import Simulator

    sim = Simulator(Cluster([NodeGroup("warm-up", 16.0, 1)]),
                    [Job(id=0, type="batch", arrival_min=0.0, duration_min=1.0, gpus=1, vram_gb=1.0,
                         compute=0.1)])
    ObservationBuilder(sim.setup.cluster, 1).observe(sim.view, sim.view.state.fit_mask(sim.view.head_job))
