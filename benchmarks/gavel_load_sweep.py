"""Gavel's finding in gpusched's terms: mean JCT against offered load on ``gavel-108gpu``.

Gavel (Narayanan et al., OSDI 2020) reports that heterogeneity-aware policies cut the average JCT
by up to 3.5x against agnostic ones on its 36 V100 + 36 P100 + 36 K80 cluster as the load grows.
This sweep runs heterogeneity-agnostic pairs (:data:`AGNOSTIC`) and aware ones (:data:`AWARE`) on
the ``gavel-108gpu`` presets' three offered loads (light, medium, heavy; ``gavel_load.py`` chose
them on seeds 900-904) and the grid loads between them, on the evaluation seeds :data:`SEEDS`
(disjoint from the tuning seeds). Each run is one policy on one seed's jobs at one load; the page
pairs every policy with ``fcfs+first_fit`` seed by seed.

Writes ``--json`` (default ``benchmarks/results/gavel-load.json``);
``python benchmarks/render_results.py`` renders ``docs/results/gavel-load.md`` and the README
finding from it.

**Rounds** (``--rounds``). Gavel's headline compares a time-slicing policy with its agnostic twin.
This mode runs the round policies (:mod:`gpusched.policies.rounds`, in the scenario's rounds, Gavel's
defaults: 6-min rounds, at least 32 min between allocation resets) agnostic against aware, pair by
pair (:data:`ROUND_PAIRS`): Gavel's LAS, ``max_min_fairness`` against ``max_min_fairness_perf``; and
FIFO, ``fifo_perf`` against ``fcfs+first_fit`` (no agnostic FIFO is registered in rounds: First-Fit on
a FIFO queue is FIFO blind to the GPU types, without time-slicing, as Gavel's agnostic FIFO keeps a
job where it started). Each run is one policy on the first :data:`ROUND_JOBS` jobs of one seed at
one of :data:`ROUND_LOADS`, from light to past the load where the agnostic LAS saturates (its
second half of jobs waits more than ``gavel_load.DRAIN_SLACK_MIN`` longer than its first half). It
records, besides the metrics, each half's mean wait, and writes ``--json`` (default
``benchmarks/results/gavel-load-rounds.json``). Fewer jobs, loads and seeds than the event-driven
sweep: a round run of 500 jobs on 108 GPUs costs 3-25 s of CPU, and the benchmarks of one round of
work share about 20 min of CPU (the shipped results took 391 s: 3 loads, 3 seeds, 36 runs).

Usage: ``python benchmarks/gavel_load_sweep.py [--json PATH] [--seeds N]`` (a few minutes);
``python benchmarks/gavel_load_sweep.py --rounds [--json PATH] [--seeds N]`` (about 7 min of CPU).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gavel_load import DRAIN_SLACK_MIN, LOADS, TUNING_SEEDS

from gpusched.paths import BENCHMARK_RESULTS_DIR
from gpusched.policies import get_policy
from gpusched.policies.registry import is_round_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

PRESETS = {"light": "gavel-108gpu-light", "medium": "gavel-108gpu", "heavy": "gavel-108gpu-heavy"}
"""The three presets of ``gavel-108gpu``, by offered load; they differ only in ``workload.load``."""
BASELINE = "fcfs+first_fit"
"""The pair every other one is compared with."""
AGNOSTIC = ("fcfs+first_fit", "random")
"""Pairs blind to the GPUs' speeds."""
AWARE = ("fcfs+fastest_fit", "fcfs+eft", "fcfs+fastest_move", "sjf+fastest_fit", "las+fastest_move")
"""Pairs that place by the job's measured speed on each GPU model."""
SEEDS = tuple(range(10))
"""Evaluation seeds (workload and policy seed of each run); disjoint from the tuning seeds."""
LOW_LOADS = (0.1, 0.2)
"""Grid loads below the light preset's, to show the curve where no job waits."""
METRICS = ("avg_jct_min", "avg_wait_min", "jobs_completed", "migrations", "makespan_min")
"""What each run records."""


ROUND_PAIRS = (("max_min_fairness", "max_min_fairness_perf"), ("fcfs+first_fit", "fifo_perf"))
"""(agnostic, aware) pairs of the rounds mode: Gavel's LAS and FIFO."""
ROUND_LOADS = (0.4, 0.7, 1.0)
"""Offered loads of the rounds mode: the heavy preset's, and on past the agnostic LAS's saturation."""
ROUND_JOBS = 500
"""Jobs per run in the rounds mode (the first of each seed's list)."""
ROUND_SEEDS = tuple(range(3))
"""Evaluation seeds of the rounds mode (the event-driven sweep's first ones)."""
ROUND_JSON = BENCHMARK_RESULTS_DIR / "gavel-load-rounds.json"
ROUND_METRICS = ("avg_jct_min", "avg_wait_min", "jobs_completed", "makespan_min", "type_changes_per_job")
"""What each round run records, besides each half's mean wait."""


