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

Usage: ``python benchmarks/gavel_load_sweep.py [--json PATH] [--seeds N]`` (a few minutes).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gavel_load import LOADS, TUNING_SEEDS

from gpusched.paths import BENCHMARK_RESULTS_DIR
from gpusched.policies import get_policy
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


def sweep_loads() -> list[float]:
    """:data:`LOW_LOADS`, the presets' loads and the tuning grid's loads between the light and the
    heavy one."""
    light = load_scenario(PRESETS["light"]).workload.load
    heavy = load_scenario(PRESETS["heavy"]).workload.load
    return [*LOW_LOADS, *(x for x in LOADS if light <= x <= heavy)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=BENCHMARK_RESULTS_DIR / "gavel-load.json")
    parser.add_argument("--seeds", type=int, default=len(SEEDS))
    args = parser.parse_args()
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
