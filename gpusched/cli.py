"""The ``gpusched`` command line (the same as ``python -m gpusched``).

Bad input prints one line on stderr and exits with code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from gpusched.errors import GpuschedError
from gpusched.metrics import METRIC_KEYS

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def _int_list(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got '{text}'") from None


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value}")
    return value


def _format_value(key: str, value: float) -> str:
    if key.startswith("jobs_"):
        return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
    if key in ("avg_util", "util_in_band_frac", "gini"):
        return f"{value:.3f}"
    return f"{value:.1f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    lines = ["  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                       for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _json_metrics(metrics: dict) -> dict:
    """Metrics for JSON: counts as integers, the rest as floats."""
    return {k: int(round(v)) if k.startswith("jobs_") else float(v)
            for k, v in ((k, metrics[k]) for k in METRIC_KEYS)}


def _write_json(path: str, payload: dict) -> None:
    try:
        Path(path).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise GpuschedError(f"cannot write '{path}': {exc.strerror}") from None


# ---------------------------------------------------------------------------- commands
def cmd_scenarios(args: argparse.Namespace) -> int:
    from gpusched.scenario import list_presets

    rows = [[s.name, str(s.n_gpus), str(s.workload.jobs), s.description.split(". ")[0]]
            for s in list_presets()]
    print(_table(["name", "GPUs", "jobs", "description"], rows))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from gpusched.policies import get_policy
    from gpusched.runner import run_policy
    from gpusched.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    get_policy(args.policy)
    seed = scenario.workload.seed if args.seed is None else args.seed
    result = run_policy(scenario, args.policy, seed=seed, n_jobs=args.jobs)
    print(f"scenario {scenario.name} · policy {args.policy} · seed {seed} · "
          f"{result.cluster.n_gpus} GPUs · run ended: {result.end_reason}")
    if scenario.workload.trace is not None:
        _, left_out = scenario.trace_jobs(seed, args.jobs)
        print(f"trace pods left out of the jobs: {left_out['cpu_only_pods']} CPU-only, "
              f"{left_out['unhostable_pods']} that no sampled node could host")
    print(_table(["metric", "value"],
                 [[k, _format_value(k, result.metrics[k])] for k in METRIC_KEYS]))
    if args.json:
        _write_json(args.json, {"scenario": scenario.name, "policy": args.policy, "seed": seed,
                                "metrics": _json_metrics(result.metrics)})
    if args.jobs_csv:
        try:
            result.jobs.to_csv(args.jobs_csv, index=False)
        except OSError as exc:
            raise GpuschedError(f"cannot write '{args.jobs_csv}': {exc.strerror}") from None
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from gpusched.policies import heuristic_names
    from gpusched.runner import compare
    from gpusched.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    policies = [p.strip() for p in args.policies.split(",") if p.strip()] if args.policies \
        else heuristic_names()
    seeds = args.seed_list if args.seed_list else list(range(args.seeds))
    if not seeds:
        raise GpuschedError("--seed-list is empty")
    comparison = compare(scenario, policies, seeds, n_jobs=args.jobs)
    mean, spread = comparison.summary(), comparison.spread()
    shown = ["avg_wait_min", "p95_wait_min", "avg_util", "util_in_band_frac", "gini",
             "jobs_completed", "stall_min", "total_reward"]
    rows = [[p] + [f"{_format_value(k, mean.loc[p, k])} ± {_format_value(k, spread.loc[p, k])}"
                   for k in shown] for p in policies]
    print(f"scenario {scenario.name} · {scenario.n_gpus} GPUs · seeds {seeds} · mean ± std")
    print(_table(["policy", *shown], rows))
    if args.json:
        runs = [{"policy": r["policy"], "seed": int(r["seed"]),
                 "metrics": _json_metrics(r)}
                for r in comparison.runs.to_dict("records")]
        summary = {p: {k: float(mean.loc[p, k]) for k in METRIC_KEYS} for p in policies}
        _write_json(args.json, {"scenario": scenario.name, "runs": runs, "summary": summary})
    return 0


# ---------------------------------------------------------------------------- parser
Command = Callable[[argparse.Namespace], int]
_EXTRA_COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = []


def add_command(installer: Callable[[argparse._SubParsersAction], None]) -> None:
    """Let another module add a sub-command (it must set ``func`` with ``set_defaults``)."""
    _EXTRA_COMMANDS.append(installer)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gpusched", description="GPU-cluster scheduling lab.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("scenarios", help="list the shipped scenario presets")
    p.set_defaults(func=cmd_scenarios)

    p = sub.add_parser("simulate", help="run one policy on a scenario and print its metrics")
    p.add_argument("--scenario", required=True, help="preset name or path to a YAML file")
    p.add_argument("--policy", required=True, help="registered policy name")
    p.add_argument("--seed", type=int, help="workload seed (overrides workload.seed)")
    p.add_argument("--jobs", type=_positive_int, help="number of jobs (overrides workload.jobs)")
    p.add_argument("--json", help="write the metrics as JSON to this path")
    p.add_argument("--jobs-csv", help="write the jobs table as CSV to this path")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("compare", help="run several policies on the same jobs over seeds")
    p.add_argument("--scenario", required=True, help="preset name or path to a YAML file")
    p.add_argument("--policies", help="comma-separated policy names (default: every heuristic)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--seeds", type=_positive_int, default=5, help="use seeds 0..N-1")
    group.add_argument("--seed-list", type=_int_list, help="comma-separated seeds")
    p.add_argument("--jobs", type=_positive_int, help="number of jobs (overrides workload.jobs)")
    p.add_argument("--json", help="write every run and the summary as JSON to this path")
    p.set_defaults(func=cmd_compare)

    _load_plugins()
    for installer in _EXTRA_COMMANDS:
        installer(sub)
    return parser


def _load_plugins() -> None:
    """Import the modules that add sub-commands and policies (optional parts of the package)."""
    import importlib

    for module in ("gpusched.agent.cli", "gpusched.allocation_cli", "gpusched.sweep.cli"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module.startswith(exc.name):
                raise


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except GpuschedError as exc:
        print(f"gpusched: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("gpusched: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
