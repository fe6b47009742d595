"""The phases of Shockwave's jobs: how ``accordion`` and ``gns`` jobs change their batch size.

Shockwave's simulator (``uw-mad-dash/shockwave``, ``scheduler/scheduler.py``) changes a dynamic
job's batch size at the end of a round: ``_simulate_accordion`` and ``_simulate_gns`` decide from
the job's epoch count, ``_scale_bs_and_iters`` applies the change (new batch size, its measured
throughput from the throughputs file, the steps left rescaled so that the number of epochs is
kept). This module turns a job of the trace into :class:`gpusched.core.phases.JobPhases` by the
same rules, applied at epoch boundaries.

**Epochs.** An epoch is one pass over the model's dataset (:data:`DATASET_SAMPLES`, Shockwave's
``dataset_size_dict``): ``ceil(samples / B)`` steps at batch size ``B``. A job holds
``total_steps / ceil(samples / B0)`` epochs at its initial batch size ``B0`` (the last one may be
partial); every batch size runs whole epochs of its own steps, so the job's epochs are kept
whatever its batch sizes (as ``_scale_bs_and_iters`` keeps them).

**When the batch size changes.** Shockwave decides from ``c``, the number of epochs the job has
started. We apply a decision made while epoch ``k - 1`` runs (``c = k``) from epoch ``k`` on:

- ``accordion`` (``_simulate_accordion``; Accordion, Agarwal et al., MLSys 2021): in a *critical
  regime* the job runs at its initial batch size, outside it at its model's largest
  (:data:`MAX_BATCH`). Critical (:func:`accordion_critical`): ``LM`` while ``c < 10``;
  ``Recommendation`` while ``c < 30`` (B0 512 or 1,024), ``c < 40`` (2,048) or ``c < 10`` (4,096 or
  8,192); ``ResNet-50`` while ``c mod 30 < 10``; ``ResNet-18`` while ``c < 10`` (``c < 20`` for B0
  256), ``150 <= c < 160`` or ``250 <= c < 260``. ``Transformer``, ``CycleGAN`` and ``A3C`` never
  change (as ``get_accordion_bs_pattern`` in ``scheduler/utils.py`` leaves them). These are the
  simulator's regimes; the pattern its Shockwave policy plans with (``get_accordion_bs_pattern``)
  adds two for Recommendation (epochs 60-69 and 80-89) and keeps the first 30 % of a job in the
  regime, which the simulator does not.
- ``gns`` (``_simulate_gns``; the gradient noise scale): the job follows the pattern of
  ``get_gns_bs_pattern`` (``scheduler/utils.py``, :data:`GNS_STEPS`): from given epochs, a multiple
  (2, 4, 8, 16) of its initial batch size, for given (model, B0, GPUs), capped at the model's
  largest (:data:`GNS_LIMIT`). When the pattern at epoch ``c`` or ``c + 1`` is above its batch
  size, the job doubles it: so it reaches each step of the pattern one epoch early, one doubling
  at a time.
- A change is refused, and the job keeps its batch size, when its initial batch size is its
  model's largest (:data:`MAX_BATCH`), when it is already at its model's largest, or when the
  throughputs file has no entry for the new job type at its GPU count on a GPU type of the cluster
  (as ``_scale_bs_and_iters`` refuses it).

**What this leaves to the rounds.** In Shockwave's simulator a decision is taken at the end of a
round and applied at the end of the job's next round, and applying it counts the epoch in progress
as done (``ceil`` of the epochs run). Both depend on rounds; here the change lands exactly at the
next epoch boundary, and the epoch in progress is run to its end.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

from gpusched.core.phases import JobPhases, Phase
from gpusched.limits import MAX_PHASES
from gpusched.workload.openb import TraceError
from gpusched.workload.shockwave import (
    TACC_GPUS,
    ShockwaveJob,
    ShockwaveThroughputs,
    ShockwaveTrace,
)

DATASET_SAMPLES: dict[str, int] = {
    "ResNet-18": 50_000,      # CIFAR-10
    "ResNet-50": 100_000,     # ImageNet, as Shockwave samples it
    "Transformer": 10_000,    # Multi30k
    "LM": 59_675,             # Wikitext-2
    "Recommendation": 117_907,  # ML-20M
    "CycleGAN": 6_287,        # monet2photo
    "A3C": 4,                 # no dataset
}
"""Samples in one epoch of each model's dataset (Shockwave's ``dataset_size_dict``)."""

MAX_BATCH: dict[str, int] = {"LM": 80, "ResNet-18": 256, "ResNet-50": 128, "Recommendation": 8192}
"""The largest batch size of each model whose batch size may change (``max_bs_dict``)."""

GNS_LIMIT: dict[str, int] = {**MAX_BATCH, "Transformer": 128}
"""The cap of the gradient-noise-scale pattern (``bs_limit`` of ``get_gns_bs_pattern``)."""

GNS_STEPS: dict[tuple[str, int, int], tuple[tuple[int, int], ...]] = {
    ("ResNet-18", 16, 1): ((31, 2), (41, 4), (51, 8), (71, 16)),
    ("ResNet-18", 32, 1): ((21, 2), (31, 4), (51, 8)),
    ("ResNet-18", 64, 1): ((11, 2), (31, 4)),
    ("ResNet-18", 128, 1): ((11, 2),),
    ("ResNet-18", 16, 2): ((21, 2), (31, 4), (91, 8), (111, 16)),
    ("ResNet-18", 32, 2): ((11, 2), (21, 4), (41, 8)),
    ("ResNet-18", 64, 2): ((21, 2), (41, 4)),
    ("ResNet-18", 128, 2): ((41, 2),),
    ("ResNet-18", 16, 4): ((11, 2), (21, 4), (81, 8), (91, 16)),
    ("ResNet-18", 32, 4): ((21, 2), (31, 4), (61, 8)),
    ("ResNet-18", 64, 4): ((11, 2), (61, 4)),
    ("ResNet-18", 128, 4): ((11, 2),),
    ("ResNet-50", 64, 1): ((101, 2),),
    ("ResNet-50", 32, 2): ((101, 2), (111, 4)),
    ("ResNet-50", 64, 2): ((81, 2),),
    ("ResNet-50", 32, 4): ((131, 2), (221, 4)),
    ("ResNet-50", 64, 4): ((191, 2),),
    ("LM", 5, 1): ((31, 2), (41, 4), (61, 8), (71, 16)),
    ("LM", 10, 1): ((11, 2), (21, 4), (41, 8)),
    ("LM", 20, 1): ((11, 2), (41, 4)),
    ("LM", 40, 1): ((11, 2),),
    ("LM", 5, 2): ((31, 2), (51, 4), (61, 8), (71, 16)),
    ("LM", 10, 2): ((11, 2), (31, 4), (41, 8)),
    ("LM", 20, 2): ((31, 2), (41, 4)),
    ("LM", 40, 2): ((11, 2),),
    ("LM", 5, 4): ((11, 2), (31, 4), (71, 8), (91, 16)),
    ("LM", 10, 4): ((11, 2), (31, 4), (61, 8)),
    ("LM", 20, 4): ((11, 2), (61, 4)),
    ("LM", 40, 4): ((61, 2),),
    ("Recommendation", 512, 1): ((21, 2), (41, 4), (71, 8), (91, 16)),
    ("Recommendation", 1024, 1): ((21, 2), (51, 4), (91, 8)),
    ("Recommendation", 2048, 1): ((21, 2), (41, 4)),
    ("Recommendation", 4096, 1): ((41, 2),),
}
"""``get_gns_bs_pattern``: for (model, initial batch size, GPUs), the epochs (0-based) from which
the pattern is each multiple of the initial batch size. Any other job keeps its batch size."""

_RECOMMENDATION_HEAD = {512: 30, 1024: 30, 2048: 40, 4096: 10, 8192: 10}


def accordion_critical(model: str, initial_batch: int, started_epochs: int) -> bool | None:
    """Whether an ``accordion`` job is in a critical regime after starting ``started_epochs``
    epochs (``_simulate_accordion``); ``None`` where Shockwave has no rule (its simulator would
    stop), ``True`` for a model whose batch size never changes."""
    c = started_epochs
    if model == "LM":
        return c < 10
    if model == "Recommendation":
        head = _RECOMMENDATION_HEAD.get(initial_batch)
        return None if head is None else c < head
    if model == "ResNet-50":
        return c % 30 < 10
    if model == "ResNet-18":
        head = 20 if initial_batch == 256 else 10
        return c < head or 150 <= c < 160 or 250 <= c < 260
    if model in ("Transformer", "CycleGAN", "A3C"):
        return True
    return None


def gns_pattern(model: str, initial_batch: int, gpus: int, epoch: int) -> int:
    """The batch size ``get_gns_bs_pattern`` gives a ``gns`` job for ``epoch`` (0-based)."""
    multiple = 1
    for start, factor in GNS_STEPS.get((model, initial_batch, gpus), ()):
        if epoch >= start:
            multiple = factor
    return min(initial_batch * multiple, GNS_LIMIT.get(model, initial_batch * multiple))


def _where(trace: ShockwaveTrace, job: ShockwaveJob) -> str:
    return f"trace '{trace.source}', line {job.id + 1}"


def epochs_of(job: ShockwaveJob) -> float:
    """The job's epochs: its total steps over the steps of one epoch at its initial batch size."""
    return job.total_steps / math.ceil(DATASET_SAMPLES[job.model] / job.batch_size)


