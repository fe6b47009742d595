"""How far can any FIFO placement go? The clairvoyant lookahead against First-Fit and Best-Fit.

The agent's action space is a GPU for the head job, or HOLD; the queue stays FIFO. The
``lookahead`` policy (:mod:`gpusched.policies.lookahead`) weighs every such action by playing the
real future to the end with Best-Fit, so its average wait shows how low any policy restricted to
that action space could go on these workloads (one step of lookahead, so a bound from above on the
best such policy, and from below on nothing: a deeper search could do better still).

Usage: ``python benchmarks/fifo_lookahead.py [--scenario phase1-8gpu] [--seeds 1000-1009]
[--workers 2]``. About 10 s per seed of 250 jobs on one core.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from gpusched.runner import run_policy
from gpusched.scenario import load_scenario

POLICIES = ("first_fit", "best_fit", "lookahead")


def _run(scenario_ref: str, policy: str, seed: int) -> tuple[float, float, float]:
    """(average wait in minutes, jobs completed, seconds) of one run."""
    start = time.perf_counter()
    metrics = run_policy(load_scenario(scenario_ref), policy, seed).metrics
    return metrics["avg_wait_min"], metrics["jobs_completed"], time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="phase1-8gpu")
    parser.add_argument("--seeds", default="1000-1009", help="seed range lo-hi")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    lo, hi = (int(x) for x in args.seeds.split("-"))
    seeds = list(range(lo, hi + 1))
    jobs = [(args.scenario, p, s) for p in POLICIES for s in seeds]
    with ProcessPoolExecutor(args.workers) as pool:
        runs = list(pool.map(_run, *zip(*jobs, strict=True)))
    n = len(seeds)
    table = {p: np.array(runs[i * n:(i + 1) * n]) for i, p in enumerate(POLICIES)}
    ff = table["first_fit"][:, 0].mean()
    print(f"{load_scenario(args.scenario).name}, seeds {lo}-{hi}, mean ± std over seeds\n")
    print("| policy | avg wait (min) | jobs completed | vs first_fit | s per run |\n|---|---|---|---|---|")
    for p in POLICIES:
        wait, done, secs = table[p][:, 0], table[p][:, 1], table[p][:, 2]
        print(f"| {p} | {wait.mean():.1f} ± {wait.std():.1f} | {done.mean():.0f} | "
              f"{100 * (wait.mean() / ff - 1):+.1f} % | {secs.mean():.2f} |")
    print("\nper seed, avg wait (min) first_fit / best_fit / lookahead: " + ", ".join(
        f"{s}: {a:.0f}/{b:.0f}/{c:.0f}" for s, a, b, c in
        zip(seeds, *(table[p][:, 0] for p in POLICIES), strict=True)))


if __name__ == "__main__":
    main()
