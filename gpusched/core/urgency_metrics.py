"""The metrics of deadlines, weights, prices and run-time predictions (per job and per run).

A job's deadline is ``deadline_min`` minutes after its arrival (``Job.deadline_min``; ``None``: no
deadline). A job *meets* its deadline when it finishes by it; one that has not finished when the
run ends does not meet it. Its *lateness* is its end (the end of the run for one that has not
finished) less its deadline, when positive.

- ``slo_attainment``: the share of the jobs with a deadline that meet it (1.0 when no job has
  one: no deadline was missed);
- ``deadline_miss_min``: the mean lateness of the jobs with a positive lateness (0 when none);
- ``weighted_jct_min``: ``sum(weight * JCT) / sum(weight)``, with each job's JCT as the time to
  result counts it (:func:`gpusched.core.accounting.jct_min`);
- ``cost_usd``: USD paid for the GPUs the jobs held (:mod:`gpusched.core.prices`, fixed prices);
- ``cost_per_met_job_usd``: ``cost_usd`` over the jobs that finished and met their deadline (a job
  without a deadline meets it by finishing); 0 when no job did;
- ``prediction_error_log``: the mean absolute log error ``|ln(read / true)|`` of the run times
  the scheduler read (declared or predicted), over the jobs that were declared one (0 when none was:
  ``declared_run_time: none``); 0 for exact run times, about ``0.8 * sigma`` for a log-normal
  error of ``sigma``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gpusched.core.cluster import EPS
from gpusched.core.prices import run_costs_usd

if TYPE_CHECKING:
    from gpusched.core.run_state import RunState


def deadlines_due_min(run: RunState) -> np.ndarray:
    """Per job, its deadline as a time of the run (minutes; NaN without one)."""
    return np.array([np.nan if j.deadline_min is None else j.arrival_min + j.deadline_min
                     for j in run.jobs], dtype=float)


def met_deadline(run: RunState, due: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per job, whether it has a deadline and whether it finished by it (a job without one: by
    finishing).

    :param due: :func:`deadlines_due_min` of ``run``, if the caller has it already.
    """
    due = deadlines_due_min(run) if due is None else due
    has = ~np.isnan(due)
    end = run.record.end_min
    finished = ~np.isnan(end)
    met = finished & (~has | (end <= np.where(has, due, 0.0) + EPS))
    return has, met


def job_costs_usd(run: RunState, held_min: np.ndarray) -> np.ndarray:
    """Per job, USD paid for the GPUs it held over all its runs.

    :param held_min: the minutes each job's current or last run has held GPUs
        (:func:`gpusched.core.accounting.current_run`).
    """
    held = held_min
    return run_costs_usd(run.record.job_gpus, held, run.log.stops, run.prices)


def prediction_log_error(run: RunState) -> np.ndarray:
    """Per job, ``|ln(declared / true)|`` (NaN where no run time was declared or it is not > 0)."""
    declared = np.asarray(run.declared_min, dtype=float)
    true = np.array([j.duration_min for j in run.jobs], dtype=float)
    ok = np.isfinite(declared) & (declared > 0) & (true > 0)
    return np.where(ok, np.abs(np.log(np.where(ok, declared, 1.0) / np.where(ok, true, 1.0))), np.nan)


def urgency_metrics(run: RunState, jct: np.ndarray, held_min: np.ndarray) -> dict[str, float]:
    """The run's deadline, weight, cost and prediction metrics (see the module docstring).

    :param jct: each job's JCT (minutes), as the time to result counts it.
    :param held_min: the minutes each job's current or last run has held GPUs.
    """
    due = deadlines_due_min(run)
    has, met = met_deadline(run, due)
    end = np.where(np.isnan(run.record.end_min), run.time_min, run.record.end_min)
    late = np.where(has, end - np.where(has, due, 0.0), 0.0)
    late_ones = has & (late > EPS)
    weight = np.array([j.weight for j in run.jobs], dtype=float)
    cost = float(job_costs_usd(run, held_min).sum())
    error = prediction_log_error(run)
    known = ~np.isnan(error)
    return {
        "slo_attainment": float(met[has].mean()) if has.any() else 1.0,
        "deadline_miss_min": float(late[late_ones].mean()) if late_ones.any() else 0.0,
        "weighted_jct_min": float((weight * jct).sum() / weight.sum()) if len(jct) else 0.0,
        "cost_usd": cost,
        "cost_per_met_job_usd": cost / int(met.sum()) if met.any() else 0.0,
        "prediction_error_log": float(error[known].mean()) if known.any() else 0.0,
    }


def urgency_columns(run: RunState, held_min: np.ndarray) -> dict[str, np.ndarray]:
    """The jobs table's columns, at speed 1.0 in minutes: ``declared_min`` (the run time the
    scheduler was told; NaN when it was told none, with ``none`` or ``history``),
    ``predicted_min`` (the estimator's prediction, which the scheduler read instead; NaN without a
    learning estimator), ``true_duration_min`` (the truth, equal to ``duration_min``),
    ``prediction_basis`` (completed jobs a prediction rests on; 0 otherwise), ``deadline_met`` and
    ``cost_usd``."""
    _, met = met_deadline(run)
    basis = run.estimator.basis
    read = np.asarray(run.declared_min, dtype=float)
    nothing = np.full(len(read), np.nan)
    learns = run.estimator.learns
    return {
        "declared_min": nothing if learns else read.copy(),
        "predicted_min": read.copy() if learns else nothing,
        "true_duration_min": np.array([j.duration_min for j in run.jobs], dtype=float),
        "prediction_basis": (np.zeros(len(run.jobs), dtype=np.int64) if basis is None
                             else np.asarray(basis).copy()),
        "deadline_met": met,
        "cost_usd": job_costs_usd(run, held_min),
    }
