"""The shipped window agent against every queue-aware heuristic on held-out seeds, as Markdown tables.

For each scenario: every policy (mean ± std over the seeds, ranked by mean JCT), then the agent
paired seed by seed against the best heuristic (the pair with the lowest mean job completion time
on these very seeds, :data:`gpusched.dashboard.headline.BEST_BY`),
against ``fcfs+first_fit`` and against ``easy+best_fit`` (mean difference with its 95 % t
interval, and seeds won / tied / lost). Training draws workload seeds >= 10,000 and evaluates
on 500-504 while it trains, so the default seeds 1000-1019 were never seen.

- ``fleet-16gpu``, ``fleet-64gpu`` and ``fleet-32gpu`` (a window of 16, GPU speeds): every ``ORDER+PLACEMENT``
  pair, ``ppo`` and ``ppo_rollout``;
- ``gavel-108gpu-heavy`` (Gavel's cluster and jobs, a window of 16): every ``ORDER+PLACEMENT`` pair,
  ``ppo`` and the urgency agent ``ppo_urgency`` (no ``ppo_rollout``: too slow on 108 GPUs);
- ``phase1-8gpu`` and ``phase1-4gpu`` (FIFO, window 1): every FIFO heuristic, ``ppo`` and
  ``ppo_rollout`` (there the shipped FIFO agent) and the window agent itself
  (``ppo:assets/models/ppo-window.zip`` and its rollouts), paired against ``ppo``.

Each run keeps the tables' metrics and the Gini coefficient (:data:`KEPT_EXTRA`, which the
dashboard's Compare shows beside the wait). The tables are drawn by ``render_results.py`` from the
numbers the JSON keeps, so after a new
measurement ``python benchmarks/render_results.py`` turns ``benchmarks/results/window-agent.json``
into ``docs/results/window-agent.md`` (and the README's findings) without running anything again.

- ``gavel-12gpu-rounds`` (Gavel's 4:4:4 cluster in rounds): every ``ORDER+PLACEMENT`` pair, ``ppo``
  and the round policies of :data:`ROUND_POLICIES_ON`. The best heuristic is the best pair (a round
  policy is no heuristic in the registry); the agent also meets the best round policy.

``--json`` is rewritten after each preset (with ``--update``, over the presets it already holds),
so a run cut short keeps the presets it finished.

Usage: ``python benchmarks/window_agent_table.py [--seeds 1000-1019] [--scenarios a,b]
[--no-rollout] [--json benchmarks/results/window-agent.json [--update]] [--markdown PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from render_results import COLUMNS, PAIRED, WINDOW_AGENTS, window_agent_block, window_agent_markdown

from gpusched.agent import AGENT_POLICY, ROLLOUT_AGENT_POLICY
from gpusched.agent.names import URGENCY_AGENT_POLICY
from gpusched.cli.args import parse_seeds
from gpusched.core.metrics import FAIRNESS_METRIC_KEYS
from gpusched.dashboard.headline import AGENT_NAMES, best_heuristic
from gpusched.experiment.runner import compare
from gpusched.policies import heuristic_names, queue_policy_names
from gpusched.policies.registry import is_round_policy
from gpusched.workload.presets import load_scenario

SCENARIOS = ("fleet-16gpu", "fleet-64gpu", "fleet-32gpu", "phase1-8gpu", "phase1-4gpu", "gavel-108gpu-heavy",
             "gavel-12gpu-rounds")
NO_ROLLOUT = ("gavel-108gpu-heavy", "gavel-12gpu-rounds")
"""Presets measured without ``ppo_rollout`` (its rollouts on 2,000 jobs and 108 GPUs take minutes
per seed; on the rounds preset it is left out to keep the measurement short)."""
URGENCY_AGENT_ON = ("gavel-108gpu-heavy",)
"""Presets measured with the urgency agent (``ppo_urgency``), trained on the heavy Gavel load."""
ROUND_POLICIES_ON = {"gavel-12gpu-rounds": ("fifo_perf", "max_min_fairness_perf", "max_min_fairness",
                                            "gandiva", "allox")}
"""Round policies (Gavel's names) measured beside the heuristics and the agent, per preset: the
agnostic ``max_min_fairness`` beside its ``_perf`` twin shows what reading the GPU types' speeds
buys; the others are those whose runs take a few seconds here."""
KEPT_EXTRA = ("gini", *FAIRNESS_METRIC_KEYS)
"""Metrics kept for the dashboard's shipped view beyond the tables' (Gini of the GPU shares, shown
beside the wait, and the fairness metrics of :mod:`gpusched.core.run_fairness`)."""


def policies_for(scenario, rollout: bool) -> list[str]:
    """Every heuristic the scenario's queue allows, then the agent's modes."""
    agents = [AGENT_POLICY, *([ROLLOUT_AGENT_POLICY] if rollout else [])]
    if scenario.window > 1:
        return [*queue_policy_names(), *agents]
    return [*heuristic_names(), *agents, *WINDOW_AGENTS[: len(agents)]]


def write_json(path: Path, dump: dict, update: bool) -> dict:
    """Write the presets measured so far to ``path`` (with ``update``, over the other presets the
    file holds) through a temporary file, and return what was written. Called after each preset,
    so a run cut short keeps every preset it finished."""
    if update and path.exists():
        dump = {**json.loads(path.read_text(encoding="utf-8")), **dump}
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(dump, default=float) + "\n", encoding="utf-8")
    os.replace(part, path)
    return dump


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1000-1019", help="seed range lo-hi or comma list")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--no-rollout", action="store_true", help="leave out ppo_rollout (slow)")
    parser.add_argument("--json", help="write every run's metrics as JSON to this path")
    parser.add_argument("--markdown", help="write the tables as a Markdown page to this path")
    parser.add_argument("--update", action="store_true",
                        help="keep the other presets of an existing --json file, replace those measured")
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    dump = {}
    for name in args.scenarios.split(","):
        scenario = load_scenario(name)
        policies = policies_for(scenario, not args.no_rollout and name not in NO_ROLLOUT)
        policies += [URGENCY_AGENT_POLICY] if name in URGENCY_AGENT_ON else []
        policies += list(ROUND_POLICIES_ON.get(name, ()))
        started = time.perf_counter()
        comp = compare(scenario, policies, seeds)
        seconds = time.perf_counter() - started
        heuristics = [p for p in policies if p.split(":")[0] not in AGENT_NAMES and not is_round_policy(p)]
        best = best_heuristic(comp, tuple(heuristics))
        kept = ["policy", "seed", *dict.fromkeys([*(k for k, _, _ in COLUMNS), *PAIRED, *KEPT_EXTRA])]
        runs = comp.runs[kept]
        print("\n" + window_agent_block(scenario.name, runs, best, seconds), flush=True)
        dump[scenario.name] = {"best_heuristic": best, "seconds": round(seconds, 1),
                               "runs": runs.to_dict("records")}
        if args.json:
            dump = write_json(Path(args.json), dump, args.update)
    if args.markdown:
        Path(args.markdown).write_text(window_agent_markdown(dump), encoding="utf-8")


if __name__ == "__main__":
    main()
