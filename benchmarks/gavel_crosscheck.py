"""The cross-check against Gavel's simulator: gpusched on the job lists Gavel ran, per-job JCT side by side.

Gavel (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
Workloads", OSDI 2020; MIT licence) ran each job list of ``benchmarks/gavel/`` once per round
setting; its per-job JCTs, its settings and its wall times are stored there (``references.json``,
``jct/``), and ``benchmarks/gavel/README.md`` says how they were made. This script runs gpusched on
the same lists through its public surfaces only: a scenario with ``speed: gavel``, the run's cluster
as ``K80``/``P100``/``V100`` nodes of one GPU each (as Gavel's drivers use), and
``workload.trace.jobs`` naming the job list, whose jobs take a whole GPU (``compute`` 1.0, the job
list's default). It compares each job's JCT (finish minus arrival, seconds) with Gavel's.

The tiers (each criterion is in :data:`TIER1_MEAN_PCT` and the constants beside it):

1. **V100 only, FIFO**: ``fcfs+first_fit`` against ``fifo_perf``. Criterion, against Gavel at 60 s
   rounds with no wait between allocation resets: mean JCT within 2 % and at least 90 % of jobs
   within 5 %. The trace driver's own settings (360 s / 1,920 s) are reported beside it.
2. **Mixed GPUs**: ``fcfs+fastest_move`` with ``checkpoint.restore_min: 0`` against ``fifo_perf``,
   both round settings, 3 seeds on 4:4:4 and 8:8:8. Criterion: mean JCT within 3 % on every run.
   It runs when ``fastest_move`` is a registered placement and is reported as not available
   otherwise. ``fcfs+fastest_fit`` and ``fcfs+eft``, which never move a running job, always run as
   the baselines.
3. **Random placement**: gpusched's ``random`` against Gavel's ``fifo`` with its GPU-type bug fixed
   (``fifo_fixed``), 10 seeds on 4:4:4. The two draw differently (gpusched a free GPU uniformly,
   Gavel a GPU type with room uniformly), so no per-job agreement is expected; the criterion is on
   the means: the paired 95 % interval of the per-seed difference of mean JCT contains 0.

Also measures gpusched's wall and CPU time on each job list, and on the 3,000-job list of Gavel's
wall-time run (36:36:36), to set beside Gavel's stored times.

Writes ``--json`` (default ``benchmarks/results/gavel-crosscheck.json``);
``python benchmarks/render_results.py`` renders ``docs/results/gavel-crosscheck.md`` from it.

Usage: ``python benchmarks/gavel_crosscheck.py [--json PATH]`` (about 3 s).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from gpusched.errors import UnknownPolicyError
from gpusched.experiment.paired import paired_difference
from gpusched.experiment.runner import run_policy
from gpusched.paths import BENCHMARK_RESULTS_DIR, REPO_ROOT
from gpusched.policies import policy_info
from gpusched.workload.scenario import Scenario
from gpusched.workload.scenario_yaml import scenario_from_dict

GAVEL_DIR = REPO_ROOT / "benchmarks" / "gavel"
"""The stored reference outputs of Gavel's simulator."""
REFERENCES = json.loads((GAVEL_DIR / "references.json").read_text(encoding="utf-8"))
RUNS: dict[str, dict] = REFERENCES["runs"]
JSON_PATH = BENCHMARK_RESULTS_DIR / "gavel-crosscheck.json"

GPU_MODELS = {"v100": ("V100", 16), "p100": ("P100", 16), "k80": ("K80", 12)}
"""Gavel's GPU type -> (gpusched's GPU model, VRAM per GPU in GB). The VRAM is the card's; Gavel's
jobs state no memory demand (a job list's absent ``vram_gb`` is 0), so it never binds."""
FINE, DRIVER = "r60w0", "r360w1920"
"""The two round settings: 60 s rounds with no wait between allocation resets, and the trace
driver's 360 s rounds with 1,920 s between resets."""

