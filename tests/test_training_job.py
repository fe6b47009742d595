"""Background training: a child process that can be polled and stopped."""

from __future__ import annotations

import time

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
