"""The headroom: the clairvoyant planner ``lookahead_jct`` against the best heuristic by JCT.

``lookahead_jct`` weighs every distinct (window job, GPU) action and HOLD at every decision by
playing it, then its base heuristic (SJF with Fastest-Fit), to the end on a fork that knows the
whole future, and keeps the action with the lowest average JCT (see
:mod:`gpusched.policies.window_lookahead`). No real scheduler can do this: what it reaches bounds
what one step of perfect foresight buys in the window agent's action space.

Prints every policy's mean ± std and the planner paired seed by seed against the best heuristic
(the shipped pair with the lowest mean JCT on these seeds), and writes every run's metrics to
``--json``. Runs go to a process pool (``--workers``).

``python benchmarks/render_results.py`` renders ``docs/results/lookahead-bound.md`` from that JSON.

Usage: ``python benchmarks/lookahead_bound.py [--scenario fleet-16gpu] [--seeds 1000-1019]
[--workers 2] [--json benchmarks/results/lookahead-bound.json]``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd

from gpusched.backends import run_tasks
from gpusched.cli.args import parse_seeds
from gpusched.dashboard.headline import best_heuristic
from gpusched.experiment.runner import Comparison, run_policy
from gpusched.experiment.scorecard import scorecard
from gpusched.policies import queue_policy_names
from gpusched.workload.presets import load_scenario

PLANNER = "lookahead_jct"
METRICS = ("avg_jct_min", "avg_wait_min", "p99_wait_min", "avg_slowdown", "speed_loss_min", "jobs_completed")


def one_run(task: tuple[str, str, int]) -> dict:
    """The metrics of one (scenario, policy, seed) run, with its wall time."""
    scenario, policy, seed = task
    started = time.perf_counter()
    metrics = run_policy(load_scenario(scenario), policy, seed=seed).metrics
    return {"policy": policy, "seed": seed, "seconds": time.perf_counter() - started, **metrics}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="fleet-16gpu")
    parser.add_argument("--seeds", default="1000-1019")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", help="write every run's metrics to this path")
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    policies = [*queue_policy_names(), PLANNER]
    tasks = [(args.scenario, p, s) for s in seeds for p in policies]
    rows = list(run_tasks(one_run, tasks, workers=args.workers))
    runs = pd.DataFrame(rows).sort_values(["policy", "seed"]).reset_index(drop=True)
    comparison = Comparison(args.scenario, runs, {})
    best = best_heuristic(comparison, tuple(queue_policy_names()))
    mean = runs.groupby("policy")[list(METRICS)].mean().sort_values("avg_jct_min")
    print(f"**{args.scenario}**, seeds {seeds[0]}-{seeds[-1]}: {PLANNER} took "
          f"{runs.loc[runs.policy == PLANNER, 'seconds'].mean():.0f} s per run\n")
    print("| policy | avg JCT (min) | avg wait (min) | p99 wait (min) | slowdown | speed loss (min) |")
    print("|---|---|---|---|---|---|")
    for p in [PLANNER, best]:
        r = mean.loc[p]
        print(f"| {p} | {r.avg_jct_min:.1f} | {r.avg_wait_min:.1f} | {r.p99_wait_min:.0f} | "
              f"{r.avg_slowdown:.2f} | {r.speed_loss_min:.1f} |")
    card = scorecard(comparison, best, ["avg_jct_min", "p99_wait_min"])
    for r in card[card["policy"] == PLANNER].itertuples():
        print(f"\n{PLANNER} - {best}, {r.metric}: {r.diff:+.2f} [{r.low:+.2f}, {r.high:+.2f}] "
              f"({100 * r.diff / r.baseline_mean:+.1f} %), won/tied/lost {r.wins}/{r.ties}/{r.losses}")
    if args.json:
        kept = runs[["policy", "seed", "seconds", *METRICS]]
        Path(args.json).write_text(json.dumps({"scenario": args.scenario, "best_heuristic": best,
                                               "runs": kept.to_dict("records")}) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
