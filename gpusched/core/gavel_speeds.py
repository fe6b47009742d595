"""Gavel's measured speeds (``speed: gavel``): 26 job models measured on K80, P100 and V100.

The data is Gavel's ``simulation_throughputs.json`` (Narayanan et al., "Heterogeneity-Aware
Cluster Scheduling Policies for Deep Learning Workloads", OSDI 2020; MIT licence), shipped
unchanged in ``assets/gavel/`` with its licence, source commit and sha256.

**What it becomes.** For each job model and scale factor ``g`` (the job's GPU count), the
throughput of the job running alone (``"null"``, training steps per second) on each GPU type, with
its ``g`` GPUs consolidated on one server. A job's speed on a GPU type is that throughput divided by
the V100's at the same scale factor: the V100 is the reference (speed 1.0), so ``duration_min`` is
the job's run time on V100s, as in Gavel's generator (steps = duration × V100 throughput). The
table applies to GPU models named exactly ``K80``, ``P100`` and ``V100``.

**Not runnable.** A throughput of 0 means the job does not fit that GPU type at that scale (in the
shipped file: ResNet-50 at batch 128 on 2, 4 or 8 K80s). Such an entry is left out of the table,
and :func:`runnable_gpu_models` names the GPU types that can run a job, so that its jobs are
restricted to them (``Job.gpu_spec``).

**Pairs** (every key beside ``"null"``): the throughputs of two jobs of the same scale factor
sharing their GPUs, measured together. :func:`pair_throughputs` reads them and
:func:`colocation_factors` turns them into each member's speed factor (its throughput in the pair
÷ its throughput alone on the same GPU type), which only the round mechanism's co-located pairs
read (:mod:`gpusched.core.rounds.pairs`, ``max_min_fairness_packed``); the event-driven
simulator's own sharing is by compute and VRAM shares.

**Spread gangs.** The ``*_unconsolidated`` values (a gang spread over several servers) apply with
``cluster.gang_placement: spread`` (:class:`gpusched.core.gang.SpreadGang`): a gang that spans
nodes runs at its consolidated speed times :func:`spread_speed_table`'s factor, unconsolidated ÷
consolidated throughput on its GPU type.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json

from gpusched.core.speed import MODELS_KEY
from gpusched.paths import GAVEL_THROUGHPUTS

GAVEL_GPU_MODELS: tuple[str, ...] = ("K80", "P100", "V100")
"""The GPU models ``speed: gavel`` applies to, exactly as a cluster must name them."""

GAVEL_REFERENCE = "V100"
"""The GPU on which a job's ``duration_min`` is its run time under ``speed: gavel``."""

GAVEL_THROUGHPUTS_SHA256 = "17111f7295f03265fd9e5118d7eba31e3dd9d6e50a2e215c13ad3d3f91f74381"
"""sha256 of the shipped file (Gavel commit c4fa40097339e9608ab71fd64c8bdea96a5e4a4c)."""

_KEYS = {"K80": "k80", "P100": "p100", "V100": "v100"}


def file_sha256() -> str:
    """The sha256 of the shipped throughputs file (hex)."""
    return hashlib.sha256(GAVEL_THROUGHPUTS.read_bytes()).hexdigest()


@functools.lru_cache(maxsize=1)
def throughputs() -> dict[str, dict[tuple[str, int], float]]:
    """GPU model (``K80``, ``P100``, ``V100``) -> ``(job model, scale factor)`` -> the measured
    throughput of the job alone, consolidated (steps per second; 0 where it does not fit)."""
    data = json.loads(GAVEL_THROUGHPUTS.read_text(encoding="utf-8"))
    out: dict[str, dict[tuple[str, int], float]] = {}
    for model, key in _KEYS.items():
        out[model] = {}
        for name, entry in data[key].items():
            job_model, scale = ast.literal_eval(name)
            out[model][(str(job_model), int(scale))] = float(entry["null"])
    return out


@functools.lru_cache(maxsize=1)
def job_models() -> tuple[str, ...]:
    """The 26 job models, in the file's order."""
    return tuple(dict.fromkeys(m for m, _ in throughputs()[GAVEL_REFERENCE]))


@functools.lru_cache(maxsize=1)
def measured_scales() -> dict[str, tuple[int, ...]]:
    """Job model -> the scale factors (GPU counts) it was measured at, ascending."""
    scales: dict[str, list[int]] = {}
    for model, scale in throughputs()[GAVEL_REFERENCE]:
        scales.setdefault(model, []).append(scale)
    return {m: tuple(sorted(s)) for m, s in scales.items()}


def distributed_models() -> tuple[str, ...]:
    """The job models measured on more than one GPU (ResNet-18, ResNet-50, Transformer, LM)."""
    return tuple(m for m, s in measured_scales().items() if max(s) > 1)


@functools.lru_cache(maxsize=1)
def gavel_speed_table() -> dict[str, dict[str, dict[int, float]]]:
    """GPU model -> job model -> scale factor -> speed relative to the V100 at that scale (the
    table of :class:`gpusched.core.speed.GpuSpeeds`); entries that do not fit are left out."""
    thr = throughputs()
    reference = thr[GAVEL_REFERENCE]
    table: dict[str, dict[str, dict[int, float]]] = {}
    for model in GAVEL_GPU_MODELS:
        rows: dict[str, dict[int, float]] = {}
        for (job_model, scale), value in thr[model].items():
            if value > 0:
                rows.setdefault(job_model, {})[scale] = value / reference[(job_model, scale)]
        table[model] = rows
    return table


