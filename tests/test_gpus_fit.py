"""``ClusterState.gpus_fit`` (the fit test of a gang's GPUs alone, which ``can_place`` asks at every
start and move) says what the whole cluster's single-GPU mask says on those GPUs, in seeded random
states: jobs of every resource shape (absolute and fractional VRAM, compute shares, GPU models
named, node CPU and memory), nodes down, with and without the masks cached."""

from __future__ import annotations

import dataclasses

import numpy as np

from gpusched.core.cluster import Cluster, ClusterState, NodeGroup
from gpusched.core.jobs import Job


def random_job(rng: np.random.Generator, i: int) -> Job:
    frac = bool(rng.random() < 0.3)
    share = float(rng.choice([0.25, 0.5, 1.0]))
    return Job(id=i, type="training", arrival_min=0.0, duration_min=10.0, gpus=int(rng.choice([1, 2, 4])),
               vram_gb=0.0 if frac else float(rng.uniform(1, 40)), vram_frac=share if frac else 0.0,
               compute=share, cpu_milli=float(rng.choice([0, 4000, 16000])),
               memory_mib=float(rng.choice([0, 8192, 65536])),
               gpu_spec=("V100-32GB",) if rng.random() < 0.2 else None)


def test_gpus_fit_is_the_single_gpu_mask_on_those_gpus():
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 4, 2, cpu_milli=32000, memory_mib=262144),
                       NodeGroup("V100-32GB", 32.0, 4, 2, cpu_milli=32000, memory_mib=131072)])
    rng = np.random.default_rng(0)
    checked = fits = 0
    for trial in range(60):
        state = ClusterState(cluster)
        for i in range(int(rng.integers(0, 10))):  # a random state: jobs placed where they fit
            job = random_job(rng, i)
            where = np.flatnonzero(state.fit_mask(job))
            if len(where):
                gang = state.gang_for(job, int(rng.choice(where)))
                if gang:
                    state.place(job, gang)
        if trial % 3 == 0:
            state.set_node_down(int(rng.integers(0, 4)), True)
        for j in range(20):
            job = random_job(rng, 100 + j)
            gang = sorted(rng.choice(cluster.n_gpus, size=job.gpus, replace=False).tolist())
            fresh = state.gpus_fit(job, gang)  # nothing cached for this job yet
            expected = bool(state.single_gpu_fit(job)[gang].all())
            assert fresh == expected
            assert state.gpus_fit(job, gang) == expected  # from the cached mask
            checked += 1
            fits += expected
    assert checked == 1200 and 0 < fits < checked


def test_a_single_gpu_placement_is_the_single_gpu_mask_or_refused_off_the_cluster():
    """``can_place`` of a one-GPU job on one GPU (its short path) says what the mask says there, and
    refuses an index off the cluster; a gang of the wrong size is still refused."""
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 4, 2, cpu_milli=32000, memory_mib=262144),
                       NodeGroup("V100-32GB", 32.0, 4, 2, cpu_milli=32000, memory_mib=131072)])
    rng = np.random.default_rng(1)
    fits = 0
    for trial in range(40):
        state = ClusterState(cluster)
        for i in range(int(rng.integers(0, 10))):
            job = random_job(rng, i)
            where = np.flatnonzero(state.fit_mask(job))
            if len(where):
                state.place(job, state.gang_for(job, int(rng.choice(where))))
        if trial % 3 == 0:
            state.set_node_down(int(rng.integers(0, 4)), True)
        job = random_job(rng, 100)
        job = dataclasses.replace(job, gpus=1)
        for g in range(cluster.n_gpus):  # nothing cached for these copies: each GPU tested alone
            twin = dataclasses.replace(job)
            assert state.gpus_fit(twin, [g]) == bool(state.single_gpu_fit(twin)[g])
        mask = state.single_gpu_fit(job)
        for g in range(cluster.n_gpus):
            assert state.can_place(job, (g,)) == bool(mask[g])
            assert state.can_place(job, [np.int64(g)]) == bool(mask[g])
            fits += bool(mask[g])
        assert not state.can_place(job, (-1,)) and not state.can_place(job, (cluster.n_gpus,))
        assert not state.can_place(job, (0, 1))
    assert 0 < fits < 40 * cluster.n_gpus
