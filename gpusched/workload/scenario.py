"""Scenario files: a cluster, a workload, and the run settings, in YAML validated with pydantic.

```yaml
name: my-cluster
description: free text
cluster:
  nodes:
    - {gpu_model: A100-80GB, vram_gb: 80, gpus_per_node: 4, count: 1}
    - {gpu_model: T4-16GB, vram_gb: 16, gpus_per_node: 2, count: 2}
workload:
  jobs: 250
  arrival_rate_per_hour: 20   # or load: 0.4, the offered compute demand (fraction of capacity)
  mix: {training: 0.3, inference: 0.4, batch: 0.3}
  seed: 0               # the CLI's --seed overrides it
horizon_min: 100000     # optional (minutes)
queue: {window: 8}      # optional: the scheduler may start any of the first 8 queued jobs
                        # (and preemption_min_run_min: 10, minutes a job runs before a preemption)
failures:               # optional: node failures and repairs (gpusched.core.failures)
  node_failures_per_1000_node_days: 6.5
  repair_min: {median: 54, mean: 355}
  seed: 7               # optional; otherwise derived from the workload seed
checkpoint: {interval_min: 60, types: [training], restore_min: 0.5}   # optional
                        # optional in it: move_restore_min (a move's restore; default restore_min)
speed: default          # optional: relative GPU speeds (the shipped table, or model -> type -> speed)
reward: {}              # optional; see gpusched.core.reward.RewardSpec for the defaults
util_band: [0.6, 0.8]   # optional; target band of cluster utilisation (fractions)
```

A scenario can also take its cluster and/or its jobs from a real trace (Alibaba's openb trace,
see :mod:`gpusched.workload.trace_jobs`) instead of the node list and the synthetic generator:

```yaml
cluster:
  trace: {nodes: openb_node_list_gpu_node, sample_nodes: 24}   # a seeded sample of 24 nodes
workload:
  jobs: 400                 # the first 400 GPU pods by creation time
  seed: 0                   # seeds the node sample
  trace: {pods: openb_pod_list_default, time_compression: 600}  # 600 trace seconds = 1 minute
```

Gavel's generator (``workload.generator: gavel``, :mod:`gpusched.workload.gavel`), Gavel's measured
speeds (``speed: gavel``, :mod:`gpusched.core.gavel_speeds`) and plain job lists
(``workload.trace: {jobs: PATH}``, :mod:`gpusched.workload.job_list`) are described in
``docs/scenarios.md``.

This module is the schema: the pydantic models and their validators. A scenario is read from YAML
or a mapping by :mod:`gpusched.workload.scenario_yaml`, whose errors name the file and the key, on
one line (:mod:`gpusched.workload.validation`):
``scenario 'x.yaml', cluster.nodes[2].vram_gb: must be > 0 (got -16)``. The presets, in
``assets/scenarios/``, are loaded by :mod:`gpusched.workload.presets`; a simulator is built from a
scenario by :mod:`gpusched.workload.build`.
"""

from __future__ import annotations

import functools
import typing
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.failures import CheckpointSpec, FailureSpec, check_can_finish
from gpusched.core.gang import spread_rule
from gpusched.core.gavel_speeds import (
    GAVEL_GPU_MODELS,
    describe_measured,
    gavel_speed_rows,
    job_models,
    measured_scales,
    runnable_gpu_models,
    spread_speed_table,
    unknown_gpu_models,
)
from gpusched.core.jobs import Job, check_jobs_feasible
from gpusched.core.numbers import Flag, Number, Whole
from gpusched.core.numbers import shown as _shown
from gpusched.core.prices import check_price_keys, check_price_table, unpriced_note
from gpusched.core.reward import RewardSpec
from gpusched.core.rounds.mechanism import RoundSpec
from gpusched.core.simulator import DEFAULT_PREEMPTION_MIN_RUN_MIN
from gpusched.core.speed import DEFAULT_SPEEDS, GpuSpeeds
from gpusched.errors import InfeasibleJobError, ScenarioError
from gpusched.limits import (
    ARRIVAL_RATE_RANGE_PER_HOUR,
    LOAD_RANGE,
    MAX_ESTIMATE_ERROR,
    MAX_GPUS,
    MAX_GPUS_PER_NODE,
    MAX_HORIZON_MIN,
    MAX_JOBS,
    MAX_NODES,
    MAX_PREEMPTION_MIN_RUN_MIN,
    MAX_QUANTITY,
    MAX_ROUNDS,
    MAX_SEED,
    MAX_VRAM_GB,
    MAX_WINDOW,
    MIN_SPREAD_SPEED,
    TIME_COMPRESSION_RANGE,
)
from gpusched.workload.declared import check_declared, estimator_factory, resolved
from gpusched.workload.gavel import JOB_TYPE as GAVEL_JOB_TYPE
from gpusched.workload.gavel import gavel_rate_for_load, generate_gavel_jobs, scale_factor_probabilities
from gpusched.workload.philly_workload import PhillySource, philly_jobs
from gpusched.workload.shockwave_workload import ShockwaveSource, shockwave_jobs, shockwave_phased_work
from gpusched.workload.speed_table import SpeedSpec, check_speed_table
from gpusched.workload.synthetic import (
    JOB_TYPES,
    describe_left_out,
    generate_jobs,
    left_out_shapes,
    rate_for_load,
)
from gpusched.workload.validation import scenario_error

DEFAULT_MIX = {"training": 0.3, "inference": 0.4, "batch": 0.3}


