"""The synthetic workload: documented per-type distributions and the seeded generator.

Synthetic jobs are drawn from :data:`JOB_TYPES`. Every draw comes from one seeded
``numpy.random.Generator``, so the same seed gives the same jobs on every machine. Shapes that the
cluster could never hold are left out of the choice sets; :func:`left_out_shapes` says which, and
:func:`describe_left_out` words them as the one ``note:`` line the CLI and the dashboard show.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from gpusched.core.jobs import Job

if TYPE_CHECKING:
    from gpusched.core.cluster import Cluster
    from gpusched.core.speed import GpuSpeeds


@dataclass(frozen=True)
class JobTypeSpec:
    """The distribution of one job type.

    :param duration_median_min: median of the log-normal duration (minutes).
    :param duration_sigma: sigma of the log-normal duration (log-minutes).
    :param duration_range_min: durations are clipped to this range (minutes).
    :param vram_gb_choices: VRAM per GPU options (GB) and their probabilities.
    :param gpus_choices: GPU-count options and their probabilities.
    :param compute_range: compute share per GPU, uniform in this range (fraction 0-1).
    :param priority_choices: priority options and their probabilities.
    """

    duration_median_min: float
    duration_sigma: float
    duration_range_min: tuple[float, float]
    vram_gb_choices: dict[float, float]
    gpus_choices: dict[int, float]
    compute_range: tuple[float, float]
    priority_choices: dict[int, float] = field(default_factory=lambda: {1: 0.2, 2: 0.6, 3: 0.2})


JOB_TYPES: dict[str, JobTypeSpec] = {
    # Long, large, often multi-GPU jobs that keep their GPUs busy.
    "training": JobTypeSpec(
        duration_median_min=90.0,
        duration_sigma=0.6,
        duration_range_min=(10.0, 1440.0),
        vram_gb_choices={16.0: 0.15, 24.0: 0.2, 32.0: 0.25, 40.0: 0.25, 80.0: 0.15},
        gpus_choices={1: 0.55, 2: 0.25, 4: 0.15, 8: 0.05},
        compute_range=(0.3, 0.7),
        priority_choices={1: 0.2, 2: 0.5, 3: 0.3},
    ),
    # Short, small, single-GPU jobs that share GPUs well.
    "inference": JobTypeSpec(
        duration_median_min=15.0,
        duration_sigma=0.5,
        duration_range_min=(2.0, 120.0),
        vram_gb_choices={8.0: 0.3, 16.0: 0.3, 24.0: 0.2, 40.0: 0.2},
        gpus_choices={1: 1.0},
        compute_range=(0.1, 0.3),
        priority_choices={1: 0.1, 2: 0.3, 3: 0.6},
    ),
    # Medium jobs in between: data processing, evaluation sweeps.
    "batch": JobTypeSpec(
        duration_median_min=45.0,
        duration_sigma=0.5,
        duration_range_min=(5.0, 480.0),
        vram_gb_choices={8.0: 0.3, 16.0: 0.3, 24.0: 0.2, 40.0: 0.2},
        gpus_choices={1: 0.8, 2: 0.2},
        compute_range=(0.2, 0.5),
        priority_choices={1: 0.5, 2: 0.4, 3: 0.1},
    ),
}
"""Documented per-type distributions of the synthetic workload."""

class _Categorical:
    """Draws one of ``keys`` with probabilities ``weights`` (renormalised).

    One draw consumes exactly one ``rng.random()``, the same number and the same value as
    ``rng.choice(len(keys), p=p)``, so it returns the same key for the same stream, in about a
    tenth of the time.
    """

    __slots__ = ("keys", "cdf")

    def __init__(self, keys: Sequence, weights: Sequence[float]):
        p = np.asarray(weights, dtype=float)
        p = p / p.sum()
        cdf = p.cumsum()
        cdf /= cdf[-1]
        self.keys = list(keys)
        self.cdf = cdf.tolist()

    def draw(self, rng: np.random.Generator):
        return self.keys[bisect_right(self.cdf, rng.random())]


def _categorical(options: Mapping, allowed: Sequence | None = None) -> _Categorical | None:
    """The keys of ``options`` restricted to ``allowed``, or ``None`` when none is allowed."""
    keys = [k for k in options if allowed is None or k in allowed]
    return _Categorical(keys, [options[k] for k in keys]) if keys else None


@dataclass(frozen=True)
class _TypeSampler:
    """The draws of one job type for one cluster's feasible shapes."""

    gpus: _Categorical | None
    vram_by_gpus: dict[int, _Categorical | None]
    priority: _Categorical
    log_median: float
    spec: JobTypeSpec


