"""Seconds per allocation-experiment run, per policy (one trace, one seed, one core).

Targets: <= 5 s per run for each non-FGD policy, <= 30 s for FGD (default trace). The FGD artifact
takes about 10 minutes per run on 2 vCPUs.

Usage: ``python benchmarks/bench_allocation.py [--pods openb_pod_list_default] [--seed 42] [--repeat
1]``.
"""

from __future__ import annotations

import os

# One core: pin the process and keep numerical libraries single-threaded (set before numpy loads).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

from gpusched.fgd.allocation import run_allocation  # noqa: E402
from gpusched.fgd.scoring import POLICY_NAMES  # noqa: E402
from gpusched.fgd.typical_pods import typical_pods  # noqa: E402
from gpusched.workload.openb import read_openb_nodes, read_openb_pods  # noqa: E402

TARGET_S = {p: (30.0 if p == "fgd" else 5.0) for p in POLICY_NAMES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="openb_node_list_gpu_node")
    parser.add_argument("--pods", default="openb_pod_list_default")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=1, help="runs per policy (the best is kept)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    start = time.perf_counter()
    nodes = read_openb_nodes(args.nodes)
    pods = read_openb_pods(args.pods)
    typical = typical_pods(pods)
    print(f"read {args.pods} and typical pods in {time.perf_counter() - start:.2f} s")
    print(f"{'policy':<15} {'s/run':>7} {'target':>7} {'alloc@130':>10}")
    for policy in POLICY_NAMES:
        runs = [
            run_allocation(nodes, pods, policy, args.seed, typical=typical)
            for _ in range(args.repeat)
        ]
        best = min(r.seconds for r in runs)
        status = "ok" if best <= TARGET_S[policy] else "SLOW"
        print(
            f"{policy:<15} {best:>7.2f} {TARGET_S[policy]:>6.0f}s "
            f"{runs[0].alloc_pct[130]:>10.2f}  {status}",
            flush=True,
        )


if __name__ == "__main__":
    main()
