"""The result of one run: metrics, jobs table and timeline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from gpusched.core.cluster import Cluster
    from gpusched.core.timeline import Timeline


@dataclass
class Result:
    """One policy run on one workload.

    :param scenario: scenario name.
    :param policy: policy name.
    :param seed: workload seed.
    :param metrics: the per-run metrics (see :data:`gpusched.metrics.METRIC_KEYS`).
    :param jobs: one row per submitted job (see :meth:`Simulator.jobs_table`).
    :param timeline: the event record from which per-GPU state over time is derived.
    :param cluster: the cluster the run used.
    :param end_reason: ``completed``, ``horizon``, ``safety_horizon`` (a run with failures and no
        ``horizon_min``, see :func:`gpusched.core.failures.safety_horizon_min`) or ``dead_stall``.
    """

    scenario: str
    policy: str
    seed: int | None
    metrics: dict[str, float]
    jobs: pd.DataFrame
    timeline: Timeline
    cluster: Cluster
    end_reason: str
