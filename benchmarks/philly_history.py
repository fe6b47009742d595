"""Could ``history`` do better on the Philly replay? Its keys and options, and the ceiling of its keys.

The Philly file has no user or job name: ``history`` keys on the virtual cluster (``model``) and the
GPU count (:mod:`gpusched.workload.philly_workload`). On the replay (``philly-replay``), ``qssf+first_fit``
with ``history`` is run with other keys and other ``min_samples`` (the scenario's own
``declared_run_time: {history: {keys, min_samples}}``; ``recent N``: each group keeps its ``N``
latest completions only), and with a *key ceiling*: each job told the
geometric mean of the true run times of every job of its window that shares its key (clairvoyant
within the group; :class:`KeyCeiling`), which no estimator keyed on those fields can beat on
average. For each: the share of the gain ``qssf`` told exact run times has over FIFO
(``fcfs+first_fit``) that it recovers, ``(FIFO - variant) / (FIFO - qssf exact)`` of the mean JCT
over the seeds, and its mean JCT minus that of the default ``history``, paired seed by seed (95 %
Student-t interval).

A variant would be chosen on the tuning seeds (:data:`TUNING_SEEDS`, those that sized the preset)
and only measured on the evaluation seeds (:data:`EVALUATION_SEEDS`). Usage:
``nice -n 10 python benchmarks/philly_history.py`` (about 40 CPU s): prints both tables and writes
``benchmarks/results/philly-history.json`` (rendered into ``docs/results/philly.md`` by
``benchmarks/render_results.py``).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import defaultdict
from unittest import mock

import numpy as np

from gpusched.core.history_estimator import DEFAULT_KEYS, HistoryEstimator
from gpusched.core.jobs import Job
from gpusched.experiment.paired import paired_difference
from gpusched.experiment.runner import run_policy
from gpusched.paths import PHILLY_HISTORY_RESULTS
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario, told

PRESET = "philly-replay"
ORDER = "qssf+first_fit"
FIFO = "fcfs+first_fit"
DEFAULT = [list(k) for k in DEFAULT_KEYS]
VARIANTS: dict[str, dict] = {
    "history (default keys)": {"history": {"keys": DEFAULT}},
    "min_samples 3": {"history": {"keys": DEFAULT, "min_samples": 3}},
    "min_samples 10": {"history": {"keys": DEFAULT, "min_samples": 10}},
    "keys: GPUs, then all": {"history": {"keys": [["gpus"], []]}},
    "keys: virtual cluster, then all": {"history": {"keys": [["model"], []]}},
    "keys: all jobs alike": {"history": {"keys": [[]]}},
    "recent 1": {"history": {"keys": DEFAULT, "recent": 1}},
    "recent 3": {"history": {"keys": DEFAULT, "recent": 3}},
    "recent 10": {"history": {"keys": DEFAULT, "recent": 10}},
    "recent 30": {"history": {"keys": DEFAULT, "recent": 30}},
}
"""The ``declared_run_time`` values tried (the first is the preset's ``history``)."""
CEILINGS: dict[str, tuple[str, ...]] = {
    "ceiling: virtual cluster and GPUs": ("model", "gpus"),
    "ceiling: GPUs": ("gpus",),
    "ceiling: one value for all": (),
}
"""The keys whose ceiling is measured (:class:`KeyCeiling`)."""
HISTORY = "history (default keys)"
"""The preset's ``history``, which every variant is paired against."""
TUNING_SEEDS = list(range(900, 905))
"""The seeds that sized the preset: a variant would be chosen on these."""
EVALUATION_SEEDS = list(range(1000, 1010))
"""The held-out seeds of ``docs/results/philly.md``: measured, never chosen on."""


class KeyCeiling(HistoryEstimator):
    """Each job told the geometric mean of the true run times (minutes) of every job of the run
    that shares its value of ``key``: what a perfect estimator of the group's typical run time
    would say. Clairvoyant; a diagnostic, never a setting."""

    key: tuple[str, ...] = ()

    def __init__(self, jobs: list[Job], **options: object):
        super().__init__(jobs, **options)
        logs: dict[tuple, list[float]] = defaultdict(list)
        for job in jobs:
            logs[self._of(job)].append(math.log(job.duration_min))
        self._typical = {g: math.exp(sum(v) / len(v)) for g, v in logs.items()}

    def _of(self, job: Job) -> tuple:
        return tuple(getattr(job, f) for f in self.key)

    def observe_completion(self, job_idx: int, job: Job, work_min: float) -> None:
        """Nothing to learn: the groups' values are known from the start."""

    def fix_at_arrival(self, job_idx: int, job: Job) -> None:
        self._estimate[job_idx] = self._typical[self._of(job)]
        self.basis[job_idx], self.level[job_idx] = 0, 0

    def copy(self, k: int) -> KeyCeiling:
        twin = super().copy(k)
        twin.__class__ = type(self)
        twin._typical = self._typical
        return twin


def ceiling_jct(scenario: Scenario, key: tuple[str, ...], seed: int) -> float:
    """``qssf+first_fit``'s mean JCT (min) on ``seed`` told :class:`KeyCeiling` estimates."""
    ceiling = type("Ceiling", (KeyCeiling,), {"key": key})
    with mock.patch.object(Scenario, "estimator_factory", lambda self, workload_seed=None: ceiling):
        return float(run_policy(scenario, ORDER, seed=seed).metrics["avg_jct_min"])


def measure(base: Scenario, seeds: list[int]) -> dict:
    """FIFO, ``qssf`` exact and every variant and ceiling on ``seeds``: mean JCT (min) per seed."""
    exact = told(base, "exact")

    def jct(scenario: Scenario, policy: str) -> list[float]:
        return [float(run_policy(scenario, policy, seed=s).metrics["avg_jct_min"]) for s in seeds]

    history = told(base, VARIANTS[HISTORY])
    return {"seeds": seeds, "fifo": jct(exact, FIFO), "exact": jct(exact, ORDER),
            "variants": {**{name: jct(told(base, value), ORDER) for name, value in VARIANTS.items()},
                         **{name: [ceiling_jct(history, key, s) for s in seeds]
                            for name, key in CEILINGS.items()}}}


def report(part: dict) -> None:
    """Print one seed set's table."""
    fifo, best = np.array(part["fifo"]), np.array(part["exact"])
    rows = {name: np.array(v) for name, v in part["variants"].items()}
    gain = (fifo - best).mean()
    seeds = part["seeds"]
    print(f"seeds {seeds[0]}-{seeds[-1]}: FIFO {fifo.mean():,.1f} min, qssf exact {best.mean():,.1f} min "
          f"(gain {gain:,.1f} min)")
    print(f"{'variant':36s} {'mean JCT':>9s} {'recovered':>9s}  minus default history [95 %]")
    for name, values in rows.items():
        d = paired_difference(values, rows[HISTORY])
        print(f"{name:36s} {values.mean():9,.1f} {100 * (fifo - values).mean() / gain:8.1f} %"
              f"  {d.mean:+.1f} [{d.low:+.1f}, {d.high:+.1f}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    base = load_scenario(PRESET)
    cpu = time.process_time()
    out = {"tuning": measure(base, TUNING_SEEDS), "evaluation": measure(base, EVALUATION_SEEDS)}
    out["cpu_s"] = time.process_time() - cpu
    for part in ("tuning", "evaluation"):
        report(out[part])
    PHILLY_HISTORY_RESULTS.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"{out['cpu_s']:.0f} CPU s -> {PHILLY_HISTORY_RESULTS}")


if __name__ == "__main__":
    main()