WITHIN = 0.05
"""A job agrees when its gpusched JCT is within 5 % of Gavel's."""
TIER1_MEAN_PCT, TIER1_JOBS_SHARE = 2.0, 0.90
"""Tier 1: mean JCT within 2 % and at least 90 % of jobs within :data:`WITHIN` (fine rounds)."""
TIER2_MEAN_PCT, TIER2_SEEDS, TIER2_SIZES = 3.0, 3, 2
"""Tier 2: mean JCT within 3 % on every run of at least 3 seeds and 2 cluster sizes."""
CONFIDENCE = 0.95
"""Tier 3: the paired interval's confidence level."""

TIER1_POLICY = "fcfs+first_fit"
MOVING_PLACEMENT = "fastest_move"
MOVING_POLICY = f"fcfs+{MOVING_PLACEMENT}"
MOVING_OPTIONS = {"checkpoint": {"interval_min": 60, "types": ["trace"], "restore_min": 0}}
"""Scenario keys of the moving runs: a moved job resumes at once (Gavel moves jobs for free).
``interval_min`` is required by the block and matters only with failures (there are none)."""
BASELINES = ("fcfs+fastest_fit", "fcfs+eft")
"""Tier 2's non-moving baselines."""
RANDOM_POLICY = "random"
WALL_RUN = "wall-36-36-36-3000-s0-r360w1920"
WALL_POLICIES = ("fcfs+first_fit", "fcfs+fastest_fit", "fcfs+eft", MOVING_POLICY)


def policy_available(name: str) -> bool:
    """Whether the registry knows ``name`` (``fcfs+fastest_move`` before ``fastest_move`` lands: no)."""
    try:
        policy_info(name)
    except UnknownPolicyError:
        return False
    return True


def runs_of(tier: str) -> list[str]:
    """The stored runs of a tier, in ``references.json`` order."""
    return [name for name, run in RUNS.items() if run["tier"] == tier]


def rounds_of(name: str) -> str:
    """The run's round setting (:data:`FINE` or :data:`DRIVER`)."""
    return name.rsplit("-", 1)[1]


def scenario_dict(name: str, policy: str) -> dict:
    """The scenario gpusched runs for Gavel's run ``name`` (the job list named repo-relative)."""
    run = RUNS[name]
    nodes = [{"gpu_model": GPU_MODELS[t][0], "vram_gb": GPU_MODELS[t][1], "gpus_per_node": 1, "count": n}
             for t, n in run["cluster"].items() if n]
    data = {"name": f"gavel-{run['job_list_spec']['name']}", "cluster": {"nodes": nodes},
            "workload": {"jobs": run["num_jobs"],
                         "trace": {"jobs": f"benchmarks/gavel/{run['job_list']}"}},
            "speed": "gavel"}
    return {**data, **(MOVING_OPTIONS if MOVING_PLACEMENT in policy else {})}


def scenario_for(name: str, policy: str) -> Scenario:
    """:func:`scenario_dict`, validated, with the job list's path made absolute."""
    data = scenario_dict(name, policy)
    data["workload"]["trace"]["jobs"] = str(REPO_ROOT / data["workload"]["trace"]["jobs"])
    return scenario_from_dict(data, source=data["name"])


def gavel_jct_s(name: str) -> pd.Series:
    """Gavel's per-job JCT of run ``name`` (seconds), indexed by job id."""
    return pd.read_csv(GAVEL_DIR / RUNS[name]["jct"]).set_index("id")["jct_s"].sort_index()


class GpuschedRun(NamedTuple):
    """gpusched on one stored job list: per-job JCT and wait (seconds, by job id), and the run's
    wall and CPU time (seconds, from the scenario to the result)."""

    jct_s: pd.Series
    wait_s: pd.Series
    wall_s: float
    cpu_s: float


def gpusched_run(name: str, policy: str) -> GpuschedRun:
    """gpusched on run ``name``'s job list and cluster; the policy's seed is the run's seed."""
    scenario = scenario_for(name, policy)
    wall, cpu = time.perf_counter(), time.process_time()
    result = run_policy(scenario, policy, seed=RUNS[name]["seed"])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if result.end_reason != "completed" or not result.jobs["finished"].all():
        raise RuntimeError(f"{name}, {policy}: the run ended with jobs unfinished ({result.end_reason})")
    jobs = result.jobs.set_index("id").sort_index()
    return GpuschedRun((jobs["end_min"] - jobs["arrival_min"]) * 60.0, jobs["wait_min"] * 60.0, wall, cpu)


