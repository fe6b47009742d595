"""Run policies on scenarios: one run, or every policy on the same jobs over several seeds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from gpusched.metrics import METRIC_KEYS
from gpusched.policies import get_policy
from gpusched.result import Result
from gpusched.scenario import Scenario
from gpusched.simulator import Simulator


def make_simulator(scenario: Scenario, seed: int | None = None,
                   n_jobs: int | None = None) -> Simulator:
    """A simulator on the scenario's cluster and workload (``seed``/``n_jobs`` override it)."""
    cluster = scenario.build_cluster(seed)
    jobs = scenario.jobs(seed=seed, n_jobs=n_jobs, cluster=cluster)
    return Simulator(cluster, jobs, reward=scenario.reward, util_band=scenario.util_band,
                     horizon_min=scenario.horizon_min)


def run_policy(scenario: Scenario, policy: str, seed: int | None = None,
               n_jobs: int | None = None) -> Result:
    """Run one policy (by registry name) on the scenario's workload for ``seed``."""
    seed = scenario.workload.seed if seed is None else seed
    sim = make_simulator(scenario, seed, n_jobs)
    result = sim.run(get_policy(policy, seed=seed))
    result.scenario, result.policy, result.seed = scenario.name, policy, seed
    return result


@dataclass
class Comparison:
    """Every policy on the same jobs for every seed.

    :param runs: one row per (policy, seed) with every metric.
    :param results: the full results, keyed by (policy, seed).
    """

    scenario: str
    runs: pd.DataFrame
    results: dict[tuple[str, int], Result]

    def summary(self) -> pd.DataFrame:
        """Mean of every metric per policy (rows in the order the policies were given)."""
        order = list(dict.fromkeys(self.runs["policy"]))
        return self.runs.groupby("policy", sort=False)[list(METRIC_KEYS)].mean().loc[order]

    def spread(self) -> pd.DataFrame:
        """Standard deviation over seeds of every metric per policy (0 for one seed)."""
        order = list(dict.fromkeys(self.runs["policy"]))
        return (self.runs.groupby("policy", sort=False)[list(METRIC_KEYS)].std(ddof=0)
                .fillna(0.0).loc[order])


def compare(scenario: Scenario, policies: Sequence[str], seeds: Sequence[int],
            n_jobs: int | None = None,
            progress: Callable[[int, int], None] | None = None) -> Comparison:
    """Run every policy on the same jobs for every seed.

    :param progress: called as ``progress(done, total)`` after each run.
    """
    for name in policies:
        get_policy(name)  # fail fast on an unknown name, before any run
    rows, results = [], {}
    total = len(policies) * len(seeds)
    for seed in seeds:
        for name in policies:
            result = run_policy(scenario, name, seed=seed, n_jobs=n_jobs)
            results[(name, seed)] = result
            rows.append({"policy": name, "seed": seed, **result.metrics})
            if progress:
                progress(len(rows), total)
    return Comparison(scenario.name, pd.DataFrame(rows), results)
