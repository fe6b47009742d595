"""The Least-Loaded head-of-line stall is real on the heterogeneous preset, and absent on the
homogeneous control."""

from __future__ import annotations

from gpusched.experiment.runner import compare
from gpusched.workload.presets import load_scenario

SEEDS = range(6)


def _mean_waits(name: str) -> dict[str, float]:
    comparison = compare(load_scenario(name), ["first_fit", "least_loaded"], SEEDS)
    return comparison.summary()["avg_wait_min"].to_dict()


def test_least_loaded_stalls_on_phase1_8gpu():
    waits = _mean_waits("phase1-8gpu")
    assert waits["least_loaded"] >= 3 * waits["first_fit"]


def test_least_loaded_is_fine_on_homogeneous_8gpu():
    waits = _mean_waits("homogeneous-8gpu")
    assert waits["least_loaded"] <= 1.5 * waits["first_fit"] + 1.0


def test_stall_minutes_are_recorded_only_for_least_loaded():
    comparison = compare(load_scenario("phase1-8gpu"), ["first_fit", "least_loaded"], [0])
    stall = comparison.summary()["stall_min"]
    assert stall["first_fit"] == 0
    assert stall["least_loaded"] > 60
    result = comparison.results[("least_loaded", 0)]
    assert len(result.timeline.misroutes) > 0
    assert not result.timeline.stall_intervals().empty
