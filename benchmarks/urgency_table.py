"""What the scheduler knows, per preset: every pair told run times exactly, with an error, not at
all and from history, on the same jobs, paired seed by seed (issue 29's tables).

For each preset of :data:`PRESETS` (``gavel-108gpu-heavy``, the same with Gavel's deadlines and
weights for SLO attainment and weighted JCT, ``openb-replay-heavy`` and ``fleet-16gpu``), each pair
of :data:`POLICIES` runs under each setting of :data:`gpusched.experiment.knowledge.SETTINGS` on the
held-out seeds :data:`SEEDS` (never used to tune a preset: ``gavel-108gpu-heavy`` and
``openb-replay-heavy`` were sized on seeds 900-904, ``fleet-16gpu``'s load on seeds 0-9). A pair that
reads run times is refused under ``none`` and kept as a refused row. The pairs cover the FCFS pairs,
the information-free order (``las``, Tiresias), the history order (``qssf``, Helios), the orders and
placements that read the declared or predicted run time (``sjf``, ``srtf+eft``), and the deadline
orders (``edf``, ``least_slack``, ``cheapest_fit``).

Writes ``--json`` (default ``benchmarks/results/urgency.json``: one
:meth:`~gpusched.experiment.knowledge.KnowledgeTable.to_json` per preset under ``tables``, with each
preset's description, whether its jobs have deadlines, and its wall time under ``presets``);
``python benchmarks/render_results.py`` renders ``docs/results/urgency.md`` from it.
``--policies`` and ``--seeds`` add pairs (the urgency agent, ``ppo_urgency``) or seeds without
editing this file; ``--quick`` is a smoke run (2 seeds, 3 pairs, 200 jobs per preset). The presets
may run in parallel processes (``--presets A --json a.json``, ...) and be merged with ``--merge
a.json b.json ...``: the tables are the same, only each preset's wall time reflects its process.

Usage: ``python benchmarks/urgency_table.py [--json PATH] [--presets NAME ...] [--policies P ...]
[--seeds S ...] [--quick] [--merge PART ...]`` (about 25 minutes on one idle core).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gpusched.experiment.knowledge import knowledge_comparison
from gpusched.paths import URGENCY_RESULTS
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario

PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "gavel-108gpu-heavy": ("gavel-108gpu-heavy", {}),
    "gavel-108gpu-heavy+deadlines": ("gavel-108gpu-heavy",
                                     {"workload.deadlines": True, "workload.weights": True}),
    "openb-replay-heavy": ("openb-replay-heavy", {}),
    "fleet-16gpu": ("fleet-16gpu", {}),
}
"""Each table's name -> (the preset, the keys it overrides)."""
POLICIES = ("fcfs+first_fit", "fcfs+fastest_fit", "las+fastest_fit", "las+fastest_move",
            "qssf+fastest_fit", "sjf+fastest_fit", "srtf+eft", "edf+fastest_fit",
            "least_slack+fastest_fit", "edf+cheapest_fit")
"""The pairs (``las+eft`` is left out: under ``history`` it is the slowest pair to run and the
worst on ``gavel-108gpu-heavy``, ``benchmarks/urgency_window.py``)."""
SEEDS = tuple(range(1000, 1010))
"""Held-out seeds (workload and policy seed of each run)."""
TUNING_SEEDS = frozenset({*range(900, 905), *range(10)})
"""Seeds that chose a preset's load or size: never evaluated here."""
METRICS = ("avg_jct_min", "avg_wait_min", "p99_wait_min", "jobs_completed", "slo_attainment",
           "deadline_miss_min", "weighted_jct_min", "cost_usd", "cost_per_met_job_usd",
           "prediction_error_log")
"""What each run keeps."""
QUICK = {"seeds": (1000, 1001), "policies": ("fcfs+first_fit", "las+fastest_fit", "qssf+fastest_fit"),
         "jobs": 200}
"""The smoke run of ``--quick``."""


def table_scenario(name: str, jobs: int | None = None) -> Scenario:
    """The scenario of the table ``name`` (:data:`PRESETS`), cut to ``jobs`` jobs if given."""
    preset, overrides = PRESETS[name]
    changes = dict(overrides)
    if jobs is not None:
        changes["workload.jobs"] = jobs
    scenario = load_scenario(preset)
    return scenario.with_overrides(**changes) if changes else scenario


def has_deadlines(scenario: Scenario) -> bool:
    """Whether any job of the scenario's first seed carries a deadline."""
    return any(j.deadline_min is not None for j in scenario.jobs())


