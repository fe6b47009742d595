"""Background training: a child process that can be polled and stopped."""

from __future__ import annotations

import time

import pytest

from gpusched.agent.training_job import TrainingJob, user_model_path


def test_user_model_path_is_safe():
    path = user_model_path("../../etc/evil name")
    assert path.parent.name == "models"
    assert path.name.endswith(".zip") and "/" not in path.name and " " not in path.name


def test_stop_ends_the_run_without_a_model(tmp_path):
    from gpusched.agent.config import TrainConfig

    config = TrainConfig(scenario="ll-stall-mini", timesteps=1_000_000, n_envs=1,
                         out=str(tmp_path / "models" / "stop-me.zip"), log_dir=str(tmp_path / "runs"),
                         progress=False, bc_policy=None)
    job = TrainingJob(config)
    job.start()
    assert job.snapshot().status == "running"
    time.sleep(1.0)
    job.stop()
    snap = job.snapshot()
    assert snap.status == "stopped" and snap.finished
    assert snap.model_path is None and not (tmp_path / "models" / "stop-me.zip").exists()
    assert snap.fraction < 1.0


SMALLEST_RUN_S = 60.0
"""The Agent page's smallest run (the form's defaults at its least timesteps) must end within this
on a 2-core machine (seconds)."""


def _page_config(tmp_path, kind: str = "window"):
    from gpusched.agent.training_job import page_config

    return page_config(name="small", scenario="phase1-8gpu", kind=kind, timesteps=1_000, n_envs=2,
                       seed=0, learning_rate=1e-4, n_steps=512, ent_coef=0.003, hidden=64,
                       windows=(1, 16), speed_sigma=0.2, expert_rounds=0,
                       log_dir=tmp_path / "runs", out=tmp_path / "models" / "small.zip")


@pytest.mark.slow
def test_the_smallest_page_run_reports_its_stages_and_ends_within_a_minute(tmp_path):
    """From the first seconds the run says what it does (loading, the warm start's episodes, the
    evaluations), the PPO steps follow, and the whole run ends within :data:`SMALLEST_RUN_S`."""
    job = TrainingJob(_page_config(tmp_path))
    start = time.monotonic()
    job.start()
    stages: list[str] = []
    while not (snap := job.snapshot()).finished:
        if snap.stage and (not stages or stages[-1] != snap.stage):
            stages.append(snap.stage)
        time.sleep(0.2)
    took = time.monotonic() - start
    assert snap.status == "done", snap.log_tail
    assert took <= SMALLEST_RUN_S, f"the smallest run took {took:.1f} s"
    warm = [s for s in stages if s.startswith("warm start")]
    assert warm and "episode 1 of 4" in warm[0] and "SJF + Fastest-Fit" in warm[0]
    assert stages.index(warm[0]) < stages.index("reinforcement learning (PPO)")
    assert any(s.startswith("evaluating") for s in stages)
    assert len(snap.train_reward) and len(snap.eval_reward)


def test_stop_keeps_the_curves_drawn_so_far(tmp_path):
    """A run stopped during its PPO steps still shows the rewards logged before the stop."""
    from gpusched.agent.config import TrainConfig

    config = TrainConfig(scenario="ll-stall-mini", timesteps=1_000_000, n_envs=1, n_steps=64,
                         batch_size=64, eval_freq=64, out=str(tmp_path / "models" / "stop.zip"),
                         log_dir=str(tmp_path / "runs"), progress=False, bc_policy=None)
    job = TrainingJob(config)
    job.start()
    deadline = time.monotonic() + 120
    while not len(job.snapshot().eval_reward) and time.monotonic() < deadline:
        time.sleep(0.5)
    before = job.snapshot()
    assert len(before.eval_reward), before.log_tail
    job.stop()
    after = job.snapshot()
    assert after.status == "stopped"
    assert len(after.eval_reward) >= len(before.eval_reward) and after.timesteps_done > 0
    assert after.stage == "reinforcement learning (PPO)" and after.stage_fraction > 0
