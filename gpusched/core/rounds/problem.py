"""One round's problem and its answer, as plain numpy arrays: what a round policy reads
(:class:`RoundProblem`) and what it returns (:class:`Allocation`).

The split follows Gavel (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for
Deep Learning Workloads", OSDI 2020; ``stanford-futuredata/gavel``, ``scheduler/policies/policy.py``
and ``scheduler/scheduler.py``): a policy computes an allocation, each active job's fraction of
time on each GPU type; the round mechanism alone turns allocations into rounds
(:mod:`gpusched.core.rounds.assign`).

**Units.** Throughputs are work units per second on one gang of the job's size (``scale_factor``
GPUs of one type), and remaining work is in the same work unit: Gavel's training steps and
steps/s, or gpusched's reference-GPU seconds and reference-GPU seconds per second (a speed). Times
are seconds. An allocation entry is a fraction of wall-clock time (0-1): job ``i`` holds
``scale_factor[i]`` GPUs of type ``j`` for a fraction ``X[i, j]`` of the time.

**Feasible allocation.** ``X >= 0``; each job's row sums to at most 1; each type's capacity holds,
``sum_i scale_factor[i] * X[i, j] <= capacity[j]`` (pairs sharing one GPU count once, see
:class:`Allocation`).

Bad input raises :class:`RoundProblemError` with a one-line message naming the field, the entry and
the limit (``round problem: throughput[3, 1] must be finite and >= 0 (got nan)``); the limits are
the documented ones (:data:`gpusched.limits.MAX_JOBS` active jobs, :data:`gpusched.limits.MAX_GPUS`
GPUs).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from gpusched.errors import GpuschedError
from gpusched.limits import MAX_GPUS, MAX_JOBS, MAX_QUANTITY, MAX_SEED

ROW_TOLERANCE = 1e-6
"""Slack allowed on a row sum or a capacity when an allocation is checked (solver round-off)."""


class RoundProblemError(GpuschedError):
    """A round problem or an allocation is malformed (names the field, the entry and the limit)."""


class RoundSolveError(GpuschedError):
    """A round policy's solver found no usable allocation (names the policy and the solver's
    status)."""


def _where(name: str, bad: np.ndarray, values: np.ndarray) -> tuple[str, float]:
    """The first bad entry of ``values``: its name with index (``throughput[3, 1]``) and value."""
    index = tuple(int(v) for v in np.argwhere(bad)[0])
    shown = index[0] if len(index) == 1 else ", ".join(str(v) for v in index)
    return f"{name}[{shown}]", values[index]


def _array(name: str, value, shape: tuple[int, ...], *, low: float | None = 0.0,
           positive: bool = False, allow_inf: bool = False, whole: bool = False,
           high: float = MAX_QUANTITY) -> np.ndarray:
    """``value`` as a float (or int) array of ``shape``, refused with a one-line message when its
    shape is wrong or an entry is not a number within bounds (at most ``high`` in size: the
    documented :data:`~gpusched.limits.MAX_QUANTITY` unless the field has a tighter limit)."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise RoundProblemError(f"round problem: {name} must be an array of numbers") from None
    if array.shape != shape:
        raise RoundProblemError(f"round problem: {name} must have shape {shape} (got {array.shape})")
    least, most = float(array.min(initial=np.inf)), float(array.max(initial=-np.inf))
    if -high <= least and most <= high and (low is None or (least > low if positive else least >= low)):
        # every entry a finite number within bounds (a NaN or an infinity fails a comparison):
        # the checks below would pass, and only the whole numbers are left to check
        if not whole:
            return array
        if (array == np.round(array)).all():
            return array.astype(np.int64)
    bad = np.isnan(array) if allow_inf else ~np.isfinite(array)
    if bad.any():
        where, got = _where(name, bad, array)
        raise RoundProblemError(f"round problem: {where} must be finite (got {got})")
    bad = np.isfinite(array) & (np.abs(array) > high)
    if bad.any():
        where, got = _where(name, bad, array)
        raise RoundProblemError(f"round problem: {where} is over the limit of {high:,g} (got {got:g})")
    if low is not None:
        bad = array <= low if positive else array < low
        if bad.any():
            where, got = _where(name, bad, array)
            sign = ">" if positive else ">="
            raise RoundProblemError(f"round problem: {where} must be {sign} {low:g} (got {got})")
    if whole:
        bad = array != np.round(array)
        if bad.any():
            where, got = _where(name, bad, array)
            raise RoundProblemError(f"round problem: {where} must be a whole number (got {got})")
        return array.astype(np.int64)
    return array


