"""The head-of-line stall, measured: when and why a policy held a job that could have run, and
where it happens.

- :func:`analyse_stall` reads one run's event record and returns a :class:`StallReport`: the
  stall intervals (the head job could have run somewhere and the policy held it), the blocked
  intervals (the head job fitted nowhere), the misroutes with their causes (``capacity``,
  ``occupied``, ``gang``), the idle GPUs while the queue waited and the queue they built up.
- :func:`conditions_table` and :func:`conditions_findings` read a sweep of cluster families x
  offered loads x policies x seeds (``assets/sweeps/stall-conditions.yaml``) and say, family by
  family, whether the Least-Loaded variants stall, why, which one stalls most, and whether
  First-Fit blocks as badly, each with a paired comparison over the same jobs.

It returns numbers and names only: :mod:`gpusched.figures.stall` turns them into text and charts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from gpusched.core.cluster import MISROUTE_CAUSES
from gpusched.core.result import Result
from gpusched.experiment.paired import PairedDifference, paired_difference


@dataclass
class IdleSteps:
    """Idle GPUs (no job running) as a step function.

    :param times_min: step start times (minutes); ``idle_gpus[i]`` holds until the next time.
    :param idle_gpus: GPUs with no job at each step.
    """

    times_min: np.ndarray
    idle_gpus: np.ndarray

    def durations_min(self, end_min: float) -> np.ndarray:
        """How long each step lasts (minutes), the last one up to ``end_min``."""
        return np.diff(np.r_[self.times_min, end_min]).clip(min=0.0)


def idle_steps(result: Result) -> IdleSteps:
    """Idle GPUs over the run, exact at every event."""
    tl = result.timeline
    times = tl.event_times()
    frames = tl.gpu_frames(times)
    return IdleSteps(times, (frames.jobs_running == 0).sum(axis=1))


def _overlap_min(t0: np.ndarray, t1: np.ndarray, a: float, b: float) -> np.ndarray:
    """Overlap (minutes) of each step [t0, t1) with the window [a, b)."""
    return (np.minimum(t1, b) - np.maximum(t0, a)).clip(min=0.0)


@dataclass
class StallReport:
    """What the stall and the blocking cost in one run.

    :param policy: the policy that ran.
    :param scenario: the scenario name.
    :param seed: the workload seed.
    :param intervals: merged stall intervals (start_min, end_min, job): the head job could have
        run somewhere and the policy held it.
    :param blocked: merged blocked intervals (start_min, end_min, job): the head job fitted nowhere.
    :param misroutes: the head job sent to a GPU where it did not fit (time_min, job, gpu, cause,
        gpu_label, gpu_vram_gb, job_vram_gb, job_gpus).
    :param causes: misroutes per cause (every key of :data:`MISROUTE_CAUSES`).
    :param stall_min: total stall time (minutes).
    :param blocked_min: total blocked time (minutes).
    :param idle_gpu_min: GPU-minutes of idle GPUs during the stalls (the policy's fault).
    :param idle_gpu_min_blocked: GPU-minutes of idle GPUs while the head job fitted nowhere.
    :param mean_idle_gpus: time-weighted mean idle GPUs during the stalls.
    :param peak_queue: the longest queue during a stall (jobs), and ``peak_queue_min`` when.
    :param worst_job: the job held longest (empty without a stall), with its request, the GPU the
        policy sent it to most often and the cause of those misroutes.
    :param avg_wait_min: the run's average wait (minutes).
    """

    policy: str
    scenario: str
    seed: int | None
    intervals: pd.DataFrame
    blocked: pd.DataFrame
    misroutes: pd.DataFrame
    causes: dict[str, int]
    stall_min: float
    blocked_min: float
    idle_gpu_min: float
    idle_gpu_min_blocked: float
    mean_idle_gpus: float
    peak_queue: int
    peak_queue_min: float
    avg_wait_min: float
    worst_job: dict = field(default_factory=dict)

    @property
    def has_stall(self) -> bool:
        """Whether the policy ever held a job that could have run."""
        return self.stall_min > 0

    @property
    def dominant_cause(self) -> str | None:
        """The most frequent misroute cause (``None`` without a misroute)."""
        return max(self.causes, key=self.causes.get) if any(self.causes.values()) else None


def _peak_queue(tl, intervals: pd.DataFrame, t0: np.ndarray) -> tuple[int, float]:
    """The longest queue inside any of ``intervals``, and when."""
    peak_q, peak_t = 0, 0.0
    for a, b in zip(intervals["start_min"], intervals["end_min"], strict=True):
        probe = np.r_[a, t0[(t0 >= a) & (t0 < b)]]
        q = tl.queue_length_at(probe)
        if q.size and int(q.max()) > peak_q:
            peak_q, peak_t = int(q.max()), float(probe[int(q.argmax())])
    return peak_q, peak_t


def _idle_gpu_min(idle: IdleSteps, t1: np.ndarray, intervals: pd.DataFrame) -> float:
    """Idle GPU-minutes inside ``intervals``."""
    return float(sum((_overlap_min(idle.times_min, t1, a, b) * idle.idle_gpus).sum()
                     for a, b in zip(intervals["start_min"], intervals["end_min"], strict=True)))


def analyse_stall(result: Result) -> StallReport:
    """Measure the stalls and the blocking of one run (any policy; a fit-aware policy never
    stalls, but its queue can still be blocked)."""
    tl, cluster = result.timeline, result.cluster
    intervals = tl.stall_intervals().astype({"start_min": float, "end_min": float})
    blocked = tl.blocked_intervals().astype({"start_min": float, "end_min": float})
    jobs = result.jobs.set_index("id")
    mis = tl.misroutes.copy()
    mis["gpu_label"] = [cluster.gpu_label(int(g)) for g in mis["gpu"]]
    mis["gpu_vram_gb"] = cluster.gpu_vram_gb[mis["gpu"].to_numpy(dtype=int)]
    mis["job_vram_gb"] = jobs.loc[mis["job"], "vram_gb"].to_numpy() if len(mis) else []
    mis["job_gpus"] = jobs.loc[mis["job"], "gpus"].to_numpy() if len(mis) else []
    causes = {c: int((mis["cause"] == c).sum()) for c in MISROUTE_CAUSES}

    idle = idle_steps(result)
    t1 = np.r_[idle.times_min[1:], tl.end_min]
    stall_min = float((intervals["end_min"] - intervals["start_min"]).sum())
    blocked_min = float((blocked["end_min"] - blocked["start_min"]).sum())
    idle_gpu_min = _idle_gpu_min(idle, t1, intervals)
    peak_q, peak_t = _peak_queue(tl, intervals, idle.times_min)

    worst: dict = {}
    if not intervals.empty:
        held = (intervals.assign(held=intervals["end_min"] - intervals["start_min"])
                .groupby("job")["held"].sum())
        # Headline the classic case when there is one: the job sent most often to a GPU that
        # could never hold it (capacity). Otherwise the job held longest.
        small = mis[(mis["cause"] == "capacity") & mis["job"].isin(held.index)]
        if small.empty:
            job = int(held.idxmax())
            picked = mis[mis["job"] == job]
        else:
            per_job = small.groupby("job").size()
            score = pd.DataFrame({"n": per_job, "held": held.loc[per_job.index]})
            job = int(score.sort_values(["n", "held"], ascending=False).index[0])
            picked = small[small["job"] == job]
        row = jobs.loc[job]
        worst = {"job": job, "type": str(row["type"]), "vram_gb": float(row["vram_gb"]),
                 "gpus": int(row["gpus"]), "held_min": float(held.loc[job])}
        picks = picked["gpu"].value_counts()
        if not picks.empty:
            gpu = int(picks.index[0])
            cause = picked.loc[picked["gpu"] == gpu, "cause"].mode().iloc[0]
            worst.update(gpu_label=cluster.gpu_label(gpu), picks=int(picks.iloc[0]),
                         gpu_vram_gb=float(cluster.gpu_vram_gb[gpu]), cause=str(cause))
    return StallReport(
        policy=result.policy, scenario=result.scenario, seed=result.seed, intervals=intervals,
        blocked=blocked, misroutes=mis, causes=causes, stall_min=stall_min, blocked_min=blocked_min,
        idle_gpu_min=idle_gpu_min, idle_gpu_min_blocked=_idle_gpu_min(idle, t1, blocked),
        mean_idle_gpus=idle_gpu_min / stall_min if stall_min > 0 else 0.0,
        peak_queue=peak_q, peak_queue_min=peak_t,
        avg_wait_min=float(result.metrics["avg_wait_min"]), worst_job=worst)


# ---------------------------------------------------------------------------- where it happens
FAMILY = "scenario"
"""Results-table column that names the cluster family (a sweep's scenario)."""
LOAD = "workload.load"
"""Results-table column of the offered load (fraction of the cluster's compute)."""
REFERENCE_POLICY = "first_fit"
"""The fit-aware rule every Least-Loaded variant is compared with."""
NO_FIT_CHECK_VARIANTS: tuple[str, ...] = ("least_loaded", "least_loaded_jobs", "least_loaded_vram")
"""The forms of Least-Loaded that check no fit (see :mod:`gpusched.policies.heuristics`)."""
CONDITION_METRICS: tuple[str, ...] = (
    "avg_wait_min", "stall_min", "misroutes", *(f"misroutes_{c}" for c in MISROUTE_CAUSES),
    "idle_gpu_min_queued", "idle_gpu_min_stalled", "idle_gpu_min_blocked", "jobs_unfinished")
"""The metrics the conditions map reads from each run."""
WAIT_FLOOR_MIN = 1.0
"""Wait ratios compare ``(wait + 1 min)``: waits near 0 then compare sensibly (0.5 min against
0 min reads 1.5, not infinity)."""


def wait_ratio(wait_min: float | np.ndarray, reference_min: float | np.ndarray) -> float | np.ndarray:
    """``(wait + WAIT_FLOOR_MIN) / (reference + WAIT_FLOOR_MIN)``: above 1 waits longer."""
    return (wait_min + WAIT_FLOOR_MIN) / (reference_min + WAIT_FLOOR_MIN)


def conditions_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean of :data:`CONDITION_METRICS` per (family, load, policy) over the seeds, with ``seeds``.

    :param results: one row per run with the columns :data:`FAMILY`, :data:`LOAD`, ``policy``,
        ``seed`` and the metrics (a sweep's ``results.csv``; failed runs are left out).
    """
    ok = results[results["error"].fillna("") == ""] if "error" in results else results
    grouped = ok.groupby([FAMILY, LOAD, "policy"], sort=False)
    table = grouped[list(CONDITION_METRICS)].mean()
    table["seeds"] = grouped["seed"].nunique()
    return table.reset_index()


def wait_ratio_grid(results: pd.DataFrame, policy: str,
                    reference: str = REFERENCE_POLICY) -> pd.DataFrame:
    """``policy``'s mean wait over ``reference``'s on the same jobs (:func:`wait_ratio`), per family
    (rows, in the order they come) and load (columns); 1 means as long, above 1 longer."""
    wait = _mean_waits(results)
    return _family_grid(wait_ratio(wait[policy], wait[reference]))


def wait_diff_grid(results: pd.DataFrame, policy: str,
                   reference: str = REFERENCE_POLICY) -> pd.DataFrame:
    """``policy``'s mean wait minus ``reference``'s on the same jobs (minutes: the paired extra
    wait), per family (rows, in the order they come) and load (columns); above 0 waits longer."""
    wait = _mean_waits(results)
    return _family_grid(wait[policy] - wait[reference])


def _mean_waits(results: pd.DataFrame) -> pd.DataFrame:
    """Mean wait (minutes) per (family, load) row and policy column, over the seeds."""
    return conditions_table(results).pivot_table(index=[FAMILY, LOAD], columns="policy",
                                                 values="avg_wait_min", sort=False)


def _family_grid(values: pd.Series) -> pd.DataFrame:
    """A (family, load) series as a grid: families as rows, in the order they come, loads as columns."""
    return values.unstack(LOAD).reindex(list(dict.fromkeys(values.index.get_level_values(FAMILY))))


def misroute_cause_shares(results: pd.DataFrame, policies: tuple[str, ...] = NO_FIT_CHECK_VARIANTS
                          ) -> pd.DataFrame:
    """Misroutes per family, policy and cause, summed over loads and seeds (columns: family,
    policy, cause, misroutes, share of the policy's misroutes in that family)."""
    ok = results[results["policy"].isin(policies)]
    sums = ok.groupby([FAMILY, "policy"], sort=False)[[f"misroutes_{c}" for c in MISROUTE_CAUSES]].sum()
    long = sums.rename(columns=lambda c: c.removeprefix("misroutes_")).stack().rename("misroutes")
    long = long.reset_index().rename(columns={"level_2": "cause"})
    total = long.groupby([FAMILY, "policy"])["misroutes"].transform("sum")
    long["share"] = np.where(total > 0, long["misroutes"] / total.where(total > 0, 1), 0.0)
    return long


@dataclass(frozen=True)
class FamilyFinding:
    """What the conditions map measured on one cluster family.

    :param family: the family (scenario) name.
    :param loads: the offered loads measured.
    :param runs: (load, seed) pairs compared.
    :param wait_ratio: Least-Loaded's mean wait over First-Fit's (:func:`wait_ratio`), over every
        load and seed.
    :param wait_diff: Least-Loaded minus First-Fit average wait (minutes), paired over (load, seed).
    :param stalls: Least-Loaded held jobs that could have run (mean stall > 0) and waited longer
        than First-Fit with the paired interval above 0.
    :param stall_min: Least-Loaded's mean stall per run (minutes).
    :param idle_stalled_min: Least-Loaded's mean idle GPU-minutes per run while it stalled.
    :param causes: Least-Loaded's misroutes per cause, summed over the runs.
    :param dominant_cause: its most frequent cause (``None`` without a misroute).
    :param worst_variant: the no-fit-check variant with the longest mean stall.
    :param worst_variant_stall_min: that variant's mean stall per run (minutes).
    :param ff_blocked_min: First-Fit's mean idle GPU-minutes per run while its head fitted nowhere.
    :param ll_queued_min: Least-Loaded's mean idle GPU-minutes per run while its queue waited.
    :param idle_diff: First-Fit's blocked minus Least-Loaded's queued idle GPU-minutes, paired.
    :param ff_blocks_as_badly: First-Fit leaves as many GPUs idle while its queue waits as
        Least-Loaded does: the paired interval of ``idle_diff`` is not wholly below 0.
    """

    family: str
    loads: tuple[float, ...]
    runs: int
    wait_ratio: float
    wait_diff: PairedDifference
    stalls: bool
    stall_min: float
    idle_stalled_min: float
    causes: dict[str, int]
    dominant_cause: str | None
    worst_variant: str
    worst_variant_stall_min: float
    ff_blocked_min: float
    ll_queued_min: float
    idle_diff: PairedDifference
    ff_blocks_as_badly: bool


def _paired(results: pd.DataFrame, a: str, b: str, metric: str) -> PairedDifference:
    """``a - b`` of ``metric`` over the (load, seed) runs both have."""
    wide = results.pivot_table(index=[LOAD, "seed"], columns="policy", values=metric)
    both = wide[[a, b]].dropna()
    return paired_difference(both[a].to_numpy(), both[b].to_numpy())


def conditions_findings(results: pd.DataFrame, variant: str = "least_loaded",
                        reference: str = REFERENCE_POLICY) -> list[FamilyFinding]:
    """One :class:`FamilyFinding` per family of a conditions sweep, in the order the families come.

    :param results: one row per run (see :func:`conditions_table`); it must hold ``variant`` and
        ``reference`` on the same (load, seed) pairs.
    :param variant: the Least-Loaded form the findings are about.
    :param reference: the fit-aware policy it is compared with.
    """
    ok = results[results["error"].fillna("") == ""] if "error" in results else results
    out: list[FamilyFinding] = []
    for family, runs in ok.groupby(FAMILY, sort=False):
        mean = runs.groupby("policy")[list(CONDITION_METRICS)].mean()
        if variant not in mean.index or reference not in mean.index:
            continue
        diff = _paired(runs, variant, reference, "avg_wait_min")
        ll, ff = mean.loc[variant], mean.loc[reference]
        causes = {c: int(runs.loc[runs["policy"] == variant, f"misroutes_{c}"].sum())
                  for c in MISROUTE_CAUSES}
        variants = [v for v in NO_FIT_CHECK_VARIANTS if v in mean.index]
        worst = max(variants, key=lambda v: mean.loc[v, "stall_min"])
        wide = runs.pivot_table(index=[LOAD, "seed"], columns="policy",
                                values=["idle_gpu_min_blocked", "idle_gpu_min_queued"]).dropna()
        idle_diff = paired_difference(wide[("idle_gpu_min_blocked", reference)].to_numpy(),
                                      wide[("idle_gpu_min_queued", variant)].to_numpy())
        out.append(FamilyFinding(
            family=str(family), loads=tuple(sorted(float(x) for x in runs[LOAD].unique())),
            runs=diff.n, wait_ratio=float(wait_ratio(ll["avg_wait_min"], ff["avg_wait_min"])),
            wait_diff=diff, stalls=bool(ll["stall_min"] > 0 and diff.low > 0),
            stall_min=float(ll["stall_min"]), idle_stalled_min=float(ll["idle_gpu_min_stalled"]),
            causes=causes, dominant_cause=max(causes, key=causes.get) if any(causes.values()) else None,
            worst_variant=worst, worst_variant_stall_min=float(mean.loc[worst, "stall_min"]),
            ff_blocked_min=float(ff["idle_gpu_min_blocked"]), ll_queued_min=float(ll["idle_gpu_min_queued"]),
            idle_diff=idle_diff, ff_blocks_as_badly=not idle_diff.high < 0))
    return out
