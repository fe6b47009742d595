"""The FGD paper's allocation experiment (Fig. 9(a)) on an openb node list and pod list.

One run, for a policy and a seed:

1. The workload ``W`` is the pod list sorted by name. FGD's typical pods come from ``W`` (before
   tuning).
2. A ``numpy.random.Generator`` seeded with the seed makes every draw of the run. The artifact uses
   Go's ``math/rand``; we use numpy's generator, so pod orders differ per seed but follow the same
   distribution, and seed means agree within the seed-to-seed spread.
3. Shuffle: a uniform random permutation of ``W``.
4. Tune to ``tune`` x cluster GPU capacity (milli-GPU). Below the target: draw a pod of ``W``
   uniformly and append a copy while ``total + its per-GPU milli`` stays within the target (the
   first that would pass it ends the loop; the artifact's test uses the per-GPU milli, so a
   multi-GPU copy can overshoot). Above the target: delete uniformly random positions until the
   total is within it.
5. Node ranks: a random permutation of the name-sorted nodes; ties between equal scores go to the
   lowest rank.
6. Schedule the pods one at a time, arrivals only: a pod that fits nowhere is dropped (counted in
   ``failed_pods``, never retried). After every pod, one sample of (arrived milli-GPU, allocated
   milli-GPU, cluster fragmentation).

Column ``k`` (0-130) of ``alloc_pct`` is the mean of ``round(allocated / total_gpus / 10, 2)`` over
the samples whose ``round(arrived / total_gpus / 10)`` equals ``k`` (half-even rounding); if none,
over those within ``k +- 1``. ``frag_pct`` is built the same way from the cluster's fragmentation
(percent of capacity).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gpusched.fgd.fragmentation import FragmentationModel
from gpusched.fgd.nodes import MILLI, NodeArrays, PodRequest
from gpusched.fgd.scoring import POLICY_NAMES, decide, make_policy, unknown_policy_message
from gpusched.fgd.typical_pods import TypicalPods, typical_pods
from gpusched.limits import MAX_JOBS
from gpusched.workload.openb import OpenbNodes, OpenbPods, TraceError

N_COLUMNS = 131
"""Number of discrete columns: arrived load 0..130 % of the cluster's GPU capacity."""
SUMMARY_COLUMNS: tuple[int, ...] = (100, 130)
"""The arrived-load columns (% of capacity) that the published results table reports."""
DEFAULT_TUNE = 1.3
"""Pods arrive until their GPU request reaches this multiple of capacity (the paper's 130 %)."""

ALLOC_PCT_PREFIX = "alloc_pct_"
ALLOC_PCT_COLUMNS: tuple[str, ...] = tuple(f"{ALLOC_PCT_PREFIX}{k}" for k in range(N_COLUMNS))
"""Flat-table columns of the allocation curve: ``alloc_pct_K`` is the allocation (%) at K % arrived."""
SUMMARY_KEYS: tuple[str, ...] = (*(f"alloc_at_{c}" for c in SUMMARY_COLUMNS), "failed_pods")
"""Flat-table columns of a run's headline numbers."""
TABLE_COLUMNS: tuple[str, ...] = (*SUMMARY_KEYS, *ALLOC_PCT_COLUMNS)
"""Every flat-table column of one run (see :meth:`AllocationRun.table_row`), in order."""


