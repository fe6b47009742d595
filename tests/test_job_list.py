"""``workload.trace.jobs``: a plain job list, its defaults, and the round trip from
``gpusched simulate --jobs-csv``: run, write, read back, rerun, identical metrics and jobs table."""

from __future__ import annotations

import json

import pytest
import yaml

from gpusched.cli import main
from gpusched.policies.registry import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.job_list import read_job_list
from gpusched.workload.openb import TraceError
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario_yaml import scenario_from_dict

GAVEL = {"name": "gavel-mini", "speed": "gavel",
         "cluster": {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 8, "count": 1}
                               for m in ("K80", "P100", "V100")]},
         "workload": {"jobs": 120, "load": 0.8, "generator": "gavel", "multi_gpu": True,
                      "weights": True, "deadlines": True, "seed": 3}}


def _fleet_with_estimates() -> dict:
    data = load_scenario("fleet-16gpu").model_dump(exclude_none=True)
    data["workload"]["runtime_estimate_error"] = 0.5
    return data


def _failures() -> dict:
    return load_scenario("fleet-16gpu-failures").model_dump(exclude_none=True)


def _openb() -> dict:
    return load_scenario("openb-sample").model_dump(exclude_none=True)


@pytest.mark.parametrize(("make", "policy"), [
    (_fleet_with_estimates, "sjf+first_fit"),
    (lambda: GAVEL, "fcfs+fastest_fit"),
    (_failures, "fcfs+eft"),
    (_openb, "best_fit"),
], ids=["estimates", "gavel", "failures", "openb"])
def test_a_runs_jobs_table_reads_back_as_the_same_jobs(make, policy, tmp_path, capsys):
    data = make()
    first = tmp_path / "s.yaml"
    first.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert main(["simulate", "--scenario", str(first), "--policy", policy, "--json",
                 str(tmp_path / "a.json"), "--jobs-csv", str(tmp_path / "a.csv")]) == 0
    replay = dict(data, name="replay", workload=dict(data["workload"]))
    for key in ("load", "arrival_rate_per_hour", "mix", "generator", "multi_gpu", "weights",
                "deadlines", "runtime_estimate_error"):
        replay["workload"].pop(key, None)
    replay["workload"]["trace"] = {"jobs": str(tmp_path / "a.csv")}
    second = tmp_path / "replay.yaml"
    second.write_text(yaml.safe_dump(replay), encoding="utf-8")
    assert main(["simulate", "--scenario", str(second), "--policy", policy, "--json",
                 str(tmp_path / "b.json"), "--jobs-csv", str(tmp_path / "b.csv")]) == 0
    capsys.readouterr()
    a, b = (json.loads((tmp_path / f"{x}.json").read_text())["metrics"] for x in "ab")
    assert a == b
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()
    assert a["jobs_completed"] > 0


def test_the_documented_defaults(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text("id,arrival_min,model,gpus,duration_min\n7,5,,2,30\n3,5,CycleGAN,1,12.5\n",
                    encoding="utf-8")
    jobs = read_job_list(path)
    assert [j.id for j in jobs] == [3, 7]  # by arrival, then id
    job = jobs[1]
    assert (job.type, job.model, job.compute, job.vram_gb, job.priority, job.weight) == \
        ("trace", None, 1.0, 0.0, 2, 1.0)
    assert job.deadline_min is None and job.gpu_spec is None
    assert jobs[0].model == "CycleGAN"


def test_a_model_and_no_type_runs_at_speed_one_without_a_table_naming_it(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text("id,arrival_min,model,gpus,duration_min\n0,0,X,1,30\n", encoding="utf-8")
    scenario = scenario_from_dict({
        "name": "l", "speed": "default",
        "cluster": {"nodes": [{"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 1}]},
        "workload": {"jobs": 1, "trace": {"jobs": str(path)}}})
    result = make_simulator(scenario).run(get_policy("first_fit"))
    assert result.jobs.iloc[0]["run_min"] == pytest.approx(30.0)


def test_an_error_names_the_file_line_and_column(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text("id,arrival_min,model,gpus,duration_min\n0,0,,1,30\n1,0,,1,-4\n", encoding="utf-8")
    with pytest.raises(TraceError, match=r"jobs\.csv', line 3, column 'duration_min': must be >= 0"):
        read_job_list(path)


def _listed_scenario(tmp_path, declared: str | None):
    """A job list whose second job declares 1 minute but runs 200 (and the others declare their
    truth), on one GPU, under ``declared`` (``None``: the key left out)."""
    path = tmp_path / "jobs.csv"
    path.write_text("id,arrival_min,model,gpus,duration_min,estimate_min\n"
                    "0,0,,1,100,\n1,1,,1,200,1\n2,2,,1,50,\n", encoding="utf-8")
    workload = {"jobs": 3, "trace": {"jobs": str(path)}}
    if declared is not None:
        workload["declared_run_time"] = declared
    return scenario_from_dict({"name": "listed", "cluster": {"nodes": [
        {"gpu_model": "A100-80GB", "vram_gb": 80, "gpus_per_node": 1, "count": 1}]},
        "queue": {"window": 4}, "workload": workload})


@pytest.mark.parametrize(("declared", "told"), [("exact", [100.0, 200.0, 50.0]),
                                                ("listed", [100.0, 1.0, 50.0]),
                                                (None, [100.0, 1.0, 50.0])])
def test_an_estimate_column_is_told_under_listed_only(tmp_path, declared, told):
    """``exact`` tells the true run times whatever the list's ``estimate_min`` says; ``listed`` (the
    default for a job list) tells the column. SJF shows it: told 1 minute, job 1 goes before job 2."""
    sim = make_simulator(_listed_scenario(tmp_path, declared))
    assert sim.run_state.declared_min.tolist() == told
    assert [j.declared_min for j in sim.view.jobs] == told
    # the jobs carry the truth only
    assert [j.duration_min for j in sim.run_state.jobs] == [100.0, 200.0, 50.0]
    jobs = sim.run(get_policy("sjf+first_fit")).jobs.set_index("id")
    first = 1 if told[1] < told[2] else 2
    assert jobs.loc[first, "start_min"] == 100.0
    estimates = jobs["estimate_min"]  # what the table writes back: the estimates told
    if declared == "exact":
        assert estimates.isna().all()
    else:
        assert estimates.loc[1] == 1.0 and estimates.drop(1).isna().all()


def test_listed_without_a_job_list_is_refused():
    with pytest.raises(ValueError, match="has no job list"):
        load_scenario("fleet-16gpu").with_overrides(**{"workload.declared_run_time": "listed"})
