"""The running jobs' releases at their declared ends: the one replay every plan reads.

A plan made around the running jobs replays their ends as declared: each running job gives back
its VRAM and compute (:func:`gpusched.core.cluster.release_into`) at its declared end
(``declared_end_min``), soonest first, the jobs with the same end at one instant. EASY's
reservation (:mod:`gpusched.policies.queue`) replays it over the whole cluster, EFT's earliest
start (:mod:`gpusched.policies.eft`) node by node, and the observations' release-time features
(:meth:`SchedulerView.gpu_release_min <gpusched.core.view.SchedulerView.gpu_release_min>`) read each
GPU's first and last release. :class:`ReleaseTimeline` is that replay, taken from a scheduler's
view (:mod:`gpusched.core.view`): declared times only, never the true ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import groupby
from typing import Protocol

import numpy as np

from gpusched.core.cluster import Cluster, release_into
from gpusched.core.jobs import Job


class SchedulerView(Protocol):
    """What the replay reads of a scheduler's view (:class:`gpusched.core.view.SchedulerView`,
    not imported here: the view imports the replay)."""

    cluster: Cluster
    jobs: Sequence[Job]
    job_gpus: Sequence[tuple[int, ...]]
    declared_end_min: np.ndarray

    @property
    def time_min(self) -> float: ...

    def running_indices(self) -> list[int]: ...


class ReleaseTimeline:
    """The running jobs of one view, released at their declared ends (see the module docstring).

    :param view: the scheduler's view (read when the timeline is made; make a new one after the
        view changes).
    """

    __slots__ = ("_releases", "_view", "now")

    def __init__(self, view: SchedulerView):
        self._view = view
        self.now = view.time_min
        """The clock when the timeline was made (minutes)."""
        self._releases: list[tuple[float, int]] | None = None

    @property
    def releases(self) -> list[tuple[float, int]]:
        """(declared end in minutes, arrival index) of every running job, soonest first."""
        if self._releases is None:
            view = self._view
            end = view.declared_end_min
            self._releases = sorted((float(end[i]), i) for i in view.running_indices())
        return self._releases

    def instants(self) -> Iterator[tuple[float, list[int]]]:
        """(declared end in minutes, arrival indices of the jobs that end then), soonest first."""
        for end, group in groupby(self.releases, key=lambda r: r[0]):
            yield end, [i for _, i in group]

    def by_node(self) -> dict[int, list[tuple[float, int]]]:
        """Per node that runs a job, its (declared end, arrival index) releases, soonest first; a
        gang spread over nodes (``gang_placement: spread``) releases on each of its nodes."""
        nodes: dict[int, list[tuple[float, int]]] = {}
        cluster, job_gpus = self._view.cluster, self._view.job_gpus
        gpu_node, spread = cluster.gpu_node, cluster.gang_placement == "spread"
        for release in self.releases:
            gpus = job_gpus[release[1]]
            home = int(gpu_node[gpus[0]])
            nodes.setdefault(home, []).append(release)
            if spread and len(gpus) > 1:
                for node in dict.fromkeys(int(gpu_node[g]) for g in gpus[1:]):
                    if node != home:
                        nodes.setdefault(node, []).append(release)
        return nodes

    def give_back(self, idx: int, vram_free, compute_free, offset: int = 0, within=None) -> Job:
        """Release the running job ``idx``'s VRAM (GB) and compute into ``vram_free`` and
        ``compute_free`` (indexed by ``gpu - offset``); returns the job (as declared), whose node
        CPU and memory the caller gives back where it keeps them.

        :param within: give back only on these GPUs (a node's share of a gang spread over nodes),
            or ``None`` for every GPU of the job.
        """
        view = self._view
        job, gpus = view.jobs[idx], view.job_gpus[idx]
        if within is not None and len(gpus) > 1:
            gpus = [g for g in gpus if g in within]
        release_into(job, gpus, view.cluster.gpu_vram_gb, vram_free, compute_free, offset)
        return job

    def gpu_release_min(self) -> tuple[list[float], list[float]]:
        """Minutes from now until each GPU's first and last running job ends by their declared
        run times (0 for an idle GPU; :func:`gpu_release_min`)."""
        return gpu_release_min(self._view, self.now)


def gpu_release_min(view: SchedulerView, now: float | None = None) -> tuple[list[float], list[float]]:
    """Minutes from ``now`` (default: the view's clock) until each GPU's first and last running
    job ends by their declared run times (0 for an idle GPU): the per-GPU reading of the
    replay, without a :class:`ReleaseTimeline` (the observations read it at every step)."""
    n = view.cluster.n_gpus
    first, last = [float("inf")] * n, [0.0] * n
    now = view.time_min if now is None else now
    running, job_gpus = view.running_indices(), view.job_gpus
    lefts = (view.declared_end_min[running] - now).tolist()  # one subtraction each, as floats
    for idx, left in zip(running, lefts, strict=True):
        for g in job_gpus[idx]:
            if left < first[g]:
                first[g] = left
            if left > last[g]:
                last[g] = left
    return [0.0 if f == float("inf") else f for f in first], last