@dataclass(frozen=True)
class RoundProblem:
    """Everything a round policy may read, one row per active job and one column per GPU type.

    :param throughput: ``(n, k)`` work units per second of job ``i`` on ``scale_factor[i]`` GPUs
        of type ``j``; 0 where the job cannot run on that type.
    :param scale_factor: ``(n,)`` GPUs the job needs (its gang size), >= 1.
    :param capacity: ``(k,)`` GPUs of each type.
    :param weight: ``(n,)`` priority weight (> 0; 1 is normal). Default all 1.
    :param remaining: ``(n,)`` work left, in the throughput's work unit. Default all 1.
    :param age_s: ``(n,)`` seconds since the job arrived. Default all 0.
    :param service_s: ``(n, k)`` attained service, seconds the job has run on each type. Default 0.
    :param deadline_s: ``(n,)`` seconds left until the job's deadline (its SLO); ``inf`` for none.
    :param cost: ``(k,)`` price of one GPU of each type per hour (any currency). Default all 1.
    :param type_names: the GPU types' names (``("V100", "P100", "K80")``), for messages.
    :param job_ids: ``(n,)`` stable job identifiers, for policies that remember jobs across rounds.
    :param reference_type: the type whose throughput the heterogeneity-agnostic twins read where
        one is needed (Gavel's V100 for ``min_total_duration``); ``None``: each job's fastest type.
    :param pair_jobs: ``(p, 2)`` row indices of job pairs that may share one GPU (co-location).
    :param pair_throughput: ``(p, k, 2)`` work units per second of each member of a pair when the
        two share GPUs of type ``j`` (Gavel's measured pair throughputs); 0 where they cannot.
    :param reported_remaining: ``(n,)`` work left as the job reports it (same unit as
        ``remaining``): a job that changes its batch size reports its steps left at its current
        batch size (:meth:`PhaseClock.as_reported
        <gpusched.core.phase_mechanism.PhaseClock.as_reported>`), which Shockwave's readings of
        the policies read. Default ``remaining``.
    :param steps_per_unit: ``(n,)`` training steps per work unit in the job's current phase (> 0),
        so that ``reported_remaining * steps_per_unit`` is the steps left it reports. Default all 1.
    """

    throughput: np.ndarray
    scale_factor: np.ndarray
    capacity: np.ndarray
    weight: np.ndarray | None = None
    remaining: np.ndarray | None = None
    age_s: np.ndarray | None = None
    service_s: np.ndarray | None = None
    deadline_s: np.ndarray | None = None
    cost: np.ndarray | None = None
    type_names: tuple[str, ...] | None = None
    job_ids: np.ndarray | None = None
    reference_type: int | None = None
    pair_jobs: np.ndarray | None = None
    pair_throughput: np.ndarray | None = None
    reported_remaining: np.ndarray | None = None
    steps_per_unit: np.ndarray | None = None

    def __post_init__(self) -> None:
        try:
            throughput = np.asarray(self.throughput, dtype=float)
        except (TypeError, ValueError):
            raise RoundProblemError("round problem: throughput must be an array of numbers") from None
        if throughput.ndim != 2:
            raise RoundProblemError(
                f"round problem: throughput must be a (jobs, GPU types) table (got {throughput.ndim} "
                "dimensions)")
        n, k = throughput.shape
        if n > MAX_JOBS:
            raise RoundProblemError(f"round problem: {n} active jobs is over the limit of {MAX_JOBS:,}")
        if k < 1:
            raise RoundProblemError("round problem: capacity must name at least one GPU type")
        put = object.__setattr__
        put(self, "throughput", _array("throughput", throughput, (n, k)))
        put(self, "scale_factor", _array("scale_factor", self.scale_factor, (n,), low=1.0, whole=True,
                                         high=MAX_GPUS))
        capacity = _array("capacity", self.capacity, (k,), whole=True, high=MAX_GPUS)
        if int(capacity.sum()) > MAX_GPUS:
            raise RoundProblemError(
                f"round problem: capacity sums to {int(capacity.sum()):,} GPUs, over the limit of "
                f"{MAX_GPUS:,}")
        put(self, "capacity", capacity)
        put(self, "weight", _array("weight", np.ones(n) if self.weight is None else self.weight, (n,),
                                   positive=True))
        put(self, "remaining", _array("remaining", np.ones(n) if self.remaining is None
                                      else self.remaining, (n,)))
        put(self, "reported_remaining", self.remaining if self.reported_remaining is None
            else _array("reported_remaining", self.reported_remaining, (n,)))
        put(self, "steps_per_unit", np.ones(n) if self.steps_per_unit is None
            else _array("steps_per_unit", self.steps_per_unit, (n,), positive=True))
        put(self, "age_s", _array("age_s", np.zeros(n) if self.age_s is None else self.age_s, (n,)))
        put(self, "service_s", _array("service_s", np.zeros((n, k)) if self.service_s is None
                                      else self.service_s, (n, k)))
        put(self, "deadline_s", _array("deadline_s", np.full(n, np.inf) if self.deadline_s is None
                                       else self.deadline_s, (n,), positive=True, allow_inf=True))
        put(self, "cost", _array("cost", np.ones(k) if self.cost is None else self.cost, (k,),
                                 positive=True))
        names = tuple(f"type{j}" for j in range(k)) if self.type_names is None else tuple(
            str(name) for name in self.type_names)
        if len(names) != k:
            raise RoundProblemError(f"round problem: type_names must name {k} GPU types (got {len(names)})")
        put(self, "type_names", names)
        ids = np.arange(n) if self.job_ids is None else _array("job_ids", self.job_ids, (n,), low=None,
                                                                whole=True, high=MAX_SEED)
        if n > 1 and not np.diff(np.sort(ids)).all():
            raise RoundProblemError("round problem: job_ids must be distinct")
        put(self, "job_ids", ids)
        if self.reference_type is not None and not (
                isinstance(self.reference_type, int | np.integer) and 0 <= self.reference_type < k):
            raise RoundProblemError(
                f"round problem: reference_type must be a GPU type index 0-{k - 1} (got "
                f"{self.reference_type!r})")
        if (self.pair_jobs is None) != (self.pair_throughput is None):
            raise RoundProblemError("round problem: pair_jobs and pair_throughput come together")
        if self.pair_jobs is not None:
            pairs = np.asarray(self.pair_jobs)
            p = pairs.shape[0] if pairs.ndim == 2 else -1
            pairs = _array("pair_jobs", pairs, (max(p, 0), 2), whole=True, high=MAX_JOBS)
            if len(pairs) and (pairs.max() >= n or (pairs[:, 0] == pairs[:, 1]).any()):
                raise RoundProblemError(
                    f"round problem: pair_jobs must name two different jobs among 0-{n - 1}")
            put(self, "pair_jobs", pairs)
            put(self, "pair_throughput", _array("pair_throughput", self.pair_throughput,
                                                (len(pairs), k, 2)))

    def as_reported(self) -> RoundProblem:
        """This problem with each job's work left as the job reports it (``reported_remaining``,
        how Shockwave's scheduler reads a job that changes its batch size); itself when every job
        reports its work as it is."""
        if self.reported_remaining is self.remaining:
            return self
        return replace(self, remaining=self.reported_remaining)

    def subset(self, rows: np.ndarray) -> RoundProblem:
        """The problem restricted to the jobs ``rows`` (distinct row indices), on the same cluster,
        without its pairs; each job reports its remaining work as it is (``reported_remaining`` and
        ``steps_per_unit`` at their defaults). Every entry is one of this checked problem's, so the
        part is not checked again."""
        part = object.__new__(RoundProblem)
        put = object.__setattr__
        for name in ("throughput", "scale_factor", "weight", "remaining", "age_s", "service_s",
                     "deadline_s", "job_ids"):
            put(part, name, getattr(self, name)[rows])
        for name in ("capacity", "cost", "type_names", "reference_type"):
            put(part, name, getattr(self, name))
        for name in ("pair_jobs", "pair_throughput"):
            put(part, name, None)
        put(part, "reported_remaining", part.remaining)
        put(part, "steps_per_unit", np.ones(len(part.remaining)))
        return part

    @property
    def n_jobs(self) -> int:
        """Active jobs (rows)."""
        return int(self.throughput.shape[0])

    @property
    def n_types(self) -> int:
        """GPU types (columns)."""
        return int(self.throughput.shape[1])

    @property
    def fits(self) -> np.ndarray:
        """``(n, k)`` bool: the job's gang fits the type's GPU count (``scale_factor <= capacity``)."""
        return self.scale_factor[:, None] <= self.capacity[None, :]

    @property
    def runnable(self) -> np.ndarray:
        """``(n, k)`` bool: the job fits the type and runs on it (throughput > 0)."""
        return self.fits & (self.throughput > 0)