def compare(name: str, policy: str) -> dict:
    """One row: Gavel's run ``name`` against gpusched's ``policy`` on the same jobs."""
    run = RUNS[name]
    gavel = gavel_jct_s(name)
    ours, wait, wall, cpu = gpusched_run(name, policy)
    if not ours.index.equals(gavel.index):
        raise RuntimeError(f"{name}: the job ids of gpusched's run are not Gavel's")
    delay = gavel - ours
    return {
        "run": name, "tier": run["tier"], "job_list": run["job_list"], "jobs": int(len(gavel)),
        "cluster": run["cluster"], "rounds": rounds_of(name),
        "time_per_iteration_s": run["time_per_iteration_s"],
        "minimum_time_between_allocation_resets_s": run["minimum_time_between_allocation_resets_s"],
        "seed": run["seed"], "gavel_policy": run["policy"], "gavel_patch": run["gavel_patch"],
        "policy": policy,
        "gavel_mean_jct_s": float(gavel.mean()), "gpusched_mean_jct_s": float(ours.mean()),
        "diff_pct": float(100.0 * (ours.mean() / gavel.mean() - 1.0)),
        "jobs_within": int((np.abs(ours - gavel) <= WITHIN * gavel).sum()),
        "mean_gavel_minus_gpusched_s": float(delay.mean()),
        "largest_gavel_minus_gpusched_s": float(delay.max()),
        "smallest_gavel_minus_gpusched_s": float(delay.min()), "gpusched_mean_wait_s": float(wait.mean()),
        "gavel_wall_s": run["wall_time_s"], "gavel_cpu_s": run["cpu_time_s"],
        "gpusched_wall_s": wall, "gpusched_cpu_s": cpu,
    }


def tier1_passes(row: dict) -> bool:
    """Tier 1's criterion on one row."""
    return abs(row["diff_pct"]) <= TIER1_MEAN_PCT and row["jobs_within"] >= TIER1_JOBS_SHARE * row["jobs"]


def tier1() -> list[dict]:
    """Every tier-1 run; the criterion applies to the fine-round runs (``criterion`` None otherwise)."""
    rows = [compare(name, TIER1_POLICY) for name in runs_of("1")]
    for r in rows:
        r["criterion"] = tier1_passes(r) if r["rounds"] == FINE else None
    return rows


def tier2() -> dict:
    """The moving policy on every tier-2 run when it is registered, and the baselines always."""
    moving = policy_available(MOVING_POLICY)
    policies = ([MOVING_POLICY] if moving else []) + list(BASELINES)
    rows = [compare(name, p) for name in runs_of("2") for p in policies]
    for r in rows:
        r["criterion"] = abs(r["diff_pct"]) <= TIER2_MEAN_PCT if r["policy"] == MOVING_POLICY else None
    moved = [r for r in rows if r["policy"] == MOVING_POLICY]
    covered = (len({r["seed"] for r in moved}) >= TIER2_SEEDS
               and len({tuple(r["cluster"].values()) for r in moved}) >= TIER2_SIZES)
    return {"moving_policy": MOVING_POLICY, "moving_available": moving, "moving_options": MOVING_OPTIONS,
            "rows": rows, "passes": (covered and all(r["criterion"] for r in moved)) if moving else None}


