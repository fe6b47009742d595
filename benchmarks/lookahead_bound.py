"""The headroom: the clairvoyant planner ``lookahead_jct`` against the best heuristic by JCT.

``lookahead_jct`` weighs every distinct (window job, GPU) action and HOLD at every decision by
playing it, then its base heuristic (SJF with Fastest-Fit), to the end on a fork that knows the
whole future, and keeps the action with the lowest average JCT (see
:mod:`gpusched.policies.window_lookahead`). No real scheduler can do this: what it reaches bounds
what one step of perfect foresight buys in the window agent's action space.

On a large preset a rollout to the end at every decision is out of reach (a 2,000-job run on 108
GPUs would take days). There ``--horizon-min H`` cuts every fork H minutes after its decision and
scores it by the job-minutes in the system up to then plus a lower bound of the unfinished jobs'
minutes left (:func:`gpusched.policies.objective.horizon_score`): a clairvoyant planner's reach,
not a proven bound. ``--base`` names the pair that finishes the forks and proposes the default
action, ``--setting`` what the scenario tells of run times (``workload.declared_run_time``, e.g.
``history``: the rules and the planner's base read predictions; the forks still run the truth).

The best heuristic is the shipped pair with the lowest mean JCT on these seeds, run here; or, with
``--best-from KNOWLEDGE_JSON``, the pair with the lowest mean JCT under ``--setting`` in the
knowledge table of ``benchmarks/urgency_table.py`` (its pairs, on its seeds), which is then run
here on these seeds beside the planner and its base.

Prints every policy's mean and the planner paired seed by seed against the best heuristic, and
writes every run's metrics (the planner's with its wall time, forks and searched decisions) to
``--json``. Runs go to a process pool (``--workers``). ``--merge A.json B.json ... --json OUT``
joins runs of one scenario measured in parts (e.g. one seed at a time) and prints the same.

``python benchmarks/render_results.py`` renders ``docs/results/lookahead-bound.md`` from the JSON
files of :data:`render_results.LOOKAHEAD_BOUND_JSONS`.

Usage: ``python benchmarks/lookahead_bound.py [--scenario fleet-16gpu] [--seeds 1000-1019]
[--setting history] [--base PAIR] [--horizon-min H] [--best-from PATH] [--workers 2]
[--json benchmarks/results/lookahead-bound.json] [--merge PART ...]``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd

from gpusched.backends import run_tasks
from gpusched.cli.args import parse_seeds
from gpusched.dashboard.headline import best_heuristic
from gpusched.experiment.knowledge import KnowledgeTable
from gpusched.experiment.runner import Comparison, run_policy, run_scheduler
from gpusched.experiment.scorecard import scorecard
from gpusched.policies import queue_policy_names
from gpusched.policies.registry import LOOKAHEAD_BASE, queue_policy
from gpusched.policies.window_lookahead import WindowLookahead
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario, told

PLANNER = "lookahead_jct"
METRICS = ("avg_jct_min", "avg_wait_min", "p99_wait_min", "avg_slowdown", "speed_loss_min", "jobs_completed")
PLANNER_COUNTS = ("decisions", "planned", "departed", "forks")
"""What a planner run records besides its metrics: decisions, decisions searched, decisions where
it left its base, forks played."""


def scenario_of(name: str, setting: str | None) -> Scenario:
    """The preset, told its run times as ``setting`` (``None``: as the preset says)."""
    scenario = load_scenario(name)
    return scenario if setting is None else told(scenario, setting)


def one_run(task: tuple[str, str | None, str, int, dict]) -> dict:
    """The metrics of one (scenario, setting, policy, seed) run, with its wall time. ``policy`` is
    :data:`PLANNER` for the planner built with the options ``planner`` (its ``base`` and
    ``horizon_min``), else a registry name."""
    name, setting, policy, seed, planner = task
    scenario = scenario_of(name, setting)
    started, cpu = time.perf_counter(), time.process_time()
    counts = {}
    if policy != PLANNER:
        metrics = run_policy(scenario, policy, seed=seed).metrics
    else:
        base = planner["base"]
        search = WindowLookahead(lambda: queue_policy(base), PLANNER, horizon_min=planner["horizon_min"])
        metrics = run_scheduler(scenario, search, PLANNER, seed).metrics
        counts = {"decisions": search.decisions, "planned": search.planned,
                  "departed": search.departed, "forks": search.forks}
    return {"policy": policy, "seed": seed, "seconds": time.perf_counter() - started,
            "cpu_seconds": time.process_time() - cpu, **metrics, **counts}


def best_knowledge_pair(table_json: dict, setting: str) -> str:
    """The pair with the lowest mean JCT under ``setting`` of one knowledge table's JSON."""
    table = KnowledgeTable.from_json(table_json)
    best = table.best(setting, among=[p for p in table.policies if "+" in p])
    if best is None:
        raise SystemExit(f"no pair ran under '{setting}' in the knowledge table of {table.scenario}")
    return best


