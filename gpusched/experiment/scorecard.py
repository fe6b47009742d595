"""The scorecard: every policy against a baseline, metric by metric, paired over the same seeds.

Policies in a :class:`~gpusched.experiment.runner.Comparison` ran on the same jobs seed by seed, so
each metric's per-seed difference cancels the workload's variance (:mod:`gpusched.experiment.paired`).
A row gives the mean difference ``policy - baseline`` with its 95 % interval (Student t, or a
bootstrap for the skewed metrics of :data:`~gpusched.experiment.paired.BOOTSTRAP_METRICS`: the
``interval`` column names it), and how many seeds
the policy wins, ties and loses, where winning means a lower value for a metric in
:data:`LOWER_IS_BETTER` and a higher one otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from gpusched.experiment.paired import interval_method, paired_difference
from gpusched.experiment.runner import Comparison

TAIL_WAIT_METRIC = "p99_wait_min"
"""The one percentile of the wait every page shows (Home's cards and chart, Compare's bars, tables
and scorecard, Replay's cards): the 99th, the wait of the slowest 1 % of jobs."""

SCORECARD_METRICS: tuple[str, ...] = (
    "avg_jct_min", "avg_wait_min", TAIL_WAIT_METRIC, "avg_slowdown", "speed_loss_min", "avg_bsld",
    "weighted_wait_min", "max_wait_min", "stall_min", "jobs_completed", "avg_util", "goodput",
    "lost_gpu_hours", "restore_gpu_hours", "preemptions", "total_reward")
"""The metrics a scorecard compares, in display order."""

LOWER_IS_BETTER: frozenset[str] = frozenset({
    "avg_wait_min", "p95_wait_min", "p99_wait_min", "max_wait_min", "avg_jct_min", "avg_bsld",
    "avg_slowdown", "speed_loss_min",
    "weighted_wait_min", "stall_min", "misroutes", "idle_gpu_min_queued", "idle_gpu_min_stalled",
    "idle_gpu_min_blocked", "jobs_unfinished", "makespan_min", "gini", "lost_gpu_hours",
    "restore_gpu_hours", "node_failures", "jobs_interrupted", "preemptions", "deadline_miss_min",
    "weighted_jct_min", "cost_usd", "cost_per_met_job_usd", "prediction_error_log",
    "rho_mean", "rho_max", "rho_over_1_share", "type_changes_per_job"})
"""Metrics for which a lower value is better (for the others, higher is better)."""

COLUMNS: tuple[str, ...] = ("policy", "metric", "policy_mean", "baseline_mean", "diff", "low", "high",
                            "interval", "wins", "ties", "losses", "seeds")
"""The scorecard's columns: the policy and metric, both means, the mean paired difference
``policy - baseline`` with its 95 % interval (``low``, ``high``) and that interval's kind
(``interval``: ``"t"`` or ``"bootstrap"``, :func:`~gpusched.experiment.paired.interval_method`), the
seeds the policy wins,
ties and loses, and the seeds compared."""


def scorecard(comparison: Comparison, baseline: str,
              metrics: Sequence[str] = SCORECARD_METRICS) -> pd.DataFrame:
    """Every other policy of ``comparison`` against ``baseline``, metric by metric.

    :raises ValueError: if ``baseline`` is not in the comparison.
    """
    runs = comparison.runs
    policies = list(dict.fromkeys(runs["policy"]))
    if baseline not in policies:
        raise ValueError(f"baseline '{baseline}' is not among the compared policies ({', '.join(policies)})")
    wide = {m: runs.pivot_table(index="seed", columns="policy", values=m, sort=False) for m in metrics}
    rows = []
    for policy in (p for p in policies if p != baseline):
        for metric in metrics:
            pair = wide[metric][[policy, baseline]].dropna()
            d = paired_difference(pair[policy].to_numpy(), pair[baseline].to_numpy(),
                                  method=interval_method(metric))
            lower_better = metric in LOWER_IS_BETTER
            rows.append({
                "policy": policy, "metric": metric, "policy_mean": float(pair[policy].mean()),
                "baseline_mean": float(pair[baseline].mean()), "diff": d.mean, "low": d.low,
                "high": d.high, "interval": d.method,
                "wins": d.a_lower if lower_better else d.a_higher, "ties": d.ties,
                "losses": d.a_higher if lower_better else d.a_lower, "seeds": d.n})
    card = pd.DataFrame(rows, columns=list(COLUMNS))
    card.attrs["baseline"] = baseline
    return card
