"""How the ``philly-replay`` preset's cluster was sized, on tuning seeds only.

The preset replays, in real time, the jobs of two of Philly's virtual clusters submitted in a
two-week window whose start the workload seed draws (``assets/philly/philly-2vc.csv``,
:mod:`gpusched.workload.philly_workload`) on a homogeneous cluster of 8-GPU servers. The number of
servers (``cluster.nodes[0].count``) sets the load: this script runs each size of a grid
(:data:`NODES`) on the tuning seeds (``gavel_load.TUNING_SEEDS``, 900-904; no evaluation runs on
them) and picks the smallest at which FIFO (:data:`PAIR`) drains on every tuning seed: every job
completes, and the queue empties in the window's last quarter (at some job's submission in it,
every job submitted before has started): the backlog a burst of submissions builds is worked off
within the window.

The criterion of ``gavel_load.py`` and ``openb_load.py`` (the second half of the jobs waits on
average at most ``gavel_load.DRAIN_SLACK_MIN`` longer than the first) is printed beside it but not
used: the trace's submissions come in bursts that differ between a window's halves, so it fails on
some tuning seed at every size until no job waits at all (256 GPUs: the replay would then measure
nothing); ``benchmarks/results/philly-load-tuning.json`` has both per size.

Run: ``python benchmarks/philly_load.py [--json PATH]`` (about a minute; prints the figures per size
and the chosen size).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from gavel_load import DRAIN_SLACK_MIN, TUNING_SEEDS

from gpusched.core.jobs import Job
from gpusched.experiment.runner import run_policy
from gpusched.paths import BENCHMARK_RESULTS_DIR
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario

SCENARIO = "philly-replay"
"""The preset whose cluster size is tuned."""
NODES = (4, 8, 12, 14, 16, 18, 20, 24, 28, 32, 40)
"""The grid of cluster sizes (8-GPU servers)."""
PAIR = "fcfs+first_fit"
"""The pair whose queue must drain: FIFO, no run time read."""
LAST_SHARE = 0.25
"""The share of the window at its end in which the queue must empty once."""


def empties_late(jobs: list[Job], start_min: np.ndarray, window_min: float) -> bool:
    """Whether, at some submission in the last :data:`LAST_SHARE` of the window, every job
    submitted before it has started (``start_min``: each job's start, NaN if it never started)."""
    arrival = np.array([j.arrival_min for j in jobs])
    started = np.where(np.isnan(start_min), np.inf, start_min)
    latest_start_before = np.maximum.accumulate(np.concatenate(([-np.inf], started[:-1])))
    late = arrival >= (1.0 - LAST_SHARE) * window_min
    return bool((late & (latest_start_before <= arrival)).any())


def measure(scenario: Scenario, nodes: int, seeds: tuple[int, ...] = TUNING_SEEDS) -> dict:
    """The criterion's figures at one size: per seed, the jobs of its window and whether
    :data:`PAIR` drains; means over the seeds of its mean JCT and of each half's mean wait (min)."""
    sized = scenario.with_overrides(**{"cluster.nodes": [
        {**scenario.cluster.nodes[0].model_dump(exclude_none=True), "count": nodes}]})
    window = scenario.workload.trace.philly.window_days * 1440.0
    rows = []
    for seed in seeds:
        result = run_policy(sized, PAIR, seed=seed)
        waits = result.jobs["wait_min"].to_numpy()
        half = len(waits) // 2
        first, second = float(waits[:half].mean()), float(waits[half:].mean())
        jobs = sized.jobs(seed)
        starts = result.jobs.set_index("id").loc[[j.id for j in jobs], "start_min"].to_numpy(dtype=float)
        complete = int(result.metrics["jobs_unfinished"]) == 0
        rows.append({"seed": seed, "jobs": len(waits),
                     "jct_min": float(result.metrics["avg_jct_min"]), "first_half_wait_min": first,
                     "second_half_wait_min": second,
                     "halves_criterion": complete and second <= first + DRAIN_SLACK_MIN,
                     "drains": complete and empties_late(jobs, starts, window)})
    return {"nodes": nodes, "gpus": nodes * scenario.cluster.nodes[0].gpus_per_node,
            "jobs": [r["jobs"] for r in rows],
            **{k: float(np.mean([r[k] for r in rows]))
               for k in ("jct_min", "first_half_wait_min", "second_half_wait_min")},
            "drains": all(r["drains"] for r in rows), "seeds_draining": sum(r["drains"] for r in rows),
            "seeds_halves_criterion": sum(r["halves_criterion"] for r in rows)}


def choose(rows: list[dict]) -> int:
    """The smallest cluster size at which :data:`PAIR` drains on every tuning seed."""
    return min(r["nodes"] for r in rows if r["drains"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=BENCHMARK_RESULTS_DIR / "philly-load-tuning.json")
    args = parser.parse_args()
    scenario = load_scenario(SCENARIO)
    print(f"{SCENARIO}: {PAIR}, seeds {TUNING_SEEDS[0]}-{TUNING_SEEDS[-1]}, means over the seeds")
    print("nodes  GPUs  jobs per seed              mean JCT  wait 1st half  wait 2nd half  drains  halves")
    rows = []
    for nodes in NODES:
        r = measure(scenario, nodes)
        rows.append(r)
        print(f"{nodes:5d}  {r['gpus']:4d}  {str(r['jobs']):25s}  {r['jct_min']:8.1f}  "
              f"{r['first_half_wait_min']:13.1f}  {r['second_half_wait_min']:13.1f}  "
              f"{r['seeds_draining']}/{len(TUNING_SEEDS)}     "
              f"{r['seeds_halves_criterion']}/{len(TUNING_SEEDS)}",
              flush=True)
    chosen = choose(rows)
    print(f"chosen: {chosen} nodes ({rows[[r['nodes'] for r in rows].index(chosen)]['gpus']} GPUs)")
    args.json.write_text(json.dumps({"scenario": SCENARIO, "pair": PAIR, "tuning_seeds": list(TUNING_SEEDS),
                                     "drain_slack_min": DRAIN_SLACK_MIN, "last_share": LAST_SHARE,
                                     "rows": rows, "chosen_nodes": chosen}, indent=1) + "\n",
                         encoding="utf-8")


if __name__ == "__main__":
    main()
