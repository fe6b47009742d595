"""The shipped FIFO agent (``assets/models/ppo-default.zip``, which ``ppo`` runs on a strict queue)
against every heuristic on held-out workload seeds, as Markdown tables (``window_agent_table.py``
measures the shipped window agent).

Training draws workload seeds >= 10,000 and its evaluation callback uses seeds 500-504, so the
default seeds 1000-1009 were never seen. Each table row is mean ± std over the seeds.

The shipped tables are ``docs/results/fifo-agent.md`` (written with ``--markdown``; its heuristic rows
are checked against fresh runs by ``tests/test_docs_results.py``).

Usage: ``python benchmarks/agent_table.py [--seeds 1000-1009] [--policies a,b,...] [--json out.json]
[--markdown docs/results/fifo-agent.md]``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gpusched.agent import AGENT_POLICIES
from gpusched.cli.args import parse_seeds
from gpusched.experiment.runner import compare
from gpusched.paths import DEFAULT_MODEL, REPO_ROOT
from gpusched.policies import heuristic_names
from gpusched.workload.presets import load_scenario

SCENARIOS = ("phase1-8gpu", "phase1-4gpu", str(Path(__file__).parent / "scenarios" / "hetero-32gpu.yaml"))
FIFO_MODEL = DEFAULT_MODEL.relative_to(REPO_ROOT).as_posix()
COLUMNS = (("avg_wait_min", "avg wait (min)", "{:.1f}"), ("p95_wait_min", "p95 wait (min)", "{:.1f}"),
           ("jobs_completed", "jobs completed", "{:.0f}"), ("avg_util", "avg util", "{:.3f}"),
           ("total_reward", "total reward", "{:.1f}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1000-1009", help="seed range lo-hi or comma list")
    parser.add_argument("--policies", help="comma-separated policies (default: every heuristic, then "
                        "ppo and ppo_rollout of the FIFO model)")
    parser.add_argument("--json", help="write every run's metrics as JSON to this path")
    parser.add_argument("--markdown", help="write the tables as a Markdown page to this path")
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    policies = (args.policies.split(",") if args.policies
                else [*heuristic_names(), *(f"{p}:{FIFO_MODEL}" for p in AGENT_POLICIES)])
    dump = {}
    lines: list[str] = []
    for ref in SCENARIOS:
        scenario = load_scenario(ref)
        comp = compare(scenario, policies, seeds)
        mean, std = comp.summary(), comp.spread()
        ff = mean.loc["first_fit", "avg_wait_min"] if "first_fit" in mean.index else None
        block = [f"**{scenario.name}** ({scenario.n_gpus} GPUs, {scenario.workload.jobs} jobs, "
                 f"seeds {seeds[0]}-{seeds[-1]}, mean ± std)", "",
                 "| policy | " + " | ".join(c[1] for c in COLUMNS) + " | wait vs first_fit |",
                 "|---|" + "---|" * (len(COLUMNS) + 1)]
        for p in policies:
            cells = [f"{fmt.format(mean.loc[p, k])} ± {fmt.format(std.loc[p, k])}" for k, _, fmt in COLUMNS]
            rel = f"{100 * (mean.loc[p, 'avg_wait_min'] / ff - 1):+.1f} %" if ff else ""
            block.append(f"| {p.removesuffix(f':{FIFO_MODEL}')} | " + " | ".join(cells) + f" | {rel} |")
        print("\n" + "\n".join(block), flush=True)
        lines += ["", *block]
        dump[scenario.name] = comp.runs.to_dict("records")
    if args.json:
        Path(args.json).write_text(json.dumps(dump, indent=1, default=float), encoding="utf-8")
    if args.markdown:
        command = (f"python benchmarks/agent_table.py --seeds {args.seeds} --policies {','.join(policies)} "
                   f"--markdown {args.markdown}")
        title = ["# The FIFO agent on seeds never used in training", "",
                 f"Written by `{command}`; do not edit by hand. "
                 "What the tables show: [the agent](../agent.md)."]
        Path(args.markdown).write_text("\n".join([*title, *lines]) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
