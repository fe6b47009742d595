"""The one table of names: every metric and parameter a page, figure, menu, table or CLI shows,
with its label, unit, one-line help text and display format.

A key (``avg_wait_min``) is what the code and the results files use; a page shows
:func:`metric_title` (``Average wait (min)``), puts :func:`metric_help` in the tooltip and formats
values with :func:`format_metric`. A fraction (0-1) marked ``percent`` is shown ×100 with the unit
``%``. Sweep parameters (``workload.load``) get their labels from :func:`parameter_label`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class MetricName:
    """How one metric is shown.

    :param key: the metric's key in results (``avg_wait_min``).
    :param label: words, no unit (``Average wait``).
    :param unit: the unit as displayed (``min``, ``%``, ``GPU-hours``; empty for a plain number).
    :param help: one line for a tooltip: what the number means.
    :param decimals: digits after the point when displayed.
    :param percent: the value is a fraction (0-1) shown ×100 in %.
    """

    key: str
    label: str
    unit: str
    help: str
    decimals: int = 1
    percent: bool = False

    @property
    def title(self) -> str:
        """The label with its unit: ``Average wait (min)``."""
        return f"{self.label} ({self.unit})" if self.unit else self.label

    @property
    def scale(self) -> float:
        """What a stored value is multiplied by for display (100 for a fraction shown in %)."""
        return 100.0 if self.percent else 1.0


def _m(key: str, label: str, unit: str, help: str, decimals: int = 1, percent: bool = False) -> MetricName:
    return MetricName(key, label, unit, help, decimals, percent)


_TABLE: tuple[MetricName, ...] = (
    # Jobs.
    _m("jobs_submitted", "Jobs submitted", "", "Jobs that arrived during the run.", 0),
    _m("jobs_completed", "Jobs completed", "", "Jobs that finished before the run ended.", 0),
    _m("jobs_unfinished", "Jobs unfinished", "", "Jobs still waiting or running when the run ended.", 0),
    # Time to result and waits.
    _m("avg_jct_min", "Time to result", "min",
       "Average job completion time (JCT): from a job's arrival to its end, waiting and running."),
    _m("avg_wait_min", "Average wait", "min", "Average time a job waits in the queue before it starts."),
    _m("p95_wait_min", "p95 wait", "min",
       "95th percentile (p95) of the wait: 95 % of jobs wait at most this long, the slowest 5 % longer.", 0),
    _m("p99_wait_min", "p99 wait", "min",
       "99th percentile (p99) of the wait: 99 % of jobs wait at most this long, the slowest 1 % longer.", 0),
    _m("max_wait_min", "Longest wait", "min", "The longest any job waited before it started.", 0),
    _m("weighted_wait_min", "Priority-weighted wait", "min",
       "Average wait with each job weighted by its priority, so urgent jobs count more."),
    _m("avg_slowdown", "Slowdown", "×",
       "Time to result divided by the job's run time on the best GPU the cluster could give it "
       "(1 = no wait and the best GPU).", 2),
    _m("avg_bsld", "Bounded slowdown", "×",
       "Time to result divided by the run time, with run times under 10 min counted as 10 min so "
       "that short jobs do not dominate (1 = no wait).", 2),
    _m("speed_loss_min", "Speed loss per job", "min",
       "Extra run time per job from running on a slower GPU than the fastest one that fitted."),
    _m("makespan_min", "Makespan", "min", "Time from the first arrival until the last job finished.", 0),
    # Use of the cluster.
    _m("avg_util", "GPU occupancy", "%",
       "Share of the cluster's GPU compute held by running jobs; slow runs raise it, so busier is "
       "not more productive.", 1, True),
    _m("util_in_band_frac", "Time in the 60–80 % band", "%",
       "Share of the run during which the cluster's occupancy was in the 60–80 % target band.", 1, True),
    _m("gini", "Imbalance between GPUs", "Gini, 0–1",
       "Gini coefficient of the GPUs' loads: 0 when every GPU is equally busy, near 1 when one GPU "
       "does all the work.", 3),
    _m("gpu_hours", "GPU time used", "GPU-hours", "GPU time held by running jobs.", 1),
    # Stalls and misroutes.
    _m("stall_min", "Stall time", "min",
       "Time the first job in the queue could have run on some GPU but the policy held it.", 0),
    _m("blocked_min", "Blocked time", "min",
       "Time the first job in the queue fitted on no GPU at all, so the queue waited for GPUs to "
       "free up.", 0),
    _m("misroutes", "Misroutes", "", "Times the policy sent the first job in the queue to a GPU where "
       "it did not fit.", 0),
    _m("misroutes_capacity", "Misroutes: GPU too small", "",
       "Misroutes to a GPU that could never hold the job (too little memory).", 0),
    _m("misroutes_occupied", "Misroutes: GPU too full", "",
       "Misroutes to a GPU that was too full for the job at the time.", 0),
    _m("misroutes_gang", "Misroutes: gang could not form", "",
       "Misroutes of a multi-GPU job to a node that could not give it all its GPUs at the time.", 0),
    _m("idle_gpu_min_queued", "Idle while jobs waited", "GPU-min",
       "GPU-minutes left idle while jobs were waiting, stalled or blocked.", 0),
    _m("idle_gpu_min_stalled", "Idle during stalls", "GPU-min",
       "GPU-minutes left idle while the first job in the queue could have run but was held.", 0),
    _m("idle_gpu_min_blocked", "Idle while blocked", "GPU-min",
       "GPU-minutes left idle while the first job in the queue fitted nowhere.", 0),
    _m("backfilled_jobs", "Started out of order", "",
       "Jobs started ahead of an earlier arrival that still waited (backfilled).", 0),
    # Failures and preemption.
    _m("node_failures", "Node failures", "", "Times a node failed during the run.", 0),
    _m("jobs_interrupted", "Jobs interrupted by a failure", "", "Jobs stopped by a node failure.", 0),
    _m("preemptions", "Preemptions", "", "Times a running job was stopped to make room for another.", 0),
    # Rounds (round policies only).
    _m("rounds", "Rounds", "", "Rounds of a run in rounds: each re-places every active job at once.", 0),
    _m("round_solves", "Allocations computed", "",
       "Times the round policy computed a new allocation (when jobs arrived or finished, at most once "
       "per reset interval).", 0),
    _m("round_solve_median_s", "Median solve time", "s",
       "Median wall-clock time the round policy took to compute one allocation.", 3),
    _m("round_solve_p99_s", "p99 solve time", "s",
       "99th percentile (p99) of the round policy's time to compute one allocation.", 3),
    _m("round_solve_total_s", "Total solve time", "s",
       "Wall-clock time the round policy spent computing allocations over the whole run.", 2),
    # Fairness (every run).
    _m("rho_mean", "Mean finish-time fairness", "",
       "Average over finished jobs of rho, a job's time to result divided by its time alone on a "
       "1/N share of the cluster (N the jobs in the system on average while it was); above 1 the "
       "sharing cost it.", 2),
    _m("rho_max", "Worst finish-time fairness", "", "The largest rho of any finished job.", 2),
    _m("rho_over_1_share", "Jobs treated unfairly", "% of jobs",
       "Share of finished jobs whose finish-time fairness rho is above 1.", 1, percent=True),
    _m("jain_index", "Jain's fairness index", "",
       "Jain's index over the jobs' normalised throughputs (time alone divided by time to result): "
       "1 when every job was slowed alike.", 3),
    _m("type_changes_per_job", "GPU-type changes per job", "",
       "Average number of times a job's next run was on another GPU model than its last one.", 2),
    _m("migrations", "Migrations", "",
       "Times a running job was moved to other GPUs, where it runs faster.", 0),
    _m("migration_restore_gpu_hours", "Time spent restoring after moves", "GPU-hours",
       "GPU time spent reloading jobs after a migration (part of the time spent restoring).", 1),
    _m("lost_gpu_hours", "Work lost to failures", "GPU-hours",
       "GPU time thrown away by node failures: progress since a job's last checkpoint.", 1),
    _m("restore_gpu_hours", "Time spent restoring", "GPU-hours",
       "GPU time spent reloading jobs after a stop.", 1),
    _m("goodput", "Goodput", "%",
       "Share of the GPU time jobs held that did useful work: not lost to a failure, not spent "
       "restoring.", 1, True),
    # Deadlines, weights, prices and run-time predictions (gpusched.core.urgency_metrics).
    _m("slo_attainment", "Deadlines met", "%",
       "Share of the jobs with a deadline that finished by it (100 % when no job has one).", 1, True),
    _m("deadline_miss_min", "Lateness of late jobs", "min",
       "Average time by which the jobs that missed their deadline missed it."),
    _m("weighted_jct_min", "Weighted time to result", "min",
       "Time to result averaged with each job's weight: a weight-5 job counts five times."),
    _m("cost_usd", "GPU cost", "USD",
       "What the GPUs the jobs held cost at fixed on-demand prices per GPU-hour (unpriced GPUs "
       "count nothing); whole dollars.", 0),
    _m("cost_per_met_job_usd", "Cost per job on time", "USD",
       "GPU cost divided by the jobs that finished and met their deadline (or had none).", 2),
    _m("prediction_error_log", "Run-time prediction error", "log",
       "Mean absolute log error of the run times the scheduler was told or predicted: 0 is exact, "
       "0.69 is off by a factor of 2 on average.", 2),
    # Training.
    _m("total_reward", "Training reward", "",
       "The reward the agent is trained to maximise, summed over the run (higher is better; it "
       "weighs completions against waiting and imbalance).", 1),
    # Allocation experiment on real traces (percent already).
    _m("alloc_at_100", "Allocation at 100 % arrived", "% of cluster GPUs",
       "Share of the cluster's GPUs allocated once the arrived GPU requests equal its capacity.", 2),
    _m("alloc_at_130", "Allocation at 130 % arrived", "% of cluster GPUs",
       "Share of the cluster's GPUs allocated once the arrived GPU requests are 1.3× its capacity.", 2),
    _m("failed_pods", "Pods that fitted nowhere", "", "Pods dropped because no GPU could hold them.", 0),
    _m("arrived_pct", "Arrived GPU requests", "% of cluster GPUs",
       "GPU requests arrived so far, as a share of the cluster's GPU capacity.", 0),
    _m("alloc_pct", "GPU allocation ratio", "% of cluster GPUs",
       "Share of the cluster's GPUs allocated to pods.", 2),
    _m("frag_pct", "GPU fragmentation", "% of cluster GPUs",
       "Free GPU shares too small for the typical pod, as a share of the cluster's GPUs.", 2),
)

METRIC_NAMES: dict[str, MetricName] = {m.key: m for m in _TABLE}
"""Every metric the project shows, by key."""


def metric_name(key: str) -> MetricName:
    """The names of a metric; a key the table does not know gets words made from the key."""
    known = METRIC_NAMES.get(key)
    if known is not None:
        return known
    return MetricName(key, _words(key), "", f"{_words(key)}.")


def metric_label(key: str) -> str:
    """The metric in words, without its unit (``Average wait``)."""
    return metric_name(key).label


def metric_title(key: str) -> str:
    """The metric in words with its unit (``Average wait (min)``)."""
    return metric_name(key).title


def metric_help(key: str) -> str:
    """The metric's one-line help text, for a tooltip."""
    return metric_name(key).help


