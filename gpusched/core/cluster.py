"""Cluster topology and its mutable resource state.

A cluster is a list of nodes. A node holds ``gpus_per_node`` GPUs of one model; each GPU has a
VRAM capacity (GB) and a compute capacity of 1.0. Nodes may also have a CPU capacity
(milli-cores) and a memory capacity (MiB); these are hard constraints when given.

GPUs are numbered 0..n_gpus-1 in cluster order (node by node). Several jobs may share a GPU as
long as their VRAM and compute fit. A multi-GPU job takes ``gpus`` GPUs of one node.

**Gang rule.** When a policy names one GPU ``g`` for a job of ``k > 1`` GPUs, the gang is ``g``
plus the ``k - 1`` other GPUs of ``g``'s node that fit the job, lowest index first. A cluster built
with another rule (``gang``, e.g. :class:`gpusched.core.gang.SpreadGang` for
``cluster.gang_placement: spread``) forms its gangs, fit masks and placement checks by that rule
instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpusched.core.jobs import Job, fit_shape

EPS = 1e-9
"""Tolerance for floating-point resource comparisons (GB, fraction of a GPU)."""

_EVERY_GPU = slice(None)
"""The GPUs a whole-cluster mask is computed on."""

MISROUTE_CAUSES: tuple[str, ...] = ("capacity", "occupied", "gang")
"""Why a job sent to a GPU did not fit there (see :meth:`ClusterState.misroute_cause`)."""


@dataclass(frozen=True)
class NodeGroup:
    """``count`` identical nodes of ``gpus_per_node`` GPUs of one model.

    :param gpu_model: GPU model name, e.g. ``A100-80GB``.
    :param vram_gb: VRAM per GPU (GB).
    :param gpus_per_node: GPUs per node.
    :param count: number of such nodes.
    :param cpu_milli: CPU capacity per node (milli-cores); ``None`` for unconstrained.
    :param memory_mib: memory capacity per node (MiB); ``None`` for unconstrained.
    """

    gpu_model: str
    vram_gb: float
    gpus_per_node: int
    count: int = 1
    cpu_milli: float | None = None
    memory_mib: float | None = None


def job_vram_gb(job: Job, capacity_gb):
    """VRAM (GB) the job takes on each of its GPUs, on GPUs of ``capacity_gb`` GB (a number or an
    array): ``vram_gb + vram_frac * capacity_gb``. The one place this arithmetic lives."""
    return job.vram_gb + job.vram_frac * capacity_gb


def release_into(job: Job, gpus: Sequence[int], gpu_vram_gb: np.ndarray, vram_free, compute_free,
                 offset: int = 0) -> None:
    """Give back the job's VRAM (GB) and compute on ``gpus`` into the free amounts ``vram_free``
    and ``compute_free`` (anything indexed by ``gpu - offset``): one step of a planner's replay
    of the running jobs' releases at their declared ends.

    :param gpu_vram_gb: every GPU's VRAM capacity (GB).
    """
    share, compute = job.vram_frac, job.compute
    vram = job.vram_gb  # job_vram_gb's value without a share of the GPU's VRAM
    for g in gpus:
        if share:
            vram = job_vram_gb(job, float(gpu_vram_gb[g]))
        vram_free[g - offset] += vram
        compute_free[g - offset] += compute


class Cluster:
    """Immutable topology: which GPU sits on which node, with what capacity.

    Attributes (numpy arrays, indexed by GPU or node):
    ``gpu_node`` (node of each GPU), ``gpu_vram_gb`` (GB), ``gpu_model`` (names),
    ``node_first_gpu``, ``node_gpu_count``, ``node_model``, ``node_vram_gb`` (GB per GPU),
    ``node_cpu_milli`` and ``node_memory_mib`` (``inf`` when unconstrained), ``node_name``.

    :param nodes: the node groups.
    :param node_names: a name per node (default ``node-0``, ``node-1``, ...).
    :param gang: builds the cluster's gang rule from the cluster when it is not the one-node rule
        of the module docstring (e.g. :func:`gpusched.core.gang.spread_rule`); ``None``: one node.
    """

    def __init__(self, nodes: Sequence[NodeGroup], node_names: Sequence[str] | None = None,
                 gang: Callable[[Cluster], Any] | None = None):
        expanded: list[NodeGroup] = [g for g in nodes for _ in range(g.count)]
        if not expanded:
            raise ValueError("a cluster needs at least one node")
        self.n_nodes = len(expanded)
        self.node_gpu_count = np.array([g.gpus_per_node for g in expanded], dtype=np.int64)
        self.node_first_gpu = np.concatenate([[0], np.cumsum(self.node_gpu_count)[:-1]])
        self.node_model: list[str] = [g.gpu_model for g in expanded]
        self.node_vram_gb = np.array([g.vram_gb for g in expanded], dtype=float)
        inf = float("inf")
        self.node_cpu_milli = np.array(
            [inf if g.cpu_milli is None else g.cpu_milli for g in expanded], dtype=float)
        self.node_memory_mib = np.array(
            [inf if g.memory_mib is None else g.memory_mib for g in expanded], dtype=float)
        self.node_name: list[str] = (list(node_names) if node_names is not None
                                     else [f"node-{i}" for i in range(self.n_nodes)])
        self.gpu_node = np.repeat(np.arange(self.n_nodes), self.node_gpu_count)
        self.n_gpus = int(self.gpu_node.size)
        self.gpu_vram_gb = self.node_vram_gb[self.gpu_node]
        self.gpu_model: list[str] = [self.node_model[n] for n in self.gpu_node]
        self.gpu_index_in_node = np.arange(self.n_gpus) - self.node_first_gpu[self.gpu_node]
        self.max_gpus_per_node = int(self.node_gpu_count.max())
        self.max_vram_gb = float(self.node_vram_gb.max())
        self.has_node_limits = bool(np.isfinite(self.node_cpu_milli).any()
                                    or np.isfinite(self.node_memory_mib).any())
        self._model_codes = {m: i for i, m in enumerate(dict.fromkeys(self.node_model))}
        self.gpu_model_code = np.array([self._model_codes[m] for m in self.gpu_model])
        self._spec_masks: dict[tuple[str, ...], np.ndarray] = {}
        self._empty_fit: dict[tuple, np.ndarray] = {}
        self.gang_rule = None if gang is None else gang(self)
        """The cluster's gang rule when it is not the one-node rule (``None``): it answers
        :meth:`gang_mask`, :meth:`gang_at` and :meth:`ClusterState.can_place`."""
        self.gang_placement: str = "node" if self.gang_rule is None else self.gang_rule.placement
        """``node`` or ``spread`` (the scenario key ``cluster.gang_placement``)."""

    def gpu_label(self, gpu: int) -> str:
        """A human name for a GPU, e.g. ``T4-16GB #3`` (cluster index)."""
        return f"{self.gpu_model[gpu]} #{gpu}"

    def spec_mask(self, gpu_spec: tuple[str, ...]) -> np.ndarray:
        """GPUs whose model is one of ``gpu_spec`` (cached per spec)."""
        mask = self._spec_masks.get(gpu_spec)
        if mask is None:
            mask = np.isin(self.gpu_model_code,
                           [self._model_codes[m] for m in gpu_spec if m in self._model_codes])
            self._spec_masks[gpu_spec] = mask
        return mask

    def max_vram_gb_for_gpus(self) -> dict[int, float]:
        """For each GPU count 1, 2, 4, 8 that some node holds, the largest VRAM per GPU (GB)."""
        out: dict[int, float] = {}
        for k in (1, 2, 4, 8):
            ok = self.node_gpu_count >= k
            if ok.any():
                out[k] = float(self.node_vram_gb[ok].max())
        return out

    def gang_mask(self, single: np.ndarray, gpus: int) -> np.ndarray:
        """The gang rule's fit: the GPUs of ``single`` (each could take one of a job's GPUs) on a
        node that has at least ``gpus`` of them (or the cluster's own gang rule's mask)."""
        if self.gang_rule is not None:
            return self.gang_rule.mask(single, gpus)
        per_node = np.bincount(self.gpu_node[single], minlength=self.n_nodes)
        return single & (per_node >= gpus)[self.gpu_node]

    def gang_at(self, single: np.ndarray, gpu: int, gpus: int, spread: bool = True) -> tuple[int, ...]:
        """The gang rule's GPUs for a job of ``gpus`` GPUs placed at ``gpu``: ``gpu`` plus the
        lowest-index other GPUs of ``single`` on its node (the cluster's own gang rule's gang,
        unless ``spread`` is false)."""
        if spread and self.gang_rule is not None:
            return self.gang_rule.at(single, gpu, gpus)
        node = self.gpu_node[gpu]
        first = int(self.node_first_gpu[node])
        local = np.flatnonzero(single[first:first + int(self.node_gpu_count[node])]) + first
        return (int(gpu), *[int(g) for g in local if g != gpu][: gpus - 1])

    def empty_fit_mask(self, job: Job) -> np.ndarray:
        """GPUs where ``job`` (its whole gang) would fit if the cluster were empty, cached by job
        shape (on an empty cluster every compute share up to one whole GPU fits alike). Read-only."""
        shape = fit_shape(job)
        mask = self._empty_fit.get(shape)
        if mask is None:
            mask = self._empty_fit[shape] = ClusterState(self).fit_mask(job)
        return mask

    def could_ever_hold(self, job: Job) -> bool:
        """Whether some node could hold ``job`` when the cluster is empty."""
        return bool(self.empty_fit_mask(job).any())


