"""How far can FIFO placement go? The lookahead planners against First-Fit and Best-Fit.

The agent's action space is a GPU for the head job, or HOLD; the queue stays FIFO. The planners of
:mod:`gpusched.policies.lookahead` weigh every such action by playing it to the end with Best-Fit:
``lookahead`` on the real future (so its average wait shows how low a policy restricted to that
action space can go on these workloads; one step of search, so a deeper one could go lower), and
``queue_lookahead`` on the jobs that have arrived only (what a scheduler that knows run times
could do today).

Usage: ``python benchmarks/fifo_lookahead.py [--scenario phase1-8gpu] [--seeds 1000-1009]
[--policies first_fit,best_fit,queue_lookahead,lookahead] [--workers 2]``. On 250 jobs and 8
GPUs a ``lookahead`` run takes about 12 s and a ``queue_lookahead`` run about 1 s.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from gpusched.experiment.runner import run_policy
from gpusched.workload.presets import load_scenario

POLICIES = ("first_fit", "best_fit", "queue_lookahead", "lookahead")


def _run(scenario_ref: str, policy: str, seed: int) -> tuple[float, float, float]:
    """(average wait in minutes, jobs completed, seconds) of one run."""
    start = time.perf_counter()
    metrics = run_policy(load_scenario(scenario_ref), policy, seed).metrics
    return metrics["avg_wait_min"], metrics["jobs_completed"], time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="phase1-8gpu")
    parser.add_argument("--seeds", default="1000-1009", help="seed range lo-hi")
    parser.add_argument("--policies", default=",".join(POLICIES), help="comma-separated, first_fit first")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    lo, hi = (int(x) for x in args.seeds.split("-"))
    seeds = list(range(lo, hi + 1))
    policies = args.policies.split(",")
    jobs = [(args.scenario, p, s) for p in policies for s in seeds]
    with ProcessPoolExecutor(args.workers) as pool:
        runs = list(pool.map(_run, *zip(*jobs, strict=True)))
    n = len(seeds)
    table = {p: np.array(runs[i * n:(i + 1) * n]) for i, p in enumerate(policies)}
    ff = table[policies[0]][:, 0].mean()
    print(f"{load_scenario(args.scenario).name}, seeds {lo}-{hi}, mean ± std over seeds\n")
    print(f"| policy | avg wait (min) | jobs completed | vs {policies[0]} | s per run |")
    print("|---|---|---|---|---|")
    for p in policies:
        wait, done, secs = table[p][:, 0], table[p][:, 1], table[p][:, 2]
        print(f"| {p} | {wait.mean():.1f} ± {wait.std():.1f} | {done.mean():.0f} | "
              f"{100 * (wait.mean() / ff - 1):+.1f} % | {secs.mean():.2f} |")
    print(f"\nper seed, avg wait (min) {' / '.join(policies)}: " + ", ".join(
        f"{seed}: " + "/".join(f"{table[p][k, 0]:.0f}" for p in policies) for k, seed in enumerate(seeds)))


if __name__ == "__main__":
    main()