def gavel_speed_rows() -> dict[str, dict[str, dict[str, dict[int, float]]]]:
    """:func:`gavel_speed_table` as the rows of :class:`gpusched.core.speed.GpuSpeeds`: each GPU
    model's job models under :data:`~gpusched.core.speed.MODELS_KEY` (no job type entries)."""
    return {gpu: {MODELS_KEY: rows} for gpu, rows in gavel_speed_table().items()}


def runnable_gpu_models(job_model: str, gpus: int) -> tuple[str, ...]:
    """The GPU models whose measured throughput for ``job_model`` on ``gpus`` GPUs is above 0."""
    return tuple(m for m in GAVEL_GPU_MODELS if throughputs()[m].get((job_model, gpus), 0.0) > 0)


def unknown_gpu_models(gpu_models) -> list[str]:  # noqa: ANN001 - any iterable of names
    """The GPU models among ``gpu_models`` that ``speed: gavel`` does not apply to, in order."""
    return [m for m in dict.fromkeys(gpu_models) if m not in GAVEL_GPU_MODELS]


def describe_measured(job_model: str) -> str:
    """How a message names what was measured of a job model: ``measured on 1, 2, 4 or 8 GPUs``."""
    scales = [str(s) for s in measured_scales()[job_model]]
    shown = scales[0] if len(scales) == 1 else f"{', '.join(scales[:-1])} or {scales[-1]}"
    return f"measured on {shown} GPU{'' if scales == ['1'] else 's'}"


@functools.lru_cache(maxsize=1)
def unconsolidated_throughputs() -> dict[str, dict[tuple[str, int], float]]:
    """GPU model -> ``(job model, scale factor)`` -> the measured throughput of the job alone with
    its GPUs spread over several servers (``*_unconsolidated``; steps per second, 0 where it does
    not fit or was not measured)."""
    data = json.loads(GAVEL_THROUGHPUTS.read_text(encoding="utf-8"))
    out: dict[str, dict[tuple[str, int], float]] = {}
    for model, key in _KEYS.items():
        out[model] = {}
        for name, entry in data[f"{key}_unconsolidated"].items():
            job_model, scale = ast.literal_eval(name)
            out[model][(str(job_model), int(scale))] = float(entry["null"])
    return out


@functools.lru_cache(maxsize=1)
def spread_speed_table() -> dict[str, dict[str, dict[int, float]]]:
    """GPU model -> job model -> scale factor (above 1) -> the speed factor of a gang spread over
    several servers: its unconsolidated throughput divided by its consolidated one on the same GPU
    type. Only where both were measured (above 0); elsewhere the table has no value. Gavel's own
    simulator never reads the unconsolidated values (see :mod:`gpusched.core.gang`)."""
    packed, spread = throughputs(), unconsolidated_throughputs()
    table: dict[str, dict[str, dict[int, float]]] = {}
    for model in GAVEL_GPU_MODELS:
        rows: dict[str, dict[int, float]] = {}
        for (job_model, scale), value in spread[model].items():
            alone = packed[model].get((job_model, scale), 0.0)
            if scale > 1 and value > 0 and alone > 0:
                rows.setdefault(job_model, {})[scale] = value / alone
        table[model] = rows
    return table


@functools.lru_cache(maxsize=1)
def pair_throughputs() -> dict[str, dict[tuple[tuple[str, int], tuple[str, int]], tuple[float, float]]]:
    """GPU model -> ``((model a, scale), (model b, scale))`` -> the measured throughputs (steps per
    second) of ``a`` and ``b`` sharing ``scale`` GPUs of that model, in that order; only pairs of
    one scale factor (the file holds no other). A 0 means the pair does not run there."""
    data = json.loads(GAVEL_THROUGHPUTS.read_text(encoding="utf-8"))
    out: dict[str, dict[tuple[tuple[str, int], tuple[str, int]], tuple[float, float]]] = {}
    for model, key in _KEYS.items():
        table = out[model] = {}
        for name, entry in data[key].items():
            job_a = ast.literal_eval(name)
            job_a = (str(job_a[0]), int(job_a[1]))
            for other, values in entry.items():
                if other == "null":
                    continue
                job_b = ast.literal_eval(other)
                table[(job_a, (str(job_b[0]), int(job_b[1])))] = (float(values[0]), float(values[1]))
    return out


def colocation_factors(model_a: str, model_b: str, scale: int, gpu_model: str) -> tuple[float, float]:
    """Each member's speed factor when jobs of ``model_a`` and ``model_b`` share ``scale`` GPUs of
    ``gpu_model``: its measured throughput in the pair ÷ its throughput alone there (no unit;
    ``(0, 0)`` where the pair, or either job alone, was not measured or does not run)."""
    pair = pair_throughputs().get(gpu_model, {}).get(((model_a, scale), (model_b, scale)))
    alone = throughputs().get(gpu_model, {})
    solo_a, solo_b = alone.get((model_a, scale), 0.0), alone.get((model_b, scale), 0.0)
    if pair is None or min(pair) <= 0 or solo_a <= 0 or solo_b <= 0:
        return 0.0, 0.0
    return pair[0] / solo_a, pair[1] / solo_b
