"""Home's story in numbers: one run of Least-Loaded against First-Fit on the same jobs, the stall
that tells them apart, and what each costs in wait and in imbalance between GPUs.

The words are :func:`gpusched.figures.story.story_sentence`'s; the picture is
:func:`gpusched.figures.story.stall_story_figure`'s. Every number here is measured on the runs
given, never written by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpusched.core.result import Result
from gpusched.experiment.stall import REFERENCE_POLICY, StallReport

STORY_SCENARIO = "phase1-8gpu"
"""The preset of Home's story: 8 GPUs of four models, jobs started strictly in arrival order."""

STORY_STALLING = "least_loaded"
"""The rule that stalls in Home's story."""

STORY_REFERENCE = REFERENCE_POLICY
"""The rule it is told against: First-Fit, which checks that a job fits."""

STORY_SEED = 0
"""The workload seed of Home's story (the preset's own)."""

STORY_METRICS: tuple[str, ...] = ("avg_wait_min", "gini")
"""The cards under Home's picture, per rule: the wait and the imbalance between GPUs."""

STORY_LABELS: dict[str, str] = {"avg_wait_min": "Average wait (min)", "gini": "Imbalance (Gini)"}
"""The titles of those cards (short: two cards share a column)."""


@dataclass(frozen=True)
class StallStory:
    """Least-Loaded against First-Fit on one workload.

    :param scenario: the preset's name; ``seed`` its workload seed.
    :param jobs: jobs in the workload; ``gpus`` GPUs in the cluster.
    :param stalling: the rule that stalls; ``reference`` the one it is told against.
    :param peak_queue: most jobs waiting at once, per rule.
    :param metrics: per rule, :data:`STORY_METRICS` (minutes; Gini 0-1).
    :param mean_idle_gpus: GPUs idle on average while the stalling rule held a job that fitted.
    :param stall_min: minutes the stalling rule held a job that fitted (all stalls together).
    :param first_stall_min: the minute the first stall began (``None`` without a stall).
    :param dominant_cause: the most frequent misroute cause (``None`` without misroutes).
    """

    scenario: str
    seed: int
    jobs: int
    gpus: int
    stalling: str
    reference: str
    peak_queue: dict[str, int]
    metrics: dict[str, dict[str, float]]
    mean_idle_gpus: float
    stall_min: float
    first_stall_min: float | None
    dominant_cause: str | None


def stall_story(stalling: Result, reference: Result, report: StallReport) -> StallStory:
    """The story's numbers from the two runs on the same jobs and the stalling run's analysis."""
    if (stalling.scenario, stalling.seed) != (reference.scenario, reference.seed):
        raise ValueError("the two runs of the story must be on the same jobs (scenario and seed)")
    runs = {r.policy: r for r in (stalling, reference)}
    peak = {p: int(r.timeline.queue_length_at(r.timeline.event_times()).max(initial=0))
            for p, r in runs.items()}
    causes = {c: n for c, n in report.causes.items() if n}
    return StallStory(
        scenario=stalling.scenario, seed=int(stalling.seed), jobs=len(stalling.jobs),
        gpus=int(stalling.cluster.n_gpus), stalling=stalling.policy, reference=reference.policy,
        peak_queue=peak,
        metrics={p: {m: float(r.metrics[m]) for m in STORY_METRICS} for p, r in runs.items()},
        mean_idle_gpus=float(report.mean_idle_gpus), stall_min=float(report.stall_min),
        first_stall_min=float(report.intervals["start_min"].iloc[0]) if len(report.intervals) else None,
        dominant_cause=max(causes, key=causes.get) if causes else None)