def _critical_runs(model: str, initial: int, n_epochs: int) -> Iterator[tuple[int, bool]]:
    """``(first epoch, critical)`` for each run of epochs below ``n_epochs`` that
    :func:`accordion_critical` treats alike, in order (one per regime change, not per epoch)."""
    if model == "ResNet-50":  # periodic: 10 critical epochs in every 30
        for base in range(0, n_epochs, 30):
            yield base, True
            if base + 10 < n_epochs:
                yield base + 10, False
        return
    edges = {0, n_epochs}
    if model == "LM":
        edges |= {10}
    elif model == "Recommendation":
        edges |= {_RECOMMENDATION_HEAD[initial]}
    elif model == "ResNet-18":
        edges |= {20 if initial == 256 else 10, 150, 160, 250, 260}
    for edge in sorted(e for e in edges if e < n_epochs):
        yield edge, bool(accordion_critical(model, initial, edge))


def batch_size_runs(trace: ShockwaveTrace, job: ShockwaveJob, throughputs: ShockwaveThroughputs,
                    gpu_models: Iterable[str] = tuple(TACC_GPUS),
                    max_runs: int = MAX_PHASES) -> tuple[tuple[int, int], ...]:
    """The job's batch sizes by epoch (see the module docstring), as runs: ``(first epoch, batch
    size)`` for each change, the first at epoch 0, consecutive runs of different batch sizes. It
    takes one step per change, not per epoch.

    :param trace: the trace the job is from (for messages).
    :param job: a job of the trace with a batch size and a model of :data:`DATASET_SAMPLES`.
    :param throughputs: the throughputs file (a new batch size needs an entry there).
    :param gpu_models: the cluster's GPU types (an entry is needed on each).
    :param max_runs: the most runs it may have.
    :raises TraceError: for an ``accordion`` job Shockwave has no rule for, or more runs than
        ``max_runs``.
    """
    initial = job.batch_size
    n_epochs = math.ceil(epochs_of(job) - 1e-12)
    models = tuple(gpu_models)

    def measured(batch: int) -> bool:
        key = (f"{job.model} (batch size {batch})", job.scale_factor)
        return all(key in throughputs.consolidated.get(g, {}) for g in models)

    if job.mode == "accordion" and accordion_critical(job.model, initial, 0) is None:
        raise TraceError(f"{_where(trace, job)}, column 'job_type': Shockwave has no Accordion rule "
                         f"for {job.model} at batch size {initial}")
    runs = [(0, initial)]
    if job.mode == "static" or n_epochs <= 1 or MAX_BATCH.get(job.model) == initial:
        return tuple(runs)

    def change(epoch: int, batch: int) -> None:
        if len(runs) >= max_runs:
            raise TraceError(f"{_where(trace, job)}: its batch size changes so often that the trace "
                             f"would hold more than MAX_PHASES ({MAX_PHASES:,}) phases")
        runs.append((epoch, batch))

    if job.mode == "accordion":
        largest = MAX_BATCH.get(job.model, initial)
        if largest == initial or not measured(largest):
            return tuple(runs)
        back = measured(initial)
        for epoch, critical in _critical_runs(job.model, initial, n_epochs):
            current = runs[-1][1]
            if epoch == 0:
                continue
            if not critical and current == initial:
                change(epoch, largest)
            elif critical and current != initial:
                if not back:  # the scale-down is refused for good
                    break
                change(epoch, initial)
        return tuple(runs)
    cap = GNS_LIMIT.get(job.model)
    last = 0
    for start, factor in GNS_STEPS.get((job.model, initial, job.scale_factor), ()):
        target = min(initial * factor, cap) if cap else initial * factor
        while runs[-1][1] < target and runs[-1][1] != cap:
            epoch = max(start - 1, last + 1)  # the pattern one epoch ahead, one doubling an epoch
            doubled = 2 * runs[-1][1]
            if epoch >= n_epochs or not measured(doubled):
                return tuple(runs)
            change(epoch, doubled)
            last = epoch
    return tuple(runs)


