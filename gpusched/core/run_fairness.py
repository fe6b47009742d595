"""The fairness of one run, for every run (in rounds or not): per job its finish-time fairness ρ and
its GPU-type changes (jobs-table columns ``rho`` and ``type_changes``), and per run
:data:`gpusched.core.metrics.FAIRNESS_METRIC_KEYS` (mean and max ρ, the share of jobs with ρ > 1,
Jain's index, GPU-type changes per job).

The formulas are :mod:`gpusched.core.fairness`'s (Themis, NSDI 2020; Jain, Chiu and Hawe, 1984),
read on the run:

- a job's JCT is its end minus its arrival; only finished jobs have a ρ (NaN otherwise);
- its time *alone* is its ideal run time, ``duration ÷ best speed`` (the jobs table's
  ``ideal_run_min``: the job alone on the fastest gang the cluster could give it);
- ``N`` is the time average of the jobs in the system (arrived, not finished; a job unfinished
  at the end counts until the end) over the job's own stay, and ``G`` the cluster's GPUs;
- a job's GPU-type changes are the times one of its runs was on another GPU model than the run
  before it (the runs a stop, a preemption or a move ended, from the run's log, then its last
  run); a job whose lease is renewed round after round keeps one run.
"""

from __future__ import annotations

import math
from operator import ne
from typing import Any

import numpy as np

from gpusched.core.accounting import ideal_run_min
from gpusched.core.fairness import average_active, finish_time_fairness, jain_index
from gpusched.core.metrics import FAIRNESS_METRIC_KEYS


def type_changes_per_job(run: Any) -> np.ndarray:
    """``(n,)`` each job's GPU-type changes (see the module docstring); only the jobs that stopped
    or moved are walked."""
    model = run.cluster.gpu_model
    changes = np.zeros(len(run.jobs), dtype=np.int64)
    runs: dict[int, list[str]] = {}
    for entry in run.log.stops:
        if entry[4]:
            runs.setdefault(entry[1], []).append(model[entry[4][0]])
    job_gpus = run.record.job_gpus
    for i, models in runs.items():
        if job_gpus[i]:  # its current or last run (none after a stop)
            models.append(model[job_gpus[i][0]])
        changes[i] = sum(map(ne, models, models[1:]))  # consecutive runs on different models
    return changes


def fairness_columns(run: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(rho, type_changes)`` per job, by arrival index (see the module docstring)."""
    arrival = np.asarray(run.arrival_min, dtype=float)
    end = np.asarray(run.record.end_min, dtype=float)
    finished = ~np.isnan(end)
    ideal = ideal_run_min(run)
    rho = np.full(len(arrival), np.nan)
    arrived = arrival <= run.time_min
    ok = finished & (ideal > 0)
    if ok.any():
        stay_end = np.where(finished, end, run.time_min)[arrived]
        active = np.full(len(arrival), np.nan)
        active[arrived] = average_active(arrival[arrived] * 60.0, stay_end * 60.0)
        gpus = np.array([j.gpus for j in run.jobs], dtype=float)
        rho[ok] = finish_time_fairness((end[ok] - arrival[ok]) * 60.0, ideal[ok] * 60.0, active[ok],
                                       gpus[ok], float(run.cluster.n_gpus))
    return rho, type_changes_per_job(run)


def fairness_metrics(run: Any) -> dict[str, float]:
    """The run's fairness metrics (:data:`~gpusched.core.metrics.FAIRNESS_METRIC_KEYS`); NaN where
    no job finished."""
    rho, changes = fairness_columns(run)
    done = ~np.isnan(rho)
    nan = math.nan  # one NaN object, so that two runs' metrics compare equal where both are undefined
    if not done.any():
        values = (nan, nan, nan, nan)
    else:
        jct = (np.asarray(run.record.end_min, dtype=float) - np.asarray(run.arrival_min, dtype=float))[done]
        ideal = ideal_run_min(run)[done]
        throughput = np.where(jct > 0, ideal / np.where(jct > 0, jct, 1.0), 1.0)
        values = (float(rho[done].mean()), float(rho[done].max()), float((rho[done] > 1).mean()),
                  jain_index(throughput))
    per_job = float(changes.mean()) if len(changes) else nan
    return dict(zip(FAIRNESS_METRIC_KEYS, (*values, per_job), strict=True))
