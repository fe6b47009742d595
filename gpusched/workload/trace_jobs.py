"""Turn an openb node list and pod list into a simulator cluster and jobs (a trace-driven workload).

- **Cluster:** a seeded sample of ``n_nodes`` nodes (all nodes if ``None``), kept in file order. Each node
  keeps its GPU model, GPU count, CPU (milli-cores) and memory (MiB) as hard limits; VRAM per GPU comes from
  :data:`gpusched.workload.openb.GPU_VRAM_GB` (G2 and G3 are assumptions, see that module).
- **Jobs:** one per GPU pod. Its share of each GPU is ``gpu_milli / 1000`` of the GPU's compute and of its
  VRAM (``compute == vram_frac``). Arrival = creation time, duration = deletion time minus the time it
  started (``scheduled_time``, or the creation time for pods that never started), both in minutes from the
  first creation and divided by ``time_compression``. Durations are at least one second of trace time,
  and are kept to 6 decimals of a minute: a compression so large that a pod's run time would round to
  0 minutes is refused, naming the shortest pod and the largest compression that keeps it.
- **Not silently dropped:** CPU-only pods (``num_gpu == 0``; a simulator job needs a GPU) and pods that no
  node of the sampled cluster could ever host are left out of the jobs and counted in the result.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.jobs import Job
from gpusched.workload.openb import GPU_VRAM_GB, OpenbNodes, OpenbPods, TraceError


@dataclass(frozen=True)
class TraceWorkload:
    """A trace-driven cluster and workload.

    :param cluster: the sampled cluster.
    :param jobs: the jobs, sorted by arrival (ids 0..n-1 in that order).
    :param cpu_only_pods: CPU-only pods left out (a simulator job needs a GPU).
    :param unhostable_pods: GPU pods left out because no sampled node could ever host them.
    :param time_compression: trace seconds are divided by this factor.
    """

    cluster: Cluster
    jobs: list[Job]
    cpu_only_pods: int
    unhostable_pods: int
    time_compression: float


def openb_cluster(nodes: OpenbNodes, n_nodes: int | None = None, seed: int = 0, gang=None) -> Cluster:  # noqa: ANN001
    """A cluster of a seeded sample of ``n_nodes`` GPU nodes (all GPU nodes if ``None``).

    :param nodes: the node list.
    :param n_nodes: how many nodes to sample (without replacement).
    :param seed: seed of the sample's ``numpy.random.Generator``.
    :param gang: the cluster's gang rule (see :class:`~gpusched.core.cluster.Cluster`).
    :raises TraceError: if ``n_nodes`` is not between 1 and the number of GPU nodes, or a model has no
        known VRAM.
    """
    gpu_nodes = np.flatnonzero(nodes.gpus > 0)
    if n_nodes is None:
        picked = gpu_nodes
    else:
        if not 1 <= n_nodes <= len(gpu_nodes):
            raise TraceError(
                f"trace '{nodes.source}': cannot sample {n_nodes} nodes (it has {len(gpu_nodes)} GPU nodes)"
            )
        picked = np.sort(np.random.default_rng(seed).choice(gpu_nodes, n_nodes, replace=False))
    groups = []
    for i in picked:
        model = nodes.model[i]
        if model not in GPU_VRAM_GB:
            raise TraceError(
                f"trace '{nodes.source}', line {nodes.line(i)}, column 'model': unknown GPU model '{model}'"
            )
        groups.append(
            NodeGroup(
                model,
                GPU_VRAM_GB[model],
                int(nodes.gpus[i]),
                cpu_milli=float(nodes.cpu_milli[i]),
                memory_mib=float(nodes.memory_mib[i]),
            )
        )
    return Cluster(groups, node_names=[nodes.name[i] for i in picked], gang=gang)


def openb_jobs(
    pods: OpenbPods, *, time_compression: float = 1.0, max_jobs: int | None = None
) -> tuple[list[Job], int]:
    """Simulator jobs from the GPU pods of a pod list, and the number of CPU-only pods left out.

    :param pods: the pod list (must have creation and deletion times).
    :param time_compression: trace seconds are divided by this factor (e.g. 60 turns an hour into a minute).
    :param max_jobs: keep only the first ``max_jobs`` jobs by arrival.
    :raises TraceError: if the file has no times, ``time_compression`` is not positive, or so large
        that a kept pod's run time rounds to 0 minutes.
    """
    if not time_compression > 0:
        raise TraceError(f"time compression must be > 0 (got {time_compression})")
    created, deleted = pods.creation_time_s, pods.deletion_time_s
    gpu = pods.num_gpu > 0
    if np.isnan(created[gpu]).any() or np.isnan(deleted[gpu]).any():
        i = int(np.argmax(gpu & (np.isnan(created) | np.isnan(deleted))))
        raise TraceError(
            f"trace '{pods.source}', line {pods.line(i)}: a trace-driven workload needs creation_time and "
            "deletion_time for every GPU pod"
        )
    started = np.where(np.isnan(pods.scheduled_time_s), created, pods.scheduled_time_s)
    t0 = float(created[gpu].min()) if gpu.any() else 0.0
    arrival_min = (created - t0) / 60.0 / time_compression
    duration_min = np.maximum(deleted - started, 1.0) / 60.0 / time_compression
    order = np.flatnonzero(gpu)
    order = order[np.argsort(arrival_min[order], kind="stable")]
    if max_jobs is not None:
        order = order[:max_jobs]
    _check_positive_durations(pods, order, duration_min, time_compression)
    jobs = []
    for job_id, i in enumerate(order):
        share = float(pods.gpu_milli[i]) / 1000.0
        jobs.append(
            Job(
                id=job_id,
                type="trace",
                arrival_min=round(float(arrival_min[i]), DURATION_DECIMALS),
                duration_min=round(float(duration_min[i]), DURATION_DECIMALS),
                gpus=int(pods.num_gpu[i]),
                vram_gb=0.0,
                compute=share,
                vram_frac=share,
                cpu_milli=float(pods.cpu_milli[i]),
                memory_mib=float(pods.memory_mib[i]),
                gpu_spec=pods.gpu_spec[i] or None,
            )
        )
    return jobs, int((~gpu).sum())


DURATION_DECIMALS = 6
"""Decimals of a minute a trace job's arrival and run time keep."""


