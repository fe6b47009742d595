"""The six policies of the FGD paper: node scores and the GPU choice inside the chosen node.

Each policy scores every feasible node (an integer, higher is better); the node with the highest
score wins and ties go to the lowest node position (the per-seed random rank). Then the policy picks
the GPUs inside that node. Notation: ``cpuL`` free CPU (milli-cores), ``gpuL`` free milli-GPU of the
node, ``rem[i]`` free share of GPU ``i``; the pod asks for ``c`` milli-cores and ``g`` GPUs of ``m``
milli each (``G = g*m``). Integer operations truncate toward zero, as in the artifact.

- ``fgd_random``: one feasible node uniformly at random; a sharing pod goes to a uniformly random GPU
  with ``rem >= m``.
- ``dot_product``: ``int(100 * (1 - dot))``, ``dot = (cpuL/128000 * c/128000 + gpuL/8000 * G/8000) /
  2`` (prefers the smaller inner product).
- ``gpu_clustering``: ``base = 25 * (8000 - gpuL) // 8000``, plus 75 if the node holds only pods of
  the pod's tag, 50 if it holds that tag among others, 25 if it holds no GPU pod; 0 for CPU-only
  pods.
- ``gpu_packing``: an all-free node scores ``max(33 - k, k)`` (``k`` GPUs); a node where the pod
  needs fully free GPUs ``max(50 - used, 33)``; a node where it shares a GPU ``max(100 -
  (rem*100//1000)//10, 50)``; 0 for CPU-only pods.
- ``fgd_best_fit``: ``raw = int((1 - s) * 100)``, ``s = 0.5*(cpuL - c)/128000 + 0.5*(gpuL - G)/8000``,
  then min-max normalised over the feasible nodes: ``(raw - lo) * 100 // (hi - lo)``.
- ``fgd``: ``int(100 * sigmoid((F(node) - F(node after)) / 1000))`` with ``F`` the fragmentation
  (:mod:`gpusched.fgd.fragmentation`); a sharing pod tries each GPU with ``rem >= m`` and keeps the
  best (first index on ties).

GPU choice ("best", all but ``fgd_random`` and ``fgd``): a sharing pod takes the GPU with the smallest
``rem >= m`` (first index on ties); a whole-GPU pod takes the ``g`` lowest-index fully free GPUs.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from gpusched.fgd.fragmentation import FragmentationModel
from gpusched.fgd.nodes import MILLI, NodeArrays, PodRequest

#: CPU normaliser of DotProd and BestFit (milli-cores).
CPU_SCALE = 128_000
#: GPU normaliser of DotProd, BestFit and GpuClustering (milli-GPU).
GPU_SCALE = 8_000

POLICY_NAMES: tuple[str, ...] = (
    "fgd_random",
    "dot_product",
    "gpu_clustering",
    "gpu_packing",
    "fgd_best_fit",
    "fgd",
)
"""The six policies of the paper, in its order. The paper's Random and Best-Fit are named
``fgd_random`` and ``fgd_best_fit`` everywhere: ``random`` and ``best_fit`` name the simpler core
heuristics of :mod:`gpusched.policies.heuristics`."""
#: Our policy names and the artifact's ``sc_policy`` labels.
PUBLISHED_NAMES: dict[str, str] = {
    "fgd_random": "01-Random",
    "dot_product": "02-DotProd",
    "gpu_clustering": "03-GpuClustering",
    "gpu_packing": "04-GpuPacking",
    "fgd_best_fit": "05-BestFit",
    "fgd": "06-FGD",
}


def best_gpus(nodes: NodeArrays, node: int, pod: PodRequest) -> tuple[int, ...]:
    """GPU choice "best": the tightest GPU for a sharing pod, else the lowest-index free GPUs."""
    if pod.num_gpu == 0:
        return ()
    row = nodes.rem[node, : nodes.n_gpus[node]]
    if pod.sharing:
        cand = np.where(row >= pod.gpu_milli, row, MILLI + 1)
        return (int(np.argmin(cand)),)
    return tuple(int(i) for i in np.flatnonzero(row == MILLI)[: pod.num_gpu])


class NodeScorer(Protocol):
    """A policy of the experiment: node scores plus the GPU choice inside a node."""

    name: str

    def choose(self, nodes: NodeArrays, pod: PodRequest, feasible: np.ndarray) -> int:
        """Position of the chosen node among ``feasible`` (ascending node positions, at least 2)."""
        ...

    def gpus(self, nodes: NodeArrays, node: int, pod: PodRequest) -> tuple[int, ...]:
        """GPU indices inside ``node`` for the pod."""
        ...


class _ScoredPolicy:
    """Base of the deterministic policies: the highest score wins, ties to the lowest position."""

    name = ""

    def scores(self, nodes: NodeArrays, pod: PodRequest, feasible: np.ndarray) -> np.ndarray:
        """Integer score of each node in ``feasible`` (node positions)."""
        raise NotImplementedError

    def choose(self, nodes: NodeArrays, pod: PodRequest, feasible: np.ndarray) -> int:
        return int(np.argmax(self.scores(nodes, pod, feasible)))

    def gpus(self, nodes: NodeArrays, node: int, pod: PodRequest) -> tuple[int, ...]:
        return best_gpus(nodes, node, pod)


class RandomPolicy:
    """01-Random: a uniformly random feasible node; a uniformly random fitting GPU for sharing pods.

    :param rng: the seeded generator every draw comes from.
    """

    name = "fgd_random"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def choose(self, nodes: NodeArrays, pod: PodRequest, feasible: np.ndarray) -> int:
        return int(self.rng.integers(len(feasible)))

    def gpus(self, nodes: NodeArrays, node: int, pod: PodRequest) -> tuple[int, ...]:
        if not pod.sharing:
            return best_gpus(nodes, node, pod)
        row = nodes.rem[node, : nodes.n_gpus[node]]
        cand = np.flatnonzero(row >= pod.gpu_milli)
        return (int(cand[self.rng.integers(len(cand))]),)


class DotProductPolicy(_ScoredPolicy):
    """02-DotProd (merge, max): prefers the smaller inner product of free and asked (CPU, GPU)."""

    name = "dot_product"

    def scores(self, nodes: NodeArrays, pod: PodRequest, feasible: np.ndarray) -> np.ndarray:
        cpu = nodes.cpu_left[feasible] / CPU_SCALE
        gpu = nodes.gpu_left[feasible] / GPU_SCALE
        dot = (cpu * (pod.cpu_milli / CPU_SCALE) + gpu * (pod.total_gpu_milli / GPU_SCALE)) / 2
        return np.trunc(100 * (1 - dot)).astype(np.int64)


class GpuClusteringPolicy(_ScoredPolicy):
    """03-GpuClustering: puts pods of the same kind (share, 1-GPU, 2-GPU, ...) together."""

    name = "gpu_clustering"

    def scores(self, nodes: NodeArrays, pod: PodRequest, feasible: np.ndarray) -> np.ndarray:
        if pod.num_gpu == 0:
            return np.zeros(len(feasible), dtype=np.int64)
        base = (25 * (GPU_SCALE - nodes.gpu_left[feasible])) // GPU_SCALE
        has = nodes.tag_counts[feasible, pod.tag] > 0
        n_tags = nodes.n_tags[feasible]
        bonus = np.where(has & (n_tags == 1), 75, np.where(has, 50, np.where(n_tags == 0, 25, 0)))
        return base + bonus


class GpuPackingPolicy(_ScoredPolicy):
    """04-GpuPacking: shared GPUs first, then free GPUs of used nodes, then free nodes."""

    name = "gpu_packing"

    def scores(self, nodes: NodeArrays, pod: PodRequest, feasible: np.ndarray) -> np.ndarray:
        if pod.num_gpu == 0:
            return np.zeros(len(feasible), dtype=np.int64)
        k = nodes.n_gpus[feasible]
        all_free = nodes.n_free[feasible] == k
        if pod.sharing:
            rem = nodes.rem[feasible]
            tightest = np.where(rem >= pod.gpu_milli, rem, MILLI + 1).min(axis=1)
            used = np.where(
                tightest == MILLI,
                max(50 - 1, 33),
                np.maximum(100 - (tightest * 100 // MILLI) // 10, 50),
            )
        else:
            used = np.full(len(feasible), max(50 - pod.num_gpu, 33), dtype=np.int64)
        return np.where(all_free, np.maximum(33 - k, k), used).astype(np.int64)


class BestFitPolicy(_ScoredPolicy):
    """05-BestFit: the node left with the least free CPU and GPU (min-max normalised)."""

    name = "fgd_best_fit"

    def scores(self, nodes: NodeArrays, pod: PodRequest, feasible: np.ndarray) -> np.ndarray:
        s = (
            0.5 * (nodes.cpu_left[feasible] - pod.cpu_milli) / CPU_SCALE
            + 0.5 * (nodes.gpu_left[feasible] - pod.total_gpu_milli) / GPU_SCALE
        )
        raw = np.trunc((1 - s) * 100).astype(np.int64)
        lo, hi = int(raw.min()), int(raw.max())
        if hi == lo:
            return np.zeros(len(feasible), dtype=np.int64)
        return (raw - lo) * 100 // (hi - lo)


def _sigmoid_score(delta_milli: float) -> int:
    """``int(100 * sigmoid(delta / 1000))`` for a fragmentation decrease ``delta`` (milli-GPU)."""
    return int(100.0 / (1.0 + math.exp(-delta_milli / 1000.0)))


class FgdPolicy(_ScoredPolicy):
    """06-FGD: the placement that most reduces the node's fragmentation.

    Scores are cached per ``(node state, CPU bucket before, CPU bucket after, pod shape)``: nodes
    that share a state (e.g. all empty 8-GPU G2 nodes) are scored once per decision, and a state met
    again later costs a dictionary look-up.

    :param frag: the fragmentation model (typical pods and the cache of ``F``).
    """

    name = "fgd"

    def __init__(self, frag: FragmentationModel) -> None:
        self.frag = frag
        self._scores: dict[tuple[int, int, int, int, int], tuple[int, frozenset[int]]] = {}

    def _score_state(
        self, nodes: NodeArrays, sid: int, b1: int, b2: int, pod: PodRequest
    ) -> tuple[int, frozenset[int]]:
        """Score of one node state and the free-share values whose GPUs reach it (sharing pods)."""
        key = (sid, b1, b2, pod.gpu_milli, pod.num_gpu)
        hit = self._scores.get(key)
        if hit is not None:
            return hit
        model, rem = nodes.state_keys[sid]
        before = self.frag.value(model, rem, b1)
        m = pod.gpu_milli
        if pod.sharing:
            best, values = -1, set()
            for r in sorted(set(rem)):
                if r < m:
                    continue
                after_rem = list(rem)
                after_rem[after_rem.index(r)] = r - m
                after = self.frag.value(model, tuple(sorted(after_rem)), b2)
                cand = _sigmoid_score(before - after)
                if cand > best:
                    best, values = cand, {r}
                elif cand == best:
                    values.add(r)
            hit = (best, frozenset(values))
        else:
            after_rem = list(rem)
            taken = 0
            for i, r in enumerate(after_rem):
                if taken == pod.num_gpu:
                    break
                if r == MILLI:
                    after_rem[i] = 0
                    taken += 1
            after = self.frag.value(model, tuple(sorted(after_rem)), b2)
            hit = (_sigmoid_score(before - after), frozenset())
        self._scores[key] = hit
        return hit

    def scores(self, nodes: NodeArrays, pod: PodRequest, feasible: np.ndarray) -> np.ndarray:
        cpu = nodes.cpu_left[feasible]
        b1 = self.frag.bucket(cpu)
        b2 = self.frag.bucket(cpu - pod.cpu_milli)
        nb = self.frag.n_buckets
        keys = (nodes.state_id[feasible] * nb + b1) * nb + b2
        uniq, inverse = np.unique(keys, return_inverse=True)
        vals = np.empty(len(uniq), dtype=np.int64)
        for j, k in enumerate(uniq.tolist()):
            sid, rest = divmod(k, nb * nb)
            vals[j] = self._score_state(nodes, sid, rest // nb, rest % nb, pod)[0]
        return vals[inverse]

    def gpus(self, nodes: NodeArrays, node: int, pod: PodRequest) -> tuple[int, ...]:
        if not pod.sharing:
            return best_gpus(nodes, node, pod)
        cpu = int(nodes.cpu_left[node])
        _, values = self._score_state(
            nodes,
            int(nodes.state_id[node]),
            self.frag.bucket(cpu),
            self.frag.bucket(cpu - pod.cpu_milli),
            pod,
        )
        row = nodes.rem[node, : nodes.n_gpus[node]]
        for i, r in enumerate(row.tolist()):
            if r >= pod.gpu_milli and r in values:
                return (i,)
        return ()  # no GPU fits (only on a projected state; the experiment's nodes are feasible)


def make_policy(
    name: str, rng: np.random.Generator, frag: FragmentationModel | None = None
) -> NodeScorer:
    """The experiment policy called ``name`` (one of :data:`POLICY_NAMES`).

    :param name: policy name.
    :param rng: seeded generator (used by ``fgd_random`` only).
    :param frag: fragmentation model, required by ``fgd``.
    """
    if name == "fgd_random":
        return RandomPolicy(rng)
    if name == "fgd":
        if frag is None:
            raise ValueError("policy 'fgd' needs a fragmentation model (typical pods)")
        return FgdPolicy(frag)
    classes = {
        "dot_product": DotProductPolicy,
        "gpu_clustering": GpuClusteringPolicy,
        "gpu_packing": GpuPackingPolicy,
        "fgd_best_fit": BestFitPolicy,
    }
    if name not in classes:
        raise ValueError(unknown_policy_message(name))
    return classes[name]()


def unknown_policy_message(name: str) -> str:
    """Why ``name`` is not a policy of the paper, pointing from the core names to the paper's."""
    hint = f" (the paper's form of {name!r} is 'fgd_{name}')" if name in ("random", "best_fit") else ""
    return f"unknown policy '{name}'{hint} (choose from {', '.join(POLICY_NAMES)})"


def decide(
    policy: NodeScorer, nodes: NodeArrays, pod: PodRequest
) -> tuple[int, tuple[int, ...]] | None:
    """One scheduling decision: ``(node position, GPU indices)``, or ``None`` if no node fits.

    With exactly one feasible node it is taken without scoring, as in the artifact.
    """
    feasible = np.flatnonzero(nodes.fit_mask(pod))
    if len(feasible) == 0:
        return None
    node = (
        int(feasible[0])
        if len(feasible) == 1
        else int(feasible[policy.choose(nodes, pod, feasible)])
    )
    return node, policy.gpus(nodes, node, pod)