def round_run(scenario, policy: str, seed: int) -> dict:  # noqa: ANN001
    """One run of the rounds mode: its metrics, each half's mean wait (jobs by arrival) and its CPU
    seconds."""
    start = time.process_time()
    sim = make_simulator(scenario, seed, n_jobs=ROUND_JOBS, rounds=is_round_policy(policy))
    result = sim.run(get_policy(policy, seed))
    cpu = time.process_time() - start
    waits = result.jobs.sort_values("arrival_min", kind="stable")["wait_min"].to_numpy()
    half = len(waits) // 2
    return {**{m: float(result.metrics.get(m, 0.0)) for m in ROUND_METRICS},
            "first_half_wait_min": float(waits[:half].mean()),
            "second_half_wait_min": float(waits[half:].mean()), "cpu_s": cpu}


def sweep_rounds(path: Path, n_seeds: int) -> None:
    """The rounds mode (see the module docstring): every pair at every load on every seed."""
    seeds = ROUND_SEEDS[:n_seeds]
    assert not set(seeds) & set(TUNING_SEEDS), "evaluation seeds must not be tuning seeds"
    base = load_scenario(PRESETS["medium"])
    runs, started = [], time.perf_counter()
    for load in ROUND_LOADS:
        scenario = base.with_overrides(**{"workload.load": load})
        for pair in ROUND_PAIRS:
            for policy in pair:
                for seed in seeds:
                    runs.append({"load": load, "policy": policy, "seed": seed,
                                 **round_run(scenario, policy, seed)})
                at = runs[-len(seeds):]
                print(f"load {load:4.2f} {policy:>22}: mean JCT "
                      f"{sum(r['avg_jct_min'] for r in at) / len(at):8.1f} min, CPU "
                      f"{sum(r['cpu_s'] for r in at):6.1f} s", flush=True)
    data = {"scenario": PRESETS["medium"], "jobs": ROUND_JOBS, "loads": list(ROUND_LOADS),
            "seeds": list(seeds), "tuning_seeds": list(TUNING_SEEDS),
            "pairs": [list(p) for p in ROUND_PAIRS], "drain_slack_min": DRAIN_SLACK_MIN,
            "rounds": {"length_min": 6.0, "reset_min": 32.0}, "runs": runs,
            "wall_s": time.perf_counter() - started, "cpu_s": sum(r["cpu_s"] for r in runs)}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path} ({data['wall_s']:.0f} s wall, {data['cpu_s']:.0f} s CPU)")


def sweep_loads() -> list[float]:
    """:data:`LOW_LOADS`, the presets' loads and the tuning grid's loads between the light and the
    heavy one."""
    light = load_scenario(PRESETS["light"]).workload.load
    heavy = load_scenario(PRESETS["heavy"]).workload.load
    return [*LOW_LOADS, *(x for x in LOADS if light <= x <= heavy)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=None,
                        help="where to write (default: gavel-load.json, or gavel-load-rounds.json)")
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--rounds", action="store_true", help="the round policies, agnostic against aware")
    args = parser.parse_args()
    if args.rounds:
        sweep_rounds(args.json or ROUND_JSON, args.seeds or len(ROUND_SEEDS))
        return
    args.json = args.json or BENCHMARK_RESULTS_DIR / "gavel-load.json"
    args.seeds = args.seeds or len(SEEDS)
    seeds = SEEDS[: args.seeds]
    assert not set(seeds) & set(TUNING_SEEDS), "evaluation seeds must not be tuning seeds"
    base = load_scenario(PRESETS["medium"])
    loads = sweep_loads()
    runs, started = [], time.perf_counter()
    for load in loads:
        scenario = base.with_overrides(**{"workload.load": load})
        for policy in AGNOSTIC + AWARE:
            for seed in seeds:
                t0 = time.perf_counter()
                result = make_simulator(scenario, seed).run(get_policy(policy))
                runs.append({"load": load, "policy": policy, "seed": seed,
                             **{m: float(result.metrics[m]) for m in METRICS},
                             "wall_s": time.perf_counter() - t0})
            print(f"load {load:4.2f} {policy:>18}: mean JCT "
                  f"{sum(r['avg_jct_min'] for r in runs[-len(seeds):]) / len(seeds):8.1f} min", flush=True)
    data = {"scenario": PRESETS["medium"], "presets": {k: [v, load_scenario(v).workload.load]
                                                       for k, v in PRESETS.items()},
            "jobs": base.workload.jobs, "loads": loads, "seeds": list(seeds),
            "tuning_seeds": list(TUNING_SEEDS), "baseline": BASELINE, "agnostic": list(AGNOSTIC),
            "aware": list(AWARE), "runs": runs, "wall_s": time.perf_counter() - started}
    args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.json} ({data['wall_s']:.0f} s)")


if __name__ == "__main__":
    main()
