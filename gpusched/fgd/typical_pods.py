"""FGD's typical pods: the most popular pod shapes of a trace and their probabilities.

A pod's shape is ``(cpu_milli, gpu_milli, num_gpu, gpu_spec)`` (memory is not part of it). Shapes
are counted over every pod of the original trace (CPU-only pods included, weight 1 each), sorted by
count descending and, on equal counts, by the shape itself descending (cpu, then per-GPU milli, then
GPU count, then the ``|``-joined GPU-type string). Shapes are taken in that order until their
cumulative count reaches 95 % of all pods; the first shape that reaches it is kept. Each kept
shape's probability is its share of the kept pods, so the probabilities sum to 1. The default openb
trace has 91 shapes, of which 35 are kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from gpusched.workload.openb import OpenbPods

#: Share of all pods (percent) the typical shapes must cover.
POPULARITY_THRESHOLD_PCT = 95


@dataclass(frozen=True)
class TypicalPods:
    """The typical pod shapes, most popular first.

    :param cpu_milli: CPU request per shape (milli-cores).
    :param gpu_milli: per-GPU share per shape (milli-GPU; 0 for CPU-only shapes).
    :param num_gpu: GPU count per shape.
    :param gpu_spec: allowed GPU models per shape (empty tuple = any).
    :param prob: probability per shape (sums to 1).
    :param coverage: share of all pods covered by the kept shapes (fraction 0-1).
    """

    cpu_milli: tuple[int, ...]
    gpu_milli: tuple[int, ...]
    num_gpu: tuple[int, ...]
    gpu_spec: tuple[tuple[str, ...], ...]
    prob: tuple[float, ...]
    coverage: float

    def __len__(self) -> int:
        return len(self.prob)

    @property
    def cpu_thresholds(self) -> np.ndarray:
        """Sorted distinct CPU requests of the shapes (milli-cores): the CPU levels that matter."""
        return np.unique(np.asarray(self.cpu_milli, dtype=np.int64))


def typical_pods_from_shapes(
    shapes: list[tuple[int, int, int, tuple[str, ...]]],
    threshold_pct: float = POPULARITY_THRESHOLD_PCT,
) -> TypicalPods:
    """Typical pods of a list of pod shapes ``(cpu_milli, gpu_milli, num_gpu, gpu_spec)``, one per
    pod.

    :param shapes: one shape per pod (CPU-only pods have ``gpu_milli == num_gpu == 0``).
    :param threshold_pct: share of all pods (percent) the kept shapes must reach.
    """
    return typical_pods_from_counts(Counter(shapes), threshold_pct)


def typical_pods_from_counts(
    counts: Mapping[tuple[int, int, int, tuple[str, ...]], int],
    threshold_pct: float = POPULARITY_THRESHOLD_PCT,
) -> TypicalPods:
    """Typical pods from pod counts per shape ``(cpu_milli, gpu_milli, num_gpu, gpu_spec)``.

    :param counts: number of pods of each shape.
    :param threshold_pct: share of all pods (percent) the kept shapes must reach.
    """
    by_key: Counter[tuple[int, int, int, str]] = Counter()
    for (c, m, g, spec), n in counts.items():
        by_key[(c, m, g, "|".join(spec))] += n
    if not by_key:
        raise ValueError("typical pods need at least one pod")
    total = float(sum(by_key.values()))
    ordered = sorted(by_key.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    expected = threshold_pct * total / 100.0
    kept: list[tuple[tuple[int, int, int, str], float]] = []
    cumulative = 0.0
    for key, count in ordered:
        if cumulative >= expected:
            break
        cumulative += count
        kept.append((key, count / total))
    share = cumulative / total
    return TypicalPods(
        cpu_milli=tuple(k[0] for k, _ in kept),
        gpu_milli=tuple(k[1] for k, _ in kept),
        num_gpu=tuple(k[2] for k, _ in kept),
        gpu_spec=tuple(tuple(k[3].split("|")) if k[3] else () for k, _ in kept),
        prob=tuple(p / share for _, p in kept),
        coverage=share,
    )


def typical_pods(pods: OpenbPods, threshold_pct: float = POPULARITY_THRESHOLD_PCT) -> TypicalPods:
    """Typical pods of an openb pod list (the original trace, before any tuning).

    :param pods: the pod list.
    :param threshold_pct: share of all pods (percent) the kept shapes must reach (default 95).
    """
    shapes = [
        (int(c), int(m), int(g), spec)
        for c, m, g, spec in zip(
            pods.cpu_milli, pods.gpu_milli, pods.num_gpu, pods.gpu_spec, strict=True
        )
    ]
    return typical_pods_from_shapes(shapes, threshold_pct)