def report(data: dict) -> None:
    """Print the planner's runtime, each policy's means and the paired difference (95 %)."""
    runs = pd.DataFrame(data["runs"]).sort_values(["policy", "seed"]).reset_index(drop=True)
    scenario, best = data["scenario"], data["best_heuristic"]
    seeds = sorted(runs["seed"].unique())
    comparison = Comparison(scenario, runs, {})
    mean = runs.groupby("policy")[list(METRICS)].mean().sort_values("avg_jct_min")
    planner = runs[runs.policy == PLANNER]
    cpu = f", {planner['cpu_seconds'].mean():.0f} s of CPU" if "cpu_seconds" in planner else ""
    print(f"**{scenario}**, seeds {seeds[0]}-{seeds[-1]} ({len(seeds)}): {PLANNER} took "
          f"{planner['seconds'].mean():.0f} s per run{cpu}\n")
    print("| policy | avg JCT (min) | avg wait (min) | p99 wait (min) | slowdown | speed loss (min) |")
    print("|---|---|---|---|---|---|")
    for p in mean.index:
        r = mean.loc[p]
        print(f"| {p} | {r.avg_jct_min:.1f} | {r.avg_wait_min:.1f} | {r.p99_wait_min:.0f} | "
              f"{r.avg_slowdown:.2f} | {r.speed_loss_min:.1f} |")
    card = scorecard(comparison, best, ["avg_jct_min", "p99_wait_min"])
    for r in card[card["policy"] == PLANNER].itertuples():
        relative = f"{100 * r.diff / r.baseline_mean:+.1f} %" if r.baseline_mean else "of 0"
        print(f"\n{PLANNER} - {best}, {r.metric}: {r.diff:+.2f} [{r.low:+.2f}, {r.high:+.2f}] "
              f"({relative}), won/tied/lost {r.wins}/{r.ties}/{r.losses}")


def merged(parts: list[str]) -> dict:
    """The parts' runs joined (one scenario, setting, planner and best heuristic; a (policy, seed)
    measured twice keeps its first run)."""
    datas = [json.loads(Path(p).read_text(encoding="utf-8")) for p in parts]
    head = {k: v for k, v in datas[0].items() if k != "runs"}
    for path, data in zip(parts, datas, strict=True):
        other = {k: v for k, v in data.items() if k != "runs"}
        if other != head:
            raise SystemExit(f"{path}: not the same measurement as {parts[0]} ({other} != {head})")
    runs = pd.DataFrame([r for d in datas for r in d["runs"]]).drop_duplicates(["policy", "seed"])
    return {**head, "runs": runs.sort_values(["policy", "seed"]).to_dict("records")}


def measure(args: argparse.Namespace) -> dict:
    """Run the rules and the planner on the seeds (see the module docstring)."""
    seeds = parse_seeds(args.seeds)
    planner = {"base": args.base, "horizon_min": args.horizon_min}
    if args.best_from:
        tables = json.loads(Path(args.best_from).read_text(encoding="utf-8")).get("tables", {})
        if args.scenario not in tables:
            raise SystemExit(f"{args.best_from}: tables.{args.scenario}: no knowledge table of this scenario")
        best = best_knowledge_pair(tables[args.scenario], args.setting or "exact")
        rules = list(dict.fromkeys([best, args.base]))
    else:
        rules, best = list(queue_policy_names()), None
    tasks = [(args.scenario, args.setting, p, s, planner) for s in seeds for p in [*rules, PLANNER]]
    rows = list(run_tasks(one_run, tasks, workers=args.workers))
    runs = pd.DataFrame(rows).sort_values(["policy", "seed"]).reset_index(drop=True)
    if best is None:
        best = best_heuristic(Comparison(args.scenario, runs, {}), tuple(rules))
    kept = runs[[c for c in ("policy", "seed", "seconds", "cpu_seconds", *METRICS, *PLANNER_COUNTS)
                 if c in runs]]
    kept = kept.astype(object).where(kept.notna(), None)
    data = {"scenario": args.scenario, "best_heuristic": best, "runs": kept.to_dict("records")}
    if args.setting is not None or args.horizon_min is not None or args.base != LOOKAHEAD_BASE:
        data.update(setting=args.setting, planner=planner,
                    best_from="knowledge table" if args.best_from else "every shipped pair")
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="fleet-16gpu")
    parser.add_argument("--seeds", default="1000-1019")
    parser.add_argument("--setting", help="workload.declared_run_time for every run (e.g. history)")
    parser.add_argument("--base", default=LOOKAHEAD_BASE, help="the pair that finishes the forks")
    parser.add_argument("--horizon-min", type=float, help="cut every fork this many minutes ahead")
    parser.add_argument("--best-from", help="take the best pair from this knowledge table JSON")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", help="write every run's metrics to this path")
    parser.add_argument("--merge", nargs="+", help="join these parts instead of running")
    args = parser.parse_args()
    data = merged(args.merge) if args.merge else measure(args)
    if args.json:
        Path(args.json).write_text(json.dumps(data) + "\n", encoding="utf-8")
    report(data)


if __name__ == "__main__":
    main()
