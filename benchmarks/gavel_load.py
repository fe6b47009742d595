"""How the offered loads of the ``gavel-108gpu`` presets were chosen, on tuning seeds only.

The three presets ``gavel-108gpu-light``, ``gavel-108gpu`` (medium) and ``gavel-108gpu-heavy``
differ only in ``workload.load``. Each load is the one a measured criterion picks on a grid of
loads (:data:`LOADS`), over the tuning seeds :data:`TUNING_SEEDS` (never used to evaluate anything:
``gavel_load_sweep.py`` runs other seeds):

- **light**: the highest load at which the policies differ little: the gap between the mean JCT of
  ``fcfs+first_fit`` (heterogeneity-agnostic) and that of ``fcfs+fastest_move`` (the analogue of
  Gavel's ``fifo_perf``), means over the seeds, is at most :data:`LIGHT_GAP_POINTS` (2 percentage
  points) above the gap at the grid's lowest load, where no job waits. Even there the gap is about
  11 %, not 0: First-Fit takes the first free GPU, a V100, and the V100 is not the fastest GPU of
  every job model (Recommendation runs fastest on the P100), so no load has a gap under 10 %; the
  criterion measures what contention adds to it;
- **heavy**: the highest load at which FCFS First-Fit's queue still drains: every job completes in a
  run without a horizon and the queue does not grow through the run, i.e. the second half of the
  jobs (by arrival) waits on average at most :data:`DRAIN_SLACK_MIN` longer than the first half
  (the criterion of ``fleet_load.py``, with an hour's slack for the near-zero waits of light loads);
- **medium**: the grid load midway between the two (the lower one of a tie).

Run: ``python benchmarks/gavel_load.py`` (prints the criterion's figures per load and the chosen
loads; ``--json PATH`` also writes them).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

SCENARIO = "gavel-108gpu"
"""The preset whose load is tuned (the light and heavy presets are copies with another load)."""
LOADS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
"""The grid of offered loads (fractions of the cluster's capacity)."""
TUNING_SEEDS = (900, 901, 902, 903, 904)
"""The seeds that choose the loads (workload seeds); no evaluation runs on them."""
LIGHT_GAP_POINTS = 0.02
"""Light load: the JCT gap (a fraction) exceeds the one at the lowest grid load by at most this."""
DRAIN_SLACK_MIN = 60.0
"""Heavy load: the second half of the jobs waits at most this much longer (minutes) than the first."""
AGNOSTIC, AWARE = "fcfs+first_fit", "fcfs+fastest_move"


def measure(load: float, seeds: tuple[int, ...] = TUNING_SEEDS) -> dict:
    """The criterion's figures at one load, each a mean over ``seeds``: both policies' mean JCT
    (min), their gap, FCFS First-Fit's mean wait of each half of the jobs (min) and its jobs
    completed and final queue (its unfinished jobs)."""
    scenario = load_scenario(SCENARIO).with_overrides(**{"workload.load": load})
    rows = []
    for seed in seeds:
        ff = make_simulator(scenario, seed).run(get_policy(AGNOSTIC))
        fm = make_simulator(scenario, seed).run(get_policy(AWARE))
        waits = ff.jobs["wait_min"].to_numpy()
        half = len(waits) // 2
        rows.append({"ff_jct_min": ff.metrics["avg_jct_min"], "fm_jct_min": fm.metrics["avg_jct_min"],
                     "first_half_wait_min": float(waits[:half].mean()),
                     "second_half_wait_min": float(waits[half:].mean()),
                     "all_completed": int(ff.metrics["jobs_completed"]) == len(waits),
                     "final_queue": int(ff.metrics["jobs_unfinished"])})
    out = {k: float(np.mean([r[k] for r in rows])) for k in
           ("ff_jct_min", "fm_jct_min", "first_half_wait_min", "second_half_wait_min")}
    out["gap"] = out["ff_jct_min"] / out["fm_jct_min"] - 1.0
    out["all_completed"] = all(r["all_completed"] for r in rows)
    out["final_queue"] = max(r["final_queue"] for r in rows)
    out["drains"] = out["all_completed"] and out["final_queue"] == 0 and (
        out["second_half_wait_min"] <= out["first_half_wait_min"] + DRAIN_SLACK_MIN)
    return {"load": load, **out}


def mark(rows: list[dict]) -> list[dict]:
    """``rows`` (in grid order) with ``light`` set: the gap is within :data:`LIGHT_GAP_POINTS` of the
    first row's."""
    return [{**r, "light": r["gap"] <= rows[0]["gap"] + LIGHT_GAP_POINTS} for r in rows]


def choose(rows: list[dict]) -> dict[str, float]:
    """The light, medium and heavy loads the criteria pick from the marked ``rows`` (:func:`mark`)."""
    light = max(r["load"] for r in rows if r["light"])
    heavy = max(r["load"] for r in rows if r["drains"])
    grid = [r["load"] for r in rows if light <= r["load"] <= heavy]
    return {"light": light, "medium": grid[(len(grid) - 1) // 2], "heavy": heavy}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="also write the figures and the chosen loads here")
    args = parser.parse_args()
    print(f"{SCENARIO}: seeds {TUNING_SEEDS[0]}-{TUNING_SEEDS[-1]}, means over the seeds")
    print("load  JCT first_fit  JCT fastest_move    gap  wait 1st half  wait 2nd half  light  drains")
    rows = mark([measure(load) for load in LOADS])
    for r in rows:
        print(f"{r['load']:4.2f}  {r['ff_jct_min']:13.1f}  {r['fm_jct_min']:16.1f}  {100 * r['gap']:4.1f} %  "
              f"{r['first_half_wait_min']:13.1f}  {r['second_half_wait_min']:13.1f}  "
              f"{'yes' if r['light'] else 'no':>5}  {'yes' if r['drains'] else 'no':>6}", flush=True)
    chosen = choose(rows)
    print("chosen loads: " + ", ".join(f"{k} {v}" for k, v in chosen.items()))
    if args.json:
        args.json.write_text(json.dumps({"scenario": SCENARIO, "tuning_seeds": list(TUNING_SEEDS),
                                         "light_gap_points": LIGHT_GAP_POINTS,
                                         "drain_slack_min": DRAIN_SLACK_MIN,
                                         "rows": rows, "chosen": chosen}, indent=1) + "\n")


if __name__ == "__main__":
    main()
