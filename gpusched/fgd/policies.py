"""The FGD paper's six policies as simulator policies: ``select(state, job)`` on any scenario.

The allocation experiment (:mod:`gpusched.fgd.allocation`) runs these policies on a lean integer state. This
module lets the event-driven simulator, the dashboard and the RL comparisons use them too, by projecting
a :class:`~gpusched.core.cluster.ClusterState` onto milli-GPU:

- a GPU's free share is ``floor(1000 * min(compute_free, vram_free_gb / vram_gb))`` milli-GPU;
- a job's share of a GPU of ``C`` GB is ``ceil(1000 * max(compute, vram_need / C))`` with
  ``vram_need = vram_gb + vram_frac * C``. For openb trace jobs (``vram_frac == compute ==
  gpu_milli / 1000``) this is exactly ``gpu_milli``; for synthetic jobs it depends on the GPU model, so
  nodes are scored per VRAM capacity and the integer scores compared across groups;
- a one-GPU job with a share below 1000 is a sharing pod; every other job is scored as a whole-GPU pod.

Which nodes are feasible, and whether the chosen GPUs fit, is always decided by ``ClusterState``; when the
projection's GPU choice does not fit exactly (rounding, or a multi-GPU job sharing GPUs, which the core
allows), the job takes the node's first fitting gang (the core's gang rule).

Approximations, because ``ClusterState`` does not record which jobs run on which GPU:

- ``gpu_clustering`` infers a node's tags from occupancy: a partly used GPU carries the "share" tag, a
  fully used GPU the "whole" tag (all whole-GPU jobs share one tag here, instead of one per GPU count);
- ``fgd`` learns its typical pods online, from the distinct jobs it has been asked to place so far
  (every job counts once; the same 95 % popularity rule as the paper). They are recomputed when the
  number of jobs seen has grown by 10 % since the last time, so the fragmentation cache stays warm.

Ties go to the lowest per-seed random node rank, as in the paper. The paper's Random and Best-Fit are
``fgd_random`` and ``fgd_best_fit``, since ``random`` and ``best_fit`` name the core's own. The policy
registry (:mod:`gpusched.policies.registry`) registers all six under these names.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from gpusched.core.cluster import ClusterState, job_vram_gb
from gpusched.core.jobs import Job
from gpusched.core.simulator import HOLD, Action
from gpusched.fgd.fragmentation import FragmentationModel
from gpusched.fgd.nodes import MILLI, SHARE_TAG, NodeArrays, PodRequest
from gpusched.fgd.scoring import (
    POLICY_NAMES,
    DotProductPolicy,
    FgdPolicy,
    GpuClusteringPolicy,
    GpuPackingPolicy,
    NodeScorer,
    best_gpus,
    unknown_policy_message,
)
from gpusched.fgd.typical_pods import TypicalPods, typical_pods_from_counts

#: Free CPU (milli-cores) a node without a CPU limit shows to the scores (a full 128-core node).
UNLIMITED_CPU_MILLI = 128_000
#: GpuClustering tag for every whole-GPU job in the projection.
WHOLE_TAG = 1


def job_share_milli(job: Job, vram_capacity_gb: float) -> int:
    """The job's share of one GPU of ``vram_capacity_gb`` GB, in milli-GPU (1-1000)."""
    vram = job_vram_gb(job, vram_capacity_gb)
    share = max(job.compute, vram / vram_capacity_gb)
    return int(min(MILLI, max(1, math.ceil(round(share * MILLI, 6)))))


