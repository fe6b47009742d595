"""Observation version 4: version 3's features, then per GPU whether its node is down and per
window job its attained service, declared remaining work and whether it ran before."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gpusched.env.window import (
    GPU_FEATURES_V3,
    GPU_FEATURES_V4,
    JOB_FEATURES_V3,
    JOB_FEATURES_V4,
    WindowObservationBuilder,
    window_observation_space,
)
from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

LOG_DAY = np.log1p(1440.0)
V3_MODEL = Path(__file__).parent / "data" / "models" / "ppo-window-v3.zip"
"""The window agent shipped before observation version 4 (trained on the waiting time)."""

def test_version_4_extends_version_3_feature_by_feature_on_a_run_with_failures_and_preemption():
    scenario = load_scenario("fleet-16gpu-failures")
    sim = make_simulator(scenario, seed=4)
    policy = get_policy("srtf+best_fit")
    policy.bind(sim.view)
    v3 = WindowObservationBuilder(sim.setup.cluster, 16, 16, sim.setup.speeds, version=3)
    v4 = WindowObservationBuilder(sim.setup.cluster, 16, 16, sim.setup.speeds, version=4)
    space = window_observation_space(16, 16, 4)
    saw_down = saw_resumed = False
    while not sim.run_state.done:
        a, b = v3.observe(sim.view), v4.observe(sim.view)
        assert space.contains(b)
        n3g, n3j = len(GPU_FEATURES_V3), len(JOB_FEATURES_V3)
        np.testing.assert_array_equal(b["gpus"][:, :n3g], a["gpus"])
        np.testing.assert_array_equal(b["jobs"][:, :n3j], a["jobs"])
        for k in ("pairs", "globals", "gpu_present", "job_present"):
            np.testing.assert_array_equal(b[k], a[k])
        down = b["gpus"][:, GPU_FEATURES_V4.index("down")]
        np.testing.assert_array_equal(down, sim.run_state.gpu_down().astype(np.float32))
        window = sim.view.window_indices()
        jobs = b["jobs"][: len(window)]
        attained = sim.run_state.attained_service_gpu_min(window)
        np.testing.assert_allclose(jobs[:, JOB_FEATURES_V4.index("attained")],
                                   np.log1p(attained) / np.log1p(8 * 1440.0), rtol=1e-5)
        remaining = [sim.view.resume_cost_min(i) + sim.view.declared_left_min(i) for i in window]
        np.testing.assert_allclose(jobs[:, JOB_FEATURES_V4.index("remaining")],
                                   np.log1p(remaining) / LOG_DAY, rtol=1e-5)
        resumed = jobs[:, JOB_FEATURES_V4.index("resumed")]
        saw_down |= bool(down.any())
        saw_resumed |= bool(resumed.any())
        slot, action = policy.decide(sim.view)
        sim.step(action, slot)
    assert saw_down and saw_resumed  # the run exercised both new kinds of feature

def test_a_version_3_model_still_gets_version_3_observations(monkeypatch):
    """The window agent shipped before observation version 4 (kept as test data) loads through the
    safe loader from a models folder and reads version-3 observations."""
    from gpusched.agent.models import load_agent
    from gpusched.agent.scheduler import WindowAgentScheduler

    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(V3_MODEL.parent))
    agent = load_agent(V3_MODEL)
    assert agent.meta["obs_version"] == 3 and agent.windowed
    scheduler = WindowAgentScheduler(agent)
    result = make_simulator(load_scenario("fleet-16gpu").with_overrides(**{"workload.jobs": 40}), 1).run(
        scheduler)
    assert result.metrics["jobs_completed"] == 40
    assert scheduler._builder.version == 3
