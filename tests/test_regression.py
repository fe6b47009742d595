"""Regression: without a ``queue`` or ``speed`` key, every metric of every policy on every
shipped preset is identical, bit for bit, to the stored results (``tests/data/regression.json``,
written before the queue window, GPU speeds and run-time estimates existed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusched.experiment.runner import run_policy
from gpusched.workload.presets import load_scenario

STORED = Path(__file__).resolve().parent / "data" / "regression.json"
FIFO_POLICIES = ("first_fit", "least_loaded", "least_loaded_jobs", "least_loaded_vram", "least_loaded_fit",
                 "best_fit", "random", "fgd", "dot_product", "gpu_clustering", "gpu_packing",
                 "fgd_best_fit", "fgd_random")
SLOW_POLICIES = ("ppo", "queue_lookahead")
SLOW_PRESETS = ("ll-stall-mini", "phase1-4gpu")
PRESETS = ("homogeneous-16gpu", "homogeneous-8gpu", "hetero-bigfirst-16gpu", "hetero-biglast-16gpu",
           "ll-stall-mini", "openb-sample", "phase1-4gpu", "phase1-8gpu", "small-nodes-16gpu")


def cases() -> list[tuple[str, str]]:
    """Every (preset, policy) pair the stored file holds."""
    out = [(p, q) for p in PRESETS for q in FIFO_POLICIES]
    return out + [(p, q) for p in SLOW_PRESETS for q in SLOW_POLICIES]


def measure(preset: str, policy: str) -> dict[str, float]:
    """The metrics of one run on the preset's own seed."""
    return dict(run_policy(load_scenario(preset), policy).metrics)


def write_stored() -> None:
    """Write the stored results from the code as it is (run once, before a change)."""
    data = {f"{p}/{q}": measure(p, q) for p, q in cases()}
    STORED.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


@pytest.mark.parametrize(("preset", "policy"), cases())
def test_metrics_are_unchanged_without_queue_or_speed_keys(preset, policy):
    stored = json.loads(STORED.read_text(encoding="utf-8"))[f"{preset}/{policy}"]
    scenario = load_scenario(preset)
    assert "queue" not in scenario.model_dump(exclude_none=True)
    now = measure(preset, policy)
    for key, value in stored.items():
        assert now[key] == value, (key, now[key], value)
