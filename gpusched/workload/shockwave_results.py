"""Reader for Shockwave's per-policy outcomes: the real cluster's and its simulator's.

Shockwave's artifact (``uw-mad-dash/shockwave``, MIT; ``scheduler/reproduce/analyze_fidelity.py``
reads the same outcomes from its pickles) ran its 120-job trace on 32 real V100s at TACC and in its
own simulator. The shipped files (:data:`gpusched.paths.SHOCKWAVE_RESULTS_DIR`,
``POLICY.physical.json`` and ``POLICY.simulation.json``) are those pickles converted to plain JSON,
a mapping with:

| key | meaning |
|---|---|
| ``policy`` | the policy's name (``max_min_fairness``, ...) |
| ``kind`` | ``physical`` (the real cluster) or ``simulation`` (Shockwave's simulator) |
| ``avg_jct_s``, ``makespan_s`` | average job completion time and makespan (s) |
| ``cluster_util`` | the cluster's utilisation (0-1) |
| ``time_per_iteration_s`` | the round length (s) |
| ``rounds`` | rounds run |
| ``jct_s`` | each job's completion time (s, > 0), in trace order (job 0 first) |
| ``finish_time_fairness`` | each job's finish-time fairness, as Shockwave computes it (>= 0) |
| ``throughput_timeline`` | job id -> ``[round, throughput in steps/s, batch size]`` per round it ran |

:func:`read_shockwave_result` checks all of it, and that ``avg_jct_s`` is the mean of ``jct_s``;
every problem is one line naming the file and the key (:class:`~gpusched.workload.openb.TraceError`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from gpusched.limits import MAX_JOBS, MAX_MODEL_CHARS, MAX_QUANTITY
from gpusched.paths import SHOCKWAVE_RESULTS_DIR
from gpusched.workload.openb import TraceError
from gpusched.workload.shockwave import read_json_mapping

RESULT_KINDS: tuple[str, ...] = ("physical", "simulation")
"""The real cluster, and Shockwave's simulator."""

_MEAN_TOLERANCE = 1e-9
"""Largest relative difference between ``avg_jct_s`` and the mean of ``jct_s``."""


@dataclass(frozen=True)
class ShockwaveResult:
    """One policy's outcome on the real cluster or in Shockwave's simulator.

    :param source: the file it was read from.
    :param policy: the policy's name.
    :param kind: ``physical`` or ``simulation``.
    :param avg_jct_s: average job completion time (s).
    :param makespan_s: makespan (s).
    :param cluster_util: utilisation (0-1).
    :param round_s: the round length (s).
    :param rounds: rounds run.
    :param jct_s: each job's completion time (s), by job id.
    :param finish_time_fairness: each job's finish-time fairness, by job id.
    :param timeline: job id -> ``(round, steps/s, batch size)`` per round it ran.
    """

    source: str
    policy: str
    kind: str
    avg_jct_s: float
    makespan_s: float
    cluster_util: float
    round_s: float
    rounds: int
    jct_s: np.ndarray
    finish_time_fairness: np.ndarray
    timeline: Mapping[int, tuple[tuple[int, float, int], ...]]


def shipped_result_path(policy: str, kind: str) -> Path:
    """The shipped outcome of ``policy`` on the real cluster (``physical``) or in Shockwave's
    simulator (``simulation``)."""
    return SHOCKWAVE_RESULTS_DIR / f"{policy}.{kind}.json"


def shipped_result_policies() -> tuple[str, ...]:
    """The policies with both shipped outcomes, sorted."""
    names = {p.name.split(".")[0] for p in SHOCKWAVE_RESULTS_DIR.glob("*.json")}
    return tuple(sorted(n for n in names if all(shipped_result_path(n, k).is_file() for k in RESULT_KINDS)))


