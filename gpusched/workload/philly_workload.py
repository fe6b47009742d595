"""A Philly CSV as a scenario's workload: ``workload.trace.philly: {file, clusters}``.

The file (:func:`gpusched.workload.philly.read_philly`, the processed form Pollux and Sia ship)
becomes jobs on the scenario's own cluster (a homogeneous one: the trace carries no GPU type):

- the rows of the virtual clusters named in ``clusters`` (every row if omitted), in order of
  submission (ties in file order); job ``id``: the 0-based position in that order;
- with ``window_days``, only the jobs submitted in a window of that many days whose start the
  workload seed draws (uniformly, a seeded :class:`numpy.random.Generator`, from the first kept
  submission to the last one less the window): each seed replays another stretch of the trace;
- ``arrival_min``: the submission, minutes after the first kept job's (real time: no compression);
- ``duration_min``: ``duration`` / 60; ``gpus``: ``num_gpus``, whole GPUs (``compute`` 1, no VRAM
  asked);
- ``model``: the job's virtual cluster, so that ``declared_run_time: history``'s default keys
  (:data:`gpusched.core.history_estimator.DEFAULT_KEYS`: model and GPUs, then model, ...) estimate a
  job from the completed jobs of its virtual cluster with its GPU count, then of its virtual
  cluster, then of every job (the file has no user or job name to key on, unlike Helios' QSSF).

``file`` names a shipped file (its stem in :data:`gpusched.paths.PHILLY_DIR`, e.g.
``philly-sample``) or a path. A problem is one line naming the scenario's key and the file (with
the reader's line and column), :class:`~gpusched.errors.ScenarioError`; a job larger than every
node of the cluster is refused the same way.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from gpusched.core.jobs import Job, check_jobs_feasible
from gpusched.core.numbers import Number
from gpusched.errors import GpuschedError, ScenarioError
from gpusched.limits import MAX_MODEL_CHARS
from gpusched.paths import PHILLY_DIR
from gpusched.workload.files import file_stamp, shipped_or_path
from gpusched.workload.philly import read_philly

KEY = "workload.trace.philly"
"""The scenario key of this workload."""

MAX_WINDOW_DAYS = 3650.0
"""Longest window (days) a scenario may replay."""

MAX_CLUSTERS = 64
"""Most virtual clusters a scenario may name (the trace has 15)."""


class PhillySource(BaseModel):
    """The scenario's ``workload.trace.philly`` block."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str = Field(min_length=1, max_length=4096, description=(
        "a processed Philly CSV: a shipped stem (philly-sample) or a path"))
    clusters: tuple[str, ...] | None = Field(None, min_length=1, max_length=MAX_CLUSTERS, description=(
        "the virtual clusters to replay (every one if omitted)"))
    window_days: Number | None = Field(None, gt=0, le=MAX_WINDOW_DAYS, description=(
        "replay only a window of this many days, its start drawn by the workload seed"))


@functools.lru_cache(maxsize=4)
def _read(path: Path, clusters: tuple[str, ...] | None, _stamp: tuple) -> tuple[Job, ...]:
    trace = read_philly(path)
    names = np.array(trace.cluster)
    if clusters is None:
        keep = np.ones(len(trace), dtype=bool)
    else:
        present = set(trace.cluster)
        for i, name in enumerate(clusters):
            if name not in present:
                shown = name if len(name) <= MAX_MODEL_CHARS else name[:40] + "..."
                raise GpuschedError(f"clusters[{i}]: '{shown}' is no virtual cluster of trace '{path}' "
                                    f"(it has {', '.join(sorted(present)[:15])})")
        keep = np.isin(names, list(clusters))
    rows = trace.by_submission()
    rows = rows[keep[rows]]
    t0 = trace.submit_s[rows[0]]
    return tuple(Job(id=k, type="trace", arrival_min=float(trace.submit_s[i] - t0) / 60.0,
                     duration_min=float(trace.duration_s[i]) / 60.0, gpus=int(trace.num_gpus[i]),
                     vram_gb=0.0, compute=1.0, model=trace.cluster[i])
                 for k, i in enumerate(rows.tolist()))


def _window(jobs: tuple[Job, ...], days: float, seed: int) -> list[Job]:
    """The jobs submitted in the seed's window of ``days`` days, renumbered from 0, their
    arrivals counted from the window's start (see the module docstring)."""
    span = jobs[-1].arrival_min - days * 1440.0
    start = float(np.random.default_rng(seed).uniform(0.0, max(span, 0.0)))
    end = start + days * 1440.0
    kept = [j for j in jobs if start <= j.arrival_min < end]
    return [replace(j, id=k, arrival_min=j.arrival_min - start) for k, j in enumerate(kept)]


def philly_jobs(scenario: str, source: PhillySource, n_jobs: int, cluster,  # noqa: ANN001
                seed: int = 0) -> list[Job]:
    """The first ``n_jobs`` jobs of the replay (see the module docstring), checked against
    ``cluster`` (a :class:`~gpusched.core.cluster.Cluster`); ``seed`` draws the window's start.

    :raises ScenarioError: naming the scenario, the key and the file, for bad input or a job no
        node of the cluster could ever hold.
    """
    path = shipped_or_path(PHILLY_DIR, source.file, ".csv")
    try:
        jobs = _read(path, source.clusters, file_stamp(path))
        jobs = list(jobs if source.window_days is None else _window(jobs, source.window_days, seed))
        if not jobs:  # the seed's window fell in a gap of the trace
            raise GpuschedError(f"trace '{path}': seed {seed}'s window of {source.window_days:g} days "
                                "holds no job (window_days: a longer window)")
        jobs = jobs[:n_jobs]
        check_jobs_feasible(jobs, cluster)
    except GpuschedError as exc:
        where = "" if str(path) in str(exc) else f"trace '{path}': "
        raise ScenarioError(f"scenario '{scenario}', {KEY}: {where}{exc}") from None
    return jobs
