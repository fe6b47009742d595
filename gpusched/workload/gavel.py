"""Gavel's workload generator (``workload.generator: gavel``), re-implemented from its description.

Gavel (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
Workloads", OSDI 2020) draws its continuous traces with ``generate_job`` in ``scheduler/utils.py``
(commit c4fa40097339e9608ab71fd64c8bdea96a5e4a4c). The distributions below are its, drawn here
from one seeded ``numpy.random.Generator`` (the workload seed), so they match Gavel's in
distribution, not draw for draw:

- **Arrivals:** a Poisson process (exponential gaps) at ``arrival_rate_per_hour``; the first job
  arrives at 0.
- **Duration** on the V100 (the reference of ``speed: gavel``), the Philly distribution: with
  probability 0.8, ``10^U(1.5, 3)`` minutes (about 32 min to 16.7 h), else ``10^U(3, 4)``
  minutes (16.7 h to 6.9 days).
- **GPUs** (the scale factor), with ``multi_gpu``: ``r ~ U(0, 1)``, 1 GPU if ``r < 0.7``, 2 if
  ``r < 0.8``, 4 if ``r < 0.95``, else 8; without it every job has 1 GPU.
- **Job model:** uniform over Gavel's 26 models, redrawn until a distributed one (ResNet-18,
  ResNet-50, Transformer, LM) when the job has more than 1 GPU.
- **Weight** (``weights``): 5 with probability 0.2, else 1.
- **Deadline** (``deadlines``): 1.2, 2 or 10 times the duration after the arrival, each with
  probability 1/3.

Every job is of type ``training`` and asks for whole GPUs (``compute`` 1.0, so jobs never share a
GPU, as in Gavel) and no VRAM (``vram_gb`` 0: Gavel's jobs state no memory demand, so a job fits
on any GPU of the cluster). Its priority is the default, 2.

**Offered load** (``workload.load``) is defined as for the synthetic generator
(:func:`gpusched.workload.synthetic.arrival_rate_for_load`): jobs arrive at
``rate = load * capacity * 60 / E[gpus * duration]`` per hour, where the capacity is the GPU count,
or with a speed table the sum over GPUs of their speed, averaged over the (model, GPUs) classes by
each class's share of the demand (:func:`demand_shares`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from gpusched.core.gavel_speeds import distributed_models, job_models
from gpusched.core.jobs import Job

SHORT_EXPONENT_RANGE: tuple[float, float] = (1.5, 3.0)
"""The duration of a short job is ``10^U(1.5, 3)`` minutes."""

LONG_EXPONENT_RANGE: tuple[float, float] = (3.0, 4.0)
"""The duration of a long job is ``10^U(3, 4)`` minutes."""

LONG_PROBABILITY = 0.2
"""The share of long jobs."""

SCALE_FACTORS: dict[int, float] = {1: 0.7, 2: 0.1, 4: 0.15, 8: 0.05}
"""GPUs of a job with ``multi_gpu``, and their probabilities."""

HIGH_WEIGHT, HIGH_WEIGHT_PROBABILITY = 5.0, 0.2
"""With ``weights``, a job's weight is 5 with probability 0.2, else 1."""

DEADLINE_FACTORS: tuple[float, ...] = (1.2, 2.0, 10.0)
"""With ``deadlines``, a job's deadline is one of these times its duration (each with p = 1/3)."""

JOB_TYPE = "training"
"""The type of every job Gavel's generator draws."""


def scale_factor_probabilities(multi_gpu: bool) -> dict[int, float]:
    """GPUs -> probability (every job has 1 GPU without ``multi_gpu``)."""
    return dict(SCALE_FACTORS) if multi_gpu else {1: 1.0}


def _log_uniform_mean(lo: float, hi: float) -> float:
    """``E[10^U(lo, hi)]``."""
    return (10.0 ** hi - 10.0 ** lo) / ((hi - lo) * math.log(10.0))


def mean_duration_min() -> float:
    """The mean duration of the Philly mixture (minutes): about 1,006."""
    return ((1.0 - LONG_PROBABILITY) * _log_uniform_mean(*SHORT_EXPONENT_RANGE)
            + LONG_PROBABILITY * _log_uniform_mean(*LONG_EXPONENT_RANGE))


def demand_shares(multi_gpu: bool) -> dict[tuple[str, int], float]:
    """(job model, GPUs) -> its share of the expected demand ``E[gpus * duration]`` (the duration
    does not depend on the class, so the share is ``P(model, gpus) * gpus / E[gpus]``)."""
    shares: dict[tuple[str, int], float] = {}
    for gpus, p in scale_factor_probabilities(multi_gpu).items():
        models = job_models() if gpus == 1 else distributed_models()
        for model in models:
            shares[(model, gpus)] = p / len(models) * gpus
    total = sum(shares.values())
    return {k: v / total for k, v in shares.items()}