def _number(value: Any, where: str, *, low: float, high: float = MAX_QUANTITY, whole: bool = False,
            low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TraceError(f"{where}: must be a number (got {repr(value)[:40]})")
    value = float(value)
    if not math.isfinite(value) or value < low or (low_open and value == low) or value > high:
        bound = f"> {low:g}" if low_open else f">= {low:g}"
        raise TraceError(f"{where}: must be {bound} and <= {high:g} (got {value:g})")
    if whole and not value.is_integer():
        raise TraceError(f"{where}: must be a whole number (got {value:g})")
    return value


def _numbers(value: Any, where: str, *, low: float, low_open: bool) -> np.ndarray:
    if not isinstance(value, list) or not value:
        raise TraceError(f"{where}: must be a non-empty list of numbers")
    if len(value) > MAX_JOBS:
        raise TraceError(f"{where}: {len(value):,} jobs, more than the limit of {MAX_JOBS:,}")
    return np.array([_number(v, f"{where}[{i}]", low=low, low_open=low_open) for i, v in enumerate(value)])


def read_shockwave_result(path: str | Path) -> ShockwaveResult:
    """Read and validate one outcome file (see the module docstring).

    :raises TraceError: one line naming the file and the key: not a JSON mapping, a key missing, a
        value of the wrong kind or out of bounds, lists of different lengths, a timeline entry that
        is not ``[round, steps/s, batch size]`` or names no job of the list, or an ``avg_jct_s``
        that is not the mean of ``jct_s``.
    """
    path = Path(path)
    label = f"results '{path}'"
    data = read_json_mapping(path, label, "keys")
    keys = ("policy", "kind", "avg_jct_s", "makespan_s", "cluster_util", "time_per_iteration_s", "rounds",
            "jct_s", "finish_time_fairness", "throughput_timeline")
    for key in keys:
        if key not in data:
            raise TraceError(f"{label}, key '{key}': missing")

    def where(key: str) -> str:
        return f"{label}, key '{key}'"

    policy = data["policy"]
    if not isinstance(policy, str) or not 0 < len(policy) <= MAX_MODEL_CHARS:
        raise TraceError(f"{where('policy')}: must be a name of 1 to {MAX_MODEL_CHARS} characters")
    if data["kind"] not in RESULT_KINDS:
        raise TraceError(f"{where('kind')}: must be one of {', '.join(RESULT_KINDS)} "
                         f"(got {repr(data['kind'])[:40]})")
    jct = _numbers(data["jct_s"], where("jct_s"), low=0, low_open=True)
    fairness = _numbers(data["finish_time_fairness"], where("finish_time_fairness"), low=0, low_open=False)
    if len(fairness) != len(jct):
        raise TraceError(f"{where('finish_time_fairness')}: {len(fairness)} values for {len(jct)} jobs")
    average = _number(data["avg_jct_s"], where("avg_jct_s"), low=0, low_open=True)
    if abs(average - float(np.mean(jct))) > _MEAN_TOLERANCE * average:
        raise TraceError(f"{where('avg_jct_s')}: {average:g} is not the mean of jct_s ({np.mean(jct):g})")
    raw = data["throughput_timeline"]
    if not isinstance(raw, dict):
        raise TraceError(f"{where('throughput_timeline')}: must be a mapping of job ids")
    timeline: dict[int, tuple[tuple[int, float, int], ...]] = {}
    for key, entries in raw.items():
        at = f"{where('throughput_timeline')}[{key[:20]!r}]"
        if not (key.isascii() and key.isdigit() and int(key) < len(jct)):
            raise TraceError(f"{at}: must be a job id from 0 to {len(jct) - 1}")
        if not isinstance(entries, list):
            raise TraceError(f"{at}: must be a list of [round, steps/s, batch size]")
        rows = []
        for i, entry in enumerate(entries):
            if not isinstance(entry, list) or len(entry) != 3:
                raise TraceError(f"{at}[{i}]: must be [round, steps/s, batch size]")
            rows.append((int(_number(entry[0], f"{at}[{i}][0]", low=0, whole=True)),
                         _number(entry[1], f"{at}[{i}][1]", low=0),
                         int(_number(entry[2], f"{at}[{i}][2]", low=1, whole=True))))
        timeline[int(key)] = tuple(rows)
    return ShockwaveResult(
        source=str(path), policy=policy, kind=data["kind"], avg_jct_s=average,
        makespan_s=_number(data["makespan_s"], where("makespan_s"), low=0, low_open=True),
        cluster_util=_number(data["cluster_util"], where("cluster_util"), low=0, high=1),
        round_s=_number(data["time_per_iteration_s"], where("time_per_iteration_s"), low=0, low_open=True),
        rounds=int(_number(data["rounds"], where("rounds"), low=0, whole=True)),
        jct_s=jct, finish_time_fairness=fairness, timeline=MappingProxyType(timeline),
    )
