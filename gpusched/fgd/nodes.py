"""A lean node state for the FGD allocation experiment, in integer milli-GPU.

Why not :class:`gpusched.core.cluster.ClusterState`: the experiment makes ~11,000 decisions over 1,213
nodes per run, and every policy reads per-node aggregates (free milli-GPU, fully free GPU count,
largest free share, the pod-type tags on the node, an interned id of the node's GPU state). Keeping
them here as integer arrays that are updated for the one changed node makes a decision a handful of
vectorised numpy operations. The artifact counts milli-GPU exactly (integers); floating-point
fractions of a GPU would make its integer score truncations and its ``rem >= m`` tests depend on
rounding. Node positions are the tie-break order: position 0 wins ties (the experiment places the
nodes in the order of their per-seed random rank).

A pod is a :class:`PodRequest`. Placement rules (the artifact's resource model):

- a sharing pod (one GPU, ``gpu_milli < 1000``) takes ``gpu_milli`` from one GPU with that much
  free;
- a whole-GPU pod (``gpu_milli == 1000``, 1-8 GPUs) takes ``num_gpu`` fully free GPUs of one node;
- every pod takes its CPU (milli-cores) and memory (MiB) from the node: hard limits;
- a pod with a GPU-type constraint only goes to nodes of an allowed model; CPU-only pods go to any
  node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MILLI = 1000
#: GpuClustering tag of a sharing pod; a whole-GPU pod with g GPUs has tag g (1-8).
SHARE_TAG = 0
N_TAGS = 9


@dataclass(frozen=True, slots=True)
class PodRequest:
    """One pod's request.

    :param cpu_milli: CPU (milli-cores).
    :param memory_mib: memory (MiB).
    :param num_gpu: GPU count (0 for a CPU-only pod).
    :param gpu_milli: share of each GPU (milli-GPU, 1-1000; 0 for a CPU-only pod).
    :param gpu_spec: allowed GPU models (empty = any).
    """

    cpu_milli: int
    memory_mib: float
    num_gpu: int
    gpu_milli: int
    gpu_spec: tuple[str, ...] = ()

    @property
    def sharing(self) -> bool:
        """True for a pod that asks for part of one GPU."""
        return self.num_gpu == 1 and self.gpu_milli < MILLI

    @property
    def total_gpu_milli(self) -> int:
        """GPU request over all its GPUs (milli-GPU)."""
        return self.num_gpu * self.gpu_milli

    @property
    def tag(self) -> int:
        """GpuClustering tag: :data:`SHARE_TAG` if sharing, else the GPU count (-1 if CPU-only)."""
        if self.num_gpu == 0:
            return -1
        return SHARE_TAG if self.sharing else self.num_gpu


class NodeArrays:
    """Mutable per-node resources, one row per node position.

    :param cpu_milli: CPU capacity per node (milli-cores).
    :param memory_mib: memory capacity per node (MiB).
    :param gpus: GPU count per node.
    :param models: GPU model per node.
    :param names: node names (for reports).
    :param intern_states: keep :attr:`state_id` up to date (FGD needs it; the other policies do not).
    """

    def __init__(
        self,
        cpu_milli: Sequence[int] | np.ndarray,
        memory_mib: Sequence[float] | np.ndarray,
        gpus: Sequence[int] | np.ndarray,
        models: Sequence[str],
        names: Sequence[str] | None = None,
        *,
        intern_states: bool = True,
    ) -> None:
        self.n = len(models)
        self.names: list[str] = (
            list(names) if names is not None else [f"node-{i}" for i in range(self.n)]
        )
        self.models: list[str] = list(models)
        self.n_gpus = np.asarray(gpus, dtype=np.int64).copy()
        self.max_gpus = int(self.n_gpus.max()) if self.n else 0
        self.cpu_capacity = np.asarray(cpu_milli, dtype=np.int64).copy()
        self.memory_capacity = np.asarray(memory_mib, dtype=np.float64).copy()
        #: Free CPU per node (milli-cores).
        self.cpu_left = self.cpu_capacity.copy()
        #: Free memory per node (MiB).
        self.mem_left = self.memory_capacity.copy()
        #: Free share per GPU (milli-GPU); -1 pads nodes with fewer than ``max_gpus`` GPUs.
        width = max(self.max_gpus, 1)
        self.rem = np.where(np.arange(width)[None, :] < self.n_gpus[:, None], MILLI, -1).astype(np.int64)
        #: Free milli-GPU per node (sum of ``rem``).
        self.gpu_left = self.n_gpus * MILLI
        #: Fully free GPUs per node.
        self.n_free = self.n_gpus.copy()
        #: Largest free share of any GPU of the node (milli-GPU; -1 for no GPU).
        self.max_rem = np.where(self.n_gpus > 0, MILLI, -1).astype(np.int64)
        #: GpuClustering tags: pods of each tag on the node.
        self.tag_counts = np.zeros((self.n, N_TAGS), dtype=np.int64)
        #: Distinct tags on the node.
        self.n_tags = np.zeros(self.n, dtype=np.int64)
        #: Interned id of ``(model, sorted rem)`` per node; :attr:`state_keys` maps ids back.
        self.state_id = np.zeros(self.n, dtype=np.int64)
        self.state_keys: list[tuple[str, tuple[int, ...]]] = []
        self._state_ids: dict[tuple[str, tuple[int, ...]], int] = {}
        self.intern_states = intern_states
        if intern_states:
            for i in range(self.n):
                self.state_id[i] = self.intern(self.models[i], self.rem_sorted(i))
        self._allowed: dict[tuple[str, ...], np.ndarray] = {}
        self._has_gpu = self.n_gpus > 0
        self.allocated_gpu_milli = 0

    def refresh(self) -> None:
        """Recompute the per-node aggregates and state ids after ``rem`` was set directly."""
        real = self.rem >= 0
        self.gpu_left = np.where(real, self.rem, 0).sum(axis=1)
        self.n_free = (self.rem == MILLI).sum(axis=1)
        self.max_rem = np.where(self.n_gpus > 0, self.rem.max(axis=1), -1)
        if self.intern_states:
            for i in range(self.n):
                self.state_id[i] = self.intern(self.models[i], self.rem_sorted(i))

    @property
    def total_gpus(self) -> int:
        """Number of GPUs in the cluster."""
        return int(self.n_gpus.sum())

    def intern(self, model: str, rem_sorted: tuple[int, ...]) -> int:
        """Id of a node GPU state ``(model, sorted rem)``, creating it on first sight."""
        key = (model, rem_sorted)
        sid = self._state_ids.get(key)
        if sid is None:
            sid = len(self.state_keys)
            self._state_ids[key] = sid
            self.state_keys.append(key)
        return sid

    def rem_sorted(self, node: int) -> tuple[int, ...]:
        """Free share of the node's GPUs, sorted ascending (milli-GPU)."""
        return tuple(sorted(int(x) for x in self.rem[node, : self.n_gpus[node]]))

    def allowed(self, gpu_spec: tuple[str, ...]) -> np.ndarray:
        """Nodes whose GPU model is allowed by ``gpu_spec`` (all GPU nodes if it is empty)."""
        mask = self._allowed.get(gpu_spec)
        if mask is None:
            if gpu_spec:
                mask = np.array([m in gpu_spec for m in self.models], dtype=bool) & self._has_gpu
            else:
                mask = self._has_gpu.copy()
            self._allowed[gpu_spec] = mask
        return mask

    def fit_mask(self, pod: PodRequest) -> np.ndarray:
        """Nodes where the pod fits now (CPU, memory, GPU model and GPU shares)."""
        mask = (self.cpu_left >= pod.cpu_milli) & (self.mem_left >= pod.memory_mib)
        if pod.num_gpu > 0:
            mask &= self.allowed(pod.gpu_spec)
            if pod.sharing:
                mask &= self.max_rem >= pod.gpu_milli
            else:
                mask &= self.n_free >= pod.num_gpu
        return mask

    def fits_empty(self, pod: PodRequest) -> bool:
        """Whether some node could host the pod if the cluster were empty."""
        mask = (self.cpu_capacity >= pod.cpu_milli) & (self.memory_capacity >= pod.memory_mib)
        if pod.num_gpu > 0:
            mask &= self.allowed(pod.gpu_spec) & (self.n_gpus >= pod.num_gpu)
        return bool(mask.any())

    def place(self, node: int, gpus: tuple[int, ...], pod: PodRequest) -> None:
        """Take the pod's resources from ``node`` and its GPUs ``gpus`` (in-node indices)."""
        self.cpu_left[node] -= pod.cpu_milli
        self.mem_left[node] -= pod.memory_mib
        if pod.num_gpu == 0:
            return
        if len(gpus) != pod.num_gpu:
            raise ValueError(f"pod asks for {pod.num_gpu} GPUs, got {len(gpus)}")
        row = self.rem[node]
        for i in gpus:
            if row[i] < pod.gpu_milli:
                raise ValueError(
                    f"GPU {i} of node {node} has {row[i]} milli free, pod needs {pod.gpu_milli}"
                )
            row[i] -= pod.gpu_milli
        k = self.n_gpus[node]
        real = row[:k]
        self.gpu_left[node] = int(real.sum())
        self.n_free[node] = int((real == MILLI).sum())
        self.max_rem[node] = int(real.max())
        self.allocated_gpu_milli += pod.total_gpu_milli
        tag = pod.tag
        if self.tag_counts[node, tag] == 0:
            self.n_tags[node] += 1
        self.tag_counts[node, tag] += 1
        if self.intern_states:
            self.state_id[node] = self.intern(self.models[node], self.rem_sorted(node))