def _feasible_gpus(spec: JobTypeSpec, max_vram_gb_for_gpus: Mapping[int, float]) -> list[int]:
    """The GPU-count options some node holds, in the spec's order."""
    return [k for k in spec.gpus_choices if k in max_vram_gb_for_gpus]


def _feasible_vram(spec: JobTypeSpec, max_vram_gb: float) -> list[float]:
    """The VRAM options (GB) no larger than ``max_vram_gb``, in the spec's order."""
    return [v for v in spec.vram_gb_choices if v <= max_vram_gb]


def _type_sampler(spec: JobTypeSpec, max_vram_gb_for_gpus: Mapping[int, float]) -> _TypeSampler:
    gpus = _categorical(spec.gpus_choices, _feasible_gpus(spec, max_vram_gb_for_gpus))
    vram_by_gpus = {
        k: _categorical(spec.vram_gb_choices, _feasible_vram(spec, max_vram))
        for k, max_vram in max_vram_gb_for_gpus.items()
    }
    return _TypeSampler(gpus, vram_by_gpus, _categorical(spec.priority_choices),
                        float(np.log(spec.duration_median_min)), spec)


def generate_jobs(
    n_jobs: int,
    arrival_rate_per_hour: float,
    mix: Mapping[str, float],
    rng: np.random.Generator,
    max_vram_gb_for_gpus: Mapping[int, float],
) -> list[Job]:
    """Draw a synthetic workload.

    Arrivals are a Poisson process at ``arrival_rate_per_hour`` (exponential gaps in minutes).
    Shapes that the cluster could never hold are excluded from the choice sets before drawing
    (the remaining options are renormalised): a GPU count above the largest node, and a VRAM per
    GPU above the largest GPU of the nodes with that many GPUs. If no VRAM option fits, the VRAM
    is clipped to the largest that does.

    Per job, in this order: the type, the GPU count, the VRAM (when some option fits), the
    log-normal duration, the uniform compute share and the priority.

    :param n_jobs: number of jobs.
    :param arrival_rate_per_hour: mean arrivals per hour.
    :param mix: probability of each job type (keys of :data:`JOB_TYPES`, summing to 1).
    :param rng: the seeded generator every draw comes from.
    :param max_vram_gb_for_gpus: for each feasible GPU count, the largest VRAM per GPU (GB) that a
        node with at least that many GPUs offers.
    :return: jobs sorted by arrival time, ids 0..n_jobs-1.
    """
    types = _Categorical(list(mix), [mix[t] for t in mix])
    samplers = {t: _type_sampler(JOB_TYPES[t], max_vram_gb_for_gpus) for t in mix}
    gaps_min = rng.exponential(60.0 / arrival_rate_per_hour, size=n_jobs)
    arrivals_min = (np.cumsum(gaps_min) - gaps_min[0]).tolist() if n_jobs else []
    jobs: list[Job] = []
    for job_id in range(n_jobs):
        type_name = types.draw(rng)
        s = samplers[type_name]
        spec = s.spec
        gpus = (s.gpus.draw(rng) if s.gpus is not None else None) or 1
        vram_choice = s.vram_by_gpus[gpus]
        vram = vram_choice.draw(rng) if vram_choice is not None else max_vram_gb_for_gpus[gpus]
        lo, hi = spec.duration_range_min
        # exp(mu + sigma * N(0, 1)) and lo + (hi - lo) * U(0, 1) are how numpy's lognormal() and
        # uniform() compute their draws; calling the primitives directly is faster.
        duration = min(max(math.exp(s.log_median + spec.duration_sigma * rng.standard_normal()), lo), hi)
        c_lo, c_hi = spec.compute_range
        compute = c_lo + (c_hi - c_lo) * rng.random()
        priority = s.priority.draw(rng)
        jobs.append(Job(
            id=job_id, type=type_name, arrival_min=round(arrivals_min[job_id], 6),
            duration_min=round(float(duration), 6), gpus=int(gpus), vram_gb=float(vram),
            compute=round(float(compute), 6), priority=int(priority),
        ))
    return jobs


