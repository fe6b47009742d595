"""Tune the tuned rule's weights by the cross-entropy method and ship them.

Runs :func:`gpusched.agent.tune.tune` (every knob in :class:`~gpusched.agent.tune.TuneConfig`) on
the training seeds (20000 upwards, apart from the held-out 1000-1019) and writes the best weights
with their sidecar (:func:`gpusched.agent.rule_models.save_tuned`), by default to
``assets/models/tuned/fleet-16gpu.npz``, which ``tuned`` and ``tuned:fleet-16gpu`` run.

Usage: ``python benchmarks/tune_rule.py [--scenario S] [--placement P] [--iterations N]
[--population N] [--elite N] [--seeds A-B] [--out PATH]`` (the defaults: 8 iterations of 12 on
8 seeds of fleet-16gpu, 776 runs, about 5 minutes on one core).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gpusched.agent.rule_models import save_tuned
from gpusched.agent.tune import TuneConfig, tune
from gpusched.paths import SHIPPED_MODELS_DIR


def main() -> None:
    d = TuneConfig()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", default=d.scenario)
    p.add_argument("--placement", default=d.placement)
    p.add_argument("--base", default=d.base)
    p.add_argument("--iterations", type=int, default=d.iterations)
    p.add_argument("--population", type=int, default=d.population)
    p.add_argument("--elite", type=int, default=d.elite)
    p.add_argument("--seeds", default=f"{d.training_seeds[0]}-{d.training_seeds[-1]}",
                   help="training seeds A-B (inclusive)")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--out", type=Path, default=SHIPPED_MODELS_DIR / "tuned" / "fleet-16gpu.npz")
    a = p.parse_args()
    lo, _, hi = a.seeds.partition("-")
    seeds = list(range(int(lo), int(hi or lo) + 1))
    if min(seeds) < 10_000:
        p.error("training seeds must be 10000 or more (the held-out seeds are below)")
    config = TuneConfig(scenario=a.scenario, placement=a.placement, base=a.base, training_seeds=seeds,
                        iterations=a.iterations, population=a.population, elite=a.elite, seed=a.seed)
    weights, record = tune(config)
    save_tuned(a.out, weights, {"base": config.base, "placement": config.placement,
                                "scenario": config.scenario, "seed": config.seed, "training_seeds": seeds,
                                "training_time_s": record["time_s"], "search": record})
    print(f"wrote {a.out}: weights {[round(float(w), 4) for w in weights]}")


if __name__ == "__main__":
    main()
