"""Node failures, repairs and checkpoints: the scenario's ``failures:`` and ``checkpoint:`` blocks,
and the seeded process that draws the failures.

**Failures.** Each node fails after an exponential time of *up* time, at
``node_failures_per_1000_node_days`` failures per 1,000 node-days (Kokolis et al., "Revisiting
Reliability in Large-Scale Machine Learning Research Clusters", HPCA 2025, measured 6.50 and 2.34
on two Meta clusters). A failed node is down for a log-normal repair time with the given median
and mean (Schroeder and Gibson, "A large-scale study of failures in high-performance computing
systems", DSN 2006: median 54 min, mean 355 min); its next time to failure is drawn when it is
repaired. A log-normal of median ``m`` and mean ``M >= m`` has ``mu = ln m`` and
``sigma = sqrt(2 ln(M / m))``.

The rate is 0 or at least :data:`~gpusched.limits.MIN_FAILURE_RATE`, and the median repair at
least :data:`~gpusched.limits.MIN_REPAIR_MIN`, so that every up time and every repair drawn is
finite.

Every draw comes from one :class:`numpy.random.Generator` of the failure process alone, made in
time order (ties by node), and nothing a policy does changes when a node fails or is repaired, so
the same scenario and seed give the same failures under every policy.

**Checkpoints.** A job whose type is in ``checkpoint.types`` saves its progress after every
``interval_min`` minutes of progress, counted in reference-speed minutes (the unit of
``duration_min``) from its last saved state; a failure throws away the progress since then. Any
other job loses all its progress. A preempted job saves at once. A job that resumes spends
``restore_min`` loading its state before it progresses. The interval is at least
:data:`~gpusched.limits.MIN_CHECKPOINT_MIN`.

**Runs that end.** Failures are the one process that throws progress away, so they are the one
way a run without ``horizon_min`` could go on for ever. Two rules keep every run finite:

1. a scenario is refused (:func:`check_can_finish`) when a node's mean up time is shorter than
   ``restore_min + interval_min``: a job that checkpoints then loses, on average, every run before
   it saves its first checkpoint, so no such job could ever finish;
2. a run with failures and no ``horizon_min`` stops at its *safety horizon*
   (:func:`safety_horizon_min`), and its end reason is ``safety_horizon``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from statistics import NormalDist

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from gpusched.core.jobs import Job
from gpusched.core.numbers import Number, Whole
from gpusched.core.speed import GpuSpeeds
from gpusched.limits import (
    MAX_CHECKPOINT_MIN,
    MAX_FAILURE_RATE,
    MAX_REPAIR_MIN,
    MAX_RESTORE_MIN,
    MAX_SEED,
    MIN_CHECKPOINT_MIN,
    MIN_FAILURE_RATE,
    MIN_REPAIR_MIN,
    SAFETY_HORIZON_FACTOR,
    SAFETY_REPAIR_QUANTILE,
)

MIN_PER_DAY = 1440.0
"""Minutes in a day."""

KOKOLIS_RATE = 6.5
"""The higher of the two node failure rates Kokolis et al. (HPCA 2025) measured (failures per
1,000 node-days)."""

FAILURE_STREAM = 0x5EED_FA11
"""Mixed with the workload seed to derive the failure seed when a scenario gives none."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class RepairSpec(_Strict):
    """A log-normal repair time, given by its median and mean (minutes)."""

    median: Number = Field(54.0, ge=MIN_REPAIR_MIN, le=MAX_REPAIR_MIN,
                           description="median repair time (minutes)")
    mean: Number = Field(355.0, ge=MIN_REPAIR_MIN, le=MAX_REPAIR_MIN,
                         description="mean repair time (minutes)")

    @model_validator(mode="after")
    def _mean_at_least_median(self) -> RepairSpec:
        if self.mean < self.median:
            raise ValueError(f"a log-normal's mean is at least its median (got mean {self.mean:g} < "
                             f"median {self.median:g})")
        return self

    def quantile(self, q: float) -> float:
        """The repair time (minutes) that a share ``q`` (0-1) of repairs stays under."""
        mu, sigma = self.mu_sigma
        return math.exp(mu + sigma * NormalDist().inv_cdf(q))

    @property
    def mu_sigma(self) -> tuple[float, float]:
        """``(mu, sigma)`` of the underlying normal (natural log of minutes)."""
        return math.log(self.median), math.sqrt(2.0 * math.log(self.mean / self.median))


