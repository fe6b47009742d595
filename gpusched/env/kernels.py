"""Compiled kernel that builds the agent's observation arrays.

The environment builds an observation at every step. At 8 GPUs the dozens of small numpy and
float operations it took cost more than the simulator's own step, so this kernel computes
every feature that depends on the GPUs, the clock or the queue in one compiled call, in float64
and then rounded to float32. :class:`~gpusched.env.observation.ObservationBuilder` documents
the features and passes in what the simulator knows; a test checks this kernel against a plain
numpy reading of those definitions.

It is compiled on first use and cached on disk (``cache=True``), so only the first process on a
machine pays the compile (about 1.5 s on the 2-core machine); later ones load it in about 0.2 s.
"""

from __future__ import annotations

import math

import numba
import numpy as np

EPS = 1e-9  # the same tolerance as gpusched.core.cluster.EPS (a test checks they agree)
LOG_DAY = math.log1p(1440.0)
LOG_QUEUE = math.log1p(1000.0)
WEEK_MIN = 7 * 1440.0

N_JOB_FEATURES = 10  # len(JOB_FEATURES) and len(QUEUE_FEATURES) (a test checks they agree)
N_QUEUE_FEATURES = 8


@numba.njit(cache=True, nogil=True)
def observation_arrays(
    gpu_static: np.ndarray,
    constants: np.ndarray,
    gpu_node: np.ndarray,
    node_count: np.ndarray,
    vram_free_gb: np.ndarray,
    vram_used_gb: np.ndarray,
    compute_used: np.ndarray,
    jobs_running: np.ndarray,
    fits: np.ndarray,
    single: np.ndarray,
    job_static: np.ndarray,
    vram_gb: float,
    vram_frac: float,
    compute: float,
    gpus: int,
    wait_min: float,
    window: np.ndarray,
    next_jobs: np.ndarray,
    queue_len: int,
    running_jobs: int,
    elapsed_min: float,
    arrived_share: float,
    block: np.ndarray,
    vec: np.ndarray,
) -> None:
    """Write the per-GPU block ``(max_gpus, 12)`` and the job + queue + time vector (float32)
    into ``block`` and ``vec``; they arrive uninitialised, and padding is written as zeros.

    :param gpu_static: ``(4, n)`` fixed rows per real GPU: capacity (GB), capacity / scale,
        node size (GPUs), and node size / 8 clipped to 1.
    :param constants: 1 / VRAM scale (1/GB), the cluster's VRAM (GB), the queue window (jobs).
    :param gpu_node: node of each GPU; ``node_count`` is scratch space of one int per node.
    :param vram_free_gb, vram_used_gb, compute_used, jobs_running: the cluster state per GPU.
    :param fits, single: the head job's gang and single-GPU fit masks.
    :param job_static: the head job's first 8 job features (empty when there is no head job).
    :param vram_gb, vram_frac, compute, gpus, wait_min: the head job's VRAM (GB), VRAM share of
        a GPU, compute share, GPU count and minutes waited so far.
    :param window: the jobs behind the head: count, sum of GPUs x VRAM (GB), sum of GPUs x
        compute, largest VRAM (GB).
    :param next_jobs: version-2 queue features (empty for version 1).
    :param queue_len, running_jobs, elapsed_min, arrived_share: jobs queued, jobs running,
        minutes since the first arrival, share of the workload arrived.
    """
    n = gpu_static.shape[1]
    inv_scale, total_vram = constants[0], constants[1]
    has_job = job_static.shape[0] > 0
    block[:, :] = 0.0
    if has_job and gpus > 1:
        node_count[:] = 0
        for g in range(n):
            if single[g]:
                node_count[gpu_node[g]] += 1
    left_compute = 1.0 - compute
    fit_count = 0
    util_sum = 0.0
    vram_used_sum = 0.0
    for g in range(n):
        running = jobs_running[g]
        free = vram_free_gb[g]
        used = compute_used[g]
        util_sum += used
        vram_used_sum += vram_used_gb[g]
        block[g, 0] = 1.0
        block[g, 1] = gpu_static[1, g]
        block[g, 2] = free * inv_scale
        block[g, 3] = used
        block[g, 4] = min(max(running, 0), 8) / 8.0
        block[g, 9] = gpu_static[3, g]
        block[g, 10] = 1.0 if running <= 0 else 0.0
        if has_job:
            cap = gpu_static[0, g]
            need = vram_gb + vram_frac * cap
            if fits[g]:
                fit_count += 1
                block[g, 5] = 1.0
                block[g, 6] = max((free - need) * inv_scale, 0.0)
                block[g, 7] = max(left_compute - used, 0.0)
            if gpus > 1:
                block[g, 8] = node_count[gpu_node[g]] / gpu_static[2, g]
            elif fits[g]:
                block[g, 8] = 1.0
            if cap + EPS >= need and gpu_static[2, g] >= gpus:
                block[g, 11] = 1.0

    n_next = next_jobs.shape[0]
    vec[:] = 0.0
    if has_job:
        for k in range(job_static.shape[0]):
            vec[k] = job_static[k]
        vec[8] = min(math.log1p(max(wait_min, 0.0)) / LOG_DAY, 1.0)
        vec[9] = fit_count / n
    q = N_JOB_FEATURES
    vec[q] = min(math.log1p(queue_len) / LOG_QUEUE, 1.0)
    vec[q + 1] = window[0] / constants[2]
    vec[q + 2] = min(window[1] / total_vram, 2.0)
    vec[q + 3] = min(window[2] / n, 2.0)
    vec[q + 4] = window[3] * inv_scale
    vec[q + 5] = util_sum / n
    vec[q + 6] = vram_used_sum / total_vram
    vec[q + 7] = min(running_jobs / n, 2.0)
    for k in range(n_next):
        vec[q + N_QUEUE_FEATURES + k] = next_jobs[k]
    t = q + N_QUEUE_FEATURES + n_next
    vec[t] = min(elapsed_min / WEEK_MIN, 1.0)
    vec[t + 1] = arrived_share


