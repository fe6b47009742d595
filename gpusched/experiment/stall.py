"""The head-of-line stall, measured: when and why a policy held a job that could have run.

:func:`analyse_stall` reads one run's event record and returns a :class:`StallReport` with the
stall intervals, the misroutes (the head job sent to a GPU too small for it), the idle GPUs
during the stalls and the queue they built up. It returns numbers and names only:
:func:`gpusched.figures.stall.stall_explanation` turns a report into a short text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from gpusched.core.result import Result


@dataclass
class IdleSteps:
    """Idle GPUs (no job running) as a step function.

    :param times_min: step start times (minutes); ``idle_gpus[i]`` holds until the next time.
    :param idle_gpus: GPUs with no job at each step.
    :param free_compute: unused compute summed over GPUs (GPU-equivalents) at each step.
    """

    times_min: np.ndarray
    idle_gpus: np.ndarray
    free_compute: np.ndarray

    def durations_min(self, end_min: float) -> np.ndarray:
        """How long each step lasts (minutes), the last one up to ``end_min``."""
        return np.diff(np.r_[self.times_min, end_min]).clip(min=0.0)


def idle_steps(result: Result) -> IdleSteps:
    """Idle GPUs and free compute over the run, exact at every event."""
    tl = result.timeline
    times = tl.event_times()
    frames = tl.gpu_frames(times)
    idle = (frames.jobs_running == 0).sum(axis=1)
    free = (1.0 - frames.compute_used).clip(min=0.0).sum(axis=1)
    return IdleSteps(times, idle, free)


def _overlap_min(t0: np.ndarray, t1: np.ndarray, a: float, b: float) -> np.ndarray:
    """Overlap (minutes) of each step [t0, t1) with the window [a, b)."""
    return (np.minimum(t1, b) - np.maximum(t0, a)).clip(min=0.0)


@dataclass
class StallReport:
    """What the stall cost in one run.

    :param policy: the policy that ran.
    :param scenario: the scenario name.
    :param seed: the workload seed.
    :param intervals: merged stall intervals (start_min, end_min, job).
    :param misroutes: the head job sent to a GPU where it did not fit (time_min, job, gpu,
        gpu_label, gpu_vram_gb, job_vram_gb, job_gpus).
    :param stall_min: total stall time (minutes).
    :param idle_gpu_min: GPU-minutes of idle GPUs during the stalls.
    :param mean_idle_gpus: time-weighted mean idle GPUs during the stalls.
    :param peak_queue: the longest queue during a stall (jobs), and ``peak_queue_min`` when.
    :param worst_job: the job held longest (None without a stall), with its request and the GPU
        the policy sent it to most often.
    :param avg_wait_min: the run's average wait (minutes).
    """

    policy: str
    scenario: str
    seed: int | None
    intervals: pd.DataFrame
    misroutes: pd.DataFrame
    stall_min: float
    idle_gpu_min: float
    mean_idle_gpus: float
    peak_queue: int
    peak_queue_min: float
    avg_wait_min: float
    worst_job: dict = field(default_factory=dict)

    @property
    def has_stall(self) -> bool:
        """Whether the policy ever held a job that could have run."""
        return self.stall_min > 0


def analyse_stall(result: Result) -> StallReport:
    """Measure the stalls of one run (any policy; fit-aware policies report none)."""
    tl, cluster = result.timeline, result.cluster
    intervals = tl.stall_intervals().astype({"start_min": float, "end_min": float})
    jobs = result.jobs.set_index("id")
    mis = tl.misroutes.copy()
    mis["gpu_label"] = [cluster.gpu_label(int(g)) for g in mis["gpu"]]
    mis["gpu_vram_gb"] = cluster.gpu_vram_gb[mis["gpu"].to_numpy(dtype=int)]
    mis["job_vram_gb"] = jobs.loc[mis["job"], "vram_gb"].to_numpy() if len(mis) else []
    mis["job_gpus"] = jobs.loc[mis["job"], "gpus"].to_numpy() if len(mis) else []

    idle = idle_steps(result)
    t0 = idle.times_min
    t1 = np.r_[t0[1:], tl.end_min]
    stall_min = float((intervals["end_min"] - intervals["start_min"]).sum())
    idle_gpu_min, peak_q, peak_t = 0.0, 0, 0.0
    for a, b in zip(intervals["start_min"], intervals["end_min"], strict=True):
        idle_gpu_min += float((_overlap_min(t0, t1, a, b) * idle.idle_gpus).sum())
        inside = t0[(t0 >= a) & (t0 < b)]
        probe = np.r_[a, inside]
        q = tl.queue_length_at(probe)
        if q.size and int(q.max()) > peak_q:
            peak_q, peak_t = int(q.max()), float(probe[int(q.argmax())])

    worst: dict = {}
    if not intervals.empty:
        held = (intervals.assign(held=intervals["end_min"] - intervals["start_min"])
                .groupby("job")["held"].sum())
        # Headline the classic case when there is one: the job sent most often to a GPU too
        # small for it. Otherwise the job held longest.
        small = mis[mis["gpu_vram_gb"] < mis["job_vram_gb"]]
        small = small[small["job"].isin(held.index)]
        if small.empty:
            job = int(held.idxmax())
            picks = mis.loc[mis["job"] == job, "gpu"].value_counts()
        else:
            per_job = small.groupby("job").size()
            score = pd.DataFrame({"n": per_job, "held": held.loc[per_job.index]})
            job = int(score.sort_values(["n", "held"], ascending=False).index[0])
            picks = small.loc[small["job"] == job, "gpu"].value_counts()
        row = jobs.loc[job]
        worst = {"job": job, "type": str(row["type"]), "vram_gb": float(row["vram_gb"]),
                 "gpus": int(row["gpus"]), "held_min": float(held.loc[job])}
        if not picks.empty:
            gpu = int(picks.index[0])
            worst.update(gpu_label=cluster.gpu_label(gpu), picks=int(picks.iloc[0]),
                         gpu_vram_gb=float(cluster.gpu_vram_gb[gpu]))
    return StallReport(
        policy=result.policy, scenario=result.scenario, seed=result.seed, intervals=intervals,
        misroutes=mis, stall_min=stall_min, idle_gpu_min=idle_gpu_min,
        mean_idle_gpus=idle_gpu_min / stall_min if stall_min > 0 else 0.0,
        peak_queue=peak_q, peak_queue_min=peak_t,
        avg_wait_min=float(result.metrics["avg_wait_min"]), worst_job=worst)
