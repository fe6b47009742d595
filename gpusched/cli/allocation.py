"""``gpusched allocation``: the FGD paper's allocation experiment from the command line.

Example::

    gpusched allocation --nodes openb_node_list_gpu_node --pods openb_pod_list_default \\
        --policies fgd_best_fit,fgd --seeds 42-44 --compare-published --json out.json

``--nodes`` and ``--pods`` take a CSV path or the stem of a bundled trace in ``assets/traces/``.
Bad input prints one line on stderr and exits with code 2; ``--json`` is checked before the first
run. A column (``@100``, ``@130``) that a run never sampled (on a small cluster one pod can move
the arrived load past it) is reported as missing (``—`` in the table, ``null`` in the JSON), left
out of the means, and named in a ``note:`` line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from gpusched.cli.args import add_max_runs, check_outputs, policy_list, seed_list, write_json
from gpusched.errors import GpuschedError
from gpusched.experiment.budget import check_run_count
from gpusched.fgd.allocation import DEFAULT_TUNE, SUMMARY_COLUMNS, AllocationRun, run_allocation
from gpusched.fgd.published import published_means
from gpusched.fgd.scoring import POLICY_NAMES, unknown_policy_message
from gpusched.fgd.typical_pods import typical_pods
from gpusched.limits import MAX_TUNE
from gpusched.workload.openb import read_openb_nodes, read_openb_pods


def parse_policies(text: str) -> list[str]:
    """Comma-separated policy names, checked against :data:`POLICY_NAMES`."""

    def check(name: str) -> None:
        if name not in POLICY_NAMES:
            raise GpuschedError(f"--policies: {unknown_policy_message(name)}")

    return policy_list(text, check)


def _mean_or_none(values: list[float | None]) -> float | None:
    """Mean of the values that are there (rounded to 2 places), ``None`` if none is."""
    present = [v for v in values if v is not None]
    return round(float(np.mean(present)), 2) if present else None


def _pct(value: float | None, width: int) -> str:
    return f"{'—':>{width}}" if value is None else f"{value:>{width}.2f}"


def _missing_as_dash(value: float | None) -> str:
    return "—" if value is None else str(value)


def summarize(runs: list[AllocationRun]) -> dict[str, dict[str, float | None]]:
    """Mean allocation at columns 100 and 130 (and mean failed pods, seconds) per policy; a column
    no run sampled is ``None``, and runs without a sample there are left out of its mean."""
    out: dict[str, dict[str, float | None]] = {}
    for policy in dict.fromkeys(r.policy for r in runs):
        mine = [r for r in runs if r.policy == policy]
        entry: dict[str, float | None] = {
            f"alloc_at_{c}": _mean_or_none([r.alloc_pct[c] for r in mine]) for c in SUMMARY_COLUMNS
        }
        entry["failed_pods"] = round(float(np.mean([r.failed_pods for r in mine])), 1)
        entry["seconds"] = round(float(np.mean([r.seconds for r in mine])), 2)
        out[policy] = entry
    return out


def missing_note(runs: list[AllocationRun]) -> str | None:
    """The ``note:`` line naming the summary columns some runs never sampled, or ``None``."""
    parts = []
    for c in SUMMARY_COLUMNS:
        missing = sum(r.alloc_pct[c] is None for r in runs)
        if missing:
            parts.append(f"@{c} in {missing} of {len(runs)} run(s)")
    if not parts:
        return None
    return ("note: no sample at " + " and ".join(parts) + ": the arrived load never came within one "
            "point of it (one pod can move it further on a small cluster); reported as missing (—) "
            "and left out of the means")


def install(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``allocation`` command to the ``gpusched`` parser."""
    parser = subparsers.add_parser(
        "allocation",
        help="run the FGD paper's allocation experiment on an openb trace",
        description="Allocation experiment (FGD paper, Fig. 9(a)): arrival-only scheduling of a "
        "shuffled, tuned openb pod list on an openb node list.",
    )
    parser.add_argument("--nodes", required=True, help="node list CSV path or bundled stem")
    parser.add_argument("--pods", required=True, help="pod list CSV path or bundled stem")
    parser.add_argument(
        "--policies",
        default=",".join(POLICY_NAMES),
        help="comma-separated policies (default: all six)",
    )
    parser.add_argument("--seeds", type=seed_list, default=[42],
                        help="seeds, e.g. 42,43 or 42-51 (default 42)")
    parser.add_argument(
        "--tune",
        type=float,
        default=DEFAULT_TUNE,
        help="GPU request as a multiple of capacity (1.3)",
    )
    parser.add_argument("--json", default=None, help="write runs and summary to this file")
    parser.add_argument(
        "--compare-published",
        action="store_true",
        help="print the artifact's published 10-seed means beside ours",
    )
    add_max_runs(parser)
    parser.set_defaults(func=run_command)
    return parser