class _Strict(BaseModel):
    # Every number must be finite: .inf and .nan are refused (see gpusched.limits).
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class NodeSpec(_Strict):
    """``count`` nodes of ``gpus_per_node`` GPUs of one model."""

    gpu_model: str = Field(min_length=1, description="GPU model, e.g. A100-80GB")
    vram_gb: Number = Field(gt=0, le=MAX_VRAM_GB, description="VRAM per GPU (GB)")
    gpus_per_node: Whole = Field(gt=0, le=MAX_GPUS_PER_NODE, description="GPUs per node")
    count: Whole = Field(1, gt=0, le=MAX_NODES, description="number of such nodes")
    cpu_milli: Number | None = Field(None, gt=0, le=MAX_QUANTITY, description="CPU per node (milli-cores)")
    memory_mib: Number | None = Field(None, gt=0, le=MAX_QUANTITY, description="memory per node (MiB)")


class ClusterTrace(_Strict):
    """A cluster sampled from an openb node list."""

    nodes: str = Field("openb_node_list_gpu_node", min_length=1,
                       description="node list: a bundled stem or a CSV path")
    sample_nodes: Whole | None = Field(None, gt=0, le=MAX_NODES,
                                       description="nodes to sample (all if omitted)")


class WorkloadTrace(_Strict):
    """Jobs from an openb pod list (creation time -> arrival, deletion - start -> duration), or
    from a plain job list (:mod:`gpusched.workload.job_list`)."""

    pods: str | None = Field(None, min_length=1, description="pod list: a bundled stem or a CSV path")
    jobs: str | None = Field(None, min_length=1, description=(
        "job list: a CSV path with columns id,arrival_min,model,gpus,duration_min (a jobs table "
        "that --jobs-csv wrote reads back)"))
    shockwave: ShockwaveSource | None = Field(None, description=(
        "a Shockwave trace and its throughputs (gpusched.workload.shockwave_workload)"))
    philly: PhillySource | None = Field(None, description=(
        "a processed Philly CSV (gpusched.workload.philly_workload)"))
    time_compression: Number = Field(1.0, ge=TIME_COMPRESSION_RANGE[0], le=TIME_COMPRESSION_RANGE[1],
                                    description="trace seconds per simulated second (pod lists; a "
                                                "job list's times are minutes: any value but 1 is "
                                                "refused there)")

    @model_validator(mode="after")
    def _one_list(self) -> WorkloadTrace:
        if sum(x is not None for x in (self.pods, self.jobs, self.shockwave, self.philly)) != 1:
            raise ValueError("give either 'pods' (an openb pod list), 'jobs' (a job list), "
                             "'shockwave' (a Shockwave trace) or 'philly' (a Philly CSV)")
        if self.jobs is not None and self.time_compression != 1.0:
            raise ValueError(f"time_compression applies to pod lists (trace seconds); a job list's "
                             f"times are minutes and are not compressed (got {self.time_compression:g}: "
                             "drop the key)")
        return self


class ClusterSpec(_Strict):
    """The nodes of the cluster, or a sample of a trace's nodes."""

    nodes: list[NodeSpec] | None = Field(None, min_length=1)
    trace: ClusterTrace | None = None
    gang_placement: Literal["node", "spread"] = Field("node", description=(
        "node: a gang lies on one node; spread: a gang may span nodes of one GPU model, the "
        "fewest it can (gpusched.core.gang.SpreadGang)"))
    spread_speed: Number | None = Field(None, ge=MIN_SPREAD_SPEED, le=1, description=(
        "speed factor of a gang spread over nodes where the speed table has no measured "
        "unconsolidated value (absent: 1.0, no penalty); only with gang_placement: spread"))

    @model_validator(mode="after")
    def _spread_speed_needs_spread(self) -> ClusterSpec:
        if self.spread_speed is not None and self.gang_placement != "spread":
            raise ValueError("spread_speed applies to spread gangs: set gang_placement: spread too")
        return self

    @model_validator(mode="after")
    def _one_source(self) -> ClusterSpec:
        if (self.nodes is None) == (self.trace is None):
            raise ValueError("give either 'nodes' or 'trace'")
        return self

    @model_validator(mode="after")
    def _within_limits(self) -> ClusterSpec:
        """The whole node list against the limits, before anything is allocated."""
        if self.nodes is not None:
            nodes = sum(n.count for n in self.nodes)
            gpus = sum(n.count * n.gpus_per_node for n in self.nodes)
            if nodes > MAX_NODES:
                raise ValueError(f"{nodes:,} nodes in total, more than the limit of {MAX_NODES:,}")
            if gpus > MAX_GPUS:
                raise ValueError(f"{gpus:,} GPUs in total, more than the limit of {MAX_GPUS:,}")
        return self