class ClusterState:
    """The resources in use on a :class:`Cluster`, changed by :meth:`place` and :meth:`release`.

    Per GPU: ``vram_used_gb`` and ``vram_free_gb`` (GB), ``compute_used`` and ``compute_free``
    (fraction 0-1), ``jobs_running`` (count). Per node: ``node_cpu_used`` (milli-cores),
    ``node_memory_used`` (MiB). ``idle_gpus`` counts the GPUs that run no job. Treat every array
    as read-only outside this class.

    ``version`` increases with every change, so fit masks are computed once per state and job
    (for every job of a queue window alike).

    ``down`` is ``None`` while every node is up; otherwise a read-only boolean mask of the GPUs whose
    node has failed and is not yet repaired (see :mod:`gpusched.core.failures`), and
    ``down_gpus`` counts them. A down GPU runs no job and is in no fit mask, so every policy, every
    reservation and the environment's action masks leave it out.
    """

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        n = cluster.n_gpus
        self.vram_used_gb = np.zeros(n)
        self.vram_free_gb = cluster.gpu_vram_gb.copy()
        self.compute_used = np.zeros(n)
        self.compute_free = np.ones(n)
        self.jobs_running = np.zeros(n, dtype=np.int64)
        self.node_cpu_used = np.zeros(cluster.n_nodes)
        self.node_memory_used = np.zeros(cluster.n_nodes)
        self.idle_gpus = n
        self.down: np.ndarray | None = None
        self.down_gpus = 0
        self.version = 0
        self._fit_cache: tuple[int, Job, np.ndarray, np.ndarray] | None = None
        self._fit_version = -1
        self._fit_by_job: dict[int, tuple[Job, np.ndarray, np.ndarray]] = {}
        self._free_version = -1
        self._most_free = (0.0, 0.0)

    def copy(self) -> ClusterState:
        """An independent copy (the cached fit masks are read-only and may be shared)."""
        twin = object.__new__(ClusterState)
        twin.__dict__.update(self.__dict__)
        twin._fit_by_job = {}
        for name in ("vram_used_gb", "vram_free_gb", "compute_used", "compute_free", "jobs_running",
                     "node_cpu_used", "node_memory_used"):
            setattr(twin, name, getattr(self, name).copy())
        return twin

    def vram_need_gb(self, job: Job) -> np.ndarray | float:
        """VRAM the job needs on each GPU (GB): a scalar, or an array when it asks for a share."""
        if job.vram_frac:
            return job_vram_gb(job, self.cluster.gpu_vram_gb)
        return job.vram_gb

    def _masks(self, job: Job) -> tuple[np.ndarray, np.ndarray]:
        """(single-GPU fit, gang fit) for ``job`` in the current state, computed once per version."""
        cache = self._fit_cache
        if cache is not None and cache[0] == self.version and cache[1] is job:
            return cache[2], cache[3]
        if self._fit_version != self.version:  # masks of several jobs per state (a queue window)
            self._fit_by_job.clear()
            self._fit_version = self.version
        hit = self._fit_by_job.get(id(job))
        if hit is not None and hit[0] is job:
            self._fit_cache = (self.version, job, hit[1], hit[2])
            return hit[1], hit[2]
        c = self.cluster
        single = self._single_fit(job, _EVERY_GPU)
        gang = single
        if job.gpus > 1:
            gang = c.gang_mask(single, job.gpus)
            gang.flags.writeable = False
        single.flags.writeable = False
        self._fit_cache = (self.version, job, single, gang)
        self._fit_by_job[id(job)] = (job, single, gang)
        return single, gang

    def gpus_fit(self, job: Job, gpus: list[int]) -> bool:
        """Whether each of ``gpus`` could hold one of the job's GPUs now: ``single_gpu_fit(job)[gpus]
        .all()``, read from the job's masks when they are cached for this state, else tested on
        those GPUs alone (the same comparisons, without the whole cluster's masks and the gang
        mask; a batch of moves changes the state between its checks)."""
        cache = self._fit_cache
        if cache is not None and cache[0] == self.version and cache[1] is job:
            return bool(cache[2][gpus].all())
        if len(gpus) == 1:  # one GPU indexed as a scalar: numpy scalars, no array per test
            return bool(self._single_fit(job, gpus[0]))
        return bool(self._single_fit(job, gpus).all())

    def _single_fit(self, job: Job, at: slice | list[int] | int) -> np.ndarray | np.bool_:
        """The single-GPU fit (VRAM, compute, model, up, node CPU and memory) of the GPUs ``at``
        (of the one GPU, as a numpy bool, for an index)."""
        c = self.cluster
        need = job_vram_gb(job, c.gpu_vram_gb)[at] if job.vram_frac else job.vram_gb  # vram_need_gb's
        ok = (self.vram_free_gb[at] >= need - EPS) & (self.compute_free[at] >= job.compute - EPS)
        if job.gpu_spec:
            ok &= c.spec_mask(job.gpu_spec)[at]
        if self.down is not None:
            ok &= ~self.down[at]
        if c.has_node_limits and (job.cpu_milli or job.memory_mib):
            node_ok = (self.node_cpu_used + job.cpu_milli <= c.node_cpu_milli + EPS) & (
                self.node_memory_used + job.memory_mib <= c.node_memory_mib + EPS)
            ok &= node_ok[c.gpu_node[at]]
        return ok

    def single_gpu_fit(self, job: Job) -> np.ndarray:
        """GPUs that could each hold one of the job's GPUs now (VRAM, compute, model, node CPU
        and memory). Read-only."""
        return self._masks(job)[0]

    def fit_mask(self, job: Job) -> np.ndarray:
        """GPUs where the job fits now, including (for ``gpus > 1``) a full gang on the GPU's
        node. Read-only."""
        cache = self._fit_cache  # the last job's masks in this state, read without a call
        if cache is not None and cache[0] == self.version and cache[1] is job:
            return cache[3]
        return self._masks(job)[1]

    def fits_somewhere(self, job: Job) -> bool:
        """Whether the job fits now on some GPU (with its whole gang): ``fit_mask(job).any()``,
        answered without the mask when no GPU has the free VRAM or compute it asks for."""
        if self._free_version != self.version:
            self._most_free = (float(self.vram_free_gb.max()), float(self.compute_free.max()))
            self._free_version = self.version
        most_vram, most_compute = self._most_free
        if job.compute > most_compute + EPS or (not job.vram_frac and job.vram_gb > most_vram + EPS):
            return False
        return bool(self._masks(job)[1].any())

    def gang_for(self, job: Job, gpu: int) -> tuple[int, ...]:
        """The GPUs a job takes when placed at ``gpu``: ``gpu`` plus the lowest-index fitting
        GPUs of the same node (see the module's gang rule). Empty if the job does not fit there."""
        single, gang = self._masks(job)
        if not gang[gpu]:
            return ()
        if job.gpus == 1:
            return (int(gpu),)
        return self.cluster.gang_at(single, gpu, job.gpus)

    def misroute_cause(self, job: Job, gpu: int) -> str:
        """Why ``job`` does not fit at ``gpu`` now (one of :data:`MISROUTE_CAUSES`):

        - ``capacity``: the GPU could never hold it, even on an empty cluster (its VRAM or compute
          is too small, its model is not allowed, or its node has too few GPUs for the gang);
        - ``occupied``: the GPU could hold it when empty, but not now;
        - ``gang``: the GPU could take its share now, but its node cannot form the whole gang now.
        """
        if not self.cluster.empty_fit_mask(job)[gpu]:
            return "capacity"
        if not self.single_gpu_fit(job)[gpu]:
            return "occupied"
        return "gang"

    def can_place(self, job: Job, gpus: Sequence[int]) -> bool:
        """Whether ``job`` fits on exactly these GPUs (distinct, one node, right count; or as the
        cluster's own gang rule says)."""
        if self.cluster.gang_rule is not None:
            return self.cluster.gang_rule.can_place(self, job, gpus)
        if len(gpus) == 1 and job.gpus == 1:  # one GPU: distinct and on one node already
            gpu = gpus[0]
            return 0 <= gpu < self.cluster.n_gpus and self.gpus_fit(job, [gpu])
        if len(gpus) != job.gpus or len(set(gpus)) != len(gpus):
            return False
        if len(gpus) and (min(gpus) < 0 or max(gpus) >= self.cluster.n_gpus):  # each a GPU index
            return False
        nodes = self.cluster.gpu_node[list(gpus)]
        if (nodes != nodes[0]).any():
            return False
        return self.gpus_fit(job, list(gpus))

    def set_node_down(self, node: int, down: bool) -> None:
        """Take a node out of every fit (``down``) or bring it back (its jobs must have left it)."""
        c = self.cluster
        mask = np.zeros(c.n_gpus, dtype=bool) if self.down is None else self.down.copy()
        first = int(c.node_first_gpu[node])
        mask[first:first + int(c.node_gpu_count[node])] = down
        count = int(mask.sum())
        mask.flags.writeable = False
        self.down = mask if count else None
        self.down_gpus = count
        self.version += 1

    def place(self, job: Job, gpus: Sequence[int]) -> None:
        """Take the job's resources on ``gpus`` (which must fit; see :meth:`can_place`)."""
        self._change(job, gpus, 1)

    def release(self, job: Job, gpus: Sequence[int]) -> None:
        """Give back the resources :meth:`place` took."""
        self._change(job, gpus, -1)

    def _change(self, job: Job, gpus: Sequence[int], sign: int) -> None:
        capacity = self.cluster.gpu_vram_gb
        compute = sign * job.compute
        share = job.vram_frac
        vram = sign * job.vram_gb  # job_vram_gb's value without a share of the GPU's VRAM
        for g in gpus:
            if share:
                vram = sign * job_vram_gb(job, capacity[g])
            running = self.jobs_running[g] + sign
            self.jobs_running[g] = running
            if running == 0:  # snap rounding residue so an idle GPU reads exactly zero
                self.vram_used_gb[g] = 0.0
                self.compute_used[g] = 0.0
                self.idle_gpus += 1
            else:
                if sign > 0 and running == 1:
                    self.idle_gpus -= 1
                self.vram_used_gb[g] += vram
                self.compute_used[g] += compute
            self.vram_free_gb[g] = capacity[g] - self.vram_used_gb[g]
            self.compute_free[g] = 1.0 - self.compute_used[g]
        if job.cpu_milli or job.memory_mib:
            node = self.cluster.gpu_node[gpus[0]]
            self.node_cpu_used[node] += sign * job.cpu_milli
            self.node_memory_used[node] += sign * job.memory_mib
        self.version += 1