def mean_gpu_minutes(multi_gpu: bool) -> float:
    """``E[gpus * compute * duration]`` of one job (GPU-minutes at speed 1.0; compute is 1.0)."""
    mean_gpus = sum(g * p for g, p in scale_factor_probabilities(multi_gpu).items())
    return mean_gpus * mean_duration_min()


def gavel_rate_for_load(load: float, multi_gpu: bool, n_gpus: int,
                        capacity_of: Callable[[str, int], float] | None = None) -> float:
    """The Poisson arrival rate (jobs per hour) that offers ``load`` of the cluster's capacity.

    :param load: offered demand, a fraction of the capacity (> 0).
    :param multi_gpu: whether jobs draw Gavel's scale factors.
    :param n_gpus: GPUs of the cluster.
    :param capacity_of: (job model, GPUs) -> the sum over the cluster's GPUs of their speed for
        such a job (``None``: every GPU at 1.0, a capacity of ``n_gpus``).
    """
    capacity = float(n_gpus)
    if capacity_of is not None:
        capacity = sum(share * capacity_of(model, gpus)
                       for (model, gpus), share in demand_shares(multi_gpu).items())
    return load * capacity * 60.0 / mean_gpu_minutes(multi_gpu)


def generate_gavel_jobs(n_jobs: int, arrival_rate_per_hour: float, rng: np.random.Generator, *,
                        multi_gpu: bool = False, weights: bool = False,
                        deadlines: bool = False) -> list[Job]:
    """Draw ``n_jobs`` jobs as Gavel's generator does (see the module docstring).

    Draws, each a vector over the jobs, in this order: the gaps, the GPU counts (with
    ``multi_gpu``), the long-or-short choice, the duration exponents, the models (and their
    redraws), the weights (with ``weights``) and the deadline factors (with ``deadlines``).

    :param n_jobs: number of jobs.
    :param arrival_rate_per_hour: mean arrivals per hour.
    :param rng: the seeded generator every draw comes from.
    :param multi_gpu: draw Gavel's scale factors (else every job has 1 GPU).
    :param weights: draw priority weights (else every weight is 1).
    :param deadlines: draw deadlines (else none).
    :return: jobs sorted by arrival, ids 0..n_jobs-1.
    """
    gaps = rng.exponential(60.0 / arrival_rate_per_hour, size=n_jobs)
    arrivals = np.cumsum(gaps) - (gaps[0] if n_jobs else 0.0)
    gpus = np.ones(n_jobs, dtype=np.int64)
    if multi_gpu:
        r = rng.random(n_jobs)
        edges = np.cumsum(list(SCALE_FACTORS.values()))[:-1]
        gpus = np.array(list(SCALE_FACTORS), dtype=np.int64)[np.searchsorted(edges, r, side="right")]
    long = rng.random(n_jobs) < LONG_PROBABILITY
    lo = np.where(long, LONG_EXPONENT_RANGE[0], SHORT_EXPONENT_RANGE[0])
    hi = np.where(long, LONG_EXPONENT_RANGE[1], SHORT_EXPONENT_RANGE[1])
    durations = 10.0 ** (lo + (hi - lo) * rng.random(n_jobs))
    names = job_models()
    distributed = np.isin(np.array(names), distributed_models())
    model = rng.integers(len(names), size=n_jobs)
    redraw = (gpus > 1) & ~distributed[model]
    while redraw.any():  # Gavel redraws the model until a distributed one for a gang
        model[redraw] = rng.integers(len(names), size=int(redraw.sum()))
        redraw = (gpus > 1) & ~distributed[model]
    weight = np.ones(n_jobs)
    if weights:
        weight = np.where(rng.random(n_jobs) < HIGH_WEIGHT_PROBABILITY, HIGH_WEIGHT, 1.0)
    factor = None
    if deadlines:
        factor = np.array(DEADLINE_FACTORS)[rng.integers(len(DEADLINE_FACTORS), size=n_jobs)]
    jobs = []
    for i in range(n_jobs):
        duration = round(float(durations[i]), 6)
        jobs.append(Job(
            id=i, type=JOB_TYPE, arrival_min=round(float(arrivals[i]), 6), duration_min=duration,
            gpus=int(gpus[i]), vram_gb=0.0, compute=1.0, model=names[int(model[i])],
            weight=float(weight[i]),
            deadline_min=None if factor is None else round(float(factor[i]) * duration, 6)))
    return jobs
