"""Work lost to node failures, per policy, from the runs: how much, over how many interruptions,
how much each cost, how much of it was in jobs that keep no checkpoint, and the time spent
restoring.

Every policy of a comparison meets the same failures (:mod:`gpusched.core.failures`: the failure
process draws from its own generator, whatever the policy does), so what differs is which jobs
were running on a node when it failed, on how many GPUs, and how long since their last save.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from gpusched.core.result import Result
from gpusched.experiment.runner import Comparison


@dataclass(frozen=True)
class LostWork:
    """One policy's lost work, as means over seeds.

    :param policy: the policy's name.
    :param lost_gpu_hours: GPU time thrown away by failures per run (GPU-hours).
    :param interruptions: runs stopped by a failure per run.
    :param restore_gpu_hours: GPU time spent restoring after a stop per run (GPU-hours).
    :param preemptions: preemptions per run.
    :param node_failures: node failures per run.
    :param lost_per_interruption_gpu_min: lost GPU time per interruption (GPU-minutes; 0 without).
    :param unsaved_share: share (0-1) of the lost work (reference minutes × GPUs) in jobs of types
        that keep no checkpoint.
    :param gpus_per_interruption: GPUs the interrupted jobs held, per interruption.
    :param seeds: seeds averaged.
    """

    policy: str
    lost_gpu_hours: float
    interruptions: float
    restore_gpu_hours: float
    preemptions: float
    node_failures: float
    lost_per_interruption_gpu_min: float
    unsaved_share: float
    gpus_per_interruption: float
    seeds: int


def _one(result: Result, saving: set[str]) -> tuple[float, float, float, float, float]:
    jobs = result.jobs
    hit = jobs[jobs["interruptions"] > 0]
    weight = (hit["lost_min"] * hit["gpus"]).to_numpy(float)
    unsaved = float(weight[~hit["type"].isin(saving).to_numpy()].sum())
    gpus = float((hit["gpus"] * hit["interruptions"]).sum())
    return (float(result.metrics["lost_gpu_hours"]), float(hit["interruptions"].sum()),
            float(result.metrics["restore_gpu_hours"]), unsaved / weight.sum() if weight.sum() > 0
            else 0.0, gpus)


def lost_work(comparison: Comparison, checkpoint_types: Iterable[str] = ()) -> list[LostWork]:
    """Each policy's lost work on the comparison's runs, in the comparison's order.

    :param comparison: runs of every policy on the same seeds.
    :param checkpoint_types: the job types that save checkpoints (the scenario's
        ``checkpoint.types``; empty when none does).
    """
    saving = set(checkpoint_types)
    out = []
    for policy in dict.fromkeys(comparison.runs["policy"]):
        results = [r for (p, _), r in comparison.results.items() if p == policy]
        parts = np.array([_one(r, saving) for r in results], float)
        lost, hits, restore, unsaved, gpus = parts.mean(axis=0)
        preempt = float(np.mean([r.metrics["preemptions"] for r in results]))
        failures = float(np.mean([r.metrics["node_failures"] for r in results]))
        total_hits = parts[:, 1].sum()
        out.append(LostWork(
            policy=policy, lost_gpu_hours=float(lost), interruptions=float(hits),
            restore_gpu_hours=float(restore), preemptions=preempt, node_failures=failures,
            lost_per_interruption_gpu_min=float(parts[:, 0].sum() * 60 / total_hits) if total_hits
            else 0.0,
            unsaved_share=float(unsaved), gpus_per_interruption=float(parts[:, 4].sum() / total_hits)
            if total_hits else 0.0, seeds=len(results)))
    return out
