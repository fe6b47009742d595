"""Simulator speed: decisions per second and wall time for First-Fit and Best-Fit.

Cases: 8 GPUs x 250 jobs, 64 GPUs x 10,000 jobs, 1,024 GPUs x 100,000 jobs. Prints the peak
memory (tracemalloc) of the largest case. Run: ``python benchmarks/bench_sim.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from gpusched.policies import get_policy
from gpusched.scenario import load_scenario, scenario_from_dict
from gpusched.simulator import Simulator

MIX = {"training": 0.2, "inference": 0.6, "batch": 0.2}


def scaled_scenario(n_gpus: int, n_jobs: int):
    """phase1-8gpu's node mix repeated to ``n_gpus`` GPUs, with the arrival rate scaled so the
    load per GPU matches phase1-8gpu."""
    base = load_scenario("phase1-8gpu")
    copies = max(1, n_gpus // base.n_gpus)
    nodes = [dict(n.model_dump(exclude_none=True), count=n.count * copies)
             for n in base.cluster.nodes]
    rate = base.workload.arrival_rate_per_hour * copies
    return scenario_from_dict({"name": f"bench-{n_gpus}", "cluster": {"nodes": nodes},
                               "workload": {"jobs": n_jobs, "arrival_rate_per_hour": rate,
                                            "mix": MIX, "seed": 0}})


def bench(n_gpus: int, n_jobs: int, policy: str, repeats: int, trace_memory: bool = False):
    scenario = scaled_scenario(n_gpus, n_jobs)
    cluster = scenario.build_cluster()
    jobs = scenario.jobs(cluster=cluster)
    best, peak_mb = float("inf"), None
    for _ in range(repeats):
        if trace_memory:
            tracemalloc.start()
        t0 = time.perf_counter()
        sim = Simulator(cluster, jobs, reward=scenario.reward)
        result = sim.run(get_policy(policy))
        elapsed = time.perf_counter() - t0
        if trace_memory:
            peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        best = min(best, elapsed)
    return cluster.n_gpus, sim.decisions, best, result.metrics["avg_wait_min"], peak_mb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="skip the 100,000-job case")
    args = parser.parse_args()
    cases = [(8, 250, 5), (64, 10_000, 1)] + ([] if args.quick else [(1024, 100_000, 1)])
    print(f"{'case':>22} {'policy':>10} {'decisions':>10} {'wall s':>8} {'dec/s':>9} "
          f"{'us/job':>7} {'avg wait':>9}")
    for n_gpus, n_jobs, repeats in cases:
        for policy in ("first_fit", "best_fit"):
            gpus, decisions, wall, wait, _ = bench(n_gpus, n_jobs, policy, repeats)
            print(f"{gpus:>6} GPUs x {n_jobs:>7} jobs {policy:>10} {decisions:>10} {wall:>8.3f} "
                  f"{decisions / wall:>9.0f} {wall / n_jobs * 1e6:>7.1f} {wait:>9.1f}")
    if not args.quick:
        _, _, wall, _, peak = bench(1024, 100_000, "first_fit", 1, trace_memory=True)
        print(f"peak memory, 1024 GPUs x 100000 jobs, first_fit: {peak:.0f} MiB "
              f"(traced Python allocations; wall {wall:.1f} s under tracing)")


if __name__ == "__main__":
    main()
