"""``gpusched allocation``: the FGD paper's allocation experiment from the command line.

Example::

    gpusched allocation --nodes openb_node_list_gpu_node --pods openb_pod_list_default \\
        --policies fgd_best_fit,fgd --seeds 42-44 --compare-published --json out.json

``--nodes`` and ``--pods`` take a CSV path or the stem of a bundled trace in ``assets/traces/``.
Bad input prints one line on stderr and exits with code 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from gpusched.cli.args import seed_list, write_json
from gpusched.errors import GpuschedError
from gpusched.fgd.allocation import DEFAULT_TUNE, SUMMARY_COLUMNS, AllocationRun, run_allocation
from gpusched.fgd.published import published_means
from gpusched.fgd.scoring import POLICY_NAMES, unknown_policy_message
from gpusched.fgd.typical_pods import typical_pods
from gpusched.workload.openb import read_openb_nodes, read_openb_pods


def parse_policies(text: str) -> list[str]:
    """Comma-separated policy names, checked against :data:`POLICY_NAMES`."""
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise GpuschedError("--policies: give at least one policy")
    for name in names:
        if name not in POLICY_NAMES:
            raise GpuschedError(f"--policies: {unknown_policy_message(name)}")
    return names


def summarize(runs: list[AllocationRun]) -> dict[str, dict[str, float]]:
    """Mean allocation at columns 100 and 130 (and mean failed pods, seconds) per policy."""
    out: dict[str, dict[str, float]] = {}
    for policy in dict.fromkeys(r.policy for r in runs):
        mine = [r for r in runs if r.policy == policy]
        entry = {
            f"alloc_at_{c}": round(float(np.mean([r.alloc_pct[c] for r in mine])), 2)
            for c in SUMMARY_COLUMNS
        }
        entry["failed_pods"] = round(float(np.mean([r.failed_pods for r in mine])), 1)
        entry["seconds"] = round(float(np.mean([r.seconds for r in mine])), 2)
        out[policy] = entry
    return out


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
    parser.add_argument(
        "--json", type=Path, default=None, help="write runs and summary to this file"
    )
    parser.add_argument(
        "--compare-published",
        action="store_true",
        help="print the artifact's published 10-seed means beside ours",
    )
    parser.set_defaults(func=run_command)
    return parser


def run_command(args: argparse.Namespace) -> int:
    """Run the experiment for parsed arguments (bad input raises :class:`GpuschedError`)."""
    policies = parse_policies(args.policies)
    seeds = args.seeds
    if not 0 < args.tune <= 10:
        raise GpuschedError(f"--tune: must be in (0, 10] (got {args.tune})")
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
                f"  {policy:<15} seed {seed}: alloc {run.alloc_pct[100]} @100, "
                f"{run.alloc_pct[130]} @130; "
                f"failed {run.failed_pods} (unhostable {run.unhostable_pods}); {run.seconds:.2f} s",
                flush=True,
            )
    summary = summarize(runs)
    _print_summary(summary, published, len(seeds))
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
    summary: dict[str, dict[str, float]], published: dict[str, dict[int, float]], n_seeds: int
) -> None:
    head = f"{'policy':<15} {'@100':>7} {'@130':>7}"
    if published:
        head += f" {'pub@100':>8} {'pub@130':>8} {'d@100':>6} {'d@130':>6}"
    print(f"mean over {n_seeds} seed(s):")
    print(head + f" {'failed':>7} {'s/run':>6}")
    for policy, s in summary.items():
        line = f"{policy:<15} {s['alloc_at_100']:>7.2f} {s['alloc_at_130']:>7.2f}"
        if published:
            pub = published[policy]
            line += (
                f" {pub[100]:>8.2f} {pub[130]:>8.2f} {s['alloc_at_100'] - pub[100]:>+6.2f}"
                f" {s['alloc_at_130'] - pub[130]:>+6.2f}"
            )
        print(line + f" {s['failed_pods']:>7.1f} {s['seconds']:>6.2f}")
