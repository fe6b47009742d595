"""Agent page: lists models, explains why there is no upload, and trains a model off the script
thread with a polled progress panel."""

from __future__ import annotations

import json
import shutil
import time
import uuid

import pytest
from apptest_support import assert_clean, open_page, plotly_specs

from gpusched.agent.models import list_models
from gpusched.paths import REPO_ROOT
from gpusched.policies import policy_label


def test_agent_page_explains_no_upload():
    at = open_page("views/agent.py")
    assert_clean(at)
    assert at.title[0].value == "Agent"
    assert any("no model upload" in i.value for i in at.info)
    assert not at.file_uploader


def test_agent_page_names_the_seeds_every_model_and_the_best_heuristic_share():
    from gpusched.dashboard.headline import LIVE_SEEDS

    at = open_page("views/agent.py")
    assert_clean(at)
    if not [m for m in list_models() if not m.error]:
        pytest.fail("no model ships in assets/models: the same-seeds table has nothing to show")
    seeds = ", ".join(map(str, LIVE_SEEDS))
    shared = [c.value for c in at.caption if f"workload seeds {seeds}" in c.value]
    assert shared and "best heuristic" in shared[0], [c.value for c in at.caption]


def test_training_a_window_agent_from_the_page_saves_a_selectable_model():
    name = f"apptest-{uuid.uuid4().hex[:8]}"
    at = open_page("views/agent.py")
    at.text_input(key="train_name").set_value(name)
    at.selectbox(key="train_scenario").set_value("ll-stall-mini")
    at.number_input(key="train_timesteps").set_value(1_000)
    at.number_input(key="train_n_steps").set_value(128)
    assert at.radio(key="train_kind").value == "window"
    at.slider(key="train_windows").set_value((1, 4))
    at.number_input(key="train_speed_sigma").set_value(0.3)
    at.number_input(key="train_expert_rounds").set_value(1)
    at.button[0].click().run()
    try:
        assert_clean(at)
        assert at.get("progress"), "no progress bar once training starts"
        assert any(b.label == "Stop" for b in at.button)
        deadline = time.monotonic() + 150
        while not any("Saved" in s.value for s in at.success):
            assert time.monotonic() < deadline, "training from the page did not finish"
            time.sleep(1.5)
            at.run()
            assert_clean(at)
        model = next(m for m in list_models() if m.name == name)
        assert model.origin == "user" and model.windowed
        assert model.meta["random_windows"] == [1, 4] and model.meta["speed_sigma"] == 0.3
        assert model.meta["max_window"] == 4
        assert [r["round"] for r in model.meta["expert_iteration"]["rounds"]] == [1]
        rounds = next(spec for spec in plotly_specs(at) if "Expert iteration" in json.dumps(spec))
        assert rounds["data"][0]["x"] == [0, 1], "no validation score per expert-iteration round"
        curves = next(spec for spec in plotly_specs(at)
                      if "Evaluation: average wait (min)" in json.dumps(spec))
        assert curves["data"][1]["y"], "no evaluation wait-time curve"
        assert curves["data"][2]["y"], "no evaluation reward curve"
        assert policy_label(f"ppo:models/{name}.zip") in at.radio(key="agent_choice").options
    finally:
        for path in (REPO_ROOT / "models").glob(f"{name}.*"):
            path.unlink()
        shutil.rmtree(REPO_ROOT / "runs" / f"{name}-s0", ignore_errors=True)
        for path in (REPO_ROOT / "runs" / "tb").glob(f"{name}-s0_*"):
            shutil.rmtree(path, ignore_errors=True)