# ---------------------------------------------------------------------------- offered load
def clipped_lognormal_mean(median: float, sigma: float, lo: float, hi: float) -> float:
    """``E[min(max(X, lo), hi)]`` for ``X = median * exp(sigma * Z)``, ``Z ~ N(0, 1)`` (exact).

    With ``mu = ln(median)`` and ``Phi`` the standard normal CDF:
    ``E = lo * Phi(a) + e^(mu + sigma^2 / 2) * (Phi(b - sigma) - Phi(a - sigma)) + hi * (1 - Phi(b))``
    where ``a = (ln lo - mu) / sigma`` and ``b = (ln hi - mu) / sigma``.
    """
    def phi(x: float) -> float:
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))

    mu = math.log(median)
    a, b = (math.log(lo) - mu) / sigma, (math.log(hi) - mu) / sigma
    inside = math.exp(mu + sigma * sigma / 2.0) * (phi(b - sigma) - phi(a - sigma))
    return lo * phi(a) + inside + hi * (1.0 - phi(b))


def expected_gpu_minutes(spec: JobTypeSpec, max_vram_gb_for_gpus: Mapping[int, float]) -> float:
    """Expected compute demand of one job of a type: ``E[gpus * compute * duration]``, in GPU-minutes.

    The GPU count is drawn from the options the cluster can hold (as :func:`generate_jobs` does),
    and the draws of GPUs, compute and duration are independent, so the expectation is the product
    of the three means. VRAM does not enter: a GPU's capacity is its compute (1.0).
    """
    gpus = _categorical(spec.gpus_choices, _feasible_gpus(spec, max_vram_gb_for_gpus))
    mean_gpus = 1.0
    if gpus is not None:
        probs = np.diff(np.r_[0.0, gpus.cdf])
        mean_gpus = float(np.dot(probs, gpus.keys))
    c_lo, c_hi = spec.compute_range
    d_lo, d_hi = spec.duration_range_min
    mean_duration = clipped_lognormal_mean(spec.duration_median_min, spec.duration_sigma, d_lo, d_hi)
    return mean_gpus * (c_lo + c_hi) / 2.0 * mean_duration


def arrival_rate_for_load(load: float, mix: Mapping[str, float], n_gpus: int,
                          max_vram_gb_for_gpus: Mapping[int, float],
                          speed_by_type: Mapping[str, Sequence[float]] | None = None) -> float:
    """The Poisson arrival rate (jobs per hour) that offers ``load`` of a cluster's compute.

    ``load`` is the offered GPU demand as a fraction of the cluster's capacity: jobs arrive at
    ``rate = load * capacity * 60 / E[gpus * compute * duration]`` per hour, with the expectation
    (GPU-minutes at speed 1.0) over the mix and the shapes the cluster can hold
    (:func:`expected_gpu_minutes`). Without GPU speeds the capacity is the GPU count; with them it
    is the sum over GPUs of their speed, averaged over the job types by each type's share of the
    demand (a GPU at speed 0.5 gives half a GPU of capacity). At ``load = 1`` the jobs ask, on
    average, for all of it.

    :param load: offered demand, fraction of the cluster's capacity (> 0).
    :param mix: probability of each job type.
    :param n_gpus: GPUs of the cluster (each has a compute capacity of 1.0 at speed 1.0).
    :param max_vram_gb_for_gpus: the cluster's feasible GPU counts (see :func:`generate_jobs`).
    :param speed_by_type: per job type, the speed of every GPU (``None``: all 1.0).
    """
    total = sum(mix.values())
    demand = {t: share / total * expected_gpu_minutes(JOB_TYPES[t], max_vram_gb_for_gpus)
              for t, share in mix.items() if share > 0}
    per_job = sum(demand.values())
    capacity = float(n_gpus)
    if speed_by_type is not None:
        capacity = sum(d / per_job * float(np.sum(speed_by_type[t])) if t in speed_by_type
                       else d / per_job * n_gpus for t, d in demand.items())
    return load * capacity * 60.0 / per_job


