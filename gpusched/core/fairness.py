"""Fairness metrics of a finished run, as pure functions on per-job arrays.

**Finish-time fairness ρ** (Themis: Mahajan et al., "Themis: Fair and Efficient GPU Cluster
Scheduling", NSDI 2020, §3; the same ratio drives Gavel's ``finish_time_fairness`` policy,
``stanford-futuredata/gavel``, ``scheduler/policies/finish_time_fairness.py``). For job ``i``::

    ρ_i = JCT_i / T_ideal_i,        T_ideal_i = alone_i × max(1, N_i × g_i / G)

- ``JCT_i``: finish − arrival (s), in the shared cluster;
- ``alone_i``: its run time alone on its own ``g_i`` GPUs, at the speed it had there (s);
- ``N_i``: the number of jobs active on average while it was in the system, itself included: the
  time average of ``n(t)`` over ``[arrival_i, finish_i)``, where ``n(t)`` counts the jobs with
  ``arrival <= t < finish`` (:func:`average_active`);
- ``G``: the cluster's GPUs. A ``1/N_i`` share of the cluster is ``G / N_i`` GPUs; a job that needs
  ``g_i`` GPUs runs there for a fraction ``min(1, G / (N_i g_i))`` of the time, hence the factor.
  With ``G`` not given, ``T_ideal_i = alone_i × N_i`` (Themis's ``T_id = T_ind × N_avg``: a 1/N
  share of the time on its own GPUs).

ρ ≤ 1 means the job finished no later than on its fair share; ρ > 1 means the sharing cost it.

**Jain's index** over the normalised throughputs ``x_i = alone_i / JCT_i`` (the fraction of its
alone speed a job achieved over its time in the system): ``(Σx)² / (n Σx²)``, 1 when all are
equal, ``1/n`` when one job got everything (Jain, Chiu and Hawe, DEC-TR-301, 1984).

**GPU-type changes** (:func:`type_changes`): from a job's GPU type per round (or per run), the
number of times it ran on a type other than the last one it ran on; rounds it waited are skipped.
Gavel's agnostic policies rotate jobs over types round after round; its ``_perf`` policies keep
them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from gpusched.errors import GpuschedError


class FairnessInputError(GpuschedError):
    """Per-job arrays for a fairness metric are malformed (names the array and the entry)."""


def _vector(name: str, values, n: int | None = None, *, positive: bool = False) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise FairnessInputError(f"fairness: {name} must be numbers") from None
    if array.ndim != 1 or (n is not None and len(array) != n):
        raise FairnessInputError(f"fairness: {name} must be one number per job"
                                 + ("" if n is None else f" ({n})") + f" (got shape {array.shape})")
    bad = ~np.isfinite(array) | ((array <= 0) if positive else (array < 0))
    if bad.any():
        i = int(np.argmax(bad))
        sign = "> 0" if positive else ">= 0"
        raise FairnessInputError(f"fairness: {name}[{i}] must be finite and {sign} (got {array[i]})")
    return array


def average_active(arrival_s: Sequence[float], finish_s: Sequence[float]) -> np.ndarray:
    """``(n,)`` each job's time-average number of active jobs over ``[arrival, finish)``, itself
    included (a job with ``finish == arrival`` gets the count at its arrival, itself included).

    :param arrival_s: each job's arrival (s).
    :param finish_s: each job's finish (s), ``>= arrival``.
    """
    arrival = _vector("arrival_s", arrival_s)
    finish = _vector("finish_s", finish_s, len(arrival))
    if (finish < arrival).any():
        i = int(np.argmax(finish < arrival))
        raise FairnessInputError(f"fairness: job {i} finishes ({finish[i]}) before it arrives ({arrival[i]})")
    if len(arrival) == 0:
        return np.zeros(0)
    times = np.unique(np.concatenate([arrival, finish]))
    # n(t) on [times[m], times[m+1]): arrivals at or before times[m] minus finishes at or before it.
    count = (np.searchsorted(np.sort(arrival), times, side="right")
             - np.searchsorted(np.sort(finish), times, side="right"))
    area = np.concatenate([[0.0], np.cumsum(count[:-1] * np.diff(times))])
    lo = np.searchsorted(times, arrival)
    hi = np.searchsorted(times, finish)
    span = finish - arrival
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (area[hi] - area[lo]) / span
    instant = count[lo] + (span == 0)  # a zero-length job is not in count[lo]: add itself
    return np.where(span > 0, mean, np.maximum(instant, 1)).astype(float)


def finish_time_fairness(jct_s: Sequence[float], alone_s: Sequence[float], active: Sequence[float],
                         gpus: Sequence[float] | None = None,
                         cluster_gpus: float | None = None) -> np.ndarray:
    """``(n,)`` each job's ρ = JCT ÷ its JCT alone on a 1/N share of the cluster (module docstring).

    :param jct_s: each job's completion time, finish − arrival (s).
    :param alone_s: each job's run time alone on its own GPUs (s), > 0.
    :param active: each job's average number of active jobs while it ran (:func:`average_active`).
    :param gpus: each job's GPU count (needed with ``cluster_gpus``).
    :param cluster_gpus: the cluster's GPUs ``G``; ``None`` for Themis's ``alone × N`` form.
    """
    jct = _vector("jct_s", jct_s)
    alone = _vector("alone_s", alone_s, len(jct), positive=True)
    n_active = _vector("active", active, len(jct))
    if cluster_gpus is None:
        slowdown = np.maximum(n_active, 1.0)
    else:
        if not (np.isfinite(cluster_gpus) and cluster_gpus > 0):
            raise FairnessInputError(f"fairness: cluster_gpus must be finite and > 0 (got {cluster_gpus})")
        if gpus is None:
            raise FairnessInputError("fairness: gpus (one per job) is needed with cluster_gpus")
        g = _vector("gpus", gpus, len(jct), positive=True)
        slowdown = np.maximum(1.0, n_active * g / float(cluster_gpus))
    return jct / (alone * slowdown)


def jain_index(values: Iterable[float]) -> float:
    """Jain's fairness index ``(Σx)² / (n Σx²)`` of non-negative values: 1 when all are equal,
    ``1/n`` when one has everything; ``nan`` for no values or all zero."""
    x = _vector("values", list(values))
    if len(x) == 0 or not (x > 0).any():
        return float("nan")
    return float(x.sum() ** 2 / (len(x) * np.square(x).sum()))


def normalised_throughput(jct_s: Sequence[float], alone_s: Sequence[float]) -> np.ndarray:
    """``(n,)`` ``alone / JCT``: the fraction of its alone speed each job achieved while in the
    system (1 = never slowed; 0.25 = took four times its alone time)."""
    jct = _vector("jct_s", jct_s, positive=True)
    alone = _vector("alone_s", alone_s, len(jct), positive=True)
    return alone / jct


def type_changes(types: Iterable[object]) -> int:
    """Times a job ran on a GPU type other than the last one it ran on, from its type per round
    (``None`` or ``""`` for a round it waited, which is skipped)."""
    last = None
    changes = 0
    for gpu_type in types:
        if gpu_type is None or gpu_type == "":
            continue
        if last is not None and gpu_type != last:
            changes += 1
        last = gpu_type
    return changes


@dataclass(frozen=True)
class FairnessSummary:
    """The run's fairness in numbers.

    :param rho_mean: mean finish-time fairness ρ.
    :param rho_max: the worst ρ.
    :param share_rho_over_1: fraction of jobs with ρ > 1 (0-1).
    :param jain: Jain's index over the normalised throughputs (0-1).
    :param type_changes_mean: mean GPU-type changes per job (``nan`` if no per-round types given).
    :param type_changes_total: all jobs' GPU-type changes (0 if none given).
    """

    rho_mean: float
    rho_max: float
    share_rho_over_1: float
    jain: float
    type_changes_mean: float
    type_changes_total: int


def summarise(jct_s: Sequence[float], alone_s: Sequence[float], arrival_s: Sequence[float],
              gpus: Sequence[float] | None = None, cluster_gpus: float | None = None,
              types_per_round: Sequence[Iterable[object]] | None = None) -> FairnessSummary:
    """ρ (mean, max, share over 1), Jain's index and type changes of a finished run.

    :param jct_s: each job's completion time (s).
    :param alone_s: each job's run time alone on its own GPUs (s).
    :param arrival_s: each job's arrival (s); its finish is ``arrival + jct``.
    :param gpus: each job's GPU count (with ``cluster_gpus``).
    :param cluster_gpus: the cluster's GPUs, or ``None`` (see :func:`finish_time_fairness`).
    :param types_per_round: per job, its GPU type in each round it was in the system.
    """
    jct = _vector("jct_s", jct_s)
    arrival = _vector("arrival_s", arrival_s, len(jct))
    if len(jct) == 0:
        nan = float("nan")
        return FairnessSummary(nan, nan, nan, nan, nan, 0)
    active = average_active(arrival, arrival + jct)
    rho = finish_time_fairness(jct, alone_s, active, gpus, cluster_gpus)
    changes = [type_changes(t) for t in types_per_round] if types_per_round is not None else []
    return FairnessSummary(
        rho_mean=float(rho.mean()), rho_max=float(rho.max()),
        share_rho_over_1=float((rho > 1).mean()),
        jain=jain_index(normalised_throughput(jct, alone_s)),
        type_changes_mean=float(np.mean(changes)) if changes else float("nan"),
        type_changes_total=int(sum(changes)))
