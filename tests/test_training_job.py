"""Background training: a child process that can be polled and stopped."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from gpusched.agent.training_job import TrainingJob, user_model_path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench_page_training import timed_run  # noqa: E402


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


@pytest.mark.slow
def test_the_smallest_page_run_reports_its_stages_and_ends(tmp_path):
    """From the first seconds the run says what it does (loading, the warm start's episodes, the
    evaluations), the PPO steps follow, and the run ends with a model. How long it takes is
    ``benchmarks/bench_page_training.py``'s to measure, not a test's."""
    _, snap, stages = timed_run(tmp_path)
    assert snap.status == "done", snap.log_tail
    warm = [s for s in stages if s.startswith("warm start")]
    assert warm and "episode 1 of 4" in warm[0] and "SJF + Fastest-Fit" in warm[0]
    assert stages.index(warm[0]) < stages.index("reinforcement learning (PPO)")
    assert any(s.startswith("evaluating") for s in stages)
    assert len(snap.train_reward) and len(snap.eval_reward)
    assert snap.model_path is not None and (tmp_path / "models" / "small.zip").exists()


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
