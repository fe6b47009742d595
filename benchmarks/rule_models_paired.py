"""The models built on a rule against their base rules, paired seed by seed on held-out seeds.

For each pair (model, base) it runs both on the same jobs of ``--scenario`` for every seed of
``--seeds`` (held out: the models trained on seeds 20000 upwards) and prints the mean JCT of each
and the paired difference (:func:`gpusched.experiment.paired.paired_difference`, Student-t 95 %
interval), with the p99 wait beside it. ``--json`` writes the runs and the differences.

Usage: ``python benchmarks/rule_models_paired.py [--scenario fleet-16gpu] [--seeds 1000-1009]
[--pairs tuned:fleet-16gpu=sjf+fastest_fit,ppo_inspect:sjf+first_fit=sjf+first_fit] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gpusched.experiment.paired import paired_difference
from gpusched.experiment.runner import compare
from gpusched.workload.presets import load_scenario

PAIRS = "tuned:fleet-16gpu=sjf+fastest_fit,tuned:fleet-16gpu=sjf+first_fit"
"""The default (model, base) pairs."""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", default="fleet-16gpu")
    p.add_argument("--seeds", default="1000-1009", help="held-out seeds A-B (inclusive)")
    p.add_argument("--pairs", default=PAIRS, help="MODEL=BASE,... (compared on the same jobs)")
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args()
    lo, _, hi = a.seeds.partition("-")
    seeds = list(range(int(lo), int(hi or lo) + 1))
    pairs = [tuple(x.split("=", 1)) for x in a.pairs.split(",")]
    policies = list(dict.fromkeys(name for pair in pairs for name in pair))
    cmp = compare(load_scenario(a.scenario), policies, seeds)
    runs = cmp.runs.set_index(["policy", "seed"])
    out = {"scenario": a.scenario, "seeds": seeds, "pairs": []}
    for model, base in pairs:
        jct = [runs.loc[(model, s), "avg_jct_min"] for s in seeds]
        ref = [runs.loc[(base, s), "avg_jct_min"] for s in seeds]
        p99 = [runs.loc[(model, s), "p99_wait_min"] for s in seeds]
        p99_ref = [runs.loc[(base, s), "p99_wait_min"] for s in seeds]
        d = paired_difference(jct, ref)
        mean_ref = sum(ref) / len(ref)
        row = {"model": model, "base": base, "model_jct_min": sum(jct) / len(jct), "base_jct_min": mean_ref,
               "diff_min": d.mean, "low_min": d.low, "high_min": d.high, "diff_pct": 100 * d.mean / mean_ref,
               "model_lower": d.a_lower, "ties": d.ties, "model_higher": d.a_higher,
               "model_p99_wait_min": sum(p99) / len(p99), "base_p99_wait_min": sum(p99_ref) / len(p99_ref)}
        out["pairs"].append(row)
        print(f"{model} against {base} on {a.scenario}, seeds {seeds[0]}-{seeds[-1]}: "
              f"{row['model_jct_min']:.2f} against {mean_ref:.2f} min mean JCT, {d.mean:+.2f} min "
              f"({row['diff_pct']:+.1f} %; 95 % interval {d.low:+.2f} to {d.high:+.2f}), lower on "
              f"{d.a_lower} of {d.n} seeds ({d.ties} ties); p99 wait {row['model_p99_wait_min']:.1f} against "
              f"{row['base_p99_wait_min']:.1f} min")
    if a.json:
        a.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