@dataclass
class AllocationRun:
    """The result of one run.

    :param policy: policy name.
    :param seed: seed of the run's generator.
    :param alloc_pct: allocation ratio (% of cluster milli-GPU) at columns 0..130 (``None`` if no
        sample).
    :param frag_pct: cluster fragmentation (% of cluster milli-GPU) at columns 0..130.
    :param failed_pods: pods that fitted nowhere when they arrived (dropped).
    :param unhostable_pods: of those, pods that would not fit even on the empty cluster.
    :param scheduled_pods: pods placed.
    :param seconds: wall-clock time of the run (s).
    :param final_rem: free milli-GPU per GPU at the end, one row per node in the node file's order
        (-1 pads nodes with fewer GPUs).
    """

    policy: str
    seed: int
    alloc_pct: list[float | None]
    frag_pct: list[float | None]
    failed_pods: int
    unhostable_pods: int
    scheduled_pods: int
    seconds: float
    final_rem: np.ndarray = field(repr=False)

    def table_row(self) -> dict[str, float | int | None]:
        """The run's numbers as one flat table row (:data:`TABLE_COLUMNS`; ``None`` where a column
        had no sample)."""
        row: dict[str, float | int | None] = {f"alloc_at_{c}": self.alloc_pct[c] for c in SUMMARY_COLUMNS}
        row["failed_pods"] = self.failed_pods
        row.update(zip(ALLOC_PCT_COLUMNS, self.alloc_pct, strict=True))
        return row

    def to_json(self) -> dict:
        """The run as a JSON-ready dictionary (without the final GPU state)."""
        return {
            "policy": self.policy,
            "seed": self.seed,
            "alloc_pct": self.alloc_pct,
            "frag_pct": self.frag_pct,
            "failed_pods": self.failed_pods,
            "unhostable_pods": self.unhostable_pods,
            "scheduled_pods": self.scheduled_pods,
            "seconds": round(self.seconds, 3),
        }


def _name_order(names: tuple[str, ...]) -> np.ndarray:
    """Indices that sort ``names`` (stable)."""
    return np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)


def tuned_order(
    pods: OpenbPods, total_gpus: int, tune: float, rng: np.random.Generator
) -> list[int]:
    """Pod indices in arrival order after the shuffle and the tuning to ``tune`` x capacity.

    :param pods: the pod list.
    :param total_gpus: GPUs in the cluster (capacity = ``total_gpus * 1000`` milli-GPU).
    :param tune: target GPU request as a multiple of capacity (1.3 = 130 %).
    :param rng: the run's generator (draws: one permutation, then one integer per tuning step).
    :raises TraceError: if the tuned workload would hold more than :data:`gpusched.limits.MAX_JOBS`
        pods (tiny pods on a large cluster).
    """
    w = _name_order(pods.name)
    order = w[rng.permutation(len(w))].tolist()
    per_gpu = pods.gpu_milli
    request = (pods.num_gpu * pods.gpu_milli).tolist()
    total = int(sum(request[i] for i in order))
    target = tune * total_gpus * MILLI
    if total < target:
        while True:
            pick = int(w[rng.integers(len(w))])
            if total + per_gpu[pick] > target:
                break
            if len(order) >= MAX_JOBS:
                raise TraceError(f"trace '{pods.source}': tuning to {tune:g} x capacity would make "
                                 f"more than {MAX_JOBS:,} pods (the limit on jobs)")
            order.append(pick)
            total += request[pick]
    else:
        while total > target and order:
            pick = order.pop(int(rng.integers(len(order))))
            total -= request[pick]
    return order


def discrete_columns(
    arrived_milli: np.ndarray, values_pct: np.ndarray, total_gpus: int
) -> list[float | None]:
    """Columns 0..130: mean of ``values_pct`` over samples whose arrived load rounds to each
    percent.

    :param arrived_milli: cumulative arrived GPU request per sample (milli-GPU).
    :param values_pct: the sampled value per sample (percent, already rounded to 2 decimals).
    :param total_gpus: GPUs in the cluster.
    """
    ratio = np.rint(arrived_milli / total_gpus / 10).astype(np.int64)
    sums = np.bincount(ratio, weights=values_pct, minlength=N_COLUMNS + 1)
    counts = np.bincount(ratio, minlength=N_COLUMNS + 1)
    out: list[float | None] = []
    for k in range(N_COLUMNS):
        if counts[k]:
            out.append(round(float(sums[k] / counts[k]), 2))
            continue
        lo, hi = max(k - 1, 0), k + 2
        n = counts[lo:hi].sum()
        out.append(round(float(sums[lo:hi].sum() / n), 2) if n else None)
    return out


def _round2(values: np.ndarray) -> np.ndarray:
    """Python ``round(x, 2)`` of each value (correctly rounded, half-even)."""
    return np.array([round(v, 2) for v in values.tolist()])


