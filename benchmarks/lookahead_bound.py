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

``--moving`` also runs each order of the pool with the placement that moves running jobs to faster
GPUs (``ORDER+fastest_move``, :func:`moving_rules`): an action outside the planner's space, so
these rules are shown beside the bound and never taken as the best rule. With ``--resume`` they
are added to a file that holds the rest.

``--deployable`` also runs the same planner told only the jobs that have arrived and their declared
run times (:data:`DEPLOYABLE`, ``arrived_only=True``, without a horizon): a scheduler one could
run, under the rules' information, so that what the clairvoyant planner adds over it is what
knowing the future buys. It too is shown beside the rules, never taken as the best one.

Prints every policy's mean and the planner paired seed by seed against the best heuristic, and
writes every run's metrics (the planner's with its wall time, CPU time, forks and searched
decisions) to ``--json``. Runs go to a process pool (``--workers``). ``--merge A.json B.json ...
--json OUT`` joins runs of one scenario measured in parts (e.g. one seed at a time) and prints the
same. ``--resume`` (with ``--json``) measures seed by seed and rewrites the file after each seed,
keeping every run it already holds: a seed whose runs are all there is not run again, so a stopped
measurement loses at most the seed it was on and starts again there (:func:`measure_resumable`).

``python benchmarks/render_results.py`` renders ``docs/results/lookahead-bound.md`` from the JSON
files of :data:`render_results.LOOKAHEAD_BOUND_JSONS`.

Usage: ``python benchmarks/lookahead_bound.py [--scenario fleet-16gpu] [--seeds 1000-1019]
[--setting history] [--base PAIR] [--horizon-min H] [--best-from PATH] [--moving] [--deployable]
[--workers 2]
[--json benchmarks/results/lookahead-bound.json [--resume]] [--merge PART ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
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
from gpusched.policies.migration import MOVING_PLACEMENT
from gpusched.policies.registry import LOOKAHEAD_BASE, queue_policy
from gpusched.policies.window_lookahead import WindowLookahead
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario, told

PLANNER = "lookahead_jct"
DEPLOYABLE = "lookahead_arrived"
"""The planner told only the arrived jobs and their declared run times (``--deployable``)."""
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
    ``horizon_min``), :data:`DEPLOYABLE` for the same base told only the arrived jobs, else a
    registry name."""
    name, setting, policy, seed, planner = task
    scenario = scenario_of(name, setting)
    started, cpu = time.perf_counter(), time.process_time()
    counts = {}
    if policy not in (PLANNER, DEPLOYABLE):
        metrics = run_policy(scenario, policy, seed=seed).metrics
    else:
        base, deployable = planner["base"], policy == DEPLOYABLE
        search = WindowLookahead(lambda: queue_policy(base), policy, arrived_only=deployable,
                                 horizon_min=None if deployable else planner["horizon_min"])
        metrics = run_scheduler(scenario, search, policy, seed).metrics
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


def moving_rules(rules: list[str]) -> list[str]:
    """Each order of ``rules`` (``ORDER+PLACEMENT`` pairs) with the placement that moves running
    jobs to faster GPUs as they free up (:data:`~gpusched.policies.migration.MOVING_PLACEMENT`)."""
    orders = dict.fromkeys(rule.partition("+")[0] for rule in rules)
    return [f"{order}+{MOVING_PLACEMENT}" for order in orders]


def beside_rules(moving: list[str], deployable: bool) -> list[str]:
    """What runs beside the rules and is never the best one: the rules that move jobs, then
    :data:`DEPLOYABLE` when it runs."""
    return [*moving, *([DEPLOYABLE] if deployable else [])]


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


def plan(args: argparse.Namespace) -> tuple[list[str], str | None, dict]:
    """The rules to run beside the planner, the best rule when it is known before running (taken
    from ``--best-from``; ``None``: the best shipped pair on the runs) and the planner's options."""
    planner = {"base": args.base, "horizon_min": args.horizon_min}
    if not args.best_from:
        return list(queue_policy_names()), None, planner
    tables = json.loads(Path(args.best_from).read_text(encoding="utf-8")).get("tables", {})
    if args.scenario not in tables:
        raise SystemExit(f"{args.best_from}: tables.{args.scenario}: no knowledge table of this scenario")
    best = best_knowledge_pair(tables[args.scenario], args.setting or "exact")
    return list(dict.fromkeys([best, args.base])), best, planner


def run_seeds(args: argparse.Namespace, policies: list[str], planner: dict, seeds: list[int]) -> list[dict]:
    """Each of ``policies`` (registry names or :data:`PLANNER`) on each of ``seeds``, one row per
    run (see :func:`one_run`)."""
    tasks = [(args.scenario, args.setting, p, s, planner) for s in seeds for p in policies]
    return list(run_tasks(one_run, tasks, workers=args.workers))


def assembled(args: argparse.Namespace, rules: list[str], best: str | None, planner: dict,
              rows: list[dict], moving: list[str] = (), deployable: bool = False) -> dict:
    """What ``--json`` holds: the scenario, the best rule (picked among ``rules`` from ``rows`` when
    ``best`` is ``None``), the measurement's options when they are not the defaults, the rules that
    move jobs run beside (``moving``, when any), whether :data:`DEPLOYABLE` ran, and the runs."""
    runs = pd.DataFrame(rows).sort_values(["policy", "seed"]).reset_index(drop=True)
    if best is None:
        best = best_heuristic(Comparison(args.scenario, runs, {}), tuple(rules))
    kept = runs[[c for c in ("policy", "seed", "seconds", "cpu_seconds", *METRICS, *PLANNER_COUNTS)
                 if c in runs]]
    kept = kept.astype(object).where(kept.notna(), None)
    return {"scenario": args.scenario, "best_heuristic": best, "runs": kept.to_dict("records"),
            **options(args, planner), **({"moving": list(moving)} if moving else {}),
            **({"deployable": True} if deployable else {})}


