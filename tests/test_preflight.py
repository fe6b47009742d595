"""One check before any run (``gpusched.policies.preflight``), shared by ``simulate``, ``compare``,
``sweep`` and ``train``: what one refuses the others refuse, in one line, exit code 2, before any
run starts. Sweeps once passed their spec check and then failed every run (exit 1) where
``simulate`` refused the same input (exit 2)."""

from __future__ import annotations

import json

import pytest
import yaml
from hostile_inputs import (
    FITS_CSV,
    LIST_SCENARIO,
    NEVER_FITS_CSV,
    SHIPPED_SIDECAR,
    SHIPPED_ZIP,
    scenario_yaml,
)

from gpusched.cli import main
from gpusched.errors import GpuschedError
from gpusched.policies import get_policy
from gpusched.policies.preflight import check_runs
from gpusched.sweep.spec import SweepError, load_sweep
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

NONE_SCENARIO = scenario_yaml({"workload.declared_run_time": "none"})

INPUTS = {
    # name: (files, the policy the commands run, the text every refusal holds)
    "a policy that reads run times under none": (
        {"s.yaml": NONE_SCENARIO}, "sjf+first_fit", "'sjf+first_fit' reads them"),
    "a model that reads run times under none": (
        {"s.yaml": NONE_SCENARIO, "models/m.zip": SHIPPED_ZIP, "models/m.json": json.dumps(SHIPPED_SIDECAR)},
        "ppo:models/m.zip", "'ppo:models/m.zip' reads them"),
    "a job list with a job that never fits": (
        {"s.yaml": scenario_yaml(base=LIST_SCENARIO), "jobs.csv": NEVER_FITS_CSV}, "first_fit",
        "job 3 (trace) asks for 8 GPU(s)"),
    "a missing job list": (
        {"s.yaml": scenario_yaml(base=LIST_SCENARIO)}, "first_fit", "jobs.csv': no such file"),
}


def _write(files: dict[str, str | bytes], tmp) -> None:
    for name, content in files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content.replace("{tmp}", str(tmp)), encoding="utf-8")


def _commands(policy: str, tmp) -> dict[str, list[str]]:
    scenario = str(tmp / "s.yaml")
    spec = {"name": "sw", "simulate": {"scenarios": [scenario], "policies": [policy], "seeds": [0, 1]}}
    (tmp / "spec.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    commands = {
        "simulate": ["simulate", "--scenario", scenario, "--policy", policy],
        "compare": ["compare", "--scenario", scenario, "--policies", policy, "--seeds", "2"],
        "sweep": ["sweep", str(tmp / "spec.yaml"), "--workers", "1", "--out", str(tmp / "out")],
    }
    if not policy.startswith("ppo"):  # train runs its teacher (and its evaluation) on the scenario
        teacher = [] if policy == "first_fit" else ["--set", f"bc_policy={policy}"]
        commands["train"] = ["train", "--scenario", scenario, "--urgency", "none", "--timesteps", "10",
                             "--out", str(tmp / "m.zip"), *teacher]
    return commands


@pytest.mark.parametrize("name", list(INPUTS))
def test_what_one_command_refuses_the_others_refuse_before_any_run(name, tmp_path, monkeypatch, capsys):
    files, policy, needle = INPUTS[name]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(tmp_path / "models"))
    _write(files, tmp_path)
    commands = _commands(policy, tmp_path)
    assert len(commands) >= 3
    for command, argv in commands.items():
        code = main(argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1, (command, err)
        assert needle in err[0] and "Traceback" not in err[0], (command, err[0])
    assert not (tmp_path / "out" / "results.csv").exists()  # the sweep started no run
    assert not (tmp_path / "m.zip").exists()  # nor did training


def test_check_runs_refuses_without_running_and_passes_what_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "jobs.csv").write_text(FITS_CSV, encoding="utf-8")
    (tmp_path / "s.yaml").write_text(scenario_yaml(base=LIST_SCENARIO).replace("{tmp}", str(tmp_path)),
                                     encoding="utf-8")
    scenario = load_scenario(str(tmp_path / "s.yaml"))
    check_runs(scenario, ["first_fit", "sjf+first_fit"], seed=0)
    assert make_simulator(scenario, 0).run(get_policy("first_fit")).metrics["jobs_completed"] == 3
    (tmp_path / "jobs.csv").write_text(NEVER_FITS_CSV, encoding="utf-8")
    with pytest.raises(GpuschedError, match="job 3"):
        check_runs(scenario, ["first_fit"], seed=0)
    told_none = scenario.with_overrides(**{"workload.declared_run_time": "none"})
    with pytest.raises(GpuschedError, match="'sjf' reads them"):
        check_runs(told_none, ["first_fit", "sjf"], seed=0)
    with pytest.raises(GpuschedError, match="unknown policy"):
        check_runs(scenario, ["nope"], seed=0)


def _sweep(tmp_path, overrides: dict, scenarios=("gavel-108gpu",)):
    spec = {"name": "sw", "simulate": {"scenarios": list(scenarios), "policies": ["first_fit"], "seeds": [0],
                                       "overrides": {"workload.jobs": [5], **overrides}}}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return load_sweep(path)


@pytest.mark.parametrize("values", [[True, "true"], [False, "false"]])
def test_a_sweep_axis_whose_values_run_the_same_scenario_is_refused(values, tmp_path):
    with pytest.raises(SweepError) as err:
        _sweep(tmp_path, {"workload.multi_gpu": values})
    text = str(err.value)
    assert "simulate.overrides" in text and "workload.multi_gpu" in text and "\n" not in text, text


def test_a_sweep_axis_of_values_that_differ_is_kept(tmp_path):
    spec = _sweep(tmp_path, {"workload.multi_gpu": [True, False],
                             "workload.declared_run_time": ["exact", "none"]})
    assert spec.run_count() == 4
    (tmp_path / "s.yaml").write_text(scenario_yaml(), encoding="utf-8")
    spec = _sweep(tmp_path, {"workload.load": [0.2, 0.4]},
                  scenarios=[str(tmp_path / "s.yaml"), "ll-stall-mini"])
    assert spec.run_count() == 4


def test_under_none_a_sweep_refuses_exactly_the_policies_a_run_refuses(tmp_path):
    """Every fast registered policy and queue pair on a scenario that declares no run time: the
    sweep's spec check refuses it if and only if its run is refused."""
    from gpusched.experiment.runner import run_policy
    from gpusched.policies import is_slow, policy_names, queue_policy_names

    (tmp_path / "s.yaml").write_text(NONE_SCENARIO, encoding="utf-8")
    scenario = load_scenario(str(tmp_path / "s.yaml"))
    names = [n for n in dict.fromkeys(policy_names() + queue_policy_names()) if not is_slow(n)]
    refused = 0
    for name in names:
        spec = {"name": "p", "simulate": {"scenarios": [str(tmp_path / "s.yaml")], "policies": [name],
                                          "seeds": [0]}}
        (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
        try:
            load_sweep(tmp_path / "spec.yaml")
            sweep_refuses = False
        except SweepError:
            sweep_refuses = True
        try:
            run_policy(scenario, name, seed=0, n_jobs=6)
            run_refuses = False
        except GpuschedError:
            run_refuses = True
        assert sweep_refuses == run_refuses, name
        refused += run_refuses
    assert 0 < refused < len(names)  # some read run times, some do not