# ---------------------------------------------------------------------------- observation version 3
N_WINDOW_GPU_FEATURES = 12
N_WINDOW_JOB_FEATURES = 14
N_PAIR_FEATURES = 6
N_WINDOW_GLOBAL_FEATURES = 9


@numba.njit(cache=True, nogil=True)
def window_observation_arrays(
    gpu_static: np.ndarray,
    constants: np.ndarray,
    gpu_node: np.ndarray,
    node_count: np.ndarray,
    vram_free_gb: np.ndarray,
    vram_used_gb: np.ndarray,
    compute_used: np.ndarray,
    jobs_running: np.ndarray,
    release_next: np.ndarray,
    release_last: np.ndarray,
    speed: np.ndarray,
    fits: np.ndarray,
    single: np.ndarray,
    job_num: np.ndarray,
    job_type: np.ndarray,
    speed_row: np.ndarray,
    n_window: int,
    globals_in: np.ndarray,
    gpus_block: np.ndarray,
    jobs_block: np.ndarray,
    pairs: np.ndarray,
    glob: np.ndarray,
) -> None:
    """Write the version-3 observation: per GPU, per window job, per (job, GPU) pair, and global.

    Every output arrives uninitialised and is written whole, padding as zeros.

    :param gpu_static: ``(4, n)`` per real GPU: capacity (GB), capacity / scale, node size (GPUs),
        and node size / 8 clipped to 1.
    :param constants: 1 / VRAM scale (1/GB), the cluster's VRAM (GB), the largest window (slots).
    :param gpu_node: node of each GPU; ``node_count`` is scratch space of one int per node.
    :param vram_free_gb, vram_used_gb, compute_used, jobs_running: the cluster state per GPU.
    :param release_next, release_last: minutes until each GPU's first and last running job ends by
        their declared run times (0 when idle).
    :param speed: ``(4 + m, n)`` speed of each GPU for a training, inference, batch and other
        job (the GPU features), then one row per job model seen (the pair features).
    :param fits, single: ``(window, n)`` gang and single-GPU fit masks of the window's jobs.
    :param job_num: ``(window, 7)`` per window job: GPUs, VRAM per GPU (GB), VRAM share of a GPU,
        compute share, declared run time at speed 1 (min), priority, minutes waited so far.
    :param job_type: ``(window,)`` type index (0 training, 1 inference, 2 batch, 3 other).
    :param speed_row: ``(window,)`` the row of ``speed`` that holds each window job's speeds.
    :param n_window: jobs in the window now.
    :param globals_in: queue length, jobs running, minutes since the first arrival, share of the
        workload arrived, the scenario's window (slots).
    """
    n = gpu_static.shape[1]
    inv_scale, total_vram, max_window = constants[0], constants[1], constants[2]
    gpus_block[:, :] = 0.0
    jobs_block[:, :] = 0.0
    pairs[:, :, :] = 0.0
    util_sum = 0.0
    vram_used_sum = 0.0
    idle = 0
    for g in range(n):
        running = jobs_running[g]
        util_sum += compute_used[g]
        vram_used_sum += vram_used_gb[g]
        gpus_block[g, 0] = 1.0
        gpus_block[g, 1] = gpu_static[1, g]
        gpus_block[g, 2] = vram_free_gb[g] * inv_scale
        gpus_block[g, 3] = compute_used[g]
        gpus_block[g, 4] = min(max(running, 0), 8) / 8.0
        gpus_block[g, 5] = gpu_static[3, g]
        if running <= 0:
            gpus_block[g, 6] = 1.0
            idle += 1
        gpus_block[g, 7] = min(math.log1p(max(release_next[g], 0.0)) / LOG_DAY, 1.5)
        gpus_block[g, 8] = min(math.log1p(max(release_last[g], 0.0)) / LOG_DAY, 1.5)
        gpus_block[g, 9] = speed[0, g]
        gpus_block[g, 10] = speed[1, g]
        gpus_block[g, 11] = speed[2, g]
    for k in range(n_window):
        gpus, vram_gb, vram_frac, compute = job_num[k, 0], job_num[k, 1], job_num[k, 2], job_num[k, 3]
        declared, priority, waited = job_num[k, 4], job_num[k, 5], job_num[k, 6]
        t = job_type[k]
        if gpus > 1:
            node_count[:] = 0
            for g in range(n):
                if single[k, g]:
                    node_count[gpu_node[g]] += 1
        fit_count = 0
        need_sum = 0.0
        for g in range(n):
            cap = gpu_static[0, g]
            need = vram_gb + vram_frac * cap
            need_sum += need
            s = speed[speed_row[k], g]
            pairs[k, g, 3] = s
            pairs[k, g, 4] = min(math.log1p(declared / max(s, EPS)) / LOG_DAY, 1.5)
            if fits[k, g]:
                fit_count += 1
                pairs[k, g, 0] = 1.0
                pairs[k, g, 1] = max((vram_free_gb[g] - need) * inv_scale, 0.0)
                pairs[k, g, 2] = max(1.0 - compute - compute_used[g], 0.0)
            if gpus > 1:
                pairs[k, g, 5] = node_count[gpu_node[g]] / gpu_static[2, g]
            elif fits[k, g]:
                pairs[k, g, 5] = 1.0
        jobs_block[k, 0] = 1.0
        jobs_block[k, 1] = gpus * 0.125
        jobs_block[k, 2] = (vram_gb if vram_frac == 0.0 else need_sum / n) * inv_scale
        jobs_block[k, 3] = compute
        jobs_block[k, 4] = min(math.log1p(declared) / LOG_DAY, 1.5)
        jobs_block[k, 5] = priority / 3.0
        jobs_block[k, 6 + t] = 1.0
        jobs_block[k, 10] = min(math.log1p(max(waited, 0.0)) / LOG_DAY, 1.0)
        jobs_block[k, 11] = 1.0 if fit_count > 0 else 0.0
        jobs_block[k, 12] = fit_count / n
        jobs_block[k, 13] = k / max_window
    queue_len, running_jobs, elapsed, arrived, window = (globals_in[0], globals_in[1], globals_in[2],
                                                         globals_in[3], globals_in[4])
    glob[0] = min(math.log1p(queue_len) / LOG_QUEUE, 1.0)
    glob[1] = min(math.log1p(max(queue_len - n_window, 0.0)) / LOG_QUEUE, 1.0)
    glob[2] = window / max_window
    glob[3] = util_sum / n
    glob[4] = vram_used_sum / total_vram
    glob[5] = min(running_jobs / n, 2.0)
    glob[6] = idle / n
    glob[7] = min(elapsed / WEEK_MIN, 1.0)
    glob[8] = arrived