def tier3() -> dict:
    """``random`` on the 10 seeds' lists, paired by seed with Gavel's ``fifo_fixed`` at each round
    setting; and Gavel's two round settings paired with each other, for the scale of the noise."""
    names = runs_of("3")
    ours = {}
    rows = []
    for name in names:
        row = compare(name, RANDOM_POLICY)
        ours[row["seed"]] = row["gpusched_mean_jct_s"]
        rows.append(row)
    gavel = {(r["rounds"], r["seed"]): r["gavel_mean_jct_s"] for r in rows}
    seeds = sorted(ours)
    summary = []
    for rounds in (FINE, DRIVER):
        d = paired_difference([ours[s] for s in seeds], [gavel[rounds, s] for s in seeds], CONFIDENCE)
        base = float(np.mean([gavel[rounds, s] for s in seeds]))
        summary.append({"a": f"gpusched {RANDOM_POLICY}", "b": f"Gavel fifo_fixed {rounds}", "rounds": rounds,
                        "a_mean_jct_s": float(np.mean([ours[s] for s in seeds])), "b_mean_jct_s": base,
                        "diff_s": d.mean, "low_s": d.low, "high_s": d.high, "n": d.n,
                        "a_lower": d.a_lower, "a_higher": d.a_higher,
                        "criterion": bool(d.low <= 0.0 <= d.high)})
    d = paired_difference([gavel[DRIVER, s] for s in seeds], [gavel[FINE, s] for s in seeds], CONFIDENCE)
    summary.append({"a": f"Gavel fifo_fixed {DRIVER}", "b": f"Gavel fifo_fixed {FINE}", "rounds": None,
                    "a_mean_jct_s": float(np.mean([gavel[DRIVER, s] for s in seeds])),
                    "b_mean_jct_s": float(np.mean([gavel[FINE, s] for s in seeds])),
                    "diff_s": d.mean, "low_s": d.low, "high_s": d.high, "n": d.n,
                    "a_lower": d.a_lower, "a_higher": d.a_higher, "criterion": None})
    return {"seeds": seeds, "rows": rows, "paired": summary,
            "passes": all(s["criterion"] for s in summary if s["criterion"] is not None)}


def wall() -> dict:
    """gpusched on the job list of Gavel's wall-time run, with each registered policy of
    :data:`WALL_POLICIES`, and the wall and CPU time of Gavel's own trace driver on it (its log
    included)."""
    driver = RUNS[WALL_RUN]["trace_driver"]
    return {"run": WALL_RUN, "rows": [compare(WALL_RUN, p) for p in WALL_POLICIES if policy_available(p)],
            "gavel_trace_driver_wall_s": driver["wall_time_s"],
            "gavel_trace_driver_cpu_s": driver["cpu_time_s"]}


def measure() -> dict:
    """Every tier, the wall-time run and the settings, as the JSON holds them."""
    started = time.perf_counter()
    out = {
        "gavel": REFERENCES["gavel"], "gavel_environment": REFERENCES["environment"],
        "criteria": {"within": WITHIN, "tier1_mean_pct": TIER1_MEAN_PCT, "tier1_jobs_share": TIER1_JOBS_SHARE,
                     "tier2_mean_pct": TIER2_MEAN_PCT, "tier2_seeds": TIER2_SEEDS, "tier2_sizes": TIER2_SIZES,
                     "tier3_confidence": CONFIDENCE},
        "scenario_example": scenario_dict(runs_of("1")[0], TIER1_POLICY),
        "tier1": tier1(), "tier2": tier2(), "tier3": tier3(), "wall": wall(),
    }
    out["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count(),
                      "load_average_1min": round(os.getloadavg()[0], 2),
                      "seconds": round(time.perf_counter() - started, 2)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=str(JSON_PATH), help="where to write the results")
    args = parser.parse_args()
    data = measure()
    Path(args.json).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for tier in ("tier1", "tier2", "tier3"):
        rows = data[tier] if tier == "tier1" else data[tier]["rows"]
        for r in rows:
            print(f"{r['run']:34} {r['policy']:18} Gavel {r['gavel_mean_jct_s']:9.0f} s  gpusched "
                  f"{r['gpusched_mean_jct_s']:9.0f} s  {r['diff_pct']:+6.2f} %  "
                  f"{r['jobs_within']}/{r['jobs']}")
    for s in data["tier3"]["paired"]:
        print(f"{s['a']} - {s['b']}: {s['diff_s']:+.0f} s [{s['low_s']:+.0f}, {s['high_s']:+.0f}]")
    print(f"wrote {args.json} ({data['machine']['seconds']} s)")


if __name__ == "__main__":
    main()
