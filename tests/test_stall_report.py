"""The stall analysis and its generated explanation."""

from __future__ import annotations

from gpusched import load_scenario, run_policy
from gpusched.experiment.stall import analyse_stall, idle_steps
from gpusched.figures import stall_explanation


def test_least_loaded_stall_is_explained_with_measured_numbers():
    scenario = load_scenario("ll-stall-mini")
    ll = run_policy(scenario, "least_loaded", seed=0)
    ff = run_policy(scenario, "first_fit", seed=0)
    report = analyse_stall(ll)
    assert report.has_stall
    assert abs(report.stall_min - ll.metrics["stall_min"]) < 1e-6 * max(1.0, report.stall_min) + 1e-6
    w = report.worst_job
    assert w["gpu_vram_gb"] < w["vram_gb"], "the headline is a job sent to a GPU too small for it"
    text = stall_explanation(report, baseline=ff)
    assert f"job {w['job']}" in text
    assert w["gpu_label"] in text
    assert f"{report.peak_queue} job" in text
    assert "First-Fit" in text
    assert report.mean_idle_gpus > 0


def test_fit_aware_policy_reports_no_stall():
    scenario = load_scenario("ll-stall-mini")
    report = analyse_stall(run_policy(scenario, "first_fit", seed=0))
    assert not report.has_stall
    assert "no stall" in stall_explanation(report)


def test_idle_steps_count_idle_gpus():
    scenario = load_scenario("ll-stall-mini")
    result = run_policy(scenario, "first_fit", seed=0)
    idle = idle_steps(result)
    assert idle.idle_gpus[0] <= scenario.n_gpus
    assert idle.idle_gpus.min() >= 0 and idle.idle_gpus.max() <= scenario.n_gpus
    assert (idle.durations_min(result.timeline.end_min) >= 0).all()
