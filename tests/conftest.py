"""Shared fixtures: tiny hand-built clusters and jobs."""

from __future__ import annotations

import pytest
from hypothesis import settings

from gpusched.core.cluster import Cluster, ClusterState, NodeGroup
from gpusched.core.jobs import Job


def make_job(job_id: int = 0, *, arrival: float = 0.0, duration: float = 10.0, gpus: int = 1,
             vram: float = 8.0, compute: float = 0.5, type_: str = "batch") -> Job:
    """A job with readable defaults (minutes, GB, fraction of a GPU)."""
    return Job(id=job_id, type=type_, arrival_min=arrival, duration_min=duration, gpus=gpus,
               vram_gb=vram, compute=compute)


@pytest.fixture
def hetero_cluster() -> Cluster:
    """GPU 0: A100-80GB, GPU 1: T4-16GB, GPUs 2-3: a node of two V100-32GB."""
    return Cluster([
        NodeGroup("A100-80GB", 80, 1),
        NodeGroup("T4-16GB", 16, 1),
        NodeGroup("V100-32GB", 32, 2),
    ])


@pytest.fixture
def hetero_state(hetero_cluster: Cluster) -> ClusterState:
    return ClusterState(hetero_cluster)


# Hypothesis profiles: CI runs the default (100 examples per property test that does not set its
# own count); ``pytest --hypothesis-profile=slow`` searches far longer (the fuzz tests above all).
settings.register_profile("slow", max_examples=3000, deadline=None)
