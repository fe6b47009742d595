"""The orders of urgency: which window job starts first by predicted service, deadline or slack.

Each is a sort key of :mod:`gpusched.policies.queue` (lower first, arrival order on ties), read
from the scheduler's view alone: the declared (or predicted) run times, the deadlines, the clock.

- ``qssf``: the quasi-shortest service first of Helios (Hu, Sun, Yi, Wen, Zhang, "Characterization
  and Prediction of Deep Learning Workloads in Large-Scale GPU Datacenters", SC '21): the
  smallest predicted service, ``gpus * run time on the best GPU``, first. Helios predicts the run
  time from the history of similar jobs; here it reads the declared run time, which with
  ``workload.declared_run_time: history`` is that prediction
  (:mod:`gpusched.core.history_estimator`).
- ``edf``: earliest deadline first (Liu and Layland, "Scheduling Algorithms for Multiprogramming
  in a Hard-Real-Time Environment", JACM 20(1), 1973): the earliest ``arrival + deadline_min``
  first; jobs without a deadline after every job with one. It reads no run time.
- ``least_slack``: least slack first (least laxity; Mok, "Fundamental Design Problems of
  Distributed Systems for the Hard-Real-Time Environment", MIT PhD thesis, 1983): the smallest
  ``deadline - now - declared remaining run time on the best GPU`` first (a job already late has a
  negative slack and goes first); jobs without a deadline last.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from gpusched.core.view import SchedulerView


def _due_min(view: SchedulerView, i: int) -> float:
    job = view.jobs[i]
    return math.inf if job.deadline_min is None else job.arrival_min + job.deadline_min


def qssf_key(view: SchedulerView) -> Callable[[int], float]:
    """The sort key of ``qssf``: the predicted service, GPUs times the declared remaining time on the best
    GPU."""
    left, jobs = view.left_best_min, view.jobs
    return lambda i: left(i) * jobs[i].gpus


def edf_key(view: SchedulerView) -> Callable[[int], float]:
    """The sort key of ``edf``: the due time, ``arrival + deadline_min`` (``inf`` without a deadline)."""
    return lambda i: _due_min(view, i)


def least_slack_key(view: SchedulerView) -> Callable[[int], float]:
    """The sort key of ``least_slack``: the slack, due time less now less the declared remaining time on
    the best GPU."""
    left, now = view.left_best_min, view.time_min

    def slack(i: int) -> float:
        due = _due_min(view, i)
        return math.inf if due == math.inf else due - now - left(i)

    return slack
