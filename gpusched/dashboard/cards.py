"""Which result cards a scenario earns beside time to result: deadlines met where jobs carry
deadlines, and GPU cost where every GPU of the cluster has a price.

A share of deadlines met reads 100 % on jobs without deadlines, and a cost that counts unpriced
GPUs as free (:mod:`gpusched.core.prices`) understates what a run costs; neither card is shown
where it would mislead.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from gpusched.core.prices import gpu_prices, unpriced_models
from gpusched.core.result import Result
from gpusched.workload.scenario import Scenario

DEADLINE_METRIC = "slo_attainment"
"""The card of deadlines: the share of jobs with a deadline that finished by it."""

COST_METRIC = "cost_usd"
"""The card of prices: what the GPUs the jobs held cost (USD)."""


def jobs_have_deadlines(jobs: pd.DataFrame) -> bool:
    """Whether some job of a jobs table (a run's, or a job list's) carries a deadline."""
    return "deadline_min" in jobs.columns and bool(jobs["deadline_min"].notna().any())


def fully_priced(scenario: Scenario) -> bool:
    """Whether every GPU of the scenario's cluster has a price (the scenario's ``prices:`` table,
    or the shipped one)."""
    models = list(scenario.build_cluster().gpu_model)
    return bool(models) and not unpriced_models(models, gpu_prices(models, scenario.prices))


def cards_for(scenario: Scenario, deadlines: bool) -> tuple[str, ...]:
    """The cards to show beside time to result on ``scenario``: :data:`DEADLINE_METRIC` when jobs
    carry ``deadlines``, :data:`COST_METRIC` when the cluster is fully priced
    (:func:`fully_priced`); in that order."""
    return ((DEADLINE_METRIC,) if deadlines else ()) + ((COST_METRIC,) if fully_priced(scenario) else ())


def urgency_cards(scenario: Scenario, results: Iterable[Result]) -> tuple[str, ...]:
    """:func:`cards_for` runs of ``scenario``: deadlines when some job of the runs carries one."""
    return cards_for(scenario, any(jobs_have_deadlines(r.jobs) for r in results))


def scenario_cards(scenario: Scenario) -> tuple[str, ...]:
    """:func:`cards_for` the scenario's own jobs (for shipped numbers, with no runs at hand)."""
    jobs = scenario.jobs(cluster=scenario.build_cluster())
    return cards_for(scenario, any(j.deadline_min is not None for j in jobs))