@dataclass(frozen=True)
class Allocation:
    """A round policy's answer: each job's fraction of time on each GPU type.

    :param share: ``(n, k)`` fraction of time job ``i`` runs alone on type ``j``.
    :param pair_share: ``(p, k)`` fraction of time pair ``p`` (``RoundProblem.pair_jobs[p]``)
        shares ``scale_factor`` GPUs of type ``j``; ``None`` without co-location. A job's row sum
        counts its own share and every pair it is in; a pair uses its GPUs once.
    :param solve_s: wall-clock seconds the policy spent (building and solving its programs).
    :param programs: how many linear programs were solved (0 for a rule without one).
    :param note: what a reader should know about this answer (``SLOs dropped: infeasible``), or "".
    """

    share: np.ndarray
    pair_share: np.ndarray | None = None
    solve_s: float = 0.0
    programs: int = 0
    note: str = ""

    def time_fraction(self, problem: RoundProblem) -> np.ndarray:
        """``(n,)`` each job's total fraction of time, alone and in pairs."""
        total = self.share.sum(axis=1)
        if self.pair_share is not None and problem.pair_jobs is not None and len(problem.pair_jobs):
            per_pair = self.pair_share.sum(axis=1)
            np.add.at(total, problem.pair_jobs[:, 0], per_pair)
            np.add.at(total, problem.pair_jobs[:, 1], per_pair)
        return total

    def gpus_used(self, problem: RoundProblem) -> np.ndarray:
        """``(k,)`` GPUs of each type the allocation uses on average."""
        used = (problem.scale_factor[:, None] * self.share).sum(axis=0)
        if self.pair_share is not None and problem.pair_jobs is not None and len(problem.pair_jobs):
            used = used + (problem.scale_factor[problem.pair_jobs[:, 0], None] * self.pair_share).sum(axis=0)
        return used

    def check(self, problem: RoundProblem, tolerance: float = ROW_TOLERANCE, capacity: bool = True) -> None:
        """Refuse an allocation that does not fit ``problem`` (shape, sign, row sums, and the
        capacity unless ``capacity`` is false: a policy that oversubscribes)."""
        _array("share", self.share, (problem.n_jobs, problem.n_types), low=-tolerance)
        if self.pair_share is not None:
            p = 0 if problem.pair_jobs is None else len(problem.pair_jobs)
            _array("pair_share", self.pair_share, (p, problem.n_types), low=-tolerance)
        rows = self.time_fraction(problem)
        if (rows > 1 + tolerance).any():
            i = int(np.argmax(rows))
            raise RoundProblemError(f"allocation: job {i}'s time fractions sum to {rows[i]:.6g}, over 1")
        if not capacity:
            return
        used = self.gpus_used(problem)
        over = used > problem.capacity + tolerance * np.maximum(1, problem.capacity)
        if over.any():
            j = int(np.argmax(over))
            raise RoundProblemError(
                f"allocation: GPU type {problem.type_names[j]} is used {used[j]:.6g} GPUs on average, "
                f"over its {int(problem.capacity[j])}")
