"""Which workload charts and editors apply to a scenario: each scenario is drawn for what it holds.

A synthetic workload has job types in shares and VRAM requests; a trace's pods ask for a share of a
GPU (``gpu_milli``) and no VRAM in GB; Gavel's generator draws job models
(ResNet-50, Transformer, …) that ask for whole GPUs and no VRAM, so its job-type shares and its
VRAM chart (one bar at 0 GB) say nothing: it gets its job models and each job's own speed instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpusched.core.jobs import Job
from gpusched.workload.scenario import Scenario

PANELS: tuple[str, ...] = ("arrivals", "duration", "job_models", "vram", "compute", "gpus", "runtime_by_type",
                           "runtime_by_gpu", "model_speeds")
"""Every workload chart of the Cluster & workload page, in the order it draws them."""


def has_job_models(jobs: Sequence[Job]) -> bool:
    """Whether some job names its model (Gavel's generator, a job list with models)."""
    return any(j.model for j in jobs)


def has_vram(jobs: Sequence[Job]) -> bool:
    """Whether some job asks for VRAM (GB per GPU > 0)."""
    return any(j.vram_gb > 0 for j in jobs)


def has_job_type_shares(scenario: Scenario) -> bool:
    """Whether the scenario's jobs are drawn by job type in shares (the synthetic generator)."""
    return not scenario.is_trace and scenario.workload.generator == "synthetic"


def workload_panels(scenario: Scenario, jobs: Sequence[Job]) -> tuple[str, ...]:
    """The workload charts that apply to ``scenario`` and its ``jobs``, in :data:`PANELS` order:
    job models when jobs name them, VRAM when some job asks for it, else the share of a GPU each
    job asks for when some ask for less than a whole one (a trace's pods), run time by job type for a
    speed table by type and by each job's own speed for job models, and the speed heatmap when the
    scenario has GPU speeds."""
    models = has_job_models(jobs)
    applies = {
        "arrivals": True, "duration": True, "gpus": True,
        "job_models": models,
        "vram": has_vram(jobs),
        "compute": not has_vram(jobs) and any(j.compute < 1.0 for j in jobs),
        "runtime_by_type": scenario.speed is not None and not models,
        "runtime_by_gpu": scenario.speed is not None and models,
        "model_speeds": scenario.speed is not None,
    }
    return tuple(p for p in PANELS if applies[p])
