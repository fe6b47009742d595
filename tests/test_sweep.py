"""Sweeps: the same table on every backend, equal to serial compare, resumable, failure-tolerant."""

from __future__ import annotations

import importlib.util
import os

import pandas as pd
import pytest

from gpusched.core.metrics import METRIC_KEYS
from gpusched.experiment.runner import compare
from gpusched.sweep import SweepSpec, run_sweep
from gpusched.sweep.runner import read_results
from gpusched.workload.scenario import load_scenario

SPEC = {
    "name": "small",
    "simulate": {
        "scenarios": ["ll-stall-mini", "phase1-4gpu"],
        "policies": ["first_fit", "least_loaded", "random"],
        "seeds": {"start": 0, "count": 4},
        "overrides": {"workload.jobs": [20]},
    },
}


def _metrics(table: pd.DataFrame) -> pd.DataFrame:
    cols = ["scenario", "policy", "seed", *METRIC_KEYS]
    return table[cols].sort_values(["scenario", "policy", "seed"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def spec() -> SweepSpec:
    return SweepSpec.model_validate(SPEC)


@pytest.fixture(scope="module")
def local_table(spec, tmp_path_factory) -> pd.DataFrame:
    return run_sweep(spec, tmp_path_factory.mktemp("local"), backend="local", workers=2)


def test_sweep_has_24_runs_and_matches_serial_compare(spec, local_table):
    assert len(spec.runs()) == 24 and len(local_table) == 24
    assert (local_table["error"] == "").all()
    serial = []
    for name in SPEC["simulate"]["scenarios"]:
        scenario = load_scenario(name).with_overrides(**{"workload.jobs": 20})
        runs = compare(scenario, SPEC["simulate"]["policies"], range(4)).runs
        serial.append(runs.assign(scenario=name))
    expected = _metrics(pd.concat(serial))
    got = _metrics(local_table)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=1e-12)


def test_one_worker_and_two_workers_give_identical_tables(spec, local_table, tmp_path):
    serial = run_sweep(spec, tmp_path, backend="local", workers=1)
    pd.testing.assert_frame_equal(serial, local_table)


def test_ray_backend_gives_the_same_table(spec, local_table, tmp_path):
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI"):
            pytest.fail("ray is not installed: .ci/run installs requirements-ray.txt")
        pytest.skip("ray is not installed (pip install -r requirements-ray.txt)")
    ray_table = run_sweep(spec, tmp_path, backend="ray", workers=2)
    pd.testing.assert_frame_equal(ray_table, local_table)


def test_resume_skips_done_runs_and_failures_are_recorded(tmp_path):
    spec = SweepSpec.model_validate({
        "name": "resume",
        "simulate": {"scenarios": ["ll-stall-mini"], "policies": ["first_fit", "no_such_policy"],
                     "seeds": [0, 1], "overrides": {"workload.jobs": [10]}},
    })
    table = run_sweep(spec, tmp_path, workers=1)
    assert len(table) == 4
    failed = table[table["error"] != ""]
    assert set(failed["policy"]) == {"no_such_policy"} and len(failed) == 2
    assert failed["error"].str.contains("unknown policy").all()
    # A finished sweep refuses to overwrite without --resume; with it, only failures rerun.
    from gpusched.errors import GpuschedError

    with pytest.raises(GpuschedError, match="--resume"):
        run_sweep(spec, tmp_path, workers=1)
    calls = []
    again = run_sweep(spec, tmp_path, workers=1, resume=True,
                      progress=lambda done, failed, total: calls.append(total))
    assert calls and calls[-1] == 2  # only the two failed runs were retried
    pd.testing.assert_frame_equal(again, table)
    assert len(read_results(tmp_path)) == 4


def test_sweep_cli_and_bad_spec(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nsimulate: {scenarios: [a], policies: [b], seeds: [0], colour: red}\n")
    out = subprocess.run([sys.executable, "-m", "gpusched", "sweep", str(bad)],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "simulate.colour" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    good = tmp_path / "good.yaml"
    good.write_text("name: g\nsimulate: {scenarios: [ll-stall-mini], policies: [first_fit], "
                    "seeds: [0, 1], overrides: {workload.jobs: [5]}}\n")
    out = subprocess.run([sys.executable, "-m", "gpusched", "sweep", str(good), "--out",
                          str(tmp_path / "o"), "--workers", "1"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert len(read_results(tmp_path / "o")) == 2