def project(state: ClusterState, *, intern_states: bool = True) -> NodeArrays:
    """A milli-GPU :class:`NodeArrays` view of ``state`` (node order = cluster order).

    :param state: the simulator's cluster state.
    :param intern_states: compute the node state ids (needed by FGD only).
    """
    c = state.cluster
    cpu_cap = np.where(np.isfinite(c.node_cpu_milli), c.node_cpu_milli, UNLIMITED_CPU_MILLI)
    mem_cap = np.where(np.isfinite(c.node_memory_mib), c.node_memory_mib, np.inf)
    nodes = NodeArrays(
        cpu_cap.astype(np.int64),
        mem_cap,
        c.node_gpu_count,
        c.node_model,
        c.node_name,
        intern_states=False,
    )
    nodes.intern_states = intern_states
    limited = np.isfinite(c.node_cpu_milli)
    nodes.cpu_left = np.where(limited, cpu_cap - state.node_cpu_used, UNLIMITED_CPU_MILLI).astype(np.int64)
    nodes.mem_left = mem_cap - state.node_memory_used
    free = np.minimum(state.compute_free, state.vram_free_gb / c.gpu_vram_gb)
    free_milli = np.clip(np.floor(np.round(free * MILLI, 6)), 0, MILLI).astype(np.int64)
    nodes.rem[c.gpu_node, c.gpu_index_in_node] = free_milli
    nodes.refresh()
    real = nodes.rem >= 0
    share = ((nodes.rem > 0) & (nodes.rem < MILLI) & real).any(axis=1)
    whole = ((nodes.rem == 0) & real).any(axis=1)
    nodes.tag_counts[:, SHARE_TAG] = share
    nodes.tag_counts[:, 1:] = whole[:, None]
    nodes.n_tags = share.astype(np.int64) + whole
    return nodes


