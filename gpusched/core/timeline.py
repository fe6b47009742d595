"""The event record of a run, and the per-GPU state derived from it on demand.

The simulator records changes, not snapshots: one placement per (job, run, GPU) with its start
and end, the arrivals, the holds and the misroutes, and with failures or preemption the stops,
the resumptions and the node failures and repairs. Per-GPU VRAM used, compute used and jobs running,
queue length and running jobs at any set of times are computed from that record in
O(events + times x GPUs), so memory stays proportional to events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import pandas as pd

from gpusched.core.cluster import Cluster
from gpusched.core.jobs import Job


def even_times(times: np.ndarray, max_frames: int) -> np.ndarray:
    """Evenly spaced times from the first of ``times`` to the last: one per distinct time, at most
    ``max_frames`` (at least 2 when the span is not empty). Even spacing puts frame ``i`` of an
    animation at the fraction ``i / (n - 1)`` of its time axis, where a slider puts step ``i``.

    :param times: the event times (minutes).
    :param max_frames: the frame cap.
    """
    times = np.unique(np.asarray(times, dtype=float))
    if times.size < 2:
        return times
    n = max(min(times.size, max_frames), 2)
    return np.linspace(times[0], times[-1], n)


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


STOP_COLUMNS: tuple[str, ...] = ("time_min", "job", "kind", "run_start_min", "gpus", "lost_min",
                                 "lost_held_min")
"""Columns of :attr:`Timeline.stops` (job is the job's id; gpus a list of GPU indices)."""

RESUME_COLUMNS: tuple[str, ...] = ("time_min", "job", "gpus", "restore_min")
"""Columns of :attr:`Timeline.resumes` (job is the job's id)."""


def _log_frame(rows: Sequence[tuple], columns: tuple[str, ...], ids: np.ndarray, *, job_at: int,
               gpus_at: int) -> pd.DataFrame:
    """A run log (stops or resumptions, one tuple a row) as a frame, column by column: the job's
    arrival index replaced by its id, its GPUs as a list. The same frame as one built row by row
    (an empty log keeps that frame's object columns), in a fraction of the time on a run that
    stops jobs tens of thousands of times."""
    if not len(rows):
        return pd.DataFrame([], columns=list(columns))
    data = {}
    for k, (name, values) in enumerate(zip(columns, zip(*rows, strict=True), strict=True)):
        if k == job_at:
            data[name] = ids[np.fromiter(values, dtype=np.int64, count=len(rows))]
        elif k == gpus_at:
            data[name] = [list(g) for g in values]
        else:
            data[name] = list(values)
    return pd.DataFrame(data, columns=list(columns))


class Timeline:
    """What happened in one run.

    Attributes:
    ``placements`` (DataFrame: job, type, gpu, start_min, end_min, vram_gb, compute, stop, lost_min,
    restore_min; one row per run of a job on each of its GPUs; an unfinished run's end is ``inf``;
    ``stop`` is ``failure`` or ``preemption`` for a run that stopped, else empty; ``lost_min`` the
    minutes at the end of a stopped run whose progress was thrown away; ``restore_min`` the
    minutes at the start of a resumed run spent restoring), ``arrivals_min`` and ``starts_min``
    (every run's start, sorted), ``ends_min`` (sorted, finished jobs only), ``stops_min`` (sorted),
    ``holds`` (DataFrame: time_min, until_min, job, could_fit), ``misroutes`` (DataFrame:
    time_min, job, gpu, cause), ``stops`` (DataFrame: time_min, job, kind, run_start_min, gpus,
    lost_min in reference-speed minutes, lost_held_min on the GPUs), ``resumes`` (DataFrame:
    time_min, job, gpus, restore_min), ``node_down`` (DataFrame: node, start_min, end_min; a node not
    repaired by the end of the run ends at ``inf``), ``shared`` (DataFrame: gpu, start_min, end_min,
    compute: the compute of a co-located pair's second member while it rides on its partner's GPU,
    :mod:`gpusched.core.rounds.pairs`; the GPU's compute and the cluster's utilisation count the
    pair once, its job count both), ``start_min`` and ``end_min`` of the run.
    """

    def __init__(self, cluster: Cluster, placements: pd.DataFrame, arrivals_min: np.ndarray,
                 starts_min: np.ndarray, ends_min: np.ndarray, holds: pd.DataFrame,
                 misroutes: pd.DataFrame, start_min: float, end_min: float,
                 stops: pd.DataFrame | None = None, resumes: pd.DataFrame | None = None,
                 node_down: pd.DataFrame | None = None, shared: pd.DataFrame | None = None):
        self.cluster = cluster
        self.placements = placements
        self.arrivals_min = arrivals_min
        self.starts_min = starts_min
        self.ends_min = ends_min
        self.holds = holds
        self.misroutes = misroutes
        self.start_min = start_min
        self.end_min = end_min
        self.stops = stops if stops is not None else pd.DataFrame(columns=list(STOP_COLUMNS))
        self.resumes = resumes if resumes is not None else pd.DataFrame(columns=list(RESUME_COLUMNS))
        self.node_down = (node_down if node_down is not None
                          else pd.DataFrame(columns=["node", "start_min", "end_min"]))
        self.shared = (shared if shared is not None
                       else pd.DataFrame(columns=["gpu", "start_min", "end_min", "compute"]))
        self.stops_min = np.sort(self.stops["time_min"].to_numpy(float))

    @classmethod
    def from_run(cls, cluster: Cluster, jobs: Sequence[Job], table: pd.DataFrame,
                 holds: list[tuple[float, float, int, bool]],
                 misroutes: list[tuple[float, int, int, str]], start_min: float,
                 end_min: float, *, last_start_min: np.ndarray | None = None,
                 stops: Sequence[tuple] = (), resumes: Sequence[tuple] = (),
                 node_events: Sequence[tuple[float, int, str]] = (),
                 rides: Sequence[tuple[int, tuple[int, ...], float, float]] = ()) -> Timeline:
        """Build the record from a finished simulator's jobs table and decision logs.

        :param last_start_min: per job, the start of its current or last run (the table's
            ``start_min`` is its first start; they differ only for jobs that stopped and resumed).
        :param stops: the simulator's stops (see :class:`RunLog
            <gpusched.core.run_state.RunLog>`).
        :param resumes: the simulator's resumptions.
        :param node_events: the simulator's node failures and repairs.
        :param rides: ``(job index, GPUs, start, end)`` of each time a pair member rode on its
            partner's GPUs (:class:`gpusched.core.rounds.pairs.Colocated`).
        """
        rows_job, rows_gpu = [], []
        for i, gpus in enumerate(table["gpu_ids"]):
            rows_job.extend([i] * len(gpus))
            rows_gpu.extend(gpus)
        job_idx = np.array(rows_job, dtype=np.int64)
        gpu = np.array(rows_gpu, dtype=np.int64)
        vram_frac = np.array([j.vram_frac for j in jobs])
        first = table["start_min"].to_numpy()
        last = first if last_start_min is None or not len(stops) else np.asarray(last_start_min)
        start = last[job_idx]
        end = table["end_min"].to_numpy()[job_idx]
        restore = np.zeros(job_idx.size)
        if len(resumes):  # a run that began with a restore: its job's last resumption
            last_restore = {i: r for _, i, _, r in resumes}
            resumed_at = {i: t for t, i, _, _ in resumes}
            restore = np.array([last_restore[i] if resumed_at.get(i) == s else 0.0
                                for i, s in zip(job_idx.tolist(), start.tolist(), strict=True)])
        kind = np.full(job_idx.size, "", dtype=object)
        lost = np.zeros(job_idx.size)
        if len(stops):  # the runs that ended in a stop, one row per GPU
            resumed = {(i, t): r for t, i, _, r in resumes}
            ended, jobs_stopped, kinds, started, gangs, _, lost_held = zip(*stops, strict=True)
            sizes = np.fromiter(map(len, gangs), dtype=np.int64, count=len(gangs))
            s_job = np.repeat(np.array(jobs_stopped, dtype=np.int64), sizes)
            s_gpu = np.fromiter(chain.from_iterable(gangs), dtype=np.int64, count=int(sizes.sum()))
            s_start = np.repeat(np.array(started, dtype=float), sizes)
            s_end = np.repeat(np.array(ended, dtype=float), sizes)
            s_kind = np.repeat(np.array(kinds, dtype=object), sizes)
            s_lost = np.repeat(np.array(lost_held, dtype=float), sizes)
            s_restore = np.array([resumed.get((i, st), 0.0) for i, st in zip(s_job.tolist(), s_start.tolist(),
                                                                              strict=True)])
            job_idx = np.concatenate([job_idx, s_job])
            gpu = np.concatenate([gpu, s_gpu])
            start = np.concatenate([start, s_start])
            end = np.concatenate([end, s_end])
            kind = np.concatenate([kind, s_kind])
            lost = np.concatenate([lost, s_lost])
            restore = np.concatenate([restore, s_restore])
        placements = pd.DataFrame({
            "job": table["id"].to_numpy()[job_idx],
            "type": table["type"].to_numpy()[job_idx],
            "gpu": gpu,
            "start_min": start,
            "end_min": np.where(np.isnan(end), np.inf, end),
            "vram_gb": table["vram_gb"].to_numpy()[job_idx]
            + vram_frac[job_idx] * cluster.gpu_vram_gb[gpu],
            "compute": table["compute"].to_numpy()[job_idx],
            "stop": kind,
            "lost_min": lost,
            "restore_min": restore,
        })
        ends = table["end_min"].to_numpy()
        ids = table["id"].to_numpy()
        run_starts = np.concatenate([last[~np.isnan(last)], [stop[3] for stop in stops]])
        return cls(
            cluster=cluster,
            placements=placements,
            arrivals_min=np.sort(table["arrival_min"].to_numpy()),
            starts_min=np.sort(run_starts),
            ends_min=np.sort(ends[~np.isnan(ends)]),
            holds=pd.DataFrame(holds, columns=["time_min", "until_min", "job", "could_fit"]),
            misroutes=pd.DataFrame(misroutes, columns=["time_min", "job", "gpu", "cause"]),
            start_min=start_min,
            end_min=end_min,
            stops=_log_frame(stops, STOP_COLUMNS, ids, job_at=1, gpus_at=4),
            resumes=_log_frame(resumes, RESUME_COLUMNS, ids, job_at=1, gpus_at=2),
            node_down=_down_intervals(node_events),
            shared=pd.DataFrame([(g, t0, t1, float(jobs[i].compute)) for i, gpus, t0, t1 in rides
                                 for g in gpus if t1 > t0],
                                columns=["gpu", "start_min", "end_min", "compute"]) if len(rides) else None,
        )

    # -------------------------------------------------------------- derived views
    def event_times(self) -> np.ndarray:
        """Every distinct time at which the cluster or the queue changed (minutes)."""
        down = self.node_down
        times = np.concatenate([[self.start_min, self.end_min], self.arrivals_min,
                                self.starts_min, self.ends_min, self.stops_min,
                                down["start_min"].to_numpy(float), down["end_min"].to_numpy(float)])
        times = times[(times >= self.start_min) & (times <= self.end_min)]
        return np.unique(times)

    def frame_times(self, max_frames: int = 250) -> np.ndarray:
        """Animation frame times (minutes): evenly spaced from the start to the end of the run, at
        most ``max_frames`` and no more than there are event times (:func:`even_times`)."""
        return even_times(self.event_times(), max_frames)

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
        shared = self.shared
        if len(shared):  # a pair's GPU counts its compute once
            s_gpu = shared["gpu"].to_numpy(np.int64)
            for edge, sign in (("start_min", -1.0), ("end_min", 1.0)):
                frame = np.searchsorted(times, shared[edge].to_numpy(float), side="left")
                np.add.at(acc[1], (frame, s_gpu), sign * shared["compute"].to_numpy(float))
        state = np.cumsum(acc[:, :-1], axis=1)
        state[np.abs(state) < 1e-9] = 0.0
        return GpuFrames(times, state[0], state[1], np.rint(state[2]).astype(np.int64))

    def queue_length_at(self, times_min: np.ndarray) -> np.ndarray:
        """Jobs waiting in the queue at each time."""
        t = np.asarray(times_min, dtype=float)
        return (np.searchsorted(self.arrivals_min, t, side="right")
                - np.searchsorted(self.starts_min, t, side="right")
                + np.searchsorted(self.stops_min, t, side="right"))

    def running_jobs_at(self, times_min: np.ndarray) -> np.ndarray:
        """Jobs running at each time."""
        t = np.asarray(times_min, dtype=float)
        return (np.searchsorted(self.starts_min, t, side="right")
                - np.searchsorted(self.ends_min, t, side="right")
                - np.searchsorted(self.stops_min, t, side="right"))

    def nodes_down_at(self, times_min: np.ndarray) -> np.ndarray:
        """Per time (rows) and GPU (columns), whether the GPU's node was down (bool)."""
        t = np.asarray(times_min, dtype=float)
        out = np.zeros((t.size, self.cluster.n_gpus), dtype=bool)
        gpu_node = self.cluster.gpu_node
        for node, t0, t1 in self.node_down[["node", "start_min", "end_min"]].itertuples(index=False):
            out[np.ix_((t >= t0) & (t < t1), gpu_node == node)] = True
        return out

    def cluster_util_steps(self) -> tuple[np.ndarray, np.ndarray]:
        """Cluster utilisation (mean compute used over all GPUs, 0-1) as a step function.

        :return: ``(times_min, util)``; ``util[i]`` holds from ``times_min[i]`` to the next time.
        """
        p = self.placements
        times = np.concatenate([p["start_min"].to_numpy(), p["end_min"].to_numpy()])
        deltas = np.concatenate([p["compute"].to_numpy(), -p["compute"].to_numpy()])
        shared = self.shared
        if len(shared):  # a pair's GPU counts its compute once
            rider = shared["compute"].to_numpy(float)
            times = np.concatenate([times, shared["start_min"].to_numpy(float),
                                    shared["end_min"].to_numpy(float)])
            deltas = np.concatenate([deltas, -rider, rider])
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


def _down_intervals(node_events: Sequence[tuple[float, int, str]]) -> pd.DataFrame:
    """(node, start_min, end_min) of every stretch a node was down (``inf``: not yet repaired)."""
    rows: list[list[float]] = []
    open_at: dict[int, int] = {}
    for t, node, kind in node_events:
        if kind == "failure":
            open_at[node] = len(rows)
            rows.append([node, t, np.inf])
        elif node in open_at:
            rows[open_at.pop(node)][2] = t
    return pd.DataFrame(rows, columns=["node", "start_min", "end_min"]).astype(
        {"node": np.int64, "start_min": float, "end_min": float})
