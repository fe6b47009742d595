"""Models saved before the window agent (the shipped FIFO agent among them) still load through the
safe loader and run everywhere; ``ppo`` chooses between the shipped models by the queue window."""

from __future__ import annotations

import json

import pytest

from gpusched.agent.models import ModelError, load_agent
from gpusched.experiment.runner import run_policy
from gpusched.paths import SHIPPED_MODELS_DIR
from gpusched.workload.presets import load_scenario

OLD = SHIPPED_MODELS_DIR / "ppo-default.zip"


def test_the_fifo_agent_shipped_before_the_window_agent_loads_and_runs_on_fifo_and_window_scenarios():
    agent = load_agent(OLD)
    assert agent.meta["obs_version"] == 1 and not agent.windowed
    fifo = run_policy(load_scenario("phase1-4gpu"), "ppo:assets/models/ppo-default.zip", seed=1000)
    assert fifo.metrics["jobs_completed"] == fifo.metrics["jobs_submitted"]
    window = run_policy(load_scenario("fleet-16gpu"), "ppo:assets/models/ppo-default.zip", seed=1000,
                        n_jobs=60)
    assert window.metrics["jobs_completed"] == 60
    # a FIFO agent places the oldest job only: it never starts a job out of order
    assert window.metrics["backfilled_jobs"] == 0


def test_a_model_of_an_observation_version_this_code_does_not_read_is_refused_naming_why(tmp_path,
                                                                                       monkeypatch):
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(tmp_path))
    zip_path = tmp_path / "future.zip"
    zip_path.write_bytes(OLD.read_bytes())
    meta = json.loads(OLD.with_suffix(".json").read_text())
    meta["obs_version"] = 9
    zip_path.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"future\.zip' uses observation version 9; this gpusched "
                                         r"reads versions 1, 2, 3"):
        load_agent(zip_path)


def test_ppo_runs_the_window_agent_on_a_window_and_the_fifo_agent_on_a_strict_queue():
    fleet = load_scenario("fleet-16gpu")
    shipped = run_policy(fleet, "ppo", seed=1000, n_jobs=80)
    assert shipped.metrics == run_policy(fleet, "ppo:assets/models/ppo-window.zip", seed=1000,
                                         n_jobs=80).metrics
    assert shipped.metrics["backfilled_jobs"] > 0  # it chooses which job runs
    fifo = load_scenario("phase1-4gpu")
    assert run_policy(fifo, "ppo", seed=1000).metrics == run_policy(
        fifo, "ppo:assets/models/ppo-default.zip", seed=1000).metrics
    assert run_policy(fifo, "ppo_rollout", seed=1000).metrics == run_policy(
        fifo, "ppo_rollout:assets/models/ppo-default.zip", seed=1000).metrics
