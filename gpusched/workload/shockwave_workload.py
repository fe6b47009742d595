"""A Shockwave trace as a scenario's workload: ``workload.trace.shockwave: {trace, throughputs}``.

The trace (:func:`gpusched.workload.shockwave.read_shockwave_trace`) and the throughputs file
(:func:`~gpusched.workload.shockwave.read_shockwave_throughputs`) become jobs and their phases
(:mod:`gpusched.workload.shockwave_phases`, Shockwave's ``accordion`` and ``gns`` rules, applied as
on its real cluster, :data:`~gpusched.workload.shockwave.TACC_GPUS`):

- job ``id``: its 0-based line number in the trace; ``arrival_min``: its arrival (s) / 60;
  ``gpus``: its scale factor; ``model``: its job type as written; ``weight``: its priority weight;
  ``deadline_min``: its SLO times its duration, where it has one;
- ``duration_min``: its phases' minutes on the V100 (:data:`REFERENCE_GPU`): each phase's steps at
  that batch size's measured V100 throughput, summed
  (:func:`gpusched.core.phase_mechanism.phased_job_minutes`);
- each job takes whole GPUs (``compute`` 1), and its phases run at their own throughput on every
  GPU type of the throughputs file (:class:`gpusched.core.phase_mechanism.PhasedWork`).

``trace`` and ``throughputs`` name a shipped file (its stem in
:data:`gpusched.paths.SHOCKWAVE_DIR`: ``tacc-120jobs``, ``tacc_throughputs``) or a path. A problem
in either file is one line naming the scenario's key and the file (with the reader's line and
column or key), :class:`~gpusched.errors.ScenarioError`.
"""

from __future__ import annotations

import functools
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from gpusched.core.jobs import Job
from gpusched.core.phase_mechanism import PhasedWork, phased_job_minutes
from gpusched.core.phases import JobPhases
from gpusched.errors import GpuschedError, ScenarioError
from gpusched.paths import SHOCKWAVE_DIR
from gpusched.workload.files import file_stamp, shipped_or_path
from gpusched.workload.shockwave import read_shockwave_throughputs, read_shockwave_trace
from gpusched.workload.shockwave_phases import trace_phases

REFERENCE_GPU = "V100"
"""The GPU model of speed 1.0: the trace's durations and the real cluster's GPUs are V100s."""

KEY = "workload.trace.shockwave"
"""The scenario key of this workload."""


class ShockwaveSource(BaseModel):
    """The scenario's ``workload.trace.shockwave`` block."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    trace: str = Field(min_length=1, max_length=4096, description=(
        "a Shockwave trace: a shipped stem (tacc-120jobs) or a path"))
    throughputs: str = Field("tacc_throughputs", min_length=1, max_length=4096, description=(
        "its measured throughputs: a shipped stem (tacc_throughputs) or a path"))


@functools.lru_cache(maxsize=4)
def _read(trace: Path, throughputs: Path, _stamps: tuple) -> tuple[tuple[Job, ...], dict[int, JobPhases]]:
    sw_trace = read_shockwave_trace(trace)
    table = read_shockwave_throughputs(throughputs)
    phases = trace_phases(sw_trace, table)
    jobs, by_id = [], {}
    for sw, job_phases in zip(sw_trace.jobs, phases, strict=True):
        if any(p.rate(REFERENCE_GPU) <= 0 for p in job_phases.phases):
            raise GpuschedError(f"throughputs '{throughputs}': no {REFERENCE_GPU} throughput for trace "
                                f"'{trace}', line {sw.id + 1} ({sw.job_type} on {sw.scale_factor} GPU(s)) "
                                "at one of its batch sizes")
        duration = phased_job_minutes(job_phases, REFERENCE_GPU)
        jobs.append(Job(id=sw.id, type="trace", arrival_min=sw.arrival_s / 60.0, duration_min=duration,
                        gpus=sw.scale_factor, vram_gb=0.0, compute=1.0, model=sw.job_type,
                        weight=float(sw.priority_weight),
                        deadline_min=None if sw.slo is None else sw.slo * sw.duration_s / 60.0))
        by_id[sw.id] = job_phases
    return tuple(jobs), by_id


def _load(scenario: str, source: ShockwaveSource) -> tuple[tuple[Job, ...], dict[int, JobPhases]]:
    trace = shipped_or_path(SHOCKWAVE_DIR, source.trace, ".trace")
    throughputs = shipped_or_path(SHOCKWAVE_DIR, source.throughputs, ".json")
    try:
        return _read(trace, throughputs, (file_stamp(trace), file_stamp(throughputs)))
    except GpuschedError as exc:
        raise ScenarioError(f"scenario '{scenario}', {KEY}: {exc}") from None


def shockwave_jobs(scenario: str, source: ShockwaveSource, n_jobs: int) -> list[Job]:
    """The first ``n_jobs`` jobs of the trace (see the module docstring).

    :raises ScenarioError: naming the scenario, the key and the file, for bad input.
    """
    return list(_load(scenario, source)[0][:n_jobs])


def shockwave_phased_work(scenario: str, source: ShockwaveSource) -> PhasedWork:
    """The trace's jobs' phases, with the V100 as the reference (see the module docstring)."""
    return PhasedWork(_load(scenario, source)[1], REFERENCE_GPU)
