"""The action mask is exact: valid GPUs are exactly the placements the simulator can make."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import node_groups

from gpusched.core.cluster import Cluster
from gpusched.env import GPUSchedulerEnv
from gpusched.workload.synthetic import generate_jobs


def _check_mask(env: GPUSchedulerEnv) -> None:
    sim, mask = env.sim, env.action_masks()
    job, state, n = sim.view.head_job, sim.run_state.state, sim.setup.cluster.n_gpus
    assert not mask[n:env.max_gpus].any(), "padding slots are never valid"
    assert mask[-1] == (not sim.run_state.hold_would_dead_stall())
    single = state.single_gpu_fit(job)
    for g in range(n):
        gang = state.gang_for(job, g)
        # Valid exactly where the simulator would place the job, and the gang is legal.
        assert bool(mask[g]) == bool(gang), (g, gang)
        if gang:
            assert state.can_place(job, gang) and gang[0] == g
    # Every legal gang (any job.gpus fitting GPUs of one node) only uses GPUs marked valid.
    for node in range(sim.setup.cluster.n_nodes):
        first = int(sim.setup.cluster.node_first_gpu[node])
        local = [g for g in range(first, first + int(sim.setup.cluster.node_gpu_count[node])) if single[g]]
        if len(local) >= job.gpus:
            assert all(mask[g] for g in local)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_groups, st.integers(1, 40), st.floats(2.0, 60.0), st.integers(0, 2**31 - 1))
def test_masks_are_exact(groups, n_jobs, rate, seed):
    cluster = Cluster(groups)
    jobs = generate_jobs(n_jobs, rate, {"training": 0.4, "inference": 0.3, "batch": 0.3},
                         np.random.default_rng(seed), cluster.max_vram_gb_for_gpus())
    env = GPUSchedulerEnv("phase1-8gpu", max_gpus=max(cluster.n_gpus, 8) + 2)
    env.reset(seed=seed, options={"jobs": jobs, "cluster": cluster})
    rng = np.random.default_rng(seed)
    done = False
    while not done:
        _check_mask(env)
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, terminated, truncated, info = env.step(action)
        if action < cluster.n_gpus:
            assert info["placed"], "a valid GPU action always places the job"
        done = terminated or truncated
    assert info["end_reason"] == "completed"
    assert not env.sim.run_state.log.misroutes
