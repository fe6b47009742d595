"""Train an inspector agent over a rule with MaskablePPO and ship it.

Runs :func:`gpusched.agent.inspect.train_inspector` (every knob in
:class:`~gpusched.agent.inspect.InspectConfig`) on training seeds (20000 upwards, apart from the
held-out 1000-1019) and writes the model and its sidecar, by default to
``assets/models/inspect/RULE.zip``, which ``ppo_inspect:RULE`` runs.

Usage: ``python benchmarks/train_inspector.py [--rule sjf+first_fit] [--scenario fleet-16gpu]
[--timesteps 20000] [--bound 3] [--seed 0] [--out PATH]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gpusched.agent.inspect import InspectConfig, train_inspector
from gpusched.paths import SHIPPED_MODELS_DIR


def main() -> None:
    d = InspectConfig()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rule", default=d.rule)
    p.add_argument("--scenario", default=d.scenario)
    p.add_argument("--timesteps", type=int, default=d.timesteps)
    p.add_argument("--bound", type=int, default=d.bound)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--out", type=Path, default=None)
    a = p.parse_args()
    config = InspectConfig(rule=a.rule, scenario=a.scenario, timesteps=a.timesteps, bound=a.bound,
                           seed=a.seed)
    out = a.out or SHIPPED_MODELS_DIR / "inspect" / f"{a.rule}.zip"
    train_inspector(config, out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
