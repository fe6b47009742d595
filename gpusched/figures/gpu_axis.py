"""The GPU axis under per-GPU bars: one upright label per GPU while they fit, one label per run of
GPUs of the same model once they do not (a 108-GPU Gavel cluster reads ``V100 ×36 · P100 ×36 ·
K80 ×36``, not 108 labels drawn over each other or cut to ``V1(``).

Each bar keeps its GPU's own label as its category (the hover names the GPU); only the ticks
change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpusched.core.cluster import Cluster

GPU_TICK_FONT_PX = 11
"""Font size of the GPU labels under the per-GPU bars (pixels)."""

GPU_TICK_ANGLE = -90
"""Per-GPU labels stand upright, so the space they take is their length, whatever the count."""

CHAR_WIDTH_EM = 0.68
"""Upper bound on the width of one label character (em): capitals, digits and '#'."""

LABELLED_GPUS_MAX = 32
"""Most GPUs a bar panel labels one by one: half a 1,280-px page holds about 32 upright labels of
11 px side by side (13 px each with their gap); above it, each run of one model gets one label."""

GROUPS_MAX = 12
"""Most model runs labelled once each; a cluster that alternates models more often than that
labels every k-th GPU instead (upright)."""


@dataclass(frozen=True)
class GpuTicks:
    """The ticks of a per-GPU bar axis.

    :param labels: every GPU's label, the bars' categories (``"V100 #0"``).
    :param tickvals: the categories that carry a tick label.
    :param ticktext: what those ticks read.
    :param angle: the labels' angle (degrees): upright for one label per GPU, level for groups.
    :param grouped: whether the ticks name runs of one GPU model (``V100 ×36``).
    """

    labels: tuple[str, ...]
    tickvals: tuple[str, ...]
    ticktext: tuple[str, ...]
    angle: int
    grouped: bool

    @property
    def px(self) -> float:
        """Height the tick labels take under the panel (pixels), with the tick's offset."""
        if self.angle == 0:
            return GPU_TICK_FONT_PX * 1.4 + 10
        longest = max((len(t) for t in self.ticktext), default=0)
        return longest * CHAR_WIDTH_EM * GPU_TICK_FONT_PX + 10


def model_runs(models: Sequence[str]) -> list[tuple[str, int, int]]:
    """Consecutive GPUs of one model: ``(model, first index, count)`` per run, in order."""
    runs: list[tuple[str, int, int]] = []
    for i, model in enumerate(models):
        if runs and runs[-1][0] == model:
            runs[-1] = (model, runs[-1][1], runs[-1][2] + 1)
        else:
            runs.append((model, i, 1))
    return runs


def gpu_ticks(cluster: Cluster) -> GpuTicks:
    """The ticks of ``cluster``'s per-GPU bars (see the module docstring)."""
    labels = tuple(cluster.gpu_label(g) for g in range(cluster.n_gpus))
    if len(labels) <= LABELLED_GPUS_MAX:
        return GpuTicks(labels, labels, labels, GPU_TICK_ANGLE, False)
    runs = model_runs([str(m) for m in cluster.gpu_model])
    if len(runs) <= GROUPS_MAX:
        vals = tuple(labels[first + count // 2] for _, first, count in runs)
        text = tuple(f"{model} ×{count}" for model, _, count in runs)
        return GpuTicks(labels, vals, text, 0, True)
    step = -(-len(labels) // LABELLED_GPUS_MAX)
    vals = labels[::step]
    return GpuTicks(labels, vals, vals, GPU_TICK_ANGLE, False)


def run_edges(cluster: Cluster) -> list[float]:
    """Bar positions (category index ± 0.5) between two runs of different GPU models, where a
    grouped axis draws a thin separator."""
    runs = model_runs([str(m) for m in cluster.gpu_model])
    return [first - 0.5 for _, first, _ in runs[1:]]