def job_phases(trace: ShockwaveTrace, job: ShockwaveJob, throughputs: ShockwaveThroughputs,
               gpu_models: Iterable[str] = tuple(TACC_GPUS), max_phases: int = MAX_PHASES) -> JobPhases:
    """The phases of one job: each run of epochs at one batch size (:func:`batch_size_runs`) is a
    phase, with that batch size's measured throughput on every GPU type of the throughputs file.

    A ``static`` job, or one that names no batch size, is one phase of ``total_steps`` steps.

    :raises TraceError: naming the line, for a job whose initial job type has no throughput on any
        GPU type, a dynamic job of a model with no known dataset size, an ``accordion`` job
        Shockwave has no rule for, or more than ``max_phases`` phases.
    """
    def speeds(job_type: str) -> dict[str, float]:
        return {g: throughputs.steps_per_s(g, job_type, job.scale_factor)
                for g in throughputs.gpu_models}

    first = speeds(job.job_type)
    if not any(v > 0 for v in first.values()):
        raise TraceError(f"{_where(trace, job)}, column 'job_type': throughputs '{throughputs.source}' "
                         f"has no throughput for {job.job_type!r} on {job.scale_factor} GPU(s)")
    if job.mode == "static" or job.batch_size is None:
        return JobPhases.rigid(job.total_steps, first, job.batch_size)
    if job.model not in DATASET_SAMPLES:
        raise TraceError(f"{_where(trace, job)}, column 'job_type': a {job.mode} job counts its work in "
                         f"epochs, and Shockwave knows no dataset size for {job.model} (it knows "
                         f"{', '.join(DATASET_SAMPLES)})")
    runs = batch_size_runs(trace, job, throughputs, gpu_models, max_phases)
    epochs = epochs_of(job)
    ends = [start for start, _ in runs[1:]] + [epochs]  # the last epoch may be partial
    cache: dict[int, dict[str, float]] = {job.batch_size: first}
    phases = []
    for (start, batch), end in zip(runs, ends, strict=True):
        if batch not in cache:
            cache[batch] = speeds(f"{job.model} (batch size {batch})")
        span = end - start
        phases.append(Phase(span * math.ceil(DATASET_SAMPLES[job.model] / batch), cache[batch], batch, span))
    return JobPhases(tuple(phases))


def trace_phases(trace: ShockwaveTrace, throughputs: ShockwaveThroughputs,
                 gpu_models: Iterable[str] = tuple(TACC_GPUS)) -> tuple[JobPhases, ...]:
    """The phases of every job of the trace, in line order (index = job id).

    :raises TraceError: as :func:`job_phases`, or when the jobs' phases together exceed
        :data:`gpusched.limits.MAX_PHASES`.
    """
    models = tuple(gpu_models)
    out = []
    left = MAX_PHASES
    for job in trace.jobs:
        if left <= 0:
            raise TraceError(f"{_where(trace, job)}: the trace's jobs have more than {MAX_PHASES:,} "
                             "phases in all (limit MAX_PHASES)")
        phases = job_phases(trace, job, throughputs, models, max_phases=left)
        left -= len(phases)
        out.append(phases)
    return tuple(out)
