"""The real cluster as a preset (``shockwave-tacc-32gpu``, gpusched/workload/shockwave_workload.py):
its jobs are the trace's lines in order with their phases' V100 minutes, every round policy runs it
to the end, and the command line's jobs table names each job by its 0-based line number."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from gpusched.experiment.runner import run_policy
from gpusched.paths import SHOCKWAVE_THROUGHPUTS, SHOCKWAVE_TRACE
from gpusched.policies.rounds import round_policy_names
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario
from gpusched.workload.shockwave import read_shockwave_throughputs, read_shockwave_trace
from gpusched.workload.shockwave_phases import trace_phases

PRESET = "shockwave-tacc-32gpu"


def test_the_preset_is_the_real_cluster_and_the_trace_line_by_line():
    scenario = load_scenario(PRESET)
    assert scenario.n_gpus == 32 and scenario.rounds.length_min == 2.0
    jobs = scenario.jobs()
    trace = read_shockwave_trace(SHOCKWAVE_TRACE)
    phases = trace_phases(trace, read_shockwave_throughputs(SHOCKWAVE_THROUGHPUTS))
    assert [j.id for j in jobs] == list(range(120))
    for job, line, p in zip(jobs, trace.jobs, phases, strict=True):
        assert (job.arrival_min, job.gpus) == (line.arrival_s / 60, line.scale_factor)
        assert job.model == line.job_type
        assert job.duration_min == pytest.approx(p.duration_min("V100"), rel=1e-12)
    sim = make_simulator(scenario, rounds=True)
    clocks = sim.lifecycle.phases.clocks
    assert sum(len(c.work) > 1 for c in clocks.values()) == sum(len(p) > 1 for p in phases) > 60


@pytest.mark.parametrize("policy", round_policy_names())
def test_every_round_policy_runs_the_preset_to_the_end(policy):
    result = run_policy(load_scenario(PRESET), policy)
    assert result.metrics["jobs_completed"] == 120 and result.end_reason == "completed"


def test_the_command_line_names_each_job_by_its_line(tmp_path):
    out = tmp_path / "out.csv"
    done = subprocess.run([sys.executable, "-m", "gpusched", "simulate", "--scenario", PRESET, "--policy",
                           "max_min_fairness", "--jobs-csv", str(out)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out)
    trace = read_shockwave_trace(SHOCKWAVE_TRACE)
    assert sorted(table["id"]) == list(range(120))
    by_id = table.set_index("id")
    assert [by_id.loc[i, "model"] for i in range(120)] == [j.job_type for j in trace.jobs]
    assert (by_id["end_min"] >= by_id["arrival_min"] + by_id["duration_min"] - 1e-9).all()
