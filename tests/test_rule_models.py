"""Safe loading of the tuned rule's and the inspector's model files: through the command line a
tampered file, NaN weights or a sidecar of another version get one line and exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gpusched.agent.inspect_network import build_network
from gpusched.agent.models import ModelError
from gpusched.agent.rule_models import (
    list_rule_models,
    load_inspect,
    load_tuned,
    save_inspect,
    save_tuned,
)
from gpusched.agent.tune import start_weights
from gpusched.env.inspect import INSPECT_FEATURES

TUNED_META = {"base": "sjf+fastest_fit", "placement": "fastest_fit"}
INSPECT_META = {"base": "sjf+first_fit", "bound": 3, "hidden": 8, "obs_size": len(INSPECT_FEATURES)}


def _tuned(folder, name="m", weights=None):
    path = folder / "tuned" / f"{name}.npz"
    save_tuned(path, start_weights() if weights is None else weights, TUNED_META)
    return path


def _inspect(folder, name="m", nan=False):
    state = build_network(len(INSPECT_FEATURES), 8).state_dict()
    if nan:
        first = next(k for k, v in state.items() if v.is_floating_point())
        state[first][...] = float("nan")
    path = folder / "inspect" / f"{name}.zip"
    save_inspect(path, state, INSPECT_META)
    return path


def _tamper(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _version(path, version):
    side = path.with_suffix(".json")
    meta = json.loads(side.read_text())
    meta["version"] = version
    side.write_text(json.dumps(meta))


def _cli(policy, models_dir):
    env = {**os.environ, "GPUSCHED_MODELS_DIR": str(models_dir)}
    return subprocess.run([sys.executable, "-m", "gpusched", "simulate", "--scenario", "ll-stall-mini",
                           "--policy", policy, "--jobs", "5"], capture_output=True, text=True, env=env,
                          cwd=models_dir, timeout=300)


@pytest.fixture
def models(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(tmp_path))
    return tmp_path


def test_good_files_load_and_list(models):
    tuned = load_tuned(str(_tuned(models)))
    assert np.array_equal(tuned.weights, start_weights())
    inspect = load_inspect(str(_inspect(models)))
    assert inspect.meta["base"] == "sjf+first_fit"
    listed = {(m.kind, m.path.name, m.error) for m in list_rule_models() if m.origin == "user"}
    assert ("tuned", "m.npz", "") in listed and ("inspect", "m.zip", "") in listed


@pytest.mark.parametrize(("kind", "spoil", "needle"), [
    ("tuned", "sha", "does not match the sha256"),
    ("tuned", "nan", "NaN"),
    ("tuned", "version", "version: 2 is not 1"),
    ("inspect", "sha", "does not match the sha256"),
    ("inspect", "nan", "NaN"),
    ("inspect", "version", "version: 2 is not 1"),
])
def test_spoiled_files_are_refused_in_one_line(models, kind, spoil, needle):
    if kind == "tuned":
        weights = np.where(start_weights() > 0, np.nan, 0.0) if spoil == "nan" else None
        path = _tuned(models, "bad", weights)
        load, policy = load_tuned, "tuned:bad"
    else:
        path = _inspect(models, "bad", nan=spoil == "nan")
        load, policy = load_inspect, "ppo_inspect:bad"
    if spoil == "sha":
        _tamper(path)
    elif spoil == "version":
        _version(path, 2)
    with pytest.raises(ModelError, match=needle):
        load("bad")
    out = _cli(policy, models)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in out.stderr
    assert out.stdout == ""


def test_a_file_outside_the_model_folders_is_refused(tmp_path):
    path = _tuned(tmp_path / "elsewhere")
    with pytest.raises(ModelError, match="outside the model folders"):
        load_tuned(str(path))


def test_the_sidecar_names_any_placement_but_not_a_scheduler_that_picks_its_own_job(models):
    from gpusched.agent.plugin import tuned_policy
    from gpusched.experiment.runner import run_policy, run_scheduler
    from gpusched.workload.presets import load_scenario

    scenario = load_scenario("fleet-16gpu")
    save_tuned(models / "tuned" / "eft.npz", start_weights(), {**TUNED_META, "placement": "eft"})
    ours = run_scheduler(scenario, tuned_policy("eft", 1000), "tuned:eft", 1000, n_jobs=120)
    sjf_eft = run_policy(scenario, "sjf+eft", 1000, n_jobs=120)
    assert ours.jobs.equals(sjf_eft.jobs)  # sjf's weights, EFT's plans
    save_tuned(models / "tuned" / "agent.npz", start_weights(), {**TUNED_META, "placement": "ppo"})
    with pytest.raises(ModelError, match="placement: 'ppo' cannot place the job a score picks"):
        tuned_policy("agent")
