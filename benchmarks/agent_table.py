"""The shipped FIFO agent (``assets/models/ppo-default.zip``, which ``ppo`` runs on a strict queue)
against every heuristic on held-out workload seeds, as Markdown tables (``window_agent_table.py``
measures the shipped window agent).

Training draws workload seeds >= 10,000 and its evaluation callback uses seeds 500-504, so the
default seeds 1000-1009 were never seen. Each table row is mean ± std over the seeds.

Usage: ``python benchmarks/agent_table.py [--seeds 1000-1009] [--policies a,b,...] [--json out.json]``.
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
from gpusched.workload.scenario import load_scenario

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
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    policies = (args.policies.split(",") if args.policies
                else [*heuristic_names(), *(f"{p}:{FIFO_MODEL}" for p in AGENT_POLICIES)])
    dump = {}
    for ref in SCENARIOS:
        scenario = load_scenario(ref)
        comp = compare(scenario, policies, seeds)
        mean, std = comp.summary(), comp.spread()
        ff = mean.loc["first_fit", "avg_wait_min"] if "first_fit" in mean.index else None
        print(f"\n**{scenario.name}** ({scenario.n_gpus} GPUs, {scenario.workload.jobs} jobs, "
              f"seeds {seeds[0]}-{seeds[-1]}, mean ± std)\n")
        print("| policy | " + " | ".join(c[1] for c in COLUMNS) + " | wait vs first_fit |")
        print("|---|" + "---|" * (len(COLUMNS) + 1))
        for p in policies:
            cells = [f"{fmt.format(mean.loc[p, k])} ± {fmt.format(std.loc[p, k])}" for k, _, fmt in COLUMNS]
            rel = f"{100 * (mean.loc[p, 'avg_wait_min'] / ff - 1):+.1f} %" if ff else ""
            print(f"| {p} | " + " | ".join(cells) + f" | {rel} |")
        dump[scenario.name] = comp.runs.to_dict("records")
    if args.json:
        Path(args.json).write_text(json.dumps(dump, indent=1, default=float), encoding="utf-8")


if __name__ == "__main__":
    main()