class WorkloadSpec(_Strict):
    """A synthetic workload (see :data:`gpusched.workload.synthetic.JOB_TYPES`)."""

    jobs: Whole = Field(gt=0, le=MAX_JOBS, description="number of jobs (trace: the first N)")
    arrival_rate_per_hour: Number | None = Field(None, ge=ARRIVAL_RATE_RANGE_PER_HOUR[0],
                                                le=ARRIVAL_RATE_RANGE_PER_HOUR[1],
                                                description="mean Poisson arrivals per hour")
    load: Number | None = Field(None, ge=LOAD_RANGE[0], le=LOAD_RANGE[1], description=(
        "offered GPU demand as a fraction of the cluster's compute capacity, instead of an arrival "
        "rate (see gpusched.workload.synthetic.arrival_rate_for_load)"))
    mix: dict[str, Number] = Field(default_factory=lambda: dict(DEFAULT_MIX),
                                  description="share of each job type, summing to 1")
    seed: Whole = Field(0, ge=0, le=MAX_SEED, description="workload seed (trace: the node-sample seed)")
    runtime_estimate_error: Number | None = Field(None, ge=0, le=MAX_ESTIMATE_ERROR, description=(
        "sigma of the multiplicative log-normal error of the run times declared to the scheduler: "
        "estimate = duration * exp(sigma * Z), Z ~ N(0, 1); absent or 0 declares them exactly "
        "(read as declared_run_time: {lognormal: sigma}, with a note)"))
    declared_run_time: Any = Field(None, description=(
        "what the scheduler is told of run times: exact (default), listed (a job list's "
        "estimate_min column; the default with a job list), none, history, {lognormal: SIGMA} or "
        "{history: {keys, prior_min, min_samples, recent}} (gpusched.workload.declared)"))
    trace: WorkloadTrace | None = None
    generator: Literal["synthetic", "gavel"] = Field("synthetic", description=(
        "synthetic: the job types of gpusched.workload.synthetic; gavel: Gavel's generator "
        "(gpusched.workload.gavel)"))
    multi_gpu: Flag | None = Field(None, description=(
        "gavel: draw Gavel's scale factors (1, 2, 4 or 8 GPUs); absent or false: every job 1 GPU"))
    weights: Flag | None = Field(None, description="gavel: priority weights, 5 with probability 0.2")
    deadlines: Flag | None = Field(None, description=(
        "gavel: deadlines at 1.2x, 2x or 10x the duration, each with probability 1/3"))

    @field_validator("declared_run_time", mode="before")
    @classmethod
    def _check_declared(cls, value: Any) -> Any:
        return None if value is None else check_declared(value)

    @model_validator(mode="after")
    def _one_declared_key(self) -> WorkloadSpec:
        if self.declared_run_time is not None and self.runtime_estimate_error is not None:
            raise ValueError("give either 'declared_run_time' or the older 'runtime_estimate_error', "
                             "not both")
        if self.declared_run_time == "listed" and not self._has_job_list:
            raise ValueError("declared_run_time: listed tells a job list's estimate_min column, and "
                             "this workload has no job list (workload.trace.jobs)")
        return self

    @property
    def declared_mode(self) -> str | dict[str, Any]:
        """What the scheduler is told (:func:`gpusched.workload.declared.resolved`): the key's
        mode, the older key's log-normal, or by default ``listed`` for a job list and ``exact``
        otherwise."""
        return resolved(self.declared_run_time, self.runtime_estimate_error, self._has_job_list)

    @property
    def _has_job_list(self) -> bool:
        return self.trace is not None and self.trace.jobs is not None

    @model_validator(mode="after")
    def _generator_keys(self) -> WorkloadSpec:
        gavel_keys = [k for k in ("multi_gpu", "weights", "deadlines") if getattr(self, k) is not None]
        if self.generator != "gavel" and gavel_keys:
            raise ValueError(f"'{gavel_keys[0]}' belongs to the gavel generator (generator: gavel)")
        if self.generator == "gavel" and self.trace is not None:
            raise ValueError("'generator' draws the jobs; a trace has its own")
        if self.generator == "gavel" and self.mix != DEFAULT_MIX:
            raise ValueError("'mix' does not apply to the gavel generator (every job of Gavel's is a "
                             "training job of one of its 26 models): drop the key")
        return self

    @model_validator(mode="after")
    def _rate_unless_trace(self) -> WorkloadSpec:
        if self.arrival_rate_per_hour is not None and self.load is not None:
            raise ValueError("give either 'arrival_rate_per_hour' or 'load', not both")
        for key in ("load", "arrival_rate_per_hour"):
            if self.trace is not None and getattr(self, key) is not None:
                raise ValueError(f"'{key}' sets the rate of a synthetic workload; a trace has its own "
                                 "arrival times")
        if self.trace is None and self.arrival_rate_per_hour is None and self.load is None:
            raise ValueError("arrival_rate_per_hour is required unless the jobs come from a "
                             "'trace' (or give 'load', the offered demand)")
        return self

    @field_validator("mix")
    @classmethod
    def _check_mix(cls, mix: dict[str, float]) -> dict[str, float]:
        unknown = [k for k in mix if k not in JOB_TYPES]
        if unknown:
            raise ValueError(f"unknown job type '{unknown[0]}' (known: {', '.join(JOB_TYPES)})")
        if any(v < 0 for v in mix.values()):
            raise ValueError("shares must be >= 0")
        total = sum(mix.values())
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"shares must sum to 1 (got {total:g})")
        return mix


class QueueSpec(_Strict):
    """How many queued jobs the scheduler may start."""

    window: Whole = Field(1, ge=1, le=MAX_WINDOW, description=(
        "the first N queued jobs, in arrival order, may start; 1 is a strict FIFO queue"))
    preemption_min_run_min: Number | None = Field(None, gt=0, le=MAX_PREEMPTION_MIN_RUN_MIN, description=(
        "minutes a job runs after it (re)starts, not counting its restore, before a preemptive "
        f"policy may preempt it (absent: {DEFAULT_PREEMPTION_MIN_RUN_MIN:g})"))


