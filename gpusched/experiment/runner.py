"""Run policies on scenarios: one run, or every policy on the same jobs over several seeds."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from gpusched.core.metrics import FAIRNESS_METRIC_KEYS, METRIC_KEYS
from gpusched.core.result import Result
from gpusched.policies import get_policy
from gpusched.policies.preflight import check_told
from gpusched.policies.registry import is_round_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.scenario import Scenario


def run_policy(scenario: Scenario, policy: str, seed: int | None = None,
               n_jobs: int | None = None) -> Result:
    """Run one policy (by registry name) on the scenario's workload for ``seed`` (refused by
    :func:`~gpusched.policies.preflight.check_told` when it reads run times the scenario does not declare)."""
    check_told(scenario, policy)
    seed = scenario.workload.seed if seed is None else seed
    return run_scheduler(scenario, get_policy(policy, seed=seed), policy, seed, n_jobs,
                         rounds=is_round_policy(policy))


def run_scheduler(scenario: Scenario, scheduler: object, name: str, seed: int | None = None,
                  n_jobs: int | None = None, rounds: bool = False) -> Result:
    """Run a policy object built by the caller (a planner with its own options, not in the
    registry) on the scenario's workload for ``seed``; the result is reported under ``name``.

    :param rounds: run the scenario in rounds (a round policy)."""
    seed = scenario.workload.seed if seed is None else seed
    sim = make_simulator(scenario, seed, n_jobs, rounds=rounds)
    result = sim.run(scheduler)
    result.scenario, result.policy, result.seed = scenario.name, name, seed
    return result


@dataclass
class Comparison:
    """Every policy on the same jobs for every seed.

    :param runs: one row per (policy, seed) with every metric (or some of them: shipped
        results keep a few).
    :param results: the full results, keyed by (policy, seed) (empty for shipped results).
    """

    scenario: str
    runs: pd.DataFrame
    results: dict[tuple[str, int], Result]

    def summary(self) -> pd.DataFrame:
        """Mean of every metric per policy (rows in the order the policies were given)."""
        order = list(dict.fromkeys(self.runs["policy"]))
        return self.runs.groupby("policy", sort=False)[self.metrics].mean().loc[order]

    def spread(self) -> pd.DataFrame:
        """Standard deviation over seeds of every metric per policy (0 for one seed)."""
        order = list(dict.fromkeys(self.runs["policy"]))
        return (self.runs.groupby("policy", sort=False)[self.metrics].std(ddof=0)
                .fillna(0.0).loc[order])

    @property
    def metrics(self) -> list[str]:
        """The metrics the runs hold, in the order of :data:`METRIC_KEYS`, then the fairness metrics
        (:data:`~gpusched.core.metrics.FAIRNESS_METRIC_KEYS`) where the runs hold them."""
        return [k for k in (*METRIC_KEYS, *FAIRNESS_METRIC_KEYS) if k in self.runs.columns]


def compare(scenario: Scenario, policies: Sequence[str], seeds: Sequence[int],
            n_jobs: int | None = None,
            progress: Callable[[int, int], None] | None = None) -> Comparison:
    """Run every policy on the same jobs for every seed.

    :param progress: called as ``progress(done, total)`` after each run.
    """
    for name in policies:
        get_policy(name)  # fail fast on an unknown name, before any run
        check_told(scenario, name)
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


def comparison_from_results(scenario: str, *parts: Mapping[tuple[str, int], Result],
                            order: Sequence[str] | None = None) -> Comparison:
    """One :class:`Comparison` from runs keyed (policy, seed), e.g. runs made here merged with
    runs made by a background worker.

    :param parts: runs keyed (policy, seed); a later part wins on a repeated key.
    :param order: the policies' order in the comparison (default: the order they come in); the
        runs of one policy keep their order.
    """
    results: dict[tuple[str, int], Result] = {}
    for part in parts:
        results.update(part)
    if order is not None:
        rank = {p: i for i, p in enumerate(order)}
        keys = sorted(results, key=lambda key: rank.get(key[0], len(rank)))
        results = {k: results[k] for k in keys}
    rows = [{"policy": p, "seed": s, **r.metrics} for (p, s), r in results.items()]
    return Comparison(scenario, pd.DataFrame(rows), results)
