"""Sweep throughput: runs per minute on the local backend with 1 and 2 workers, the wall time of
the stall conditions map (``assets/sweeps/stall-conditions.yaml``, 1,080 runs; target: 2 minutes
on 2 cores), and the estimated wall time of the FGD paper's allocation table on this machine.

Run: ``python benchmarks/bench_sweep.py [--skip-fgd]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from gpusched.fgd.scoring import POLICY_NAMES
from gpusched.paths import STALL_CONDITIONS_SPEC
from gpusched.sweep import SweepSpec, load_sweep, run_sweep
from gpusched.sweep.runner import execute_run

GRID = SweepSpec.model_validate({
    "name": "bench",
    "simulate": {"scenarios": ["phase1-8gpu", "homogeneous-8gpu"],
                 "policies": ["first_fit", "least_loaded", "best_fit", "random"],
                 "seeds": {"start": 0, "count": 6}},
})
FGD_POLICIES = list(POLICY_NAMES)


def runs_per_minute(workers: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        table = run_sweep(GRID, out, workers=workers)
        wall = time.perf_counter() - t0
    return len(table) / wall * 60.0, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skip-fgd", action="store_true", help="skip the FGD estimate")
    args = parser.parse_args()
    n = len(GRID.runs())
    runs_per_minute(1)  # warm-up: imports and cached scenario files
    rates = {}
    for workers in (1, 2):
        rate, wall = runs_per_minute(workers)
        rates[workers] = rate
        print(f"local, {workers} worker(s): {n} simulate runs in {wall:.1f} s = {rate:.0f} runs/min")
    speedup = rates[2] / rates[1]
    print(f"speedup 2 vs 1 workers: {speedup:.2f}x")
    conditions = load_sweep(STALL_CONDITIONS_SPEC)
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as out:
            t0 = time.perf_counter()
            table = run_sweep(conditions, out, workers=workers)
            wall = time.perf_counter() - t0
        print(f"stall conditions map, {workers} worker(s): {len(table)} runs in {wall:.1f} s "
              f"(target 120 s on 2 workers)")
    if args.skip_fgd:
        return
    per_policy = {}
    for policy in FGD_POLICIES:
        params = {"kind": "allocation", "nodes": "openb_node_list_gpu_node",
                  "pods": "openb_pod_list_default", "policy": policy, "seed": 42, "tune": 1.3,
                  "run_id": "bench"}
        execute_run(params)  # warm the per-process trace cache
        row, seconds = execute_run(params)
        assert not row["error"], row["error"]
        per_policy[policy] = seconds
        print(f"allocation run, default trace, {policy}: {seconds:.1f} s")
    one_seed_one_trace = sum(per_policy.values())
    for traces in (4, 17):
        serial = one_seed_one_trace * 10 * traces
        print(f"FGD table, {traces} traces x 6 policies x 10 seeds = {traces * 60} runs: "
              f"{serial / 60:.0f} min serial, about {serial / speedup / 60:.0f} min on 2 workers "
              "(default-trace timings; other traces differ)")


if __name__ == "__main__":
    main()
