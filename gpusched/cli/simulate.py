"""``gpusched scenarios``, ``gpusched simulate`` and ``gpusched compare``: runs of the simulator.

Before the first run, both check every argument (every policy name, so that a late failure
never loses the runs already made), what the runs would refuse (the check ``sweep`` and
``train`` share, :func:`gpusched.policies.preflight.check_runs`) and that every output file can be
written (by creating a temporary file where it goes; two outputs on one file are refused), and
print on stderr the ``note:`` lines naming the job shapes a synthetic workload leaves out because
the cluster could never hold them, and the speed-table rows that name a GPU model the cluster
lacks. The output files are written together at the end, or not at all.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

from gpusched.cli.args import (
    add_max_runs,
    check_outputs,
    format_value,
    job_count,
    json_metrics,
    json_text,
    policy_list,
    positive_int,
    seed_list,
    seed_value,
    table,
    write_json,
)
from gpusched.core.metrics import FAIRNESS_METRIC_KEYS, METRIC_KEYS, ROUND_METRIC_KEYS
from gpusched.errors import GpuschedError, shorten
from gpusched.experiment.budget import check_run_count
from gpusched.experiment.runner import compare, run_policy
from gpusched.experiment.scorecard import scorecard
from gpusched.limits import MAX_SEEDS
from gpusched.policies import check_policy, get_policy, heuristic_names
from gpusched.policies.preflight import check_runs
from gpusched.workload.files import write_together
from gpusched.workload.presets import list_presets, load_scenario
from gpusched.workload.scenario import Scenario


def _notes(scenario: Scenario, seed: int) -> None:
    """Print the scenario's ``note:`` lines on stderr: left-out job shapes, unused speed rows,
    GPU models the speed or price table does not name."""
    cluster = scenario.build_cluster(seed)
    for note in (scenario.left_out_note(cluster), scenario.speed_note(cluster), scenario.declared_note(),
                 scenario.prices_note(cluster)):
        if note:
            print(note, file=sys.stderr)


def _check_policy(name: str) -> None:
    """Refuse a policy name (and, for the agent, its model, loaded) before any run."""
    check_policy(name)
    get_policy(name)

COMPARE_COLUMNS: tuple[str, ...] = ("avg_jct_min", "avg_wait_min", "p95_wait_min", "avg_slowdown",
                                    "speed_loss_min", "avg_util", "util_in_band_frac", "gini",
                                    "jobs_completed", "stall_min", "total_reward")
"""The metrics ``compare`` prints (its JSON holds every metric)."""


def cmd_scenarios(args: argparse.Namespace) -> int:
    rows = [[s.name, str(s.n_gpus), str(s.workload.jobs), s.description.split(". ")[0]]
            for s in list_presets()]
    print(table(["name", "GPUs", "jobs", "description"], rows))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    scenario = load_scenario(args.scenario)
    seed = scenario.workload.seed if args.seed is None else args.seed
    _check_policy(args.policy)
    check_runs(scenario, [args.policy], seed, args.jobs)
    check_outputs([("--json", args.json), ("--jobs-csv", args.jobs_csv)])
    _notes(scenario, seed)
    result = run_policy(scenario, args.policy, seed=seed, n_jobs=args.jobs)
    print(f"scenario {scenario.name} · policy {args.policy} · seed {seed} · "
          f"{result.cluster.n_gpus} GPUs · run ended: {result.end_reason}")
    if result.end_reason == "safety_horizon":
        print(f"note: with failures and no horizon_min, the run stopped at its safety horizon, minute "
              f"{result.metrics['makespan_min']:,.0f} after its start, with "
              f"{result.metrics['jobs_unfinished']:,} jobs unfinished (see docs/scenarios.md, Runs that end)",
              file=sys.stderr)
    if scenario.workload.trace is not None and scenario.workload.trace.pods is not None:
        _, left_out = scenario.trace_jobs(seed, args.jobs)
        print(f"trace pods left out of the jobs: {left_out['cpu_only_pods']} CPU-only, "
              f"{left_out['unhostable_pods']} that no sampled node could host")
    keys = (*METRIC_KEYS, *FAIRNESS_METRIC_KEYS, *(k for k in ROUND_METRIC_KEYS if k in result.metrics))
    print(table(["metric", "value"], [[k, format_value(k, result.metrics[k])] for k in keys]))
    writers: list[tuple[str, Callable[[Path], object]]] = []
    if args.json is not None:
        text = json_text({"scenario": scenario.name, "policy": args.policy, "seed": seed,
                          "end_reason": result.end_reason, "metrics": json_metrics(result.metrics)})
        writers.append((args.json, lambda path: path.write_text(text, encoding="utf-8")))
    if args.jobs_csv is not None:
        writers.append((args.jobs_csv, lambda path: result.jobs.to_csv(path, index=False)))

    def write_all(temps: list[Path]) -> None:
        for (_, write), tmp in zip(writers, temps, strict=True):
            write(tmp)

    if writers:  # both files, or neither
        write_together([path for path, _ in writers], write_all, what="--json/--jobs-csv")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    scenario = load_scenario(args.scenario)
    policies = policy_list(args.policies, _check_policy) if args.policies else heuristic_names()
    n_seeds = len(args.seed_list) if args.seed_list else args.seeds
    check_run_count(len(policies) * n_seeds, args.max_runs,
                    f"compare ({len(policies)} policies × {n_seeds:,} seeds)")
    if n_seeds > MAX_SEEDS:
        raise GpuschedError(f"--seeds: {n_seeds:,} seeds, more than the limit of {MAX_SEEDS:,}")
    check_outputs([("--json", args.json)])
    seeds = args.seed_list if args.seed_list else list(range(args.seeds))
    if args.baseline is not None and args.baseline not in policies:
        raise GpuschedError(f"--baseline '{shorten(args.baseline)}' is not among --policies "
                            f"({shorten(', '.join(policies), 200)})")
    check_runs(scenario, policies, seeds[0], args.jobs)
    _notes(scenario, seeds[0])
    comparison = compare(scenario, policies, seeds, n_jobs=args.jobs)
    mean, spread = comparison.summary(), comparison.spread()
    rows = [[p] + [f"{format_value(k, mean.loc[p, k])} ± {format_value(k, spread.loc[p, k])}"
                   for k in COMPARE_COLUMNS] for p in policies]
    print(f"scenario {scenario.name} · {scenario.n_gpus} GPUs · seeds {seeds} · mean ± std")
    print(table(["policy", *COMPARE_COLUMNS], rows))
    card = None
    if args.baseline is not None and len(policies) == 1:
        print(f"note: --baseline '{args.baseline}' is the only policy, so there is nothing to pair "
              "it with: add at least one more to --policies", file=sys.stderr)
    elif args.baseline is not None:
        card = scorecard(comparison, args.baseline)
        print(f"\npaired against {args.baseline} over the same {len(seeds)} seed(s): "
              "mean difference (policy - baseline) [95 % interval], seeds won / tied / lost")
        print(table(["policy", "metric", "policy mean", "baseline mean", "difference", "won/tied/lost"],
                    [[r.policy, r.metric, format_value(r.metric, r.policy_mean),
                      format_value(r.metric, r.baseline_mean),
                      _difference(r.diff, r.low, r.high), f"{r.wins}/{r.ties}/{r.losses}"]
                     for r in card.itertuples()]))
    if args.json is not None:
        runs = [{"policy": r["policy"], "seed": int(r["seed"]), "metrics": json_metrics(r)}
                for r in comparison.runs.to_dict("records")]
        summary = {p: {k: float(mean.loc[p, k]) for k in METRIC_KEYS} for p in policies}
        payload = {"scenario": scenario.name, "runs": runs, "summary": summary}
        if args.baseline is not None:
            payload["baseline"] = args.baseline
            payload["scorecard"] = [] if card is None else card.to_dict("records")
        write_json(args.json, payload)
    return 0


def _difference(diff: float, low: float, high: float) -> str:
    """A paired difference and its 95 % interval; an interval that does not exist (one seed) is
    shown as ``no interval``."""
    if math.isfinite(low) and math.isfinite(high):
        return f"{diff:+.2f} [{low:+.2f}, {high:+.2f}]"
    return f"{diff:+.2f} [no interval]"


def install(sub: argparse._SubParsersAction) -> None:
    """Add ``scenarios``, ``simulate`` and ``compare`` to the ``gpusched`` parser."""
    p = sub.add_parser("scenarios", help="list the shipped scenario presets")
    p.set_defaults(func=cmd_scenarios)

    p = sub.add_parser("simulate", help="run one policy on a scenario and print its metrics")
    p.add_argument("--scenario", required=True, help="preset name or path to a YAML file")
    p.add_argument("--policy", required=True, help="registered policy name")
    p.add_argument("--seed", type=seed_value, help="workload seed (overrides workload.seed)")
    p.add_argument("--jobs", type=job_count, help="number of jobs (overrides workload.jobs)")
    p.add_argument("--json", help="write the metrics as JSON to this path")
    p.add_argument("--jobs-csv", help="write the jobs table as CSV to this path")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("compare", help="run several policies on the same jobs over seeds")
    p.add_argument("--scenario", required=True, help="preset name or path to a YAML file")
    p.add_argument("--policies", help="comma-separated policy names (default: every heuristic)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--seeds", type=positive_int, default=5, help="use seeds 0..N-1")
    group.add_argument("--seed-list", type=seed_list, help="seeds, e.g. 1,2,3 or 42-51")
    p.add_argument("--jobs", type=job_count, help="number of jobs (overrides workload.jobs)")
    p.add_argument("--json", help="write every run and the summary as JSON to this path")
    p.add_argument("--baseline", help="also print every policy against this one, paired seed by seed "
                                      "(mean difference, 95 %% interval, wins/ties/losses)")
    add_max_runs(p)
    p.set_defaults(func=cmd_compare)
