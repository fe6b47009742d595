"""Imitation labels keep the teacher's whole gang: a teacher's gang becomes the environment action
at which the gang rule takes exactly that gang, or no label when no action does (never the action
at its first GPU, which may take other GPUs)."""

from __future__ import annotations

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.jobs import Job
from gpusched.core.simulator import HOLD
from gpusched.env import GPUSchedulerEnv


def _env(obs_version: int = 1) -> GPUSchedulerEnv:
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 4)])
    jobs = [Job(id=0, type="training", arrival_min=0.0, duration_min=30.0, gpus=2, vram_gb=20.0,
                compute=1.0)]
    env = GPUSchedulerEnv("phase1-4gpu", max_gpus=4, obs_version=obs_version)
    env.reset(seed=0, options={"jobs": jobs, "cluster": cluster})
    return env


def test_a_gang_the_rule_takes_from_another_gpu_is_labelled_there():
    env = _env()
    # The first-GPU rule would label GPU 0, whose gang is (0, 1): not the teacher's (0, 2).
    assert env.sim.setup.gang_rule.gang_for(env.sim.run_state.state, env.sim.view.head_job, 0) == (0, 1)
    label = env.action_for(0, (0, 2))
    assert label == 2
    env.step(label)
    assert sorted(env.sim.run_state.record.job_gpus[0]) == [0, 2]  # the environment takes the teacher's gang


def test_a_gang_no_action_makes_gets_no_label():
    env = _env()
    assert env.action_for(0, (2, 3)) is None  # from 2 the rule takes (2, 0), from 3 (3, 0)


def test_a_gpu_and_hold_are_labelled_as_they_are():
    env = _env(obs_version=3)
    assert env.action_for(0, 1) == 1
    assert env.action_for(0, HOLD) == env.hold_action
    assert env.action_for(0, (1, 0)) == 1  # the teacher's own first GPU, when the rule agrees