def rate_for_load(load: float, mix: Mapping[str, float], cluster: Cluster,
                  speeds: GpuSpeeds | None = None) -> float:
    """:func:`arrival_rate_for_load` on a built cluster with its resolved GPU speeds (``None``:
    every GPU at 1.0), in jobs per hour."""
    rows = None if speeds is None else {t: speeds.row(t) for t in mix}
    return arrival_rate_for_load(load, mix, cluster.n_gpus, cluster.max_vram_gb_for_gpus(), rows)


# ---------------------------------------------------------------------------- what is left out
@dataclass(frozen=True)
class LeftOutShapes:
    """The options of one job type that the cluster could never hold, so the generator skips them.

    :param job_type: a key of :data:`JOB_TYPES`.
    :param gpus: GPU-count options left out (no node holds that many GPUs).
    :param vram_gb: for each GPU count that is kept, the VRAM options (GB per GPU) left out.
    :param clipped_vram_gb: GPU counts for which no VRAM option fits, with the VRAM (GB per GPU)
        their jobs get instead (the largest GPU of the nodes that hold that many).
    """

    job_type: str
    gpus: tuple[int, ...]
    vram_gb: dict[int, tuple[float, ...]]
    clipped_vram_gb: dict[int, float]


def left_out_shapes(mix: Mapping[str, float],
                    max_vram_gb_for_gpus: Mapping[int, float]) -> list[LeftOutShapes]:
    """What :func:`generate_jobs` leaves out for this mix on this cluster, per job type with a
    share above 0 (types with nothing left out are omitted).

    :param mix: probability of each job type.
    :param max_vram_gb_for_gpus: as for :func:`generate_jobs`.
    """
    out = []
    for name, share in mix.items():
        if not share > 0:
            continue
        spec = JOB_TYPES[name]
        kept = _feasible_gpus(spec, max_vram_gb_for_gpus) or [1]
        gpus = tuple(k for k in spec.gpus_choices if k not in kept)
        vram, clipped = {}, {}
        for k in kept:
            fits = _feasible_vram(spec, max_vram_gb_for_gpus[k])
            if not fits:
                clipped[k] = max_vram_gb_for_gpus[k]
            elif len(fits) < len(spec.vram_gb_choices):
                vram[k] = tuple(v for v in spec.vram_gb_choices if v not in fits)
        if gpus or vram or clipped:
            out.append(LeftOutShapes(name, gpus, vram, clipped))
    return out


def _or_list(values: Sequence[float]) -> str:
    words = [f"{v:g}" for v in values]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _counts(gpus: Sequence[int]) -> str:
    return f"{_or_list(gpus)} GPU{'' if list(gpus) == [1] else 's'}"


def describe_left_out(left_out: Sequence[LeftOutShapes]) -> str | None:
    """The one ``note:`` line naming what :func:`left_out_shapes` found, or ``None`` if nothing.

    E.g. ``note: no node could ever hold these shapes, so the workload leaves them out (the other
    options are drawn, renormalised): training jobs with 2, 4 or 8 GPUs, or 24, 32, 40 or 80 GB
    per GPU``.
    """
    clauses = []
    for item in left_out:
        kept = [k for k in JOB_TYPES[item.job_type].gpus_choices if k not in item.gpus]
        options = [_counts(item.gpus)] if item.gpus else []
        groups: dict[tuple[float, ...], list[int]] = {}
        for k, vram in item.vram_gb.items():
            groups.setdefault(vram, []).append(k)
        for vram, counts in groups.items():
            on = "" if counts == kept else f" on {_counts(counts)}"
            options.append(f"{_or_list(vram)} GB per GPU{on}")
        if options:
            clauses.append(f"{item.job_type} jobs with {', or '.join(options)}")
        for k, vram_gb in item.clipped_vram_gb.items():
            clauses.append(f"{item.job_type} jobs on {_counts([k])} get {vram_gb:g} GB per GPU "
                           "(no VRAM option fits)")
    if not clauses:
        return None
    return ("note: no node could ever hold these shapes, so the workload leaves them out (the other "
            "options are drawn, renormalised): " + "; ".join(clauses))
