"""Random clusters and workload settings for randomised training (every draw from one Generator)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gpusched.core.cluster import Cluster, NodeGroup

GPU_MODELS: tuple[tuple[str, float], ...] = (
    ("A100-80GB", 80.0),
    ("A100-40GB", 40.0),
    ("V100-32GB", 32.0),
    ("L4-24GB", 24.0),
    ("T4-16GB", 16.0),
)
"""GPU models a random cluster is drawn from (name, VRAM per GPU in GB)."""

NODE_SHAPES: tuple[int, ...] = (1, 2, 4, 8)
NODE_SHAPE_PROBS: tuple[float, ...] = (0.35, 0.35, 0.2, 0.1)


def random_cluster(rng: np.random.Generator, min_gpus: int = 2, max_gpus: int = 16) -> Cluster:
    """A random heterogeneous cluster with between ``min_gpus`` and ``max_gpus`` GPUs.

    Node groups (model, GPUs per node, count) are added until the GPU count reaches a target drawn
    uniformly in ``[min_gpus, max_gpus]``; the last group is trimmed so the total never exceeds it.
    The first group is an A100-80GB node with probability 0.7, so large jobs usually have somewhere
    to run (the workload never asks for a shape the cluster cannot hold).

    :param rng: the generator every draw comes from.
    :param min_gpus: fewest GPUs.
    :param max_gpus: most GPUs.
    """
    target = int(rng.integers(min_gpus, max_gpus + 1))
    groups: list[NodeGroup] = []
    total = 0
    while total < target:
        first_big = not groups and rng.random() < 0.7
        model, vram = GPU_MODELS[0 if first_big else int(rng.integers(len(GPU_MODELS)))]
        per_node = int(rng.choice(NODE_SHAPES, p=NODE_SHAPE_PROBS))
        per_node = min(per_node, target - total)
        count = max(1, min(int(rng.integers(1, 4)), (target - total) // per_node))
        groups.append(NodeGroup(model, vram, per_node, count))
        total += per_node * count
    return Cluster(groups)


def random_mix(rng: np.random.Generator, base: dict[str, float],
               concentration: float = 10.0) -> dict[str, float]:
    """A job-type mix drawn from a Dirichlet centred on ``base`` (shares sum to 1)."""
    keys = list(base)
    alpha = np.array([base[k] for k in keys], dtype=float) * concentration + 0.5
    shares = rng.dirichlet(alpha)
    return {k: float(s) for k, s in zip(keys, shares, strict=True)}


def perturbed_speeds(rng: np.random.Generator, table: Mapping[str, Mapping[str, Any]],
                     sigma: float) -> dict[str, dict[str, Any]]:
    """A speed table perturbed around ``table``: every factor but the reference GPU's times
    ``exp(sigma * Z)``, ``Z ~ N(0, 1)``, clipped to 0.05-1.5 (every draw from ``rng``, in the
    table's order; a row's job models under ``models`` and their speeds per gang size too)."""
    from gpusched.core.speed import MODELS_KEY, REFERENCE_MODEL

    def perturb(model: str, f: Any) -> Any:
        if isinstance(f, Mapping):  # a job model's speed per gang size
            return {g: perturb(model, v) for g, v in f.items()}
        return (float(f) if model == REFERENCE_MODEL
                else float(np.clip(f * np.exp(sigma * rng.standard_normal()), 0.05, 1.5)))

    out: dict[str, dict[str, Any]] = {}
    for model, row in table.items():
        out[model] = {t: ({m: perturb(model, f) for m, f in entries.items()} if t == MODELS_KEY
                          else perturb(model, entries))
                      for t, entries in row.items()}
    return out
