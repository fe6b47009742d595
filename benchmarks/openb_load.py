"""How the ``openb-replay-heavy`` preset's cluster was sized, on tuning node samples only.

The preset replays the first :data:`JOBS` GPU pods of Alibaba's openb trace
(``openb_pod_list_default``) in real time (``time_compression: 1``) on a seeded sample of the
trace's GPU nodes. The pods are the same for every seed; the seed draws the node sample. The size of
the sample (``cluster.trace.sample_nodes``) sets the load: this script runs each size of a grid
(:data:`NODES`) on the tuning seeds (``gavel_load.TUNING_SEEDS``, 900-904; no evaluation runs on
them) and picks **heavy**, the smallest sample at which the information-free pair
:data:`PAIR` still drains on every tuning seed: every job completes, and the second half of the
jobs (by arrival) waits on average at most ``gavel_load.DRAIN_SLACK_MIN`` longer than the first half
(``gavel_load.py``'s criterion for ``gavel-108gpu-heavy``).

The criterion uses ``las+first_fit``, not ``fcfs+first_fit`` as ``gavel_load.py`` does: the trace
holds 8-GPU pods that need a whole node, and FCFS holds the queue behind such a pod while month-long
pods hold the nodes, so FCFS's queue grows at every size of the grid on some seeds.

Run: ``python benchmarks/openb_load.py [--json PATH]`` (about a minute; prints the figures per size
and the chosen size).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from gavel_load import DRAIN_SLACK_MIN, TUNING_SEEDS

from gpusched.experiment.runner import run_policy
from gpusched.paths import BENCHMARK_RESULTS_DIR
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario

SCENARIO = "openb-replay-heavy"
"""The preset whose cluster size is tuned."""
NODES = (4, 5, 6, 7, 8, 10, 12)
"""The grid of node-sample sizes."""
JOBS = 2000
"""GPU pods replayed (the first by creation time)."""
PAIR = "las+first_fit"
"""The pair whose queue must drain: least attained service first (Tiresias), no run time read."""


def measure(scenario: Scenario, nodes: int, seeds: tuple[int, ...] = TUNING_SEEDS) -> dict:
    """The criterion's figures at one sample size: per seed, the GPUs sampled and whether
    :data:`PAIR` drains; means over the seeds of its mean JCT and of each half's mean wait (min)."""
    sized = scenario.with_overrides(**{"cluster.trace.sample_nodes": nodes})
    rows = []
    for seed in seeds:
        result = run_policy(sized, PAIR, seed=seed)
        waits = result.jobs["wait_min"].to_numpy()
        half = len(waits) // 2
        first, second = float(waits[:half].mean()), float(waits[half:].mean())
        rows.append({"seed": seed, "gpus": len(result.cluster.gpu_model),
                     "jct_min": float(result.metrics["avg_jct_min"]), "first_half_wait_min": first,
                     "second_half_wait_min": second,
                     "drains": int(result.metrics["jobs_unfinished"]) == 0
                     and second <= first + DRAIN_SLACK_MIN})
    return {"nodes": nodes, "gpus": [r["gpus"] for r in rows],
            **{k: float(np.mean([r[k] for r in rows]))
               for k in ("jct_min", "first_half_wait_min", "second_half_wait_min")},
            "drains": all(r["drains"] for r in rows), "seeds_draining": sum(r["drains"] for r in rows)}


def choose(rows: list[dict]) -> int:
    """The smallest sample size at which :data:`PAIR` drains on every tuning seed."""
    return min(r["nodes"] for r in rows if r["drains"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=BENCHMARK_RESULTS_DIR / "openb-load-tuning.json")
    args = parser.parse_args()
    scenario = load_scenario(SCENARIO)
    print(f"{SCENARIO}: {PAIR}, seeds {TUNING_SEEDS[0]}-{TUNING_SEEDS[-1]}, means over the seeds")
    print("nodes  GPUs per seed         mean JCT  wait 1st half  wait 2nd half  drains")
    rows = []
    for nodes in NODES:
        r = measure(scenario, nodes)
        rows.append(r)
        print(f"{nodes:5d}  {str(r['gpus']):20s}  {r['jct_min']:9.1f}  {r['first_half_wait_min']:13.1f}  "
              f"{r['second_half_wait_min']:13.1f}  {r['seeds_draining']}/{len(TUNING_SEEDS)}", flush=True)
    chosen = choose(rows)
    print(f"chosen: sample_nodes {chosen}")
    args.json.write_text(json.dumps({"scenario": SCENARIO, "pair": PAIR, "tuning_seeds": list(TUNING_SEEDS),
                                     "drain_slack_min": DRAIN_SLACK_MIN, "rows": rows,
                                     "chosen_nodes": chosen}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