def options(args: argparse.Namespace, planner: dict) -> dict:
    """The measurement's setting, planner and best rule's source, when any is not the default."""
    if args.setting is None and args.horizon_min is None and args.base == LOOKAHEAD_BASE:
        return {}
    return {"setting": args.setting, "planner": planner,
            "best_from": "knowledge table" if args.best_from else "every shipped pair"}


def measure(args: argparse.Namespace) -> dict:
    """Run the rules and the planner on the seeds (see the module docstring)."""
    rules, best, planner = plan(args)
    moving = moving_rules(rules) if args.moving else []
    beside = beside_rules(moving, args.deployable)
    seeds = parse_seeds(args.seeds)
    return assembled(args, rules, best, planner, run_seeds(args, [*rules, *beside, PLANNER], planner, seeds),
                     moving, args.deployable)


def _head(data: dict, picked: bool) -> dict:
    """A measurement's description without its runs and what runs beside the rules (the rules that
    move jobs and the deployable planner, which a later ``--moving`` or ``--deployable`` may add),
    and without the best rule when it is picked from the runs, which more seeds may change."""
    return {k: v for k, v in data.items()
            if k not in ("runs", "moving", "deployable") and not (picked and k == "best_heuristic")}


def write_atomically(path: Path, data: dict) -> None:
    """Write ``data`` as JSON to ``path`` through a temporary file, so that a run stopped while
    writing leaves the previous file whole."""
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(data) + "\n", encoding="utf-8")
    os.replace(part, path)


def measure_resumable(args: argparse.Namespace) -> dict:
    """Run the seeds one at a time, rewriting ``--json`` after each with every run so far.

    A seed the file already holds for every rule and the planner is skipped; the file must describe
    the same measurement (scenario, setting, planner, best rule's source), else it is refused. A
    (policy, seed) run the file holds is never replaced; what it runs beside the rules is kept, and
    ``--moving`` or ``--deployable`` adds what is missing.
    """
    path = Path(args.json)
    rules, best, planner = plan(args)
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    rows = list(data["runs"]) if data else []
    added = moving_rules(rules) if args.moving else []
    moving = list(dict.fromkeys([*(data or {}).get("moving", []), *added]))
    deployable = bool((data or {}).get("deployable")) or args.deployable
    beside = beside_rules(moving, deployable)
    wanted = {*rules, *beside, PLANNER}
    expected = {"scenario": args.scenario, **({"best_heuristic": best} if best else {}),
                **options(args, planner)}
    if data is not None and _head(data, best is None) != expected:
        raise SystemExit(f"{path}: holds another measurement ({_head(data, best is None)} != {expected})")
    for seed in parse_seeds(args.seeds):
        have = {r["policy"] for r in rows if r["seed"] == seed}
        if wanted <= have:
            print(f"seed {seed}: already in {path}", flush=True)
            continue
        new = run_seeds(args, [p for p in [*rules, *beside, PLANNER] if p not in have], planner, [seed])
        rows += new
        data = assembled(args, rules, best, planner, rows, moving, deployable)
        write_atomically(path, data)
        spent = ", ".join(f"{r['policy']} {r['cpu_seconds']:.0f}" for r in new)
        print(f"seed {seed}: {spent} CPU s; written to {path}", flush=True)
    if data is None:
        raise SystemExit("no seed to run")
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="fleet-16gpu")
    parser.add_argument("--seeds", default="1000-1019")
    parser.add_argument("--setting", help="workload.declared_run_time for every run (e.g. history)")
    parser.add_argument("--base", default=LOOKAHEAD_BASE, help="the pair that finishes the forks")
    parser.add_argument("--horizon-min", type=float, help="cut every fork this many minutes ahead")
    parser.add_argument("--best-from", help="take the best pair from this knowledge table JSON")
    parser.add_argument("--moving", action="store_true",
                        help="also run each order with fastest_move (shown beside, never the best rule)")
    parser.add_argument("--deployable", action="store_true",
                        help="also run the planner told only the arrived jobs (not with --horizon-min)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", help="write every run's metrics to this path")
    parser.add_argument("--merge", nargs="+", help="join these parts instead of running")
    parser.add_argument("--resume", action="store_true",
                        help="run seed by seed, rewriting --json after each; skip seeds it holds")
    args = parser.parse_args()
    if args.resume and (not args.json or args.merge):
        parser.error("--resume writes seed by seed to --json, and does not --merge")
    if args.deployable and args.horizon_min is not None:
        parser.error("--deployable runs the planner told only the arrived jobs to the end: no --horizon-min")
    if args.resume:
        data = measure_resumable(args)
    else:
        data = merged(args.merge) if args.merge else measure(args)
        if args.json:
            Path(args.json).write_text(json.dumps(data) + "\n", encoding="utf-8")
    report(data)


if __name__ == "__main__":
    main()