def run_command(args: argparse.Namespace) -> int:
    """Run the experiment for parsed arguments (bad input raises :class:`GpuschedError`)."""
    policies = parse_policies(args.policies)
    seeds = args.seeds
    if not 0 < args.tune <= MAX_TUNE:
        raise GpuschedError(f"--tune: must be in (0, {MAX_TUNE:g}] (got {args.tune})")
    check_run_count(len(policies) * len(seeds), args.max_runs,
                    f"allocation ({len(policies)} policies × {len(seeds):,} seeds)")
    check_outputs([("--json", args.json)])
    nodes = read_openb_nodes(args.nodes)
    pods = read_openb_pods(args.pods, max_gpus_per_node=int(nodes.gpus.max()))
    workload = Path(args.pods).stem
    published = published_means(workload, SUMMARY_COLUMNS) if args.compare_published else {}
    typical = typical_pods(pods)
    print(
        f"{len(nodes)} nodes, {nodes.total_gpus} GPUs; {len(pods)} pods "
        f"({pods.total_gpu_milli / nodes.total_gpus / 10:.1f} % of GPU capacity); "
        f"{len(typical)} typical pods; tune {args.tune}"
    )
    runs: list[AllocationRun] = []
    for policy in policies:
        for seed in seeds:
            run = run_allocation(nodes, pods, policy, seed, tune=args.tune, typical=typical)
            runs.append(run)
            print(
                f"  {policy:<15} seed {seed}: alloc {_missing_as_dash(run.alloc_pct[100])} @100, "
                f"{_missing_as_dash(run.alloc_pct[130])} @130; "
                f"failed {run.failed_pods} (unhostable {run.unhostable_pods}); {run.seconds:.2f} s",
                flush=True,
            )
    summary = summarize(runs)
    _print_summary(summary, published, len(seeds))
    note = missing_note(runs)
    if note:
        print(note, file=sys.stderr)
    if args.json is not None:
        doc = {"runs": [r.to_json() for r in runs], "summary": summary}
        if published:
            doc["published"] = {
                p: {f"alloc_at_{c}": round(v[c], 2) for c in SUMMARY_COLUMNS}
                for p, v in published.items()
            }
        write_json(args.json, doc, indent=1)
        print(f"wrote {args.json}")
    return 0


def _print_summary(
    summary: dict[str, dict[str, float | None]], published: dict[str, dict[int, float]], n_seeds: int
) -> None:
    head = f"{'policy':<15} {'@100':>7} {'@130':>7}"
    if published:
        head += f" {'pub@100':>8} {'pub@130':>8} {'d@100':>6} {'d@130':>6}"
    print(f"mean over {n_seeds} seed(s):")
    print(head + f" {'failed':>7} {'s/run':>6}")
    for policy, s in summary.items():
        ours = {c: s[f"alloc_at_{c}"] for c in SUMMARY_COLUMNS}
        line = f"{policy:<15} {_pct(ours[100], 7)} {_pct(ours[130], 7)}"
        if published:
            pub = published[policy]
            diff = {c: None if ours[c] is None else ours[c] - pub[c] for c in SUMMARY_COLUMNS}
            line += f" {pub[100]:>8.2f} {pub[130]:>8.2f}" + "".join(
                f" {'—':>6}" if diff[c] is None else f" {diff[c]:>+6.2f}" for c in SUMMARY_COLUMNS)
        print(line + f" {s['failed_pods']:>7.1f} {s['seconds']:>6.2f}")
