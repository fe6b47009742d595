"""Sweeps: the same table on every backend, equal to serial compare, resumable, failure-tolerant."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from gpusched.core.metrics import METRIC_KEYS
from gpusched.experiment.runner import compare
from gpusched.sweep import SweepSpec, run_sweep
from gpusched.sweep.runner import read_results
from gpusched.workload.presets import load_scenario

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


# ---------------------------------------------------------------------------- crash safety
CRASH_SPEC = {
    "name": "crash",
    "simulate": {"scenarios": ["ll-stall-mini"], "policies": ["first_fit", "least_loaded"],
                 "seeds": [0, 1, 2], "overrides": {"workload.jobs": [6, 9]}},
}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished 12-run sweep: its folder, spec and whole table."""
    spec = SweepSpec.model_validate(CRASH_SPEC)
    out = tmp_path_factory.mktemp("finished")
    table = run_sweep(spec, out, workers=1)
    assert len(table) == 12 and (table["error"] == "").all()
    return out, spec, table


def _offsets(size: int, header: int) -> list[int]:
    """Cut points: the empty file, inside the header, at each row end and its two sides, and a
    seeded sample of other bytes."""
    rng = np.random.default_rng(12)
    edges = [0, 1, header // 2, header - 1, header, header + 1, size - 1, size - 2, size]
    return sorted({min(max(o, 0), size) for o in [*edges, *rng.integers(0, size, 12).tolist()]})


def test_a_table_cut_at_any_byte_resumes_to_every_run_exactly_once(finished, tmp_path):
    out, spec, table = finished
    data = (out / "results.csv").read_bytes()
    header = data.index(b"\n") + 1
    for cut in _offsets(len(data), header):
        folder = tmp_path / f"cut{cut}"
        folder.mkdir()
        (folder / "results.csv").write_bytes(data[:cut])
        shutil.copy(out / "spec.json", folder / "spec.json")
        readable = read_results(folder)  # what the dashboard reads meanwhile: complete rows only
        assert readable.empty or readable[list(METRIC_KEYS)].notna().all().all()
        resumed = run_sweep(spec, folder, workers=1, resume=True)
        assert sorted(resumed["run_id"]) == sorted(table["run_id"]), cut
        pd.testing.assert_frame_equal(_metrics(resumed), _metrics(table), check_dtype=False)
        assert len(read_results(folder)) == 12  # each run once on disk too, not only in the answer
        assert (folder / "results.csv").read_bytes().count(b"\n") == 13


def test_a_fragment_without_its_newline_is_redone_not_glued(finished, tmp_path):
    out, spec, table = finished
    data = (out / "results.csv").read_bytes()
    cut = data.rstrip(b"\r\n").rfind(b"\n") + 20  # twenty bytes into the last row
    (tmp_path / "results.csv").write_bytes(data[:cut])
    calls = []
    resumed = run_sweep(spec, tmp_path, workers=1, resume=True,
                        progress=lambda done, failed, total: calls.append((done, failed, total)))
    assert calls[-1] == (1, 0, 1)  # only the damaged run again, and it did not fail
    assert len(resumed) == 12 and not resumed[list(METRIC_KEYS)].isna().any().any()


def test_resume_refuses_a_changed_spec(finished, tmp_path):
    out, spec, _ = finished
    from gpusched.errors import GpuschedError

    def changed(**simulate) -> SweepSpec:
        return SweepSpec.model_validate({**CRASH_SPEC, "simulate": {**CRASH_SPEC["simulate"], **simulate}})

    more_seeds = changed(seeds=[0, 1, 2, 3])
    fewer_seeds = changed(seeds=[0, 1])
    more_overrides = changed(overrides={"workload.jobs": [6, 9], "horizon_min": [500.0]})
    with_alloc = SweepSpec.model_validate(
        {**CRASH_SPEC, "allocation": {"pods": ["openb_pod_list_default"], "policies": ["fgd"], "seeds": [1]}})
    refused = {  # spec.json kept: any change; without it (older results) the header and run ids
        True: [more_seeds, fewer_seeds, more_overrides, with_alloc],
        False: [fewer_seeds, more_overrides, with_alloc],
    }
    for keep_spec_file, specs in refused.items():
        for i, other in enumerate(specs):
            folder = shutil.copytree(out, tmp_path / f"{keep_spec_file}-{i}")
            if not keep_spec_file:
                (folder / "spec.json").unlink()
            before = (folder / "results.csv").read_bytes()
            with pytest.raises(GpuschedError, match="spec has changed") as info:
                run_sweep(other, folder, workers=1, resume=True)
            assert "\n" not in str(info.value)
            assert (folder / "results.csv").read_bytes() == before  # nothing appended or rewritten
    older = shutil.copytree(out, tmp_path / "older")
    (older / "spec.json").unlink()
    grown = run_sweep(more_seeds, older, workers=1, resume=True)  # old rows are runs of the new spec
    assert len(grown) == 16 and (older / "spec.json").is_file()
    renamed = SweepSpec.model_validate({**CRASH_SPEC, "name": "renamed", "description": "same runs"})
    again = run_sweep(renamed, shutil.copytree(out, tmp_path / "same"), workers=1, resume=True)
    assert len(again) == 12  # a new name or description runs the same grid: resumable


def test_top_level_overrides_are_applied(tmp_path):
    spec = SweepSpec.model_validate({
        "name": "h", "simulate": {"scenarios": ["ll-stall-mini"], "policies": ["first_fit"], "seeds": [0],
                                  "overrides": {"horizon_min": [60.0, 100000.0]}}})
    table = run_sweep(spec, tmp_path, workers=1).set_index("horizon_min")
    assert table.loc[60.0, "makespan_min"] <= 60.0 < table.loc[100000.0, "makespan_min"]


def test_out_and_run_count_are_checked_before_the_first_run(tmp_path):
    import subprocess
    import sys

    (tmp_path / "a.txt").write_text("x")
    spec = tmp_path / "s.yaml"
    spec.write_text("name: s\nsimulate: {scenarios: [ll-stall-mini], policies: [first_fit], seeds: [0]}\n")
    big = tmp_path / "big.yaml"
    big.write_text("name: big\nsimulate: {scenarios: [ll-stall-mini], policies: [first_fit], "
                   "seeds: {count: 100000}, overrides: {workload.jobs: [5, 6]}}\n")
    for args, needle in [([str(spec), "--out", str(tmp_path / "a.txt")], "is a file, not a folder"),
                         ([str(spec), "--out", str(tmp_path / "a.txt" / "o")], "is a file, not a folder"),
                         ([str(big), "--out", str(tmp_path / "big")], "pass --max-runs 200000")]:
        out = subprocess.run([sys.executable, "-m", "gpusched", "sweep", *args, "--workers", "1"],
                             capture_output=True, text=True)
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and needle in out.stderr, out.stderr
    assert not (tmp_path / "big").exists()  # nothing was started


def test_a_queue_window_override_works_on_a_preset_without_a_queue_key(tmp_path):
    spec = SweepSpec.model_validate({"name": "window", "simulate": {
        "scenarios": ["ll-stall-mini"], "policies": ["sjf"], "seeds": [0],
        "overrides": {"queue.window": [1, 4], "workload.jobs": [20]}}})
    table = run_sweep(spec, tmp_path, workers=1)
    assert (table["error"] == "").all() and len(table) == 2
    base = load_scenario("ll-stall-mini")
    assert base.queue is None
    for window in (1, 4):
        expected = compare(base.with_overrides(**{"queue.window": window, "workload.jobs": 20}), ["sjf"],
                           [0]).runs.iloc[0]
        row = table[table["queue.window"] == window].iloc[0]
        assert row["avg_wait_min"] == pytest.approx(expected["avg_wait_min"], rel=1e-12)


def test_a_sweep_in_which_a_run_failed_writes_its_rows_and_exits_1(tmp_path, monkeypatch, capsys):
    """Rows that could not run are data in the table, and the command says so and exits with 1."""
    import gpusched.cli.sweep as cli_sweep
    from gpusched.cli import main

    def run_sweep_with_a_failure(spec, out, **kwargs):
        out.mkdir(parents=True, exist_ok=True)
        return pd.DataFrame({"run_id": ["a", "b"], "error": ["", "AttributeError: no 'select'"]})

    monkeypatch.setattr(cli_sweep, "run_sweep", run_sweep_with_a_failure)
    spec = tmp_path / "spec.yaml"
    spec.write_text("name: sw\nsimulate: {scenarios: [ll-stall-mini], policies: [first_fit], seeds: [0]}\n",
                    encoding="utf-8")
    code = main(["sweep", str(spec), "--workers", "1", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == cli_sweep.EXIT_RUNS_FAILED == 1
    assert err[-1].startswith("gpusched: error: 1 of 2 runs failed") and "AttributeError" in err[-1]