def measure(tables: Mapping[str, Scenario], policies: Sequence[str], seeds: Sequence[int],
            progress: Callable[[str, int, int], None] | None = None) -> dict:
    """Every table's runs: the JSON this script writes.

    :param tables: table name -> its scenario.
    :param progress: called as ``progress(table, done, total)`` after each run.
    """
    out: dict[str, Any] = {"seeds": [int(s) for s in seeds], "policies": list(policies),
                           "tables": {}, "presets": {}}
    for name, scenario in tables.items():
        started = time.perf_counter()
        table = knowledge_comparison(scenario, policies, seeds, metrics=METRICS,
                                     progress=None if progress is None
                                     else (lambda d, t, n=name: progress(n, d, t)))
        table.scenario = name  # the table's name: a preset, or a preset with overrides
        out["tables"][name] = table.to_json()
        out["presets"][name] = {"preset": PRESETS.get(name, (scenario.name, {}))[0],
                                "overrides": PRESETS.get(name, (None, {}))[1],
                                "description": scenario.description, "deadlines": has_deadlines(scenario),
                                "wall_s": time.perf_counter() - started}
    return out


def merged(parts: Sequence[dict]) -> dict:
    """One JSON from runs of the same pairs and seeds on different presets (``--presets`` run in
    parallel processes), in the order of :data:`PRESETS`.

    :raises ValueError: if the parts ran other pairs or seeds, or a preset twice.
    """
    first = parts[0]
    out = {"seeds": first["seeds"], "policies": first["policies"], "tables": {}, "presets": {}}
    for part in parts:
        if part["seeds"] != first["seeds"] or part["policies"] != first["policies"]:
            raise ValueError("the parts ran different seeds or pairs: they cannot be merged")
        twice = set(part["tables"]) & set(out["tables"])
        if twice:
            raise ValueError(f"preset '{sorted(twice)[0]}' is in two parts")
        out["tables"].update(part["tables"])
        out["presets"].update(part["presets"])
    order = [n for n in PRESETS if n in out["tables"]] + [n for n in out["tables"] if n not in PRESETS]
    out["tables"] = {n: out["tables"][n] for n in order}
    out["presets"] = {n: out["presets"][n] for n in order}
    return out


def with_policies(base: dict, part: dict) -> dict:
    """``base`` with the rows of ``part``'s policies added to the tables both hold (e.g. the
    urgency agent, run after the pairs on the same presets and seeds).

    :raises ValueError: if the parts ran other seeds or settings, or a policy twice.
    """
    if part["seeds"] != base["seeds"]:
        raise ValueError("the parts ran different seeds: they cannot be joined")
    twice = set(part["policies"]) & set(base["policies"])
    if twice:
        raise ValueError(f"policy '{sorted(twice)[0]}' is in both parts")
    out = json.loads(json.dumps(base))
    out["policies"] = [*base["policies"], *part["policies"]]
    for name, table in part["tables"].items():
        mine = out["tables"].get(name)
        if mine is None:
            continue
        if mine["settings"] != table["settings"] or set(mine["runs"]) != set(table["runs"]):
            raise ValueError(f"table '{name}': the parts ran different settings or metrics")
        mine["policies"] = [*mine["policies"], *table["policies"]]
        mine["runs"] = {col: [*values, *table["runs"][col]] for col, values in mine["runs"].items()}
        out["presets"][name]["wall_s"] += part["presets"][name]["wall_s"]
    return out


def _print_progress(name: str, done: int, total: int) -> None:
    if done % 40 == 0 or done == total:
        print(f"{name}: {done}/{total} runs", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=URGENCY_RESULTS)
    parser.add_argument("--presets", nargs="+", choices=list(PRESETS), default=list(PRESETS))
    parser.add_argument("--policies", nargs="+", default=None, help=f"default: {' '.join(POLICIES)}")
    parser.add_argument("--seeds", nargs="+", type=int, default=None,
                        help=f"default: {SEEDS[0]}-{SEEDS[-1]}")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2 seeds, 3 pairs, 200 jobs")
    parser.add_argument("--merge", nargs="+", type=Path, metavar="PART",
                        help="run nothing: merge the JSON of runs on different --presets into --json")
    parser.add_argument("--add", type=Path, metavar="PART",
                        help="run nothing: add the rows of PART's policies (same seeds) to --json")
    args = parser.parse_args()
    if args.add:
        data = with_policies(json.loads(args.json.read_text(encoding="utf-8")),
                             json.loads(args.add.read_text(encoding="utf-8")))
        args.json.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
        return
    if args.merge:
        parts = [json.loads(p.read_text(encoding="utf-8")) for p in args.merge]
        args.json.write_text(json.dumps(merged(parts), separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
        return
    seeds = args.seeds or list(QUICK["seeds"] if args.quick else SEEDS)
    policies = args.policies or list(QUICK["policies"] if args.quick else POLICIES)
    if TUNING_SEEDS & set(seeds):
        parser.error(f"--seeds: {sorted(TUNING_SEEDS & set(seeds))} tuned a preset; use held-out seeds")
    tables = {name: table_scenario(name, QUICK["jobs"] if args.quick else None) for name in args.presets}
    data = measure(tables, policies, seeds, progress=_print_progress)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
