"""The tuned score in rounds: a round policy whose per-job weights the tuned score sets, paired
against the same round policy with the jobs' own weights (issue 38, "in rounds").

``max_min_fairness_perf:tuned:NAME`` (:func:`gpusched.agent.plugin.weighted_round_policy`) is
Gavel's LAS with each job's weight multiplied by a rank-based map of its tuned score
(:mod:`gpusched.policies.rounds.weights`); it is run beside plain ``max_min_fairness_perf`` on the
same jobs of each held-out seed, and the per-seed differences of mean JCT give the mean difference
with a Student-t 95 % interval (:func:`gpusched.experiment.paired.paired_difference`), as the other
models built on a rule are measured. Nothing is tuned here: the tuned model is the shipped one
(trained on ``fleet-16gpu`` seeds 20000-20007, never on a rounds preset) and the map's spread is the
documented constant :data:`gpusched.policies.rounds.weights.RANK_SPREAD`.

A control, :data:`CONTROL`, runs the same map over a score with all its weight on ``left_best``
(declared work left on the best GPU: least work left weighs most, shortest-remaining-first as a
weight), built here without a model file; the tuned model is paired against it too, which says
whether the learned weights add anything to ranking by work left.

``--json`` writes the means, the differences and the per-seed values; ``python
benchmarks/render_results.py`` renders them into ``docs/results/rule-models.md``.

Usage: ``python benchmarks/rule_models_rounds.py [--scenario gavel-12gpu-rounds] [--seeds 1000-1009]
[--model tuned:fleet-16gpu] [--json benchmarks/results/rule-models-rounds.json]``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gpusched.agent.tune import start_weights
from gpusched.cli.args import parse_seeds
from gpusched.experiment.paired import paired_difference
from gpusched.experiment.runner import compare, run_scheduler
from gpusched.policies.rounds.registry import get_round_policy
from gpusched.policies.rounds.scheduler import RoundScheduler
from gpusched.policies.rounds.weights import RANK_SPREAD, score_weights
from gpusched.policies.tuned import tuned_scores
from gpusched.workload.presets import load_scenario

BASE = "max_min_fairness_perf"
"""The round policy measured with and without the score's weights."""

CONTROL = f"{BASE} weighted by left_best"
"""The control's name in the results: the map over a score of ``left_best`` alone."""

METRICS = ("avg_jct_min", "p99_wait_min")
"""The metrics kept per seed (mean JCT is the one compared)."""


def measure(preset: str, model: str, seeds: list[int]) -> dict:
    """Plain :data:`BASE` and ``BASE:model`` on ``seeds`` of ``preset``, paired seed by seed."""
    weighted = f"{BASE}:{model}"
    scenario = load_scenario(preset)
    start = time.process_time()
    cmp = compare(scenario, [BASE, weighted], seeds)
    control = {s: run_scheduler(scenario, RoundScheduler(get_round_policy(BASE, s), score_weights(
        tuned_scores(start_weights())), name=CONTROL), CONTROL, s, rounds=True).metrics for s in seeds}
    seconds = time.process_time() - start
    runs = cmp.runs.set_index(["policy", "seed"])

    def per_seed(policy: str, metric: str) -> list[float]:
        if policy == CONTROL:
            return [float(control[s][metric]) for s in seeds]
        return [float(runs.loc[(policy, s), metric]) for s in seeds]

    base_jct, ours_jct = per_seed(BASE, "avg_jct_min"), per_seed(weighted, "avg_jct_min")
    d = paired_difference(ours_jct, base_jct)
    base_mean = sum(base_jct) / len(seeds)
    out = {"scenario": preset, "seeds": seeds, "base": BASE, "policy": weighted, "model": model,
           "spread": RANK_SPREAD, "base_jct_min": base_mean, "jct_min": sum(ours_jct) / len(seeds),
           "diff_min": d.mean, "low_min": d.low, "high_min": d.high, "diff_pct": 100 * d.mean / base_mean,
           "model_lower": d.a_lower, "ties": d.ties, "model_higher": d.a_higher,
           "base_p99_wait_min": sum(per_seed(BASE, "p99_wait_min")) / len(seeds),
           "p99_wait_min": sum(per_seed(weighted, "p99_wait_min")) / len(seeds),
           "per_seed": {p: {m: per_seed(p, m) for m in METRICS} for p in (BASE, weighted, CONTROL)},
           "cpu_seconds": seconds}
    control_jct = per_seed(CONTROL, "avg_jct_min")
    c = paired_difference(ours_jct, control_jct)
    out["control"] = {"policy": CONTROL, "jct_min": sum(control_jct) / len(seeds),
                      "p99_wait_min": sum(per_seed(CONTROL, "p99_wait_min")) / len(seeds),
                      "diff_min": c.mean, "low_min": c.low, "high_min": c.high, "model_lower": c.a_lower,
                      "ties": c.ties, "model_higher": c.a_higher}
    print(f"{preset}, seeds {seeds[0]}-{seeds[-1]}: {weighted} {out['jct_min']:.2f} min against {BASE} "
          f"{base_mean:.2f}: {d.mean:+.2f} min ({out['diff_pct']:+.1f} %; 95 % interval {d.low:+.2f} to "
          f"{d.high:+.2f}), lower on {d.a_lower} of {d.n} seeds, tied on {d.ties} ({seconds:.0f} CPU s)",
          flush=True)
    print(f"against the control ({CONTROL}, {out['control']['jct_min']:.2f} min): {c.mean:+.2f} min (95 % "
          f"interval {c.low:+.2f} to {c.high:+.2f}), lower on {c.a_lower} of {c.n} seeds", flush=True)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", default="gavel-12gpu-rounds", help="a preset with a rounds: block")
    p.add_argument("--seeds", default="1000-1009", help="held-out seeds A-B (inclusive)")
    p.add_argument("--model", default="tuned:fleet-16gpu", help="the score that sets the weights")
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args()
    out = measure(a.scenario, a.model, list(parse_seeds(a.seeds)))
    if a.json:
        a.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
