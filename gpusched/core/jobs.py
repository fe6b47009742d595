"""Jobs: what a workload is made of.

A job asks for ``gpus`` GPUs on one node (gang placement). On each of those GPUs it needs
``vram_gb + vram_frac * gpu_vram_gb`` GB of VRAM and ``compute`` (a fraction 0-1) of the GPU's compute.
Synthetic jobs use absolute VRAM (``vram_frac == 0``); trace jobs ask for a share of the GPU
(``vram_frac == compute == gpu_milli / 1000``).

Where jobs come from (the synthetic generator, a real trace) is :mod:`gpusched.workload`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gpusched.errors import InfeasibleJobError


@dataclass(frozen=True, slots=True)
class Job:
    """One job of a workload.

    :param id: job id, unique within a workload.
    :param type: job type, a key of :data:`gpusched.workload.synthetic.JOB_TYPES`, or ``"trace"``.
    :param arrival_min: arrival time (minutes from the start of the run).
    :param duration_min: run time once started (minutes).
    :param gpus: number of GPUs, all on one node (gang placement).
    :param vram_gb: VRAM needed on each of its GPUs (GB).
    :param compute: compute share needed on each of its GPUs (fraction of a GPU, 0-1).
    :param priority: 1 (low) to 3 (high); recorded, the FIFO queue does not reorder by it.
    :param vram_frac: extra VRAM per GPU as a fraction of that GPU's capacity (trace jobs).
    :param cpu_milli: CPU request on the node (milli-cores), 0 for none.
    :param memory_mib: memory request on the node (MiB), 0 for none.
    :param gpu_spec: GPU models the job may run on, ``None`` for any.
    :param model: the job model, a free label such as ``ResNet-50 (batch size 64)`` that a speed
        table may name (:mod:`gpusched.core.speed`); ``None`` for none.
    :param weight: the job's priority weight (> 0; Gavel's generator draws 1 or 5). Carried
        through readers, generators and the jobs table; the simulator does not act on it.
    :param deadline_min: the job's deadline, minutes after its arrival (``None`` for none).
        Carried like ``weight``; the simulator does not act on it.
    """

    id: int
    type: str
    arrival_min: float
    duration_min: float
    gpus: int
    vram_gb: float
    compute: float
    priority: int = 2
    vram_frac: float = 0.0
    cpu_milli: float = 0.0
    memory_mib: float = 0.0
    gpu_spec: tuple[str, ...] | None = None
    model: str | None = None
    weight: float = 1.0
    deadline_min: float | None = None


def fit_shape(job: Job) -> tuple:
    """What decides where ``job`` could ever fit: its GPU count, VRAM, model and node requests, and
    its compute share only above one whole GPU (on an empty cluster every share up to a GPU fits
    alike). The shares are continuous, so a cache keyed on them would keep one entry a job."""
    return (job.gpus, job.vram_gb, job.vram_frac, job.compute if job.compute > 1.0 else 0.0,
            job.gpu_spec, job.cpu_milli, job.memory_mib)


def check_jobs_feasible(jobs: Sequence[Job], cluster) -> None:
    """Refuse a job that no node of ``cluster`` could ever hold, even when empty.

    :raises InfeasibleJobError: naming the first such job, what it asked for, and the cluster's
        largest offer of what it asked (GPUs of one node, or of one GPU model with spread gangs;
        VRAM; node CPU and memory).
    """
    first_of_shape: dict[tuple, Job] = {}  # whether a job could ever fit depends on its shape only
    for job in jobs:
        first_of_shape.setdefault(fit_shape(job), job)
    for job in first_of_shape.values():  # the first job of each shape, in the jobs' order
        if not cluster.could_ever_hold(job):
            asked = f"{job.gpus} GPU(s) with {job.vram_gb:g} GB VRAM and {job.compute:g} compute each"
            if job.vram_frac:
                asked = f"{job.gpus} GPU(s) with {job.vram_frac:g} of a GPU each"
            if job.gpu_spec:
                asked += f" of model {'|'.join(job.gpu_spec)}"
            if job.cpu_milli:
                asked += f", {job.cpu_milli:g} milli-cores of CPU"
            if job.memory_mib:
                asked += f", {job.memory_mib:g} MiB of memory"
            raise InfeasibleJobError(
                f"job {job.id} ({job.type}) asks for {asked}, but no node of the cluster "
                f"could ever hold it ({_largest_offer(job, cluster)})"
            )


def _largest_offer(job: Job, cluster) -> str:
    """The cluster's largest offer of what ``job`` asks for, for a message: the GPUs one gang may
    take (of one node, or with spread gangs of one GPU model), the largest GPU, and the largest
    node's CPU and memory when the job asks for them."""
    if getattr(cluster, "gang_placement", "node") == "spread":
        per_model: dict[str, int] = {}
        for model in cluster.gpu_model:
            per_model[model] = per_model.get(model, 0) + 1
        parts = [f"most GPUs of one model: {max(per_model.values())}"]
    else:
        parts = [f"largest node: {cluster.max_gpus_per_node} GPUs"]
    parts.append(f"largest GPU: {cluster.max_vram_gb:g} GB")
    for asked, have, what, unit in ((job.cpu_milli, cluster.node_cpu_milli, "CPU", "milli-cores"),
                                    (job.memory_mib, cluster.node_memory_mib, "memory", "MiB")):
        if asked:
            most = float(np.max(have))
            parts.append(f"most {what} of a node: " + (f"{most:g} {unit}" if np.isfinite(most)
                                                       else "no limit"))
    if job.gpu_spec:
        present = sorted(set(job.gpu_spec) & set(cluster.gpu_model))
        parts.append(f"its models in the cluster: {', '.join(present) if present else 'none'}")
    return ", ".join(parts)


JOB_TABLE_COLUMNS: tuple[str, ...] = ("model", "weight", "deadline_min", "estimate_min", "vram_frac",
                                      "cpu_milli", "memory_mib", "gpu_spec")
"""The columns a jobs table carries beside its id, type, arrival, duration, GPUs, VRAM, compute
and priority (the job's other fields, and the run time declared apart from its true one), so
that the table reads back as the same jobs and estimates (:mod:`gpusched.workload.job_list`)."""


def job_columns(jobs: Sequence[Job], estimate_min: np.ndarray | None = None) -> dict[str, list]:
    """The :data:`JOB_TABLE_COLUMNS` of ``jobs``, one list each: ``None`` where a job has no model,
    deadline or estimate, and ``gpu_spec`` as ``|``-separated models (empty for any).

    :param estimate_min: each job's run time declared apart from its true one (the run-time
        estimator's :attr:`~gpusched.core.estimator.RuntimeEstimator.estimate_min`; NaN or
        ``None`` for none), written so that the table reads back as a job list with them.
    """
    estimates = [None] * len(jobs) if estimate_min is None else [
        None if math.isnan(e) else e for e in estimate_min.tolist()]
    return {
        "model": [j.model for j in jobs],
        "weight": [j.weight for j in jobs],
        "deadline_min": [j.deadline_min for j in jobs],
        "estimate_min": estimates,
        "vram_frac": [j.vram_frac for j in jobs],
        "cpu_milli": [j.cpu_milli for j in jobs],
        "memory_mib": [j.memory_mib for j in jobs],
        "gpu_spec": ["|".join(j.gpu_spec or ()) for j in jobs],
    }