def run_allocation(
    nodes: OpenbNodes,
    pods: OpenbPods,
    policy: str,
    seed: int,
    *,
    tune: float = DEFAULT_TUNE,
    typical: TypicalPods | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> AllocationRun:
    """One run of the allocation experiment.

    :param nodes: the cluster's node list.
    :param pods: the pod list (the original trace).
    :param policy: one of :data:`gpusched.fgd.scoring.POLICY_NAMES`.
    :param seed: seed of the run's ``numpy.random.Generator``.
    :param tune: target GPU request as a multiple of capacity (1.3 = 130 %).
    :param typical: typical pods (computed from ``pods`` if not given).
    :param progress: called as ``progress(done, total)`` (pods) about every 1 % of the run and at its end,
        e.g. to drive a progress bar.
    :raises TraceError: for a pod list without a GPU pod (the tuning would never reach its target).
    """
    if policy not in POLICY_NAMES:
        raise ValueError(unknown_policy_message(policy))
    if not (pods.num_gpu > 0).any():
        raise TraceError(f"trace '{pods.source}': holds no GPU pod, so the allocation experiment has "
                         "nothing to place")
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    typical = typical if typical is not None else typical_pods(pods)
    frag = FragmentationModel(typical)
    total_gpus = nodes.total_gpus
    order = tuned_order(pods, total_gpus, tune, rng)

    # Node positions follow the per-seed rank of the name-sorted nodes: position 0 wins ties.
    by_name = _name_order(nodes.name)
    rank = rng.permutation(len(by_name))
    position_to_node = by_name[np.argsort(rank)]
    state = NodeArrays(
        nodes.cpu_milli[position_to_node],
        nodes.memory_mib[position_to_node],
        nodes.gpus[position_to_node],
        [nodes.model[i] for i in position_to_node],
        [nodes.name[i] for i in position_to_node],
    )
    scorer = make_policy(policy, rng, frag)

    def node_frag(pos: int) -> float:
        model, rem = state.state_keys[state.state_id[pos]]
        return frag.value(model, rem, frag.bucket(int(state.cpu_left[pos])))

    node_f = [node_frag(p) for p in range(state.n)]
    frag_total = sum(node_f)

    cache: dict[int, PodRequest] = {}
    n = len(order)
    arrived = np.empty(n, dtype=np.int64)
    used = np.empty(n, dtype=np.int64)
    frag_samples = np.empty(n, dtype=np.float64)
    failed = unhostable = 0
    arrived_milli = 0
    every = max(1, n // 100)
    for j, i in enumerate(order):
        if progress is not None and j % every == 0:
            progress(j, n)
        pod = cache.get(i)
        if pod is None:
            pod = PodRequest(
                int(pods.cpu_milli[i]),
                float(pods.memory_mib[i]),
                int(pods.num_gpu[i]),
                int(pods.gpu_milli[i]),
                pods.gpu_spec[i],
            )
            cache[i] = pod
        arrived_milli += pod.total_gpu_milli
        choice = decide(scorer, state, pod)
        if choice is None:
            failed += 1
            unhostable += not state.fits_empty(pod)
        else:
            node, gpus = choice
            state.place(node, gpus, pod)
            new_f = node_frag(node)
            frag_total += new_f - node_f[node]
            node_f[node] = new_f
        arrived[j] = arrived_milli
        used[j] = state.allocated_gpu_milli
        frag_samples[j] = frag_total

    if progress is not None:
        progress(n, n)
    alloc_pct = _round2(used / total_gpus / 10)
    frag_pct = 100 * frag_samples / MILLI / total_gpus
    final_rem = np.full((len(nodes), state.rem.shape[1]), -1, dtype=np.int64)
    final_rem[position_to_node] = state.rem
    return AllocationRun(
        policy=policy,
        seed=seed,
        alloc_pct=discrete_columns(arrived, alloc_pct, total_gpus),
        frag_pct=discrete_columns(arrived, frag_pct, total_gpus),
        failed_pods=failed,
        unhostable_pods=unhostable,
        scheduled_pods=n - failed,
        seconds=time.perf_counter() - start,
        final_rem=final_rem,
    )
