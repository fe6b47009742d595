"""The agent through the command line: ``compare`` with the shipped model, and ``train``'s errors."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest


def run_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpusched", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_compare_first_fit_and_ppo_end_to_end(tmp_path):
    path = tmp_path / "cmp.json"
    out = run_cli("compare", "--scenario", "phase1-8gpu", "--policies", "first_fit,ppo",
                  "--seed-list", "1000", "--jobs", "60", "--json", str(path), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "ppo" in out.stdout
    data = json.loads(path.read_text())
    assert {r["policy"] for r in data["runs"]} == {"first_fit", "ppo"}
    assert data["summary"]["ppo"]["jobs_completed"] == 60


def test_simulate_with_an_untrusted_model_path_fails_cleanly(tmp_path):
    (tmp_path / "evil.zip").write_bytes(b"not a model")
    out = run_cli("simulate", "--scenario", "ll-stall-mini", "--policy", f"ppo:{tmp_path / 'evil.zip'}",
                  cwd=tmp_path)
    assert out.returncode == 2
    assert "outside the model folders" in out.stderr and "Traceback" not in out.stderr


def test_train_rejects_bad_input():
    out = run_cli("train", "--scenario", "no-such-preset", "--timesteps", "10", "--out", "x.zip")
    assert out.returncode == 2 and "unknown scenario" in out.stderr
    out = run_cli("train", "--scenario", "phase1-8gpu", "--timesteps", "0", "--out", "x.zip")
    assert out.returncode == 2


@pytest.mark.parametrize(("args", "needle"), [
    (("--windows", "8-2"), "window range 8-2: the first value is above the second"),
    (("--windows", "1-999"), "must be <= 128 (the longest queue window)"),
    (("--windows", "1-4", "--speed-sigma", "nan"), "expected a finite number, got 'nan'"),
    (("--windows", "1-4", "--speed-sigma", "2"), "must be from 0 to 1 (the largest speed randomisation)"),
    (("--speed-sigma", "0.2",), "give --windows too"),
    (("--urgency", "history", "--windows", "1-4"), "leave out --windows"),
    (("--urgency", "history", "--set", "declared_run_time=psychic"), "declared_run_time: must be one of"),
    (("--loads", "0.1-0.5",), "give --randomize too"),
    (("--randomize", "--loads", "0-0.5"), "must be from 0.001 to 100 (the load range)"),
    (("--timesteps", "1000000000",), "must be <= 100,000,000 (the limit on training steps)"),
    (("--n-envs", "65",), "must be <= 64 (the limit on training environments)"),
])
def test_train_refuses_bad_window_and_size_options_in_one_line(args, needle, tmp_path):
    base = ["train", "--scenario", "fleet-16gpu", "--out", str(tmp_path / "m.zip")]
    if "--timesteps" not in args:
        base += ["--timesteps", "10"]
    out = run_cli(*base, *args)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], out.stderr
    assert not (tmp_path / "m.zip").exists()


def test_import_gpusched_does_not_import_torch():
    code = "import sys, gpusched, gpusched.policies; gpusched.policies.get_policy('first_fit'); " \
           "print('torch' in sys.modules)"
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
    assert time.perf_counter() - start < 60


def test_train_set_overrides_are_checked():
    from gpusched.agent.config import TrainConfig
    from gpusched.cli.train import _apply_overrides
    from gpusched.errors import GpuschedError

    config = TrainConfig()
    _apply_overrides(config, ["ent_coef=0.02", "eval_seeds=[7, 8]", "bc_policy=first_fit"])
    assert config.ent_coef == 0.02 and config.eval_seeds == (7, 8) and config.bc_policy == "first_fit"
    with pytest.raises(GpuschedError, match="TrainConfig field"):
        _apply_overrides(config, ["no_such_knob=1"])
