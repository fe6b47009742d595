"""How the offered load of ``fleet-16gpu`` was chosen: FCFS First-Fit on a grid of loads.

The preset's load is the lowest on a 0.05 grid at which FCFS First-Fit waits at least an hour on
average over seeds 0-9 (seeds never used to evaluate the agent), while the cluster is not
overloaded: the second half of the jobs (by arrival) waits no longer than the first half, so the
queue does not grow through the run.

Run: ``python benchmarks/fleet_load.py [--scenario fleet-16gpu] [--seeds 10]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

LOADS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
TARGET_WAIT_MIN = 60.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", default="fleet-16gpu")
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    base = load_scenario(args.scenario)
    chosen = None
    print(f"{args.scenario}: FCFS First-Fit, seeds 0-{args.seeds - 1}, mean over seeds")
    print("load  rate/h  avg wait  first half  second half  growing  avg util")
    for load in LOADS:
        scenario = base.with_overrides(**{"workload.load": load})
        rows = []
        for seed in range(args.seeds):
            result = make_simulator(scenario, seed).run(get_policy("fcfs+first_fit"))
            waits = result.jobs["wait_min"].to_numpy()
            half = len(waits) // 2
            rows.append((result.metrics["avg_wait_min"], waits[:half].mean(), waits[half:].mean(),
                         result.metrics["avg_util"]))
        wait, first, second, util = np.mean(rows, axis=0)
        growing = second > first
        if chosen is None and wait >= TARGET_WAIT_MIN and not growing:
            chosen = load
        print(f"{load:4.2f}  {scenario.arrival_rate_per_hour():6.2f}  {wait:8.1f}  {first:10.1f}  "
              f"{second:11.1f}  {'yes' if growing else 'no':>7}  {util:8.3f}")
    print(f"chosen load: {chosen} (the preset gives {base.workload.load})")


if __name__ == "__main__":
    main()