class FailureSpec(_Strict):
    """The scenario's ``failures:`` block."""

    node_failures_per_1000_node_days: Number = Field(
        ge=0, le=MAX_FAILURE_RATE,
        description="failures per 1,000 node-days of up time (exponential times between failures)")
    repair_min: RepairSpec = Field(default_factory=RepairSpec,
                                   description="log-normal repair time (median and mean, minutes)")
    seed: Whole | None = Field(None, ge=0, le=MAX_SEED,
                               description="seed of the failures (absent: derived from the workload seed)")

    @field_validator("node_failures_per_1000_node_days")
    @classmethod
    def _zero_or_at_least_the_lowest(cls, rate: float) -> float:
        if 0 < rate < MIN_FAILURE_RATE:
            raise ValueError(f"must be 0 (no failures) or at least {MIN_FAILURE_RATE:g} "
                             f"(MIN_FAILURE_RATE; got {rate:g})")
        return rate

    @property
    def node_mttf_min(self) -> float:
        """A node's mean up time between failures (minutes; ``inf`` at rate 0)."""
        rate = self.node_failures_per_1000_node_days
        return math.inf if rate == 0 else 1000.0 * MIN_PER_DAY / rate

    def seed_for(self, workload_seed: int) -> int:
        """The failure seed: ``seed``, or one derived from the workload seed."""
        if self.seed is not None:
            return self.seed
        return int(np.random.SeedSequence([int(workload_seed), FAILURE_STREAM]).generate_state(1)[0])


class CheckpointSpec(_Strict):
    """The scenario's ``checkpoint:`` block."""

    interval_min: Number = Field(ge=MIN_CHECKPOINT_MIN, le=MAX_CHECKPOINT_MIN, description=(
        "progress between checkpoints (reference-speed minutes) of the job types that checkpoint"))
    types: tuple[str, ...] = Field(("training",), description="job types that checkpoint")
    restore_min: Number = Field(0.0, ge=0, le=MAX_RESTORE_MIN, description=(
        "minutes a resumed job spends loading its state before it progresses"))
    move_restore_min: Number | None = Field(None, ge=0, le=MAX_RESTORE_MIN, description=(
        "minutes a job that moves straight from the GPUs it runs on to others spends loading its "
        "state there (default: restore_min); 0 is the rule of Shockwave's simulator, which "
        "charges a job that ran in the round before nothing"))

    @property
    def move_min(self) -> float:
        """Minutes a move costs (``move_restore_min``, else ``restore_min``)."""
        return float(self.restore_min if self.move_restore_min is None else self.move_restore_min)


def check_can_finish(failures: FailureSpec | None, checkpoint: CheckpointSpec | None) -> None:
    """Refuse failures under which no job that checkpoints could ever finish: a node's mean up
    time shorter than ``restore_min + interval_min`` (rule 1 of *Runs that end*, the module
    docstring).

    :raises ValueError: naming both numbers and the keys that set them.
    """
    if failures is None or checkpoint is None:
        return
    needed = checkpoint.restore_min + checkpoint.interval_min
    if failures.node_mttf_min < needed:
        raise ValueError(
            f"a node's mean up time ({failures.node_mttf_min:.4g} min at "
            f"{failures.node_failures_per_1000_node_days:g} failures per 1,000 node-days) is shorter "
            f"than checkpoint.restore_min + checkpoint.interval_min ({needed:.4g} min), so no job "
            "that checkpoints could ever finish: lower the failure rate or the interval")