class Scenario(_Strict):
    """A validated scenario. Build its cluster and jobs with :meth:`build_cluster` and :meth:`jobs`."""

    name: str = Field(min_length=1)
    description: str = ""
    cluster: ClusterSpec
    workload: WorkloadSpec
    horizon_min: Number | None = Field(None, gt=0, le=MAX_HORIZON_MIN, description="end of the run (minutes)")
    reward: RewardSpec = Field(default_factory=RewardSpec)
    util_band: tuple[Number, Number] = (0.6, 0.8)
    queue: QueueSpec | None = Field(None, description="the queue window (absent: strict FIFO)")
    speed: SpeedSpec | None = Field(None, description="relative GPU speeds (absent: all 1.0)")
    failures: FailureSpec | None = Field(None, description="node failures and repairs (absent: none)")
    checkpoint: CheckpointSpec | None = Field(None, description=(
        "which job types checkpoint, how often, and the restore time (absent: none checkpoints, "
        "and a resumption costs nothing)"))
    prices: dict[str, Any] | None = Field(None, description=(
        "USD per GPU-hour per GPU model of the cluster (absent: the shipped table of "
        "gpusched.core.prices); fixed, not dynamic"))
    rounds: RoundSpec | None = Field(None, description=(
        "round length and reset interval of the round policies (absent: Gavel's defaults, 6 and "
        "32 minutes); read only when a round policy runs"))
    _source: str | None = PrivateAttr(None)
    """What it was read from (a file's name), set by
    :func:`~gpusched.workload.scenario_yaml.scenario_from_dict`; ``None``: built in code."""

    @property
    def label(self) -> str:
        """How an error names the scenario: the file it was read from, else its ``name``, so that
        a check made after loading (when its jobs are drawn or its simulator is built) names what a
        check made while loading names."""
        return self._source or self.name

    def read_from(self, source: str) -> Scenario:
        """This scenario, remembering that it was read from ``source`` (see :attr:`label`)."""
        self._source = source
        return self

    def __eq__(self, other: object) -> bool:
        """Equal keys and values: where two scenarios were read from does not count (a preset
        read again from the text of the dashboard's editor is still that preset)."""
        if not isinstance(other, Scenario):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = None  # mutable, as every pydantic model that is not frozen

    @field_validator("rounds")
    @classmethod
    def _check_rounds(cls, rounds: RoundSpec | None, info: ValidationInfo) -> RoundSpec | None:
        if rounds is None:
            return None
        checkpoint, horizon = info.data.get("checkpoint"), info.data.get("horizon_min")
        if checkpoint is not None:
            key, restore = max((("restore_min", float(checkpoint.restore_min)),
                                ("move_restore_min", checkpoint.move_min)), key=lambda kv: kv[1])
            if rounds.length_min <= restore:
                raise ValueError(f"length_min ({rounds.length_min:g}) must be longer than "
                                 f"checkpoint.{key} ({restore:g}), or a job that changes GPUs never "
                                 "progresses in its round")
        if horizon is not None and horizon / rounds.length_min > MAX_ROUNDS:
            raise ValueError(f"length_min ({rounds.length_min:g}) gives {horizon / rounds.length_min:,.0f} "
                             f"rounds before horizon_min, over the limit of {MAX_ROUNDS:,}")
        return rounds

    @field_validator("prices", mode="before")
    @classmethod
    def _check_prices(cls, prices: Any, info: ValidationInfo) -> dict[str, float] | None:
        if prices is None:
            return None
        cluster = info.data.get("cluster")
        models = [n.gpu_model for n in cluster.nodes] if cluster is not None and cluster.nodes else None
        return check_price_table(prices, models)

    @field_validator("checkpoint")
    @classmethod
    def _check_checkpoint_types(cls, checkpoint: CheckpointSpec | None) -> CheckpointSpec | None:
        if checkpoint is not None:
            known = (*JOB_TYPES, "trace")
            unknown = [t for t in checkpoint.types if t not in known]
            if unknown:
                raise ValueError(f"unknown job type '{unknown[0]}' in checkpoint.types (known: "
                                 f"{', '.join(known)})")
        return checkpoint

    @field_validator("checkpoint")
    @classmethod
    def _check_can_finish(cls, checkpoint: CheckpointSpec | None,
                          info: ValidationInfo) -> CheckpointSpec | None:
        check_can_finish(info.data.get("failures"), checkpoint)
        return checkpoint

    @field_validator("speed", mode="before")
    @classmethod
    def _check_speed(cls, speed: Any) -> SpeedSpec | None:
        return check_speed_table(speed)

    @field_validator("speed", mode="after")
    @classmethod
    def _check_gavel_models(cls, speed: SpeedSpec | None, info: ValidationInfo) -> SpeedSpec | None:
        cluster = info.data.get("cluster")
        if speed == "gavel" and cluster is not None and cluster.nodes is not None:
            other = unknown_gpu_models(n.gpu_model for n in cluster.nodes)
            if other:
                raise ValueError(_gavel_models_message(other))
        return speed

    @model_validator(mode="after")
    def _check_band(self) -> Scenario:
        lo, hi = self.util_band
        if not 0.0 <= lo < hi <= 1.0:
            raise ValueError(f"util_band must satisfy 0 <= low < high <= 1 (got [{lo}, {hi}])")
        return self

    @property
    def window(self) -> int:
        """The queue window (1 without a ``queue`` key)."""
        return 1 if self.queue is None else self.queue.window

    def declared_note(self) -> str | None:
        """The one ``note:`` line for the older key ``workload.runtime_estimate_error``."""
        sigma = self.workload.runtime_estimate_error
        if sigma is None:
            return None
        return (f"note: workload.runtime_estimate_error is read as declared_run_time: "
                f"{{lognormal: {sigma:g}}}; write that instead")

    def speed_note(self, cluster: Cluster | None = None) -> str | None:
        """The one ``note:`` line naming the rows of the scenario's own speed table for GPU models
        that ``cluster`` (the scenario's own if omitted) does not have, which therefore do nothing;
        for ``speed: default``, the one naming the cluster's GPU models the shipped table does not
        name, which run every job at 1.0 (``None`` when every row is used and every GPU model
        named)."""
        if self.speed == "default":
            cluster = cluster or self.build_cluster()
            unnamed = [m for m in dict.fromkeys(cluster.gpu_model) if m not in DEFAULT_SPEEDS]
            if not unnamed:
                return None
            named = ", ".join(_shown(m) for m in unnamed[:5]) + (f" and {len(unnamed) - 5} more"
                                                                 if len(unnamed) > 5 else "")
            hint = ("; Gavel measured K80, P100 and V100: speed: gavel"
                    if set(unnamed) & set(GAVEL_GPU_MODELS) else "")
            return (f"note: speed: default (the shipped table of {', '.join(DEFAULT_SPEEDS)}) does not "
                    f"name {named}, so every job runs at speed 1.0 there{hint}")
        if not isinstance(self.speed, dict):
            return None
        cluster = cluster or self.build_cluster()
        present = set(cluster.gpu_model)
        unused = [m for m in self.speed if m not in present]
        if not unused:
            return None
        named = ", ".join(_shown(m) for m in unused[:5]) + (f" and {len(unused) - 5} more"
                                                          if len(unused) > 5 else "")
        return (f"note: the speed table names GPU models the cluster does not have, so their rows "
                f"do nothing: {named} (the cluster has {', '.join(sorted(present))})")

    @property
    def preemption_min_run_min(self) -> float:
        """Minutes a job runs after it (re)starts before it may be preempted."""
        value = None if self.queue is None else self.queue.preemption_min_run_min
        return DEFAULT_PREEMPTION_MIN_RUN_MIN if value is None else value

    def prices_note(self, cluster: Cluster | None = None) -> str | None:
        """The one ``note:`` line naming the GPU models of ``cluster`` (the scenario's own if
        omitted) that the scenario's ``prices:`` table leaves unpriced (``None`` without a table,
        or when it prices every model).

        :raises ScenarioError: for a key that names no GPU model of a trace's cluster exactly (a
            node list's are checked when the scenario is read).
        """
        if self.prices is None:
            return None
        cluster = cluster or self.build_cluster()
        self.check_prices(cluster)
        return unpriced_note(self.prices, cluster.gpu_model)

    def check_prices(self, cluster: Cluster) -> None:
        """Refuse a ``prices:`` key that names no GPU model of ``cluster`` exactly (the keys of a
        trace's cluster are known only once it is sampled).

        :raises ScenarioError: naming ``prices`` and the key.
        """
        if self.prices is not None:
            try:
                check_price_keys(self.prices, cluster.gpu_model)
            except ValueError as exc:
                raise ScenarioError(f"scenario '{self.label}', prices: {exc}") from None

    def simulator_options(self, workload_seed: int | None = None) -> dict[str, Any]:
        """The failure, preemption, run-time estimator and price settings of a
        :class:`~gpusched.core.simulator.Simulator` for this scenario (the failure seed derived
        from ``workload_seed``, the scenario's by default); its checkpoints are the restore model
        :func:`gpusched.workload.build.simulator_for` gives it."""
        seed = self.workload.seed if workload_seed is None else workload_seed
        return {"failures": self.failures,
                "failure_seed": 0 if self.failures is None else self.failures.seed_for(seed),
                "preemption_min_run_min": self.preemption_min_run_min,
                "estimator": self.estimator_factory(seed), "prices": self.prices,
                "phases": (None if self.workload.trace is None or self.workload.trace.shockwave is None
                           else shockwave_phased_work(self.label, self.workload.trace.shockwave))}

    def estimator_factory(self, workload_seed: int | None = None):  # noqa: ANN201 - a factory
        """The run-time estimator of the scenario's mode (:attr:`WorkloadSpec.declared_mode`), as a
        function of the jobs (:func:`gpusched.workload.declared.estimator_factory`), its
        log-normal draws seeded from ``workload_seed`` (the scenario's by default)."""
        w = self.workload
        seed = w.seed if workload_seed is None else workload_seed
        listed = (None if w.trace is None or w.trace.jobs is None
                  else functools.partial(_listed_estimates, w.trace.jobs))
        return estimator_factory(w.declared_mode, seed, listed)

    def speed_table(self) -> dict[str, dict[str, Any]] | None:
        """The relative GPU speeds as :class:`~gpusched.core.speed.GpuSpeeds` reads them (GPU
        model -> job type -> speed, and under ``models`` job model -> speed, or for Gavel's table a
        speed per gang size), or ``None`` (every GPU at 1.0)."""
        if self.speed is None:
            return None
        if self.speed == "gavel":
            return gavel_speed_rows()
        return DEFAULT_SPEEDS if self.speed == "default" else self.speed

    @property
    def n_gpus(self) -> int:
        """Total GPUs of the cluster."""
        if self.cluster.nodes is None:
            return self.build_cluster().n_gpus
        return sum(n.gpus_per_node * n.count for n in self.cluster.nodes)

    @property
    def is_trace(self) -> bool:
        """Whether the cluster or the jobs come from a real trace."""
        return self.cluster.trace is not None or self.workload.trace is not None

    def summary(self) -> str:
        """One line: GPUs, jobs and where they come from."""
        w = self.workload
        if w.trace is not None and w.trace.jobs is not None:
            jobs = f"the first {w.jobs} jobs of {Path(w.trace.jobs).name}"
        elif w.trace is not None and w.trace.shockwave is not None:
            jobs = f"the first {w.jobs} jobs of Shockwave's {w.trace.shockwave.trace}"
        elif w.trace is not None and w.trace.philly is not None:
            jobs = f"the first {w.jobs} jobs of Philly's {Path(w.trace.philly.file).name}"
        elif w.trace is not None:
            jobs = (f"the first {w.jobs} GPU pods of {w.trace.pods} "
                    f"(time ×1/{w.trace.time_compression:g})")
        elif w.load is not None:
            rate = self.arrival_rate_per_hour()
            jobs = f"{w.jobs} jobs at load {w.load:g} ({rate:.3g}/h)"
        else:
            jobs = f"{w.jobs} jobs at {w.arrival_rate_per_hour:g}/h"
        where = (f", {self.cluster.trace.sample_nodes or 'all'} nodes sampled from "
                 f"{self.cluster.trace.nodes}" if self.cluster.trace is not None else "")
        if w.generator == "gavel":
            jobs += " from Gavel's generator"
        return f"{self.n_gpus} GPUs{where} · {jobs}"

    def arrival_rate_per_hour(self, cluster: Cluster | None = None) -> float:
        """The synthetic workload's arrival rate (jobs per hour): ``workload.arrival_rate_per_hour``,
        or the rate that offers ``workload.load`` of ``cluster``'s capacity, counted with the
        scenario's GPU speeds (the scenario's own cluster if omitted)."""
        w = self.workload
        if w.load is None:
            if w.arrival_rate_per_hour is None:
                raise ScenarioError(f"scenario '{self.label}': a trace workload has no arrival rate")
            return w.arrival_rate_per_hour
        cluster = cluster or self.build_cluster()
        speeds = self.gpu_speeds(cluster)
        if w.generator == "gavel":
            capacity = None if speeds is None else functools.partial(self._gavel_capacity, cluster, speeds)
            return gavel_rate_for_load(w.load, bool(w.multi_gpu), cluster.n_gpus, capacity)
        return rate_for_load(w.load, w.mix, cluster, speeds)

    def _gavel_capacity(self, cluster: Cluster, speeds: GpuSpeeds, model: str, gpus: int) -> float:
        """The sum over the GPUs of their speed for a job of Gavel's generator (0 on the GPUs
        that cannot run it under ``speed: gavel``)."""
        job = self._restricted(Job(id=0, type=GAVEL_JOB_TYPE, arrival_min=0.0, duration_min=1.0,
                                   gpus=gpus, vram_gb=0.0, compute=1.0, model=model))
        row = speeds.row_of_job(job)
        if job.gpu_spec is None:
            return float(row.sum())
        allowed = np.isin(np.array(cluster.gpu_model), job.gpu_spec)
        return float(row[allowed].sum())

    def gpu_speeds(self, cluster: Cluster) -> GpuSpeeds | None:
        """The scenario's speed table resolved for ``cluster``, or ``None`` without one.

        :raises ScenarioError: for ``speed: gavel`` on a cluster with other GPU models than
            Gavel's (a trace's cluster; a node list is checked when the scenario is read).
        """
        table = self.speed_table()
        if self.speed == "gavel":
            other = unknown_gpu_models(cluster.node_model)
            if other:
                raise ScenarioError(f"scenario '{self.label}', speed: {_gavel_models_message(other)}")
        return None if table is None else GpuSpeeds(cluster, table)

    def _restricted(self, job: Job) -> Job:
        """Under ``speed: gavel``, ``job`` restricted to the GPU models that can run it (those
        whose measured throughput is above 0; :func:`runnable_gpu_models`), else ``job``."""
        if self.speed != "gavel" or job.model is None:
            return job
        runnable = runnable_gpu_models(job.model, job.gpus)
        if len(runnable) == len(GAVEL_GPU_MODELS):
            return job
        spec = runnable if job.gpu_spec is None else tuple(m for m in job.gpu_spec if m in runnable)
        if not spec:  # never read as "any GPU" (a job list's rows are checked before: _row_check)
            raise ScenarioError(f"scenario '{self.label}': job {job.id} may run on no GPU model Gavel "
                                f"can run '{job.model}' on {job.gpus} GPU(s) on")
        return replace(job, gpu_spec=spec)

    def _row_check(self):  # noqa: ANN202 - a RowCheck or None
        """For ``speed: gavel``, the check a job list's rows pass (``None`` otherwise: any model,
        any label): a model Gavel measured at the job's GPU count; whole GPUs (``compute`` 1.0:
        Gavel measured each job alone on its GPUs, so two jobs sharing one GPU at their solo
        speeds would each run as fast as alone, a speed nobody measured); and a ``gpu_spec`` that
        names at least one GPU model Gavel can run the job on."""
        if self.speed != "gavel":
            return None

        def check(job: Job) -> tuple[str, str] | None:
            model = job.model
            if model is not None:
                scales = measured_scales().get(model)
                if scales is None:
                    return "model", (f"'{model[:40]}' is not one of Gavel's 26 job models (speed: "
                                     f"gavel; e.g. '{job_models()[0]}')")
                if job.gpus not in scales:
                    return "model", f"'{model[:40]}' was {describe_measured(model)}, not on {job.gpus}"
            if job.compute < 1.0:
                return "compute", (f"must be 1 under speed: gavel (got {job.compute:g}): Gavel "
                                   "measured each job alone on whole GPUs, so a job sharing a GPU "
                                   "would run at a solo speed nobody measured")
            if model is not None and job.gpu_spec is not None:
                runnable = runnable_gpu_models(model, job.gpus)
                if not set(job.gpu_spec) & set(runnable):
                    return "gpu_spec", (f"'{'|'.join(job.gpu_spec)[:40]}' names none of the GPU models "
                                        f"Gavel can run '{model[:40]}' on {job.gpus} GPU(s) on "
                                        f"({', '.join(runnable)})")
            return None

        return check

    def build_cluster(self, seed: int | None = None) -> Cluster:
        """The cluster topology (``seed`` overrides ``workload.seed`` for a trace node sample)."""
        if self.cluster.trace is not None:
            from gpusched.workload.trace_jobs import openb_cluster

            t = self.cluster.trace
            return openb_cluster(_openb_nodes(t.nodes), t.sample_nodes,
                                 self.workload.seed if seed is None else seed, gang=self._gang())
        return Cluster([NodeGroup(**n.model_dump()) for n in self.cluster.nodes], gang=self._gang())

    def _gang(self):  # noqa: ANN202 - a Cluster's ``gang`` argument
        """The cluster's gang rule (``cluster.gang_placement``): ``None`` for one node, else a
        :class:`~gpusched.core.gang.SpreadGang` with Gavel's measured factors under
        ``speed: gavel`` and ``cluster.spread_speed`` elsewhere."""
        c = self.cluster
        if c.gang_placement == "node":
            return None
        factors = spread_speed_table() if self.speed == "gavel" else None
        return spread_rule(factors, 1.0 if c.spread_speed is None else float(c.spread_speed))

    def jobs(self, seed: int | None = None, n_jobs: int | None = None,
             cluster: Cluster | None = None) -> list[Job]:
        """Draw the workload (or take it from the trace).

        :param seed: overrides ``workload.seed``.
        :param n_jobs: overrides ``workload.jobs``.
        :param cluster: the cluster the jobs are for (built from the scenario if omitted).
        """
        return self.trace_jobs(seed, n_jobs, cluster)[0]

    def trace_jobs(self, seed: int | None = None, n_jobs: int | None = None,
                   cluster: Cluster | None = None) -> tuple[list[Job], dict[str, int]]:
        """The jobs, and for a trace workload the pods left out (never silently):
        ``{"cpu_only_pods": …, "unhostable_pods": …}`` (empty for a synthetic workload).

        :raises ScenarioError: for a ``horizon_min`` that ends the run before its first job
            arrives (every time of the run would then run backwards from that arrival).
        """
        jobs, left_out = self._draw_jobs(seed, n_jobs, cluster)
        if self.horizon_min is not None and jobs and self.horizon_min <= jobs[0].arrival_min:
            trace = self.workload.trace
            where = ("the job list's" if trace is not None and trace.jobs is not None
                     else "the pod list's" if trace is not None
                     else f"seed {self.workload.seed if seed is None else seed}'s")
            raise ScenarioError(
                f"scenario '{self.label}', horizon_min: must be later than the first job's arrival "
                f"(got {self.horizon_min:g}, and {where} first job arrives at minute "
                f"{jobs[0].arrival_min:g}); a run ends at its horizon, so none of its jobs would run")
        return jobs, left_out

    def _draw_jobs(self, seed: int | None, n_jobs: int | None,
                   cluster: Cluster | None) -> tuple[list[Job], dict[str, int]]:
        """:meth:`trace_jobs` before the horizon is checked."""
        w = self.workload
        seed = w.seed if seed is None else seed
        cluster = cluster or self.build_cluster(seed)
        if w.trace is not None and w.trace.jobs is not None:
            jobs = _job_list(w.trace.jobs, n_jobs or w.jobs, self._row_check())
            jobs = [self._restricted(j) for j in jobs]
            try:
                check_jobs_feasible(jobs, cluster)
            except InfeasibleJobError as exc:  # named with its file, as every row problem is
                raise InfeasibleJobError(f"trace '{w.trace.jobs}': {exc}") from None
            return jobs, {}
        if w.trace is not None and w.trace.shockwave is not None:
            return shockwave_jobs(self.label, w.trace.shockwave, n_jobs or w.jobs), {}
        if w.trace is not None and w.trace.philly is not None:
            return philly_jobs(self.label, w.trace.philly, n_jobs or w.jobs, cluster, seed), {}
        if w.generator == "gavel":
            self._check_gavel_gangs(cluster)
            jobs = generate_gavel_jobs(n_jobs or w.jobs, self.arrival_rate_per_hour(cluster),
                                       np.random.default_rng(seed), multi_gpu=bool(w.multi_gpu),
                                       weights=bool(w.weights), deadlines=bool(w.deadlines))
            return [self._restricted(j) for j in jobs], {}
        if w.trace is None:
            rng = np.random.default_rng(seed)
            return generate_jobs(n_jobs or w.jobs, self.arrival_rate_per_hour(cluster), w.mix, rng,
                                 cluster.max_vram_gb_for_gpus()), {}
        from gpusched.workload.trace_jobs import hostable_jobs, openb_jobs

        pods = _openb_pods(w.trace.pods)
        jobs, cpu_only = openb_jobs(pods, time_compression=w.trace.time_compression,
                                    max_jobs=n_jobs or w.jobs)
        kept = hostable_jobs(jobs, cluster)
        return kept, {"cpu_only_pods": cpu_only, "unhostable_pods": len(jobs) - len(kept)}

    def _check_gavel_gangs(self, cluster: Cluster) -> None:
        """Refuse Gavel's multi-GPU jobs on a cluster whose nodes cannot hold an 8-GPU gang.

        :raises ScenarioError: naming ``workload.multi_gpu`` and the largest node.
        """
        largest = max(scale_factor_probabilities(bool(self.workload.multi_gpu)))
        if cluster.gang_placement == "spread":
            per_model = Counter(cluster.gpu_model)
            if max(per_model.values()) < largest:
                raise ScenarioError(
                    f"scenario '{self.label}', workload.multi_gpu: Gavel's generator draws gangs of up "
                    f"to {largest} GPUs of one model, but the cluster has at most "
                    f"{max(per_model.values())} GPUs of one model")
            return
        if cluster.max_gpus_per_node < largest:
            raise ScenarioError(
                f"scenario '{self.label}', workload.multi_gpu: Gavel's generator draws gangs of up "
                f"to {largest} GPUs on one node, but the largest node of the cluster holds "
                f"{cluster.max_gpus_per_node}")

    def left_out_note(self, cluster: Cluster | None = None) -> str | None:
        """For a synthetic workload, the one ``note:`` line naming the job shapes the cluster could
        never hold, which the generator leaves out (``None`` when nothing is left out, or for a
        trace workload, whose left-out pods :meth:`trace_jobs` counts)."""
        if self.workload.trace is not None or self.workload.generator == "gavel":
            return None
        cluster = cluster or self.build_cluster()
        return describe_left_out(left_out_shapes(self.workload.mix, cluster.max_vram_gb_for_gpus()))

    def with_overrides(self, **changes: Any) -> Scenario:
        """A copy with top-level or nested keys (``workload.load``, ``queue.window``) changed,
        re-validated. An optional top-level block the scenario leaves out (``queue:``,
        ``failures:``, ``checkpoint:``) is started with its documented defaults for the key; a key
        of such a block that has no default (``failures.node_failures_per_1000_node_days``,
        ``checkpoint.interval_min``) must then be among the changes too. Setting one of
        ``workload.load`` and ``workload.arrival_rate_per_hour`` clears the other.

        :raises ScenarioError: for a key whose parent is not a mapping, a started block without
            its required keys, or an invalid result.
        """
        data = self.model_dump()
        for key, other in (("workload.load", "arrival_rate_per_hour"),
                           ("workload.arrival_rate_per_hour", "load")):
            if changes.get(key) is not None and f"workload.{other}" not in changes:
                data["workload"][other] = None
        started: dict[str, tuple[str, list[str]]] = {}  # block -> (the key that started it, required keys)
        for key, value in changes.items():
            target, model = data, type(self)
            *path, last = key.split(".")
            for depth, part in enumerate(path):
                if target.get(part) is None and depth == 0:  # a top-level block left out (queue:)
                    block = _default_block(model, part)
                    if block is not None:
                        target[part], required = block
                        started[".".join(path[:depth + 1])] = (key, required)
                if not isinstance(target.get(part), dict):
                    raise ScenarioError(f"scenario '{self.label}', {key}: no such key to override")
                target, model = target[part], _block_model(model, part)
            target[last] = value
        for block, (key, required) in started.items():
            missing = [k for k in required if f"{block}.{k}" not in changes]
            if missing:
                raise ScenarioError(
                    f"scenario '{self.label}', {key}: the scenario has no '{block}:' block, so the "
                    f"override starts one with its documented defaults, but {block}.{missing[0]} has "
                    f"no default: override {block}.{missing[0]} as well, or add a '{block}:' block "
                    "to the scenario")
        try:
            changed = Scenario.model_validate(data)
        except ValidationError as exc:
            raise scenario_error(exc, self.label) from None
        changed._source = self._source
        return changed

    def to_yaml(self) -> str:
        """The scenario as YAML (round-trips through
        :func:`~gpusched.workload.scenario_yaml.scenario_from_yaml`)."""
        data = self.model_dump(mode="json", exclude_none=True)
        data["util_band"] = list(self.util_band)
        return yaml.safe_dump(data, sort_keys=False)