def _check_positive_durations(pods: OpenbPods, order: np.ndarray, duration_min: np.ndarray,
                              time_compression: float) -> None:
    """Refuse a compression that rounds a kept pod's run time to 0 minutes (a job never has a
    non-positive run time), naming the shortest pod and the largest compression that keeps it.

    :raises TraceError: naming the pod's line and name.
    """
    if not len(order):
        return
    shortest = int(order[np.argmin(duration_min[order])])
    if round(float(duration_min[shortest]), DURATION_DECIMALS) > 0:
        return
    seconds = float(duration_min[shortest]) * 60.0 * time_compression
    largest = seconds / 60.0 / 10.0 ** -DURATION_DECIMALS
    raise TraceError(
        f"trace '{pods.source}', line {pods.line(shortest)} (pod '{pods.name[shortest][:40]}'): at "
        f"time_compression {time_compression:g} its run time of {seconds:g} s becomes "
        f"{seconds / 60.0 / time_compression:.2g} min, which rounds to 0; use a time_compression "
        f"of at most {largest:.6g}"
    )


def openb_workload(
    nodes: OpenbNodes,
    pods: OpenbPods,
    *,
    n_nodes: int | None = None,
    seed: int = 0,
    time_compression: float = 1.0,
    max_jobs: int | None = None,
) -> TraceWorkload:
    """A sampled cluster and the trace's jobs that it can host (see the module docstring).

    :param nodes: the node list.
    :param pods: the pod list.
    :param n_nodes: nodes to sample (all if ``None``).
    :param seed: seed of the node sample.
    :param time_compression: trace seconds are divided by this factor.
    :param max_jobs: keep only the first ``max_jobs`` jobs by arrival (before removing unhostable ones).
    """
    cluster = openb_cluster(nodes, n_nodes, seed)
    jobs, cpu_only = openb_jobs(pods, time_compression=time_compression, max_jobs=max_jobs)
    kept = hostable_jobs(jobs, cluster)
    return TraceWorkload(cluster, kept, cpu_only, len(jobs) - len(kept), time_compression)


def hostable_jobs(jobs: list[Job], cluster: Cluster) -> list[Job]:
    """The jobs some node of ``cluster`` could host when empty, renumbered 0..n-1 in order."""
    kept = [job for job in jobs if cluster.could_ever_hold(job)]
    return [_with_id(job, i) for i, job in enumerate(kept)]


def _with_id(job: Job, job_id: int) -> Job:
    from dataclasses import replace

    return job if job.id == job_id else replace(job, id=job_id)