def safety_horizon_min(jobs: Sequence[Job], failures: FailureSpec, restore_min: Callable[[Job], float],
                       speeds: GpuSpeeds | None = None) -> float:
    """The time a run with failures and no ``horizon_min`` stops at (minutes; rule 2 of *Runs
    that end*, the module docstring): the first arrival plus
    :data:`~gpusched.limits.SAFETY_HORIZON_FACTOR` times the run's failure-free bound (the span
    of the arrivals plus every job's run on the slowest GPU it can run on with one restore), plus
    one long repair (the :data:`~gpusched.limits.SAFETY_REPAIR_QUANTILE` quantile of the repair
    time). Without failures the last job ends within the span plus the runs, so the bound leaves
    a run twice that room to recover from its failures, and room for one repair far longer than
    usual. The run also stops after :data:`~gpusched.limits.SAFETY_MAX_NODE_FAILURES` node
    failures (:class:`~gpusched.core.simulator.Simulator`).

    :param jobs: the run's jobs (``arrival_min``, ``duration_min`` in reference-speed minutes,
        ``type``), at least one.
    :param failures: the failure process.
    :param restore_min: the restore of a resumption of a job (minutes; the restore model's,
        :meth:`~gpusched.core.restore.RestoreModel.resume_cost_min`).
    :param speeds: the cluster's GPU speeds (``None``: every GPU at 1.0).
    """
    slowest: dict[tuple, float] = {}  # by what the speed resolves on: the job's model, type and size
    runs = 0.0
    for job in jobs:
        key = (job.model, job.type, job.gpus)
        if key not in slowest:
            row = None if speeds is None else speeds.row_of_job(job)
            positive = None if row is None else row[row > 0]  # 0: a GPU the job cannot run on
            slowest[key] = 1.0 if positive is None or not positive.size else float(positive.min())
        runs += job.duration_min / slowest[key] + restore_min(job)
    first = min(j.arrival_min for j in jobs)
    span = max(j.arrival_min for j in jobs) - first
    long_repair = failures.repair_min.quantile(SAFETY_REPAIR_QUANTILE)
    return first + SAFETY_HORIZON_FACTOR * (span + runs) + long_repair


class NodeFailures:
    """The failure and repair times of every node, drawn lazily in time order: the nodes' first
    failures when it is made, each node's next event when its last one is handled (the
    simulator's event heap, :mod:`gpusched.core.events`, holds the events to come).

    :param n_nodes: nodes of the cluster.
    :param spec: the rate and the repair-time distribution.
    :param seed: seed of this process's generator.
    :param start_min: when the nodes start (minutes; every node is up then).
    """

    FAIL, REPAIR = 0, 1
    """Event kinds, in the order they are handled at one instant (a repair then sees a fresh node)."""

    def __init__(self, n_nodes: int, spec: FailureSpec, seed: int, start_min: float):
        self.spec = spec
        self.n_nodes = n_nodes
        self.rng = np.random.default_rng(seed)
        self._mttf = spec.node_mttf_min
        self._mu, self._sigma = spec.repair_min.mu_sigma
        self.first: tuple[tuple[float, int, int], ...] = ()
        """``(time, kind, node)`` of every node's first failure."""
        if math.isfinite(self._mttf):
            draws = self.rng.exponential(self._mttf, size=n_nodes)
            self.first = tuple((start_min + float(d), self.FAIL, n) for n, d in enumerate(draws))

    def copy(self) -> NodeFailures:
        """An independent copy (its generator continues from the same state)."""
        twin = object.__new__(NodeFailures)
        twin.__dict__.update(self.__dict__)
        twin.rng = np.random.default_rng()
        twin.rng.bit_generator.state = self.rng.bit_generator.state
        return twin

    def next_after(self, t: float, kind: int, node: int) -> tuple[float, int]:
        """``(time, kind)`` of the node's next event after its event of ``kind`` at ``t``
        (minutes): its repair after a failure, its next failure after a repair (drawn now)."""
        if kind == self.FAIL:
            sigma = self._sigma
            repair = float(self.rng.lognormal(self._mu, sigma)) if sigma > 0 else math.exp(self._mu)
            return t + repair, self.REPAIR
        return t + float(self.rng.exponential(self._mttf)), self.FAIL


def checkpointed_min(progress_min: float, saved_min: float, interval_min: float | None) -> float:
    """The progress a job keeps when it stops without warning (reference-speed minutes).

    :param progress_min: its progress now.
    :param saved_min: its progress at its last saved state (where its current run resumed from).
    :param interval_min: its checkpoint interval, or ``None`` if its type does not checkpoint (it
        falls back to its last saved state: where it was last preempted, else its start).
    """
    if interval_min is None:
        return saved_min
    kept = saved_min + math.floor(max(progress_min - saved_min, 0.0) / interval_min + 1e-9) * interval_min
    return min(kept, max(progress_min, saved_min))
