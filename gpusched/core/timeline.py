"""The event record of a run, and the per-GPU state derived from it on demand.

The simulator records changes, not snapshots: one placement per (job, GPU) with its start and
end, the arrivals, the holds and the misroutes. Per-GPU VRAM used, compute used and jobs running,
queue length and running jobs at any set of times are computed from that record in
O(events + times x GPUs), so memory stays proportional to events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gpusched.core.cluster import Cluster
from gpusched.core.jobs import Job


def thin_times(times: np.ndarray, max_frames: int) -> np.ndarray:
    """Sorted unique ``times`` evenly thinned to at most ``max_frames`` (first and last kept)."""
    times = np.unique(np.asarray(times, dtype=float))
    if times.size <= max_frames:
        return times
    pick = np.unique(np.round(np.linspace(0, times.size - 1, max_frames)).astype(int))
    return times[pick]


@dataclass
class GpuFrames:
    """Per-GPU state at a set of times. Arrays are ``[len(times), n_gpus]``.

    :param times_min: the sample times (minutes).
    :param vram_used_gb: VRAM in use (GB).
    :param compute_used: compute in use (fraction of the GPU, 0-1).
    :param jobs_running: jobs on the GPU.
    """

    times_min: np.ndarray
    vram_used_gb: np.ndarray
    compute_used: np.ndarray
    jobs_running: np.ndarray


class Timeline:
    """What happened in one run.

    Attributes:
    ``placements`` (DataFrame: job, type, gpu, start_min, end_min, vram_gb, compute; an
    unfinished job's end is ``inf``), ``arrivals_min`` and ``starts_min`` (sorted),
    ``ends_min`` (sorted, finished jobs only), ``holds`` (DataFrame: time_min, until_min, job,
    could_fit), ``misroutes`` (DataFrame: time_min, job, gpu, cause), ``start_min`` and ``end_min``
    of the run.
    """

    def __init__(self, cluster: Cluster, placements: pd.DataFrame, arrivals_min: np.ndarray,
                 starts_min: np.ndarray, ends_min: np.ndarray, holds: pd.DataFrame,
                 misroutes: pd.DataFrame, start_min: float, end_min: float):
        self.cluster = cluster
        self.placements = placements
        self.arrivals_min = arrivals_min
        self.starts_min = starts_min
        self.ends_min = ends_min
        self.holds = holds
        self.misroutes = misroutes
        self.start_min = start_min
        self.end_min = end_min

    @classmethod
    def from_run(cls, cluster: Cluster, jobs: Sequence[Job], table: pd.DataFrame,
                 holds: list[tuple[float, float, int, bool]],
                 misroutes: list[tuple[float, int, int, str]], start_min: float,
                 end_min: float) -> Timeline:
        """Build the record from a finished simulator's jobs table and decision logs."""
        rows_job, rows_gpu = [], []
        for i, gpus in enumerate(table["gpu_ids"]):
            rows_job.extend([i] * len(gpus))
            rows_gpu.extend(gpus)
        job_idx = np.array(rows_job, dtype=np.int64)
        gpu = np.array(rows_gpu, dtype=np.int64)
        vram_frac = np.array([j.vram_frac for j in jobs])
        start = table["start_min"].to_numpy()[job_idx]
        end = table["end_min"].to_numpy()[job_idx]
        placements = pd.DataFrame({
            "job": table["id"].to_numpy()[job_idx],
            "type": table["type"].to_numpy()[job_idx],
            "gpu": gpu,
            "start_min": start,
            "end_min": np.where(np.isnan(end), np.inf, end),
            "vram_gb": table["vram_gb"].to_numpy()[job_idx]
            + vram_frac[job_idx] * cluster.gpu_vram_gb[gpu],
            "compute": table["compute"].to_numpy()[job_idx],
        })
        starts = table["start_min"].to_numpy()
        ends = table["end_min"].to_numpy()
        return cls(
            cluster=cluster,
            placements=placements,
            arrivals_min=np.sort(table["arrival_min"].to_numpy()),
            starts_min=np.sort(starts[~np.isnan(starts)]),
            ends_min=np.sort(ends[~np.isnan(ends)]),
            holds=pd.DataFrame(holds, columns=["time_min", "until_min", "job", "could_fit"]),
            misroutes=pd.DataFrame(misroutes, columns=["time_min", "job", "gpu", "cause"]),
            start_min=start_min,
            end_min=end_min,
        )

    # -------------------------------------------------------------- derived views
    def event_times(self) -> np.ndarray:
        """Every distinct time at which the cluster or the queue changed (minutes)."""
        times = np.concatenate([[self.start_min, self.end_min], self.arrivals_min,
                                self.starts_min, self.ends_min])
        times = times[(times >= self.start_min) & (times <= self.end_min)]
        return np.unique(times)

    def frame_times(self, max_frames: int = 250) -> np.ndarray:
        """Event times, evenly thinned to at most ``max_frames`` (first and last always kept)."""
        return thin_times(self.event_times(), max_frames)

    def gpu_frames(self, times_min: np.ndarray) -> GpuFrames:
        """Per-GPU VRAM, compute and job count at each of ``times_min`` (ascending).

        A job counts on a GPU at time t when ``start <= t < end``.
        """
        times = np.asarray(times_min, dtype=float)
        n_gpus = self.cluster.n_gpus
        p = self.placements
        acc = np.zeros((3, times.size + 1, n_gpus))
        gpu = p["gpu"].to_numpy()
        values = np.stack([p["vram_gb"].to_numpy(), p["compute"].to_numpy(), np.ones(len(p))])
        for edge, sign in (("start_min", 1.0), ("end_min", -1.0)):
            frame = np.searchsorted(times, p[edge].to_numpy(), side="left")
            for k in range(3):
                np.add.at(acc[k], (frame, gpu), sign * values[k])
        state = np.cumsum(acc[:, :-1], axis=1)
        state[np.abs(state) < 1e-9] = 0.0
        return GpuFrames(times, state[0], state[1], np.rint(state[2]).astype(np.int64))

    def queue_length_at(self, times_min: np.ndarray) -> np.ndarray:
        """Jobs waiting in the queue at each time."""
        t = np.asarray(times_min, dtype=float)
        return (np.searchsorted(self.arrivals_min, t, side="right")
                - np.searchsorted(self.starts_min, t, side="right"))

    def running_jobs_at(self, times_min: np.ndarray) -> np.ndarray:
        """Jobs running at each time."""
        t = np.asarray(times_min, dtype=float)
        return (np.searchsorted(self.starts_min, t, side="right")
                - np.searchsorted(self.ends_min, t, side="right"))

    def cluster_util_steps(self) -> tuple[np.ndarray, np.ndarray]:
        """Cluster utilisation (mean compute used over all GPUs, 0-1) as a step function.

        :return: ``(times_min, util)``; ``util[i]`` holds from ``times_min[i]`` to the next time.
        """
        p = self.placements
        times = np.concatenate([p["start_min"].to_numpy(), p["end_min"].to_numpy()])
        deltas = np.concatenate([p["compute"].to_numpy(), -p["compute"].to_numpy()])
        keep = np.isfinite(times)
        times, deltas = times[keep], deltas[keep]
        order = np.argsort(times, kind="stable")
        times, deltas = times[order], deltas[order]
        uniq, first = np.unique(times, return_index=True)
        level = np.cumsum(deltas)
        last = np.r_[first[1:] - 1, times.size - 1] if times.size else first
        util = np.clip(level[last] / self.cluster.n_gpus, 0.0, None) if times.size else level
        steps_t = np.r_[self.start_min, uniq, self.end_min]
        steps_u = np.r_[0.0, util, util[-1] if util.size else 0.0]
        keep = (steps_t >= self.start_min) & (steps_t <= self.end_min)
        return steps_t[keep], steps_u[keep]

    def stall_intervals(self) -> pd.DataFrame:
        """Merged intervals (start_min, end_min, job) in which the head job could have run
        somewhere but the policy held it (or sent it to a GPU where it did not fit)."""
        return self._hold_intervals(could_fit=True)

    def blocked_intervals(self) -> pd.DataFrame:
        """Merged intervals (start_min, end_min, job) in which the head job fitted nowhere, so the
        queue waited (fragmentation, or a real lack of capacity)."""
        return self._hold_intervals(could_fit=False)

    def _hold_intervals(self, could_fit: bool) -> pd.DataFrame:
        h = self.holds[self.holds["could_fit"] == could_fit]
        if h.empty:
            return pd.DataFrame(columns=["start_min", "end_min", "job"])
        rows: list[list[float]] = []
        for t0, t1, job in h[["time_min", "until_min", "job"]].itertuples(index=False):
            if rows and rows[-1][2] == job and t0 <= rows[-1][1] + 1e-9:
                rows[-1][1] = max(rows[-1][1], t1)
            else:
                rows.append([t0, t1, job])
        return pd.DataFrame(rows, columns=["start_min", "end_min", "job"])