def told(scenario: Scenario, declared: str | dict) -> Scenario:
    """The scenario with only ``workload.declared_run_time`` replaced by ``declared`` (the older
    ``runtime_estimate_error`` key is cleared with it): the same jobs, told their run times
    otherwise."""
    return scenario.with_overrides(**{"workload.declared_run_time": declared,
                                      "workload.runtime_estimate_error": None})


def _block_model(model: type[BaseModel] | None, key: str) -> type[BaseModel] | None:
    """The model class of the block ``key`` of ``model`` (``QueueSpec`` for ``queue``), if any."""
    field = model.model_fields.get(key) if model is not None else None
    if field is None:
        return None
    candidates = typing.get_args(field.annotation) or (field.annotation,)
    return next((c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)), None)


def _default_block(model: type[BaseModel] | None, key: str) -> tuple[dict[str, Any], list[str]] | None:
    """The top-level block ``key`` of ``model`` with every key that has a default at its default
    (``{"window": 1, ...}`` for ``queue``), and the keys that have none
    (``["node_failures_per_1000_node_days"]`` for ``failures``); ``None`` if it has no such block.
    Nested blocks are never started (``workload.trace`` would turn a synthetic workload into a
    trace one: it is no key to override)."""
    block = _block_model(model, key)
    if block is None:
        return None
    values, required = {}, []
    for name, info in block.model_fields.items():
        if info.is_required():
            required.append(name)
            continue
        value = info.get_default(call_default_factory=True)
        values[name] = value.model_dump() if isinstance(value, BaseModel) else value
    return values, required