class PaperPolicy:
    """One of the FGD paper's policies behind the simulator's ``select(state, job)`` interface.

    :param name: registry name.
    :param kind: one of :data:`gpusched.fgd.scoring.POLICY_NAMES`.
    :param seed: seeds the node ranks (tie-break) and, for ``fgd_random``, every draw.
    :param typical: fixed typical pods (milli-GPU shapes, e.g. from a trace) for ``fgd``; ``None`` learns
        them online from the jobs placed.
    """

    def __init__(self, name: str, kind: str, seed: int = 0, typical: TypicalPods | None = None) -> None:
        self.name = name
        self.kind = kind
        self.rng = np.random.default_rng(seed)
        self._rank: np.ndarray | None = None
        self._shapes: Counter[tuple] = Counter()
        self._seen: set[int] = set()
        self._seen_at_refresh: dict[float, int] = {}
        self._frag: dict[float, tuple[tuple, FragmentationModel]] = {}
        self._fixed_frag = FragmentationModel(typical) if typical is not None else None
        scorers: dict[str, type] = {
            "dot_product": DotProductPolicy,
            "gpu_clustering": GpuClusteringPolicy,
            "gpu_packing": GpuPackingPolicy,
        }
        self._scorer: NodeScorer | None = scorers[kind]() if kind in scorers else None

    # ------------------------------------------------------------------ helpers
    def _ranks(self, n_nodes: int) -> np.ndarray:
        if self._rank is None or len(self._rank) != n_nodes:
            self._rank = self.rng.permutation(n_nodes)
        return self._rank

    def _fgd_scorer(self, capacity_gb: float) -> FgdPolicy:
        """An FGD scorer for GPUs of ``capacity_gb``.

        The fragmentation model (and its cache, keyed by node state) is kept until the typical pods
        change; the scorer itself is new per decision, since its score cache is keyed by the state ids
        of one projection.
        """
        if self._fixed_frag is not None:
            return FgdPolicy(self._fixed_frag)
        cached = self._frag.get(capacity_gb)
        seen = len(self._seen)
        if cached is None or seen >= 1.1 * self._seen_at_refresh[capacity_gb]:
            counts: Counter[tuple[int, int, int, tuple[str, ...]]] = Counter()
            for (cpu, vram_gb, vram_frac, compute, gpus, spec), n in self._shapes.items():
                share = job_share_milli(_shape_job(vram_gb, vram_frac, compute, gpus), capacity_gb)
                counts[(int(round(cpu)), share, gpus, spec)] += n
            typical: TypicalPods = typical_pods_from_counts(counts)
            key = (typical.cpu_milli, typical.gpu_milli, typical.num_gpu, typical.gpu_spec, typical.prob)
            if cached is None or cached[0] != key:
                cached = (key, FragmentationModel(typical))
                self._frag[capacity_gb] = cached
            self._seen_at_refresh[capacity_gb] = seen
        return FgdPolicy(cached[1])

    def _pod(self, job: Job, capacity_gb: float) -> PodRequest:
        share = job_share_milli(job, capacity_gb)
        if job.gpus > 1:
            share = MILLI
        return PodRequest(int(round(job.cpu_milli)), job.memory_mib, job.gpus, share, job.gpu_spec or ())

    # ------------------------------------------------------------------ select
    def select(self, state: ClusterState, job: Job) -> Action:
        """The placement for ``job``: a GPU, the whole gang, or :data:`HOLD` if nothing fits."""
        c = state.cluster
        fit = state.fit_mask(job)
        if not fit.any():
            return HOLD
        feasible_nodes = np.flatnonzero(np.bincount(c.gpu_node[fit], minlength=c.n_nodes) > 0)
        if job.id not in self._seen:
            self._seen.add(job.id)
            self._shapes[
                (job.cpu_milli, job.vram_gb, job.vram_frac, job.compute, job.gpus, job.gpu_spec or ())
            ] += 1
        if self.kind == "fgd_random":
            node = int(feasible_nodes[self.rng.integers(len(feasible_nodes))])
            return self._gpus_random(state, job, node)
        rank = self._ranks(c.n_nodes)
        nodes = project(state, intern_states=self.kind == "fgd")
        best_node, best_key, best_pod, best_scorer = -1, None, None, None
        for capacity in np.unique(c.node_vram_gb[feasible_nodes]):
            group = feasible_nodes[c.node_vram_gb[feasible_nodes] == capacity]
            group = group[np.argsort(rank[group])]
            pod = self._pod(job, float(capacity))
            scorer = self._scorer
            if self.kind == "fgd":
                scorer = self._fgd_scorer(float(capacity))
                scores = scorer.scores(nodes, pod, group)
            elif self.kind == "fgd_best_fit":
                scores = _best_fit_raw(nodes, pod, group)
            else:
                scores = scorer.scores(nodes, pod, group)
            i = int(np.argmax(scores))
            key = (int(scores[i]), -int(rank[group[i]]))
            if best_key is None or key > best_key:
                best_node, best_key, best_pod, best_scorer = int(group[i]), key, pod, scorer
        if best_scorer is None:
            local = best_gpus(nodes, best_node, best_pod)
        else:
            local = best_scorer.gpus(nodes, best_node, best_pod)
        return self._checked(state, job, best_node, local)

    def _gpus_random(self, state: ClusterState, job: Job, node: int) -> Action:
        c = state.cluster
        first = int(c.node_first_gpu[node])
        local = np.flatnonzero(state.single_gpu_fit(job)[first : first + int(c.node_gpu_count[node])])
        if job.gpus == 1 and job_share_milli(job, float(c.node_vram_gb[node])) < MILLI:
            return first + int(local[self.rng.integers(len(local))])
        return self._checked(state, job, node, ())

    def _checked(self, state: ClusterState, job: Job, node: int, local: tuple[int, ...]) -> Action:
        """Global GPU indices for the in-node choice, or the node's first fitting gang if it does not fit."""
        c = state.cluster
        first = int(c.node_first_gpu[node])
        gpus = tuple(first + int(i) for i in local)
        if len(gpus) == job.gpus and state.can_place(job, gpus):
            return gpus[0] if job.gpus == 1 else gpus
        fit = state.fit_mask(job)[first : first + int(c.node_gpu_count[node])]
        gang = state.gang_for(job, first + int(np.argmax(fit)))
        return gang[0] if job.gpus == 1 else gang


def _shape_job(vram_gb: float, vram_frac: float, compute: float, gpus: int) -> Job:
    """A stand-in job with one shape's GPU request (for :func:`job_share_milli`)."""
    return Job(0, "shape", 0.0, 0.0, gpus, vram_gb, compute, vram_frac=vram_frac)


def _best_fit_raw(nodes: NodeArrays, pod: PodRequest, feasible: np.ndarray) -> np.ndarray:
    """Best-Fit's raw score: the min-max normalisation keeps its ranking, and groups are compared."""
    s = (
        0.5 * (nodes.cpu_left[feasible] - pod.cpu_milli) / 128_000
        + 0.5 * (nodes.gpu_left[feasible] - pod.total_gpu_milli) / 8_000
    )
    return np.trunc((1 - s) * 100).astype(np.int64)


def paper_policy(name: str, seed: int = 0) -> PaperPolicy:
    """The paper policy ``name`` (one of :data:`gpusched.fgd.scoring.POLICY_NAMES`) as a simulator policy."""
    if name not in POLICY_NAMES:
        raise ValueError(unknown_policy_message(name))
    return PaperPolicy(name, name, seed)
