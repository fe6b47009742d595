"""FGD's node fragmentation amount (milli-GPU), as a pure function and as a cache.

For a node with GPU model ``model``, ``cpu_left`` free milli-cores and per-GPU free shares ``rem``
(milli-GPU), and one typical pod ``t`` (CPU ``c_t``, per-GPU milli ``m_t``, GPU count ``g_t``,
allowed models), the amount of the node's idle GPU (``idle = sum(rem)``) that counts as a fragment
for ``t`` is:

- ``t`` is CPU-only (``m_t == 0``): all of ``idle`` (class XL if ``cpu_left >= c_t`` else XR);
- the node's model is not allowed for ``t``: all of ``idle`` (no access);
- at least ``g_t`` GPUs have ``rem >= m_t`` and ``cpu_left >= c_t`` (Q3): the free share of the GPUs
  with ``rem < m_t`` (too small for ``t``);
- otherwise (lack of GPU, of CPU, or both): all of ``idle``.

The node's fragmentation is ``F = sum_t p_t * amount_t``. Memory is ignored. Amounts are accumulated
per class and the classes summed in the artifact's order, so ``F`` is bit-identical to the
artifact's float64 value.

``F`` depends on ``cpu_left`` only through which typical CPU requests it reaches, so
:class:`FragmentationModel` keys its cache on a CPU *bucket* (``searchsorted`` into the sorted
distinct ``c_t``) and on the node's sorted ``rem`` tuple: most nodes share a few such states.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gpusched.fgd.typical_pods import TypicalPods

# Class indices, in the artifact's order: Q1 lack both, Q2 lack GPU, Q3 satisfied, Q4 lack CPU,
# XL (CPU-only pod, CPU enough), XR (CPU-only pod, CPU short), no access.
_Q1, _Q2, _Q3, _Q4, _XL, _XR, _NA = range(7)


def node_fragmentation(
    model: str, cpu_left: int, rem: Sequence[int], typical: TypicalPods
) -> float:
    """Fragmentation amount of one node (milli-GPU).

    :param model: the node's GPU model.
    :param cpu_left: free CPU on the node (milli-cores).
    :param rem: free share of each of its GPUs (milli-GPU, 0-1000).
    :param typical: the typical pods and their probabilities.
    """
    idle = sum(rem)
    data = [0.0] * 7
    for c, m, g, spec, p in zip(
        typical.cpu_milli,
        typical.gpu_milli,
        typical.num_gpu,
        typical.gpu_spec,
        typical.prob,
        strict=True,
    ):
        cpu_ok = cpu_left >= c
        if m == 0:
            data[_XL if cpu_ok else _XR] += p * idle
        elif spec and model not in spec:
            data[_NA] += p * idle
        else:
            gpu_ok = sum(1 for r in rem if r >= m) >= g
            if gpu_ok and cpu_ok:
                small = sum(r for r in rem if r < m)
                data[_Q2] += p * small
                data[_Q3] += p * (idle - small)
            elif gpu_ok:
                data[_Q4] += p * idle
            elif cpu_ok:
                data[_Q2] += p * idle
            else:
                data[_Q1] += p * idle
    out = 0.0
    for i, v in enumerate(data):
        if i != _Q3:
            out += v
    return out


class FragmentationModel:
    """Cached node fragmentation for one set of typical pods.

    A node state is ``(model, sorted rem tuple)`` plus its CPU bucket (:meth:`bucket`). Values are
    cached per ``(state, bucket)``; the cache holds one float per distinct state met during a run.

    :param typical: the typical pods.
    """

    def __init__(self, typical: TypicalPods) -> None:
        self.typical = typical
        #: Sorted distinct CPU requests of the typical pods (milli-cores).
        self.cpu_thresholds: np.ndarray = typical.cpu_thresholds
        #: Number of CPU buckets (``len(cpu_thresholds) + 1``).
        self.n_buckets: int = len(self.cpu_thresholds) + 1
        self._thresholds_list = [int(x) for x in self.cpu_thresholds]
        self._cache: dict[tuple[str, tuple[int, ...], int], float] = {}

    def bucket(self, cpu_left: np.ndarray | int) -> np.ndarray | int:
        """CPU bucket: how many distinct typical CPU requests ``cpu_left`` (milli-cores) reaches."""
        if isinstance(cpu_left, np.ndarray):
            return np.searchsorted(self.cpu_thresholds, cpu_left, side="right")
        return int(np.searchsorted(self.cpu_thresholds, int(cpu_left), side="right"))

    def bucket_cpu(self, bucket: int) -> int:
        """A CPU amount (milli-cores) that falls in ``bucket`` (its lower edge; -1 for 0)."""
        return self._thresholds_list[bucket - 1] if bucket > 0 else -1

    def value(self, model: str, rem_sorted: tuple[int, ...], bucket: int) -> float:
        """Fragmentation (milli-GPU) of a node state, cached.

        :param model: GPU model of the node.
        :param rem_sorted: free share per GPU, sorted ascending (milli-GPU).
        :param bucket: the node's CPU bucket (see :meth:`bucket`).
        """
        key = (model, rem_sorted, bucket)
        cached = self._cache.get(key)
        if cached is None:
            cached = node_fragmentation(model, self.bucket_cpu(bucket), rem_sorted, self.typical)
            self._cache[key] = cached
        return cached

    def __len__(self) -> int:
        return len(self._cache)
