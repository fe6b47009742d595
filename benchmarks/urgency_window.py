"""The queue window at which the pairs that are not told run times do best.

Issue 29 asks for the window the urgency agent should get: "the window at which the best uninformed
pair does best (try 16, 32, 64 and 128)". This script runs, on ``gavel-108gpu-heavy`` told run times
by the ``history`` estimator only (``workload.declared_run_time: history``, so no pair reads an exact
run time), each pair of :data:`POLICIES` at each window of :data:`WINDOWS` on seeds :data:`SEEDS`
(held out: the preset's load was chosen on seeds 900-904), and records each run's mean JCT and p99
wait. :func:`window_summary` gives each pair's mean JCT per window, its best window, and the best
pair at its best window paired seed by seed against the same pair at the preset's window.

Writes ``--json`` (default ``benchmarks/results/urgency-window.json``);
``python benchmarks/render_results.py`` renders its section of ``docs/results/urgency.md``.

Usage: ``python benchmarks/urgency_window.py [--json PATH] [--policies P ...] [--seeds S ...]
[--windows W ...]`` (about 6 minutes on one core).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from gavel_load import TUNING_SEEDS

from gpusched.core.result import Result
from gpusched.experiment.paired import PairedDifference, paired_difference
from gpusched.experiment.runner import run_policy
from gpusched.paths import URGENCY_WINDOW_RESULTS
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario

SCENARIO = "gavel-108gpu-heavy"
"""The preset measured."""
SETTING = "history"
"""What the scheduler is told of run times (``workload.declared_run_time``)."""
POLICIES = ("fcfs+fastest_fit", "las+fastest_fit", "las+fastest_move", "qssf+fastest_fit",
            "sjf+fastest_fit", "qssf+eft", "las+eft", "srtf+eft")
"""The pairs: the information-free ones (``fcfs``, ``las``) and the orders and placements that read
the history's predictions."""
WINDOWS = (16, 32, 64, 128)
"""Queue windows (jobs an order may choose from)."""
SEEDS = tuple(range(5))
"""Held-out seeds (workload and policy seed of each run)."""
METRICS = ("avg_jct_min", "p99_wait_min")
"""What each run records."""


def max_queue(result: Result) -> int:
    """The most jobs that waited in the queue at once during the run (a window larger than this
    cannot change what an order sees)."""
    tl = result.timeline
    times = np.concatenate([tl.arrivals_min, tl.starts_min, tl.stops_min])
    return int(tl.queue_length_at(times).max()) if times.size else 0


def measure(scenario: Scenario, policies: Sequence[str], windows: Sequence[int],
            seeds: Sequence[int], verbose: bool = False) -> list[dict]:
    """One row per (policy, window, seed): the :data:`METRICS`, :func:`max_queue` and the run's
    wall time (s)."""
    told = scenario.with_overrides(**{"workload.declared_run_time": SETTING})
    runs = []
    for window in windows:
        variant = told.with_overrides(**{"queue.window": int(window)})
        for policy in policies:
            for seed in seeds:
                t0 = time.perf_counter()
                result = run_policy(variant, policy, seed=int(seed))
                runs.append({"policy": policy, "window": int(window), "seed": int(seed),
                             **{m: float(result.metrics[m]) for m in METRICS},
                             "max_queue": max_queue(result), "wall_s": time.perf_counter() - t0})
            if verbose:
                part = runs[-len(seeds):]
                print(f"window {window:4d} {policy:>18}: mean JCT "
                      f"{sum(r['avg_jct_min'] for r in part) / len(part):8.1f} min", flush=True)
    return runs


@dataclass(frozen=True)
class WindowSummary:
    """What the window measurement found.

    :param means: mean JCT (min) over the seeds, one row per policy, one column per window.
    :param best_window: each policy's window with the lowest mean JCT (the smallest on a tie).
    :param best: the policy with the lowest mean JCT at its best window.
    :param window: its best window.
    :param jct_min: its mean JCT there (min).
    :param against_preset: that run minus the same policy at the preset's window, mean JCT (min),
        paired seed by seed (Student t).
    """

    means: pd.DataFrame
    best_window: dict[str, int]
    best: str
    window: int
    jct_min: float
    against_preset: PairedDifference


def window_summary(data: dict) -> WindowSummary:
    """The summary of what :func:`measure` wrote (``data``: the script's JSON)."""
    runs = pd.DataFrame(data["runs"])
    means = (runs.pivot_table(index="policy", columns="window", values="avg_jct_min", aggfunc="mean")
             .loc[data["policies"], data["windows"]])
    best_window = {p: int(means.loc[p].idxmin()) for p in means.index}
    best = min(means.index, key=lambda p: (means.loc[p, best_window[p]], data["policies"].index(p)))
    window = best_window[best]
    mine = runs[runs["policy"] == best].pivot_table(index="seed", columns="window", values="avg_jct_min")
    diff = paired_difference(mine[window].to_numpy(), mine[data["preset_window"]].to_numpy())
    return WindowSummary(means, best_window, best, window, float(means.loc[best, window]), diff)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=URGENCY_WINDOW_RESULTS)
    parser.add_argument("--policies", nargs="+", default=list(POLICIES))
    parser.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS))
    parser.add_argument("--windows", nargs="+", type=int, default=list(WINDOWS))
    args = parser.parse_args()
    if set(args.seeds) & set(TUNING_SEEDS):
        parser.error(f"--seeds: {sorted(set(args.seeds) & set(TUNING_SEEDS))} chose the preset's load "
                     "(tuning seeds); use held-out seeds")
    scenario = load_scenario(SCENARIO)
    started = time.perf_counter()
    runs = measure(scenario, args.policies, args.windows, args.seeds, verbose=True)
    data = {"scenario": SCENARIO, "setting": SETTING, "preset_window": scenario.window,
            "policies": list(args.policies), "windows": list(args.windows), "seeds": list(args.seeds),
            "runs": runs, "wall_s": time.perf_counter() - started}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    s = window_summary(data)
    print(f"best: {s.best} at window {s.window}, {s.jct_min:,.1f} min "
          f"({s.against_preset.mean:+,.1f} min against window {data['preset_window']}, "
          f"95 % interval {s.against_preset.low:+,.1f} to {s.against_preset.high:+,.1f})")


if __name__ == "__main__":
    main()
