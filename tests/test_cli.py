"""The gpusched command line, through subprocess calls."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def run_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpusched", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


def test_scenarios_lists_presets():
    out = run_cli("scenarios")
    assert out.returncode == 0
    for name in ("phase1-4gpu", "phase1-8gpu", "ll-stall-mini", "homogeneous-8gpu"):
        assert name in out.stdout


def test_simulate_prints_metrics_and_writes_json(tmp_path):
    path = tmp_path / "run.json"
    jobs_csv = tmp_path / "jobs.csv"
    out = run_cli("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--seed",
                  "3", "--json", str(path), "--jobs-csv", str(jobs_csv))
    assert out.returncode == 0, out.stderr
    assert "avg_wait_min" in out.stdout
    data = json.loads(path.read_text())
    assert data["scenario"] == "ll-stall-mini" and data["policy"] == "first_fit"
    assert data["seed"] == 3 and data["metrics"]["jobs_submitted"] == 30
    assert len(jobs_csv.read_text().strip().splitlines()) == 31


def test_compare_json_has_every_run_and_summary(tmp_path):
    path = tmp_path / "cmp.json"
    out = run_cli("compare", "--scenario", "ll-stall-mini", "--policies",
                  "first_fit,least_loaded", "--seed-list", "1,2", "--jobs", "12", "--json",
                  str(path))
    assert out.returncode == 0, out.stderr
    data = json.loads(path.read_text())
    assert {(r["policy"], r["seed"]) for r in data["runs"]} == {
        ("first_fit", 1), ("first_fit", 2), ("least_loaded", 1), ("least_loaded", 2)}
    assert all(r["metrics"]["jobs_submitted"] == 12 for r in data["runs"])
    assert set(data["summary"]) == {"first_fit", "least_loaded"}


def test_simulate_is_deterministic():
    a = run_cli("simulate", "--scenario", "phase1-4gpu", "--policy", "random", "--seed", "5")
    b = run_cli("simulate", "--scenario", "phase1-4gpu", "--policy", "random", "--seed", "5")
    assert a.returncode == 0 and a.stdout == b.stdout


BAD_SCENARIOS = {
    "unknown_key": ("name: x\ncluster: {nodes: [{gpu_model: A, vram_gb: 8, gpus_per_node: 1}]}\n"
                    "workload: {jobs: 5, arrival_rate_per_hour: 3, colour: red}\n",
                    "workload.colour"),
    "negative_capacity": ("name: x\ncluster: {nodes: [{gpu_model: A, vram_gb: -16, "
                          "gpus_per_node: 1}]}\nworkload: {jobs: 5, arrival_rate_per_hour: 3}\n",
                          "cluster.nodes[0].vram_gb"),
    "zero_capacity": ("name: x\ncluster: {nodes: [{gpu_model: A, vram_gb: 8, gpus_per_node: 0}]}\n"
                      "workload: {jobs: 5, arrival_rate_per_hour: 3}\n",
                      "cluster.nodes[0].gpus_per_node"),
    "rate_not_a_number": ("name: x\ncluster: {nodes: [{gpu_model: A, vram_gb: 8, "
                          "gpus_per_node: 1}]}\nworkload: {jobs: 5, arrival_rate_per_hour: lots}\n",
                          "workload.arrival_rate_per_hour"),
    "mix_not_one": ("name: x\ncluster: {nodes: [{gpu_model: A, vram_gb: 8, gpus_per_node: 1}]}\n"
                    "workload: {jobs: 5, arrival_rate_per_hour: 3, mix: {training: 0.5}}\n",
                    "workload.mix"),
}


@pytest.mark.parametrize("case", sorted(BAD_SCENARIOS))
def test_bad_scenario_files_exit_2_with_one_line(tmp_path, case):
    text, key = BAD_SCENARIOS[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(text)
    out = run_cli("simulate", "--scenario", str(path), "--policy", "first_fit")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{case}.yaml" in lines[0] and key in lines[0]


@pytest.mark.parametrize("args,needle", [
    (["simulate", "--scenario", "nope", "--policy", "first_fit"], "unknown scenario 'nope'"),
    (["simulate", "--scenario", "ll-stall-mini", "--policy", "nope"], "unknown policy 'nope'"),
    (["compare", "--scenario", "ll-stall-mini", "--policies", "first_fit,nope"], "'nope'"),
    (["simulate", "--scenario", "missing/file.yaml", "--policy", "first_fit"], "not found"),
    (["compare", "--scenario", "ll-stall-mini", "--seeds", "abc"], "--seeds"),
])
def test_bad_arguments_exit_2_with_one_line(args, needle):
    out = run_cli(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]


def test_job_that_fits_nowhere_is_refused(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text("name: tiny\ncluster: {nodes: [{gpu_model: T4-16GB, vram_gb: 16, "
                    "gpus_per_node: 1}]}\nworkload: {jobs: 5, arrival_rate_per_hour: 3}\n")
    # A job list cannot be given on the command line; the refusal is exercised via Python:
    from gpusched.core.jobs import Job
    from gpusched.core.simulator import Simulator
    from gpusched.errors import InfeasibleJobError
    from gpusched.workload.presets import load_scenario

    cluster = load_scenario(str(path)).build_cluster()
    with pytest.raises(InfeasibleJobError, match="job 9"):
        Simulator(cluster, [Job(9, "training", 0, 10, 1, 40.0, 0.5)])


@pytest.mark.parametrize("args,needle", [
    (["simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--seed", "-1"], "--seed"),
    (["compare", "--scenario", "ll-stall-mini", "--seeds=-5"], "--seeds"),
    (["compare", "--scenario", "ll-stall-mini", "--seed-list", "0-1000000000"], "100,000 seeds"),
    (["compare", "--scenario", "ll-stall-mini", "--seeds", "100000000"], "--max-runs"),
    (["simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--jobs", "99999999999"],
     "limit on jobs"),
])
def test_bad_seeds_and_counts_exit_2_with_one_line(args, needle):
    out = run_cli(*args)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], out.stderr


def test_an_output_that_cannot_be_written_is_refused_before_any_run(tmp_path):
    # 2,000 seeds of every heuristic: were the runs started first, this would take many minutes
    # (and the subprocess would time out); the folder is refused before the first one.
    out = run_cli("compare", "--scenario", "phase1-8gpu", "--seeds", "2000", "--max-runs", "1000000",
                  "--json", str(tmp_path))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == f"gpusched: error: --json '{tmp_path}': is a folder, not a file"


def test_piping_into_a_reader_that_stops_is_quiet(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "gpusched", "compare", "--scenario", "ll-stall-mini",
                             "--seeds", "2", "--json", str(tmp_path / "cmp.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader has gone before the first line (as `| head -0`)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and b"Error" not in err and b"Traceback" not in err, err
    assert json.loads((tmp_path / "cmp.json").read_text())["runs"]  # the work was finished


def test_a_synthetic_workload_says_what_it_leaves_out(tmp_path):
    path = tmp_path / "t4.yaml"
    path.write_text("name: t4\ncluster: {nodes: [{gpu_model: T4-16GB, vram_gb: 16, gpus_per_node: 1, "
                    "count: 2}]}\nworkload: {jobs: 10, arrival_rate_per_hour: 3, mix: {training: 1.0}}\n")
    out = run_cli("simulate", "--scenario", str(path), "--policy", "first_fit")
    assert out.returncode == 0
    assert out.stderr.strip().splitlines() == [
        "note: no node could ever hold these shapes, so the workload leaves them out (the other options "
        "are drawn, renormalised): training jobs with 2, 4 or 8 GPUs, or 24, 32, 40 or 80 GB per GPU"]