@functools.lru_cache(maxsize=8)
def _openb_nodes(name: str):
    from gpusched.workload.openb import read_openb_nodes

    return read_openb_nodes(name)


def _gavel_models_message(other: list[str]) -> str:
    """Why ``speed: gavel`` does not apply to a cluster naming ``other`` GPU models."""
    shown = ", ".join(f"'{m[:40]}'" for m in other[:3]) + (" ..." if len(other) > 3 else "")
    return (f"gavel's measured speeds apply to GPU models named exactly "
            f"{', '.join(GAVEL_GPU_MODELS)}; the cluster names {shown}")


def _job_list(path: str, n_jobs: int, check) -> list[Job]:  # noqa: ANN001 - a RowCheck or None
    from gpusched.workload.job_list import read_job_list

    return read_job_list(path, max_jobs=n_jobs, check_row=check)


def _listed_estimates(path: str) -> dict[int, float]:
    """A job list's ``estimate_min`` column by job id, read once per version of the file."""
    try:
        stat = Path(path).stat()
    except OSError:  # the reader says what is wrong, in one line
        return _listed_estimates_of.__wrapped__(path, 0, 0)
    return _listed_estimates_of(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _listed_estimates_of(path: str, mtime_ns: int, size: int) -> dict[int, float]:
    from gpusched.workload.job_list import read_listed_estimates

    return read_listed_estimates(path)


@functools.lru_cache(maxsize=8)
def _openb_pods(name: str):
    from gpusched.workload.openb import read_openb_pods

    return read_openb_pods(name)
