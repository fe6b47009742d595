"""Golden file of the simulator's dynamics: every mechanism, bit for bit.

``tests/data/golden.json`` holds, for every case below, every metric, a sha256 of the jobs table
and of the timeline (its placements, holds, misroutes, stops, resumes and node-down intervals),
written from the code before the simulator was split into its components. The cases cover what
:mod:`tests.test_regression` does not: queue windows, GPU speeds, run-time estimate errors, node
failures with checkpoints, the preemptive orders ``las`` and ``srtf``, ``eft`` and ``easy``, and the
lookahead planners; and the per-step rewards of the environment for every observation version
under a seeded sequence of valid actions. Any change to the dynamics, however small, fails here.

Regenerate only on purpose (a deliberate change of the dynamics): ``python tests/test_golden.py``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gpusched.core.result import Result
from gpusched.experiment.runner import run_policy
from gpusched.workload.presets import load_scenario

STORED = Path(__file__).resolve().parent / "data" / "golden.json"

QUEUE_POLICIES = ("fcfs+best_fit", "fitfirst+first_fit", "easy+best_fit", "easy+eft", "sjf+eft",
                  "sjf+fastest_fit", "priority+least_loaded_fit", "wfp3+best_fit", "eft", "fastest_fit")
PREEMPTIVE = ("las+best_fit", "srtf+best_fit", "las+eft", "srtf+fastest_fit")
CASES: dict[str, tuple[str, dict, int, tuple[str, ...]]] = {
    # name: (preset, overrides, jobs, policies)
    "window-speeds": ("fleet-16gpu", {}, 150, QUEUE_POLICIES + PREEMPTIVE),
    "estimate-error": ("fleet-16gpu", {"workload.runtime_estimate_error": 0.5}, 150,
                       ("sjf+best_fit", "easy+best_fit", "easy+eft", "sjf+eft", "srtf+best_fit",
                        "wfp3+fastest_fit", "queue_lookahead")),
    "failures": ("fleet-16gpu-failures", {"failures.node_failures_per_1000_node_days": 1500.0}, 150,
                 ("easy+best_fit", "easy+eft", "sjf+eft", "fitfirst+best_fit") + PREEMPTIVE),
    "failures-estimates": ("fleet-16gpu-failures", {"workload.runtime_estimate_error": 0.5,
                                                    "failures.node_failures_per_1000_node_days": 1500.0}, 120,
                           ("easy+eft", "srtf+best_fit", "las+best_fit")),
    "window-no-speeds": ("phase1-8gpu", {"queue.window": 8}, 150,
                         ("easy+best_fit", "sjf+best_fit", "las+best_fit", "srtf+best_fit",
                          "easy+eft")),
    "planners": ("phase1-4gpu", {"workload.runtime_estimate_error": 0.5}, 40,
                 ("lookahead", "queue_lookahead")),
    "planner-window": ("fleet-16gpu", {}, 25, ("lookahead_jct",)),
}
ENV_CASES: dict[str, tuple[str, int, dict]] = {
    # name: (preset, obs_version, extra env arguments)
    "v1": ("phase1-8gpu", 1, {}),
    "v2": ("phase1-8gpu", 2, {}),
    "v3": ("fleet-16gpu", 3, {}),
    "v4": ("fleet-16gpu-failures", 4, {}),
}
ENV_STEPS = 400


def _digest(frame: pd.DataFrame) -> str:
    """sha256 of a frame's exact values (floats by their shortest round-trip repr)."""
    return hashlib.sha256(frame.to_csv(index=False, float_format=None).encode()).hexdigest()


JOB_COLUMNS = ("id", "type", "arrival_min", "start_min", "end_min", "duration_min", "gpus", "vram_gb",
               "compute", "priority", "node", "gpu_ids", "wait_min", "finished", "run_min",
               "ideal_run_min", "start_slot", "backfilled", "interruptions", "preemptions", "lost_min",
               "work_min", "restore_min")
"""The jobs table's columns when the golden file was written; columns added since (the job fields a
table carries so that it reads back as a job list) are checked by their own tests."""


def run_digest(result: Result) -> dict:
    """Metrics and table hashes of one run."""
    tl = result.timeline
    parts = [tl.placements, tl.holds, tl.misroutes, tl.stops, tl.resumes, tl.node_down]
    timeline = hashlib.sha256("|".join(_digest(p) for p in parts).encode()
                              + repr((tl.start_min, tl.end_min)).encode()).hexdigest()
    return {"metrics": {k: float(v) for k, v in result.metrics.items()},
            "jobs": _digest(result.jobs[list(JOB_COLUMNS)]), "timeline": timeline,
            "end_reason": result.end_reason}


def measure(case: str, policy: str) -> dict:
    preset, overrides, n_jobs, _ = CASES[case]
    scenario = load_scenario(preset)
    if overrides:
        scenario = scenario.with_overrides(**overrides)
    return run_digest(run_policy(scenario, policy, n_jobs=n_jobs))


def env_rewards(case: str) -> list[float]:
    """Per-step rewards of the environment under valid actions drawn from a seeded generator."""
    from gpusched.env import GPUSchedulerEnv

    preset, version, extra = ENV_CASES[case]
    env = GPUSchedulerEnv(preset, n_jobs=80, obs_version=version, **extra)
    env.reset(seed=0)
    rng = np.random.default_rng(7)
    rewards: list[float] = []
    obs_sum = 0.0
    for _ in range(ENV_STEPS):
        mask = env.action_masks()
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, _ = env.step(action)
        rewards.append(float(reward))
        obs_sum += float(sum(np.asarray(v, dtype=float).sum() for v in obs.values()))
        if terminated or truncated:
            env.reset()
    return rewards + [obs_sum]


def run_cases() -> list[tuple[str, str]]:
    return [(case, policy) for case, (*_, policies) in CASES.items() for policy in policies]


def write_stored() -> None:
    """Write the golden file from the code as it is (only for a deliberate change of dynamics)."""
    data = {"runs": {f"{c}/{p}": measure(c, p) for c, p in run_cases()},
            "env": {c: env_rewards(c) for c in ENV_CASES}}
    STORED.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _stored() -> dict:
    return json.loads(STORED.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("case", "policy"), run_cases())
def test_run_is_bit_identical(case, policy):
    stored = _stored()["runs"][f"{case}/{policy}"]
    now = measure(case, policy)
    for key, value in stored["metrics"].items():
        assert now["metrics"][key] == value, (key, now["metrics"][key], value)
    assert now["end_reason"] == stored["end_reason"]
    assert now["jobs"] == stored["jobs"], "jobs table changed"
    assert now["timeline"] == stored["timeline"], "timeline changed"


@pytest.mark.parametrize("case", list(ENV_CASES))
def test_env_rewards_are_bit_identical(case):
    assert env_rewards(case) == _stored()["env"][case]


def test_cases_exercise_their_mechanisms():
    """The golden cases really reach what they are meant to cover (else they guard nothing)."""
    runs = _stored()["runs"]
    assert runs["failures/las+best_fit"]["metrics"]["node_failures"] > 0
    assert runs["failures/las+best_fit"]["metrics"]["preemptions"] > 0
    assert runs["window-speeds/srtf+best_fit"]["metrics"]["preemptions"] > 0
    assert runs["window-speeds/easy+best_fit"]["metrics"]["backfilled_jobs"] > 0
    assert runs["failures/easy+eft"]["metrics"]["lost_gpu_hours"] > 0
    assert (runs["estimate-error/sjf+best_fit"]["jobs"] != runs["window-speeds/sjf+fastest_fit"]["jobs"])


if __name__ == "__main__":
    write_stored()