def display_value(key: str, value: float) -> float:
    """A stored value as displayed: ×100 for a fraction shown in %."""
    return value * metric_name(key).scale


def format_number(value: float | int | None, decimals: int) -> str:
    """A number with thousands separators and ``decimals`` digits (``—`` when missing); a value
    that rounds to zero reads ``0`` (never ``-0``)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    text = f"{value:,.{decimals}f}"
    return text.removeprefix("-") if not any(c in "123456789" for c in text) else text


def format_metric(key: str, value: float | int | None, unit: bool = False) -> str:
    """A metric's value as displayed: scaled (×100 for a fraction in %), thousands separators and
    the metric's fixed decimals; with ``unit``, followed by its unit."""
    name = metric_name(key)
    text = format_number(None if value is None else value * name.scale, name.decimals)
    if not unit or not name.unit or text == "—":
        return text
    return f"{text} %" if name.unit == "%" else f"{text} {name.unit}"


def format_spread(key: str, mean: float, spread: float) -> str:
    """``mean ± spread`` of a metric, both scaled and formatted like :func:`format_metric`."""
    return f"{format_metric(key, mean)} ± {format_metric(key, spread)}"


def _words(key: str) -> str:
    """``workload.arrival_rate_per_hour`` -> ``Workload: arrival rate per hour``."""
    text = key.replace(".", ": ").replace("_", " ").strip()
    return text[:1].upper() + text[1:]


PARAMETER_LABELS: dict[str, str] = {
    "workload.load": "Offered load (fraction of the cluster's compute)",
    "workload.arrival_rate_per_hour": "Arrival rate (jobs per hour)",
    "workload.jobs": "Jobs in the workload",
    "queue.window": "Queue window (jobs)",
    "scenario": "Cluster (scenario)",
    "policy": "Policy",
    "seed": "Workload seed",
    "nodes": "Node list",
    "pods": "Trace (pod list)",
    "tune": "Arrived requests at the end (× cluster GPUs)",
    "kind": "Kind of run",
}
"""Sweep parameters (result columns that are not metrics) in words."""


def parameter_label(name: str) -> str:
    """A sweep parameter or metric in words: a parameter's label, else the metric's title, else
    words made from the name (never the raw dotted path)."""
    if name in PARAMETER_LABELS:
        return PARAMETER_LABELS[name]
    if name in METRIC_NAMES:
        return METRIC_NAMES[name].title
    return _words(name)
