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


def _train_args(*extra: str):
    from gpusched.cli.main import build_parser

    return build_parser().parse_args(["train", "--scenario", "ll-stall-mini", "--timesteps", "10",
                                      "--out", "models/m.zip", *extra])


@pytest.mark.parametrize(("extra", "needle"), [
    (("--urgency", "history", "--randomize"), "--urgency trains on the scenario's own cluster"),
    (("--urgency", "none", "--speed-sigma", "0.2"), "--urgency trains on the scenario's own GPU speeds"),
    (("--urgency", "history", "--max-gpus", "2"), "max_gpus (--max-gpus): scenario 'll-stall-mini' has 3"),
])
def test_train_urgency_refuses_the_flags_it_once_overwrote(extra, needle):
    """``--urgency`` once set randomize, speed_sigma and max_gpus to its own values without a word,
    and the sidecar recorded other values than asked."""
    from gpusched.cli.train import config_from_args
    from gpusched.errors import GpuschedError

    with pytest.raises(GpuschedError) as err:
        config_from_args(_train_args(*extra))
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_train_urgency_keeps_the_gpu_slots_asked_for_and_the_sidecar_records_them():
    from gpusched.agent.train import sidecar_settings
    from gpusched.cli.train import config_from_args

    config = config_from_args(_train_args("--urgency", "history", "--max-gpus", "40"))
    side = sidecar_settings(config, config.training_scenario())
    assert config.max_gpus == side["max_gpus"] == side["config"]["max_gpus"] == 40
    assert side["randomize"] is False and side["config"]["speed_sigma"] == 0.0
    config = config_from_args(_train_args("--urgency", "history"))  # not asked: the default slots
    assert config.max_gpus == 16
    config = config_from_args(_train_args("--urgency", "history", "--set", "randomize=true"))
    assert config.randomize is True  # a --set after --urgency is kept, and recorded
    assert sidecar_settings(config, config.training_scenario())["randomize"] is True


@pytest.mark.parametrize(("extra", "needle"), [
    (("--randomize", "--loads", "0.2-0.4"), "random_loads (--loads): randomises a window agent's"),
    (("--set", "speed_sigma=0.2"), "speed_sigma (--speed-sigma): randomises a window agent's"),
    (("--set", "random_windows=[1,4]"), "random_windows: randomises a window agent's"),
])
def test_train_refuses_window_settings_a_fifo_agent_would_ignore(extra, needle):
    """A FIFO agent's environment never reads the window agent's randomisation: it once trained
    without it and the sidecar recorded it as used."""
    from gpusched.cli.train import config_from_args
    from gpusched.errors import GpuschedError

    with pytest.raises(GpuschedError) as err:
        config_from_args(_train_args(*extra))
    assert needle in str(err.value) and "\n" not in str(err.value)
    config = config_from_args(_train_args("--windows", "1-4", *extra))  # a window agent reads them
    assert config.obs_version == 4
