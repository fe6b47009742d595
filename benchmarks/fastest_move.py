"""What moving up is worth: ``fcfs+fastest_move`` against ``fcfs+fastest_fit`` and ``fcfs+eft``.

A mixed cluster of K80, P100 and V100 nodes of one GPU each (``--nodes 4:4:4``), Gavel's measured
speeds (``speed: gavel``) and Gavel's generator (``workload.generator: gavel``, single-GPU jobs),
with a free move (no checkpoint block: a restore of 0) and with a paid one
(``checkpoint.restore_min``). Each seed runs every policy on the same jobs; the table gives each
policy's mean JCT per seed and the paired differences of ``fastest_move`` against each other
policy (mean, 95 % Student-t interval, seeds it wins / ties / loses;
:mod:`gpusched.experiment.paired`).

Run: ``python benchmarks/fastest_move.py [--seeds 10] [--jobs 300] [--load 0.8] [--restore 5]``.
"""

from __future__ import annotations

import argparse
import time

from gpusched.experiment.paired import paired_difference
from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.scenario_yaml import scenario_from_dict

POLICIES = ("fcfs+fastest_move", "fcfs+fastest_fit", "fcfs+eft")
"""The policies compared; the first is compared with each other one."""


def scenario(nodes: tuple[int, int, int], jobs: int, load: float, restore_min: float) -> dict:
    """The scenario: K80, P100 and V100 nodes of one GPU, Gavel's speeds and generator."""
    groups = [{"gpu_model": m, "vram_gb": v, "gpus_per_node": 1, "count": n}
              for m, v, n in zip(("K80", "P100", "V100"), (12, 16, 16), nodes, strict=True) if n]
    data = {"name": "gavel-mixed", "cluster": {"nodes": groups}, "speed": "gavel",
            "workload": {"jobs": jobs, "generator": "gavel", "load": load, "seed": 0}}
    if restore_min > 0:
        data["checkpoint"] = {"interval_min": 60, "restore_min": restore_min}
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--load", type=float, default=0.8)
    parser.add_argument("--nodes", default="4:4:4", help="K80:P100:V100 nodes of one GPU")
    parser.add_argument("--restore", type=float, default=5.0, help="the paid move's restore_min")
    args = parser.parse_args()
    nodes = tuple(int(x) for x in args.nodes.split(":"))
    for restore in (0.0, args.restore):
        sc = scenario_from_dict(scenario(nodes, args.jobs, args.load, restore), "fastest_move")
        jct: dict[str, list[float]] = {p: [] for p in POLICIES}
        moves: list[int] = []
        t0 = time.perf_counter()
        print(f"\n### {args.nodes} (K80:P100:V100), {args.jobs} jobs, load {args.load}, "
              f"restore_min {restore:g}\n")
        print("| seed | " + " | ".join(f"{p} JCT (min)" for p in POLICIES) + " | migrations |")
        print("|---:|" + "---:|" * (len(POLICIES) + 1))
        for seed in range(args.seeds):
            row = []
            for policy in POLICIES:
                result = make_simulator(sc, seed).run(get_policy(policy, seed))
                jct[policy].append(float(result.metrics["avg_jct_min"]))
                row.append(jct[policy][-1])
                if policy == POLICIES[0]:
                    moves.append(int(result.metrics["migrations"]))
            print(f"| {seed} | " + " | ".join(f"{v:,.1f}" for v in row) + f" | {moves[-1]} |")
        print(f"\n{POLICIES[0]} minus each (mean JCT, min; negative: {POLICIES[0]} is faster):\n")
        print("| against | mean difference | 95 % interval | wins / ties / losses |")
        print("|---|---:|---:|---:|")
        for other in POLICIES[1:]:
            d = paired_difference(jct[POLICIES[0]], jct[other])
            print(f"| {other} | {d.mean:,.1f} | [{d.low:,.1f}, {d.high:,.1f}] | "
                  f"{d.a_lower} / {d.ties} / {d.a_higher} |")
        print(f"\n({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
