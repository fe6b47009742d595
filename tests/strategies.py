"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from gpusched.core.cluster import NodeGroup
from gpusched.core.speed_model import TableSpeeds

MODELS = [("A100-80GB", 80.0), ("A100-40GB", 40.0), ("V100-32GB", 32.0), ("L4-24GB", 24.0),
          ("T4-16GB", 16.0)]
"""GPU models and their VRAM (GB)."""

node_groups = st.lists(
    st.builds(lambda m, k, c: NodeGroup(MODELS[m][0], MODELS[m][1], k, c),
              st.integers(0, len(MODELS) - 1), st.sampled_from([1, 2, 4, 8]), st.integers(1, 2)),
    min_size=1, max_size=4)
"""Random heterogeneous clusters: 1-4 groups of 1-2 nodes of 1, 2, 4 or 8 GPUs."""


def random_simulator(groups, n_jobs: int, rate_per_hour: float, seed: int, window: int,
                     with_speeds: bool):
    """A simulator on a random cluster (``groups``) with a synthetic workload (training, inference
    and batch jobs; arrivals per hour) and, optionally, the shipped GPU speeds."""
    import numpy as np

    from gpusched.core.cluster import Cluster
    from gpusched.core.simulator import Simulator
    from gpusched.core.speed import DEFAULT_SPEEDS, GpuSpeeds
    from gpusched.workload.synthetic import generate_jobs

    cluster = Cluster(groups)
    jobs = generate_jobs(n_jobs, rate_per_hour, {"training": 0.4, "inference": 0.3, "batch": 0.3},
                         np.random.default_rng(seed), cluster.max_vram_gb_for_gpus())
    speeds = GpuSpeeds(cluster, DEFAULT_SPEEDS) if with_speeds else None
    return Simulator(cluster, jobs, window=window, speed_model=TableSpeeds(cluster, speeds))
