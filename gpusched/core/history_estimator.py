"""An online run-time estimator from the history of completed jobs (``declared_run_time: history``).

**The rule.** When a job arrives, its run time (reference-speed minutes) is estimated from the jobs
that have *completed before it arrives* (completions at the same instant are handled first, as
every completion is; :data:`gpusched.core.events.EVENT_ORDER`), and from nothing else: never its own
duration, never a job still running, never a later arrival. The estimate is fixed then and never
changes while the job waits or runs.

The completed jobs are grouped by a *key* of job fields, from the finest to the coarsest
(:data:`DEFAULT_KEYS`: the job model and its GPUs, then the model alone, then the job type and
GPUs, then the type, then every completed job). The estimate is the geometric mean (the mean of
the log) of the completed work of the first group that holds at least ``min_samples`` jobs; with
none, the ``prior_min``. With ``recent`` set, a group holds only its ``recent`` latest
completions (the ones before them are forgotten), for groups whose typical run time drifts. The
geometric mean is the median of a log-normal run time and, unlike the arithmetic mean, is not
dragged by a few very long jobs. Each estimate records how many completed
jobs it rests on (:attr:`HistoryEstimator.basis`) and the level of the key it came from
(:attr:`HistoryEstimator.level`; ``len(keys)`` for the prior).

**Sources.** Helios (Hu, Sun, Yi, Wen, Zhang, "Characterization and Prediction of Deep Learning
Workloads in Large-Scale GPU Datacenters", SC '21) schedules by QSSF, the quasi-shortest service
first: each job's GPU time predicted from the history of similar jobs (same user, same job name,
same GPU demand), because the jobs of a datacenter recur. Tiresias (Gu, Chowdhury, Shin, Zhu, Jeon,
Qian, Liu, Guo, "Tiresias: A GPU Cluster Manager for Distributed Deep Learning", NSDI '19) shows
what a scheduler can do with no run-time knowledge at all (2D-LAS, ``las`` here), and uses the
history of earlier jobs only to tell which jobs are hard to predict. This module is the history
half: a fallback chain of keys, as Helios matches a job on the finest history it has.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence

import numpy as np

from gpusched.core.jobs import Job

KEY_FIELDS: tuple[str, ...] = ("model", "type", "gpus", "priority", "vram_gb", "weight", "compute",
                               "cpu_milli", "memory_mib")
"""The job fields a history key may name. ``compute``, ``cpu_milli`` and ``memory_mib`` are a trace
pod's request (its GPU share, CPU and memory): with ``gpus`` they form openb's request signature
(the trace's QoS class is not carried by a job)."""

DEFAULT_KEYS: tuple[tuple[str, ...], ...] = (("model", "gpus"), ("model",), ("type", "gpus"), ("type",), ())
"""The default keys, finest first; ``()`` groups every completed job."""

DEFAULT_PRIOR_MIN = 60.0
"""The estimate (minutes at speed 1.0) when no completed job matches any key."""


class HistoryEstimator:
    """Run times estimated from completed jobs (see the module docstring).

    :param jobs: the jobs, in arrival order.
    :param keys: the keys, finest first (each a tuple of :data:`KEY_FIELDS`).
    :param prior_min: the estimate when no key matches (minutes, > 0).
    :param min_samples: completed jobs a group needs before it is used (>= 1).
    :param recent: a group keeps only its latest ``recent`` completions (>= ``min_samples``);
        ``None``: every completion.
    """

    learns = True
    declares = True
    estimate_min = None
    declared_jobs = None
    epoch = 0
    """An estimate is fixed at its job's arrival and never changes after it (the simulator hands
    each arrival's estimate to the view), so no estimate a scheduler holds goes stale."""

    def __init__(self, jobs: Sequence[Job], keys: Sequence[Sequence[str]] = DEFAULT_KEYS,
                 prior_min: float = DEFAULT_PRIOR_MIN, min_samples: int = 1, recent: int | None = None):
        bad = [f for key in keys for f in key if f not in KEY_FIELDS]
        if bad:
            raise ValueError(f"a history key names '{bad[0]}' (known: {', '.join(KEY_FIELDS)})")
        if not (math.isfinite(prior_min) and prior_min > 0):
            raise ValueError(f"prior_min must be a finite number > 0 (got {prior_min})")
        if min_samples < 1:
            raise ValueError(f"min_samples must be at least 1 (got {min_samples})")
        if recent is not None and recent < min_samples:
            raise ValueError(f"recent must be at least min_samples ({min_samples}; got {recent}): a "
                             "group could never hold enough jobs")
        self.keys = tuple(tuple(k) for k in keys)
        self.prior_min = float(prior_min)
        self.min_samples = int(min_samples)
        self.recent = None if recent is None else int(recent)
        n = len(jobs)
        self._estimate = np.full(n, np.nan)
        self.declared_min = self._estimate.view()
        self.declared_min.flags.writeable = False
        """Each arrived job's estimate (minutes at speed 1.0); NaN before it arrives."""
        self.basis = np.zeros(n, dtype=np.int64)
        """Per job, how many completed jobs its estimate rests on (0 for the prior)."""
        self.level = np.full(n, -1, dtype=np.int64)
        """Per job, the index of the key its estimate came from (``len(keys)``: the prior; -1:
        not arrived yet)."""
        self._groups: list[dict[tuple, list[float] | deque[float]]] = [{} for _ in self.keys]
        """Per key, group -> [count, sum of log work] of every completion, or with ``recent`` the
        log work of the group's latest ``recent`` completions (a bounded deque)."""

    def _group(self, level: int, job: Job) -> tuple:
        return tuple(getattr(job, f) for f in self.keys[level])

    def _stats(self, entry: list[float] | deque[float]) -> tuple[int, float]:
        """A group's completions counted and their summed log work."""
        return (len(entry), sum(entry)) if self.recent is not None else (int(entry[0]), entry[1])

    def observe_completion(self, job_idx: int, job: Job, work_min: float) -> None:
        """Add a completed job's work (reference-speed minutes) to every group it belongs to."""
        log_work = math.log(max(float(work_min), 1e-9))
        for level, groups in enumerate(self._groups):
            key = self._group(level, job)
            if self.recent is not None:
                window = groups.get(key)
                if window is None:
                    window = groups[key] = deque(maxlen=self.recent)
                window.append(log_work)
                continue
            entry = groups.setdefault(key, [0, 0.0])
            entry[0] += 1
            entry[1] += log_work

    def fix_at_arrival(self, job_idx: int, job: Job) -> None:
        """Fix the arriving job's estimate from the groups as they are now."""
        for level, groups in enumerate(self._groups):
            entry = groups.get(self._group(level, job))
            if entry is None:
                continue
            count, log_sum = self._stats(entry)
            if count >= self.min_samples:
                self._estimate[job_idx] = math.exp(log_sum / count)
                self.basis[job_idx], self.level[job_idx] = count, level
                return
        self._estimate[job_idx] = self.prior_min
        self.basis[job_idx], self.level[job_idx] = 0, len(self.keys)

    def copy(self, k: int) -> HistoryEstimator:
        """An independent copy for the first ``k`` jobs (a fork learns on its own)."""
        twin = object.__new__(HistoryEstimator)
        twin.keys, twin.prior_min, twin.min_samples = self.keys, self.prior_min, self.min_samples
        twin.recent = self.recent
        twin._estimate = self._estimate[:k].copy()
        twin.declared_min = twin._estimate.view()
        twin.declared_min.flags.writeable = False
        twin.basis, twin.level = self.basis[:k].copy(), self.level[:k].copy()
        twin._groups = [{g: e.copy() for g, e in groups.items()} for groups in self._groups]
        return twin
