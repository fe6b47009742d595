"""The shipped window agent against every queue-aware heuristic on held-out seeds, as Markdown tables.

For each scenario: every policy (mean ± std over the seeds, ranked by mean JCT), then the agent
paired seed by seed against the best heuristic (the pair with the lowest mean job completion time
on these very seeds, :data:`gpusched.dashboard.headline.BEST_BY`),
against ``fcfs+first_fit`` and against ``easy+best_fit`` (mean difference with its 95 % t
interval, and seeds won / tied / lost). Training draws workload seeds >= 10,000 and evaluates
on 500-504 while it trains, so the default seeds 1000-1019 were never seen.

- ``fleet-16gpu``, ``fleet-64gpu`` and ``fleet-32gpu`` (a window of 16, GPU speeds): every ``ORDER+PLACEMENT``
  pair, ``ppo`` and ``ppo_rollout``;
- ``phase1-8gpu`` and ``phase1-4gpu`` (FIFO, window 1): every FIFO heuristic, ``ppo`` and
  ``ppo_rollout`` (there the shipped FIFO agent) and the window agent itself
  (``ppo:assets/models/ppo-window.zip`` and its rollouts), paired against ``ppo``.

Usage: ``python benchmarks/window_agent_table.py [--seeds 1000-1019] [--scenarios a,b]
[--no-rollout] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gpusched.agent import AGENT_POLICIES, AGENT_POLICY, ROLLOUT_AGENT_POLICY
from gpusched.cli.args import parse_seeds
from gpusched.dashboard.headline import BEST_BY, best_heuristic
from gpusched.experiment.runner import compare
from gpusched.experiment.scorecard import scorecard
from gpusched.paths import REPO_ROOT, WINDOW_MODEL
from gpusched.policies import heuristic_names, queue_policy_names
from gpusched.workload.scenario import load_scenario

SCENARIOS = ("fleet-16gpu", "fleet-64gpu", "fleet-32gpu", "phase1-8gpu", "phase1-4gpu")
WINDOW_AGENTS = tuple(f"{p}:{WINDOW_MODEL.relative_to(REPO_ROOT).as_posix()}" for p in AGENT_POLICIES)
COLUMNS = (("avg_jct_min", "avg JCT (min)", "{:.1f}"), ("avg_wait_min", "avg wait (min)", "{:.1f}"),
           ("p99_wait_min", "p99 wait (min)", "{:.0f}"), ("avg_slowdown", "slowdown", "{:.2f}"),
           ("speed_loss_min", "speed loss (min)", "{:.1f}"), ("jobs_completed", "jobs completed", "{:.0f}"))
PAIRED = ("avg_jct_min", "avg_wait_min", "avg_slowdown", "speed_loss_min", "p99_wait_min", "jobs_completed")


def policies_for(scenario, rollout: bool) -> list[str]:
    """Every heuristic the scenario's queue allows, then the agent's modes."""
    agents = [AGENT_POLICY, *([ROLLOUT_AGENT_POLICY] if rollout else [])]
    if scenario.window > 1:
        return [*queue_policy_names(), *agents]
    return [*heuristic_names(), *agents, *WINDOW_AGENTS[: len(agents)]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1000-1019", help="seed range lo-hi or comma list")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--no-rollout", action="store_true", help="leave out ppo_rollout (slow)")
    parser.add_argument("--json", help="write every run's metrics as JSON to this path")
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    dump = {}
    for name in args.scenarios.split(","):
        scenario = load_scenario(name)
        policies = policies_for(scenario, not args.no_rollout)
        started = time.perf_counter()
        comp = compare(scenario, policies, seeds)
        seconds = time.perf_counter() - started
        mean, std = comp.summary(), comp.spread()
        heuristics = [p for p in policies if p.split(":")[0] not in AGENT_POLICIES]
        best = best_heuristic(comp, tuple(heuristics))
        print(f"\n**{scenario.name}** ({scenario.n_gpus} GPUs, {scenario.workload.jobs} jobs, window "
              f"{scenario.window}, seeds {seeds[0]}-{seeds[-1]}, mean ± std; {seconds:.0f} s)\n")
        print("| policy | " + " | ".join(c[1] for c in COLUMNS) + " |")
        print("|---|" + "---|" * len(COLUMNS))
        for p in mean.sort_values(BEST_BY).index:
            cells = [f"{fmt.format(mean.loc[p, k])} ± {fmt.format(std.loc[p, k])}" for k, _, fmt in COLUMNS]
            mark = " (best heuristic)" if p == best else ""
            print(f"| {p}{mark} | " + " | ".join(cells) + " |")
        if scenario.window > 1:
            baselines = [best, "fcfs+first_fit", "easy+best_fit"]
            agents = [AGENT_POLICY, ROLLOUT_AGENT_POLICY]
        else:
            baselines, agents = [best, AGENT_POLICY], list(WINDOW_AGENTS)
        agents = [p for p in agents if p in policies]
        print("\n| agent | against | metric | agent | baseline | difference [95 % interval] | "
              "relative | won/tied/lost |")
        print("|---|---|---|---|---|---|---|---|")
        for baseline in baselines:
            card = scorecard(comp, baseline, PAIRED)
            for agent in agents:
                for r in card[card["policy"] == agent].itertuples():
                    rel = f"{100 * r.diff / r.baseline_mean:+.1f} %" if r.baseline_mean else ""
                    print(f"| {agent} | {baseline} | {r.metric} | {r.policy_mean:.2f} | "
                          f"{r.baseline_mean:.2f} | {r.diff:+.2f} [{r.low:+.2f}, {r.high:+.2f}] | {rel} | "
                          f"{r.wins}/{r.ties}/{r.losses} |")
        kept = ["policy", "seed", *dict.fromkeys([*(k for k, _, _ in COLUMNS), *PAIRED])]
        dump[scenario.name] = {"best_heuristic": best, "seconds": round(seconds, 1),
                               "runs": comp.runs[kept].to_dict("records")}
    if args.json:
        Path(args.json).write_text(json.dumps(dump, default=float) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
