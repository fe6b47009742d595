"""What the scheduler is told of each job's run time: the scenario key ``workload.declared_run_time``.

- ``exact``: every job declares its true run time, whatever a job list's ``estimate_min`` column
  says (the default without a job list);
- ``listed``: a job list's ``estimate_min`` column, the true run time where a job has none (the
  default with a job list, so a jobs table reads back with its estimates); refused without one;
- ``{lognormal: SIGMA}``: each declared time is ``duration * exp(SIGMA * Z)``, ``Z ~ N(0, 1)``, from
  a generator of its own (:class:`~gpusched.core.estimator.LognormalRuntime`); it replaces
  ``workload.runtime_estimate_error: SIGMA``, which is still read as this mode, with a note;
- ``none``: nothing is declared (:class:`~gpusched.core.estimator.UndeclaredRuntime`); a policy
  that reads run times is refused on such a run, in one line
  (:func:`gpusched.policies.registry.reads_run_times`), unless the run is given an estimator;
- ``history``, or ``{history: {keys: [[model, gpus], [model], ...], prior_min: 60, min_samples:
  1, recent: N}}`` (``recent`` optional): the online estimator of
  :mod:`gpusched.core.history_estimator`, which predicts an arriving job's run time from the jobs
  completed before it arrived.

Each mode is an estimator (:mod:`gpusched.core.estimator`), built by :func:`estimator_factory`;
a job carries its true run time only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from gpusched.core.estimator import DeclaredRuntime, LognormalRuntime, UndeclaredRuntime
from gpusched.core.history_estimator import DEFAULT_KEYS, DEFAULT_PRIOR_MIN, KEY_FIELDS, HistoryEstimator
from gpusched.core.numbers import read_as_text
from gpusched.limits import MAX_ESTIMATE_ERROR, MIN_DURATION_MIN

MODES: tuple[str, ...] = ("exact", "none", "history", "listed")
"""The modes written as a word (``lognormal`` takes its sigma: ``{lognormal: 1.0}``)."""

HISTORY_OPTIONS: tuple[str, ...] = ("keys", "prior_min", "min_samples", "recent")
"""The options of ``{history: {...}}``."""

MAX_PRIOR_MIN = 1e6
"""The largest ``prior_min`` (minutes)."""

MAX_RECENT = 100_000
"""The largest ``recent`` (completions a group keeps; each arrival sums them)."""


def check_declared(value: Any) -> str | dict[str, Any]:
    """A ``declared_run_time`` value checked and normalised (``exact``, ``none``, ``history``,
    ``{"lognormal": sigma}`` or ``{"history": {...}}``).

    :raises ValueError: one line naming what is wrong.
    """
    if isinstance(value, str):
        if value in MODES:
            return value
        raise ValueError(f"must be one of {', '.join(MODES)} or {{lognormal: SIGMA}} (got '{value[:40]}')")
    if not isinstance(value, dict) or len(value) != 1:
        raise ValueError(f"must be one of {', '.join(MODES)}, {{lognormal: SIGMA}} or {{history: {{...}}}} "
                         f"(got {type(value).__name__})")
    (mode, arg), = value.items()
    if mode == "lognormal":
        if isinstance(arg, bool) or not isinstance(arg, int | float) or not math.isfinite(arg) \
                or not 0 <= arg <= MAX_ESTIMATE_ERROR:
            raise ValueError(f"lognormal: sigma must be a number between 0 and {MAX_ESTIMATE_ERROR:g} "
                             f"(got {read_as_text(arg)})")
        return {"lognormal": float(arg)}
    if mode == "history":
        return {"history": _check_history(arg)}
    if mode in MODES:
        raise ValueError(f"'{mode}' takes no options: write declared_run_time: {mode}, a word, not a "
                         f"mapping (got {{{mode}: {str(arg)[:40]}}})")
    raise ValueError(f"unknown mode '{str(mode)[:40]}' (known: {', '.join(MODES)}, lognormal)")


def _check_history(options: Any) -> dict[str, Any]:
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ValueError(f"history: must map options ({', '.join(HISTORY_OPTIONS)}) to values "
                         f"(got {type(options).__name__})")
    unknown = [k for k in options if k not in HISTORY_OPTIONS]
    if unknown:
        raise ValueError(f"history: unknown option '{str(unknown[0])[:40]}' "
                         f"(known: {', '.join(HISTORY_OPTIONS)})")
    keys = options.get("keys", [list(k) for k in DEFAULT_KEYS])
    if not isinstance(keys, list) or not keys or len(keys) > 16 \
            or not all(isinstance(k, list) and len(k) <= len(KEY_FIELDS) for k in keys):
        raise ValueError("history.keys: must be a list of 1 to 16 keys, each a list of job fields "
                         f"({', '.join(KEY_FIELDS)}), finest first")
    for n, key in enumerate(keys):
        for field in key:
            if field not in KEY_FIELDS:
                raise ValueError(f"history.keys: unknown job field '{str(field)[:40]}' "
                                 f"(known: {', '.join(KEY_FIELDS)})")
        if len(set(key)) < len(key):
            twice = next(f for i, f in enumerate(key) if f in key[:i])
            raise ValueError(f"history.keys[{n}]: lists the field '{twice}' twice (a key groups jobs "
                             "by each field once)")
        first = next((i for i, other in enumerate(keys[:n]) if set(other) == set(key)), None)
        if first is not None:
            raise ValueError(f"history.keys[{n}]: the same key as history.keys[{first}] "
                             f"({list(key)}); a later copy could never be the first to hold enough jobs")
    prior = options.get("prior_min", DEFAULT_PRIOR_MIN)
    if isinstance(prior, bool) or not isinstance(prior, int | float) or not math.isfinite(prior) \
            or not MIN_DURATION_MIN <= prior <= MAX_PRIOR_MIN:
        raise ValueError(f"history.prior_min: must be a number of minutes from {MIN_DURATION_MIN:g} "
                         f"(MIN_DURATION_MIN) to {MAX_PRIOR_MIN:g} (got {read_as_text(prior)})")
    samples = options.get("min_samples", 1)
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= 10**6:
        raise ValueError("history.min_samples: must be a whole number from 1 to 1000000 "
                         f"(got {read_as_text(samples)})")
    checked = {"keys": [list(k) for k in keys], "prior_min": float(prior), "min_samples": int(samples)}
    if options.get("recent") is None:
        return checked
    recent = options["recent"]
    if isinstance(recent, bool) or not isinstance(recent, int) or not samples <= recent <= MAX_RECENT:
        raise ValueError(f"history.recent: must be a whole number from min_samples ({samples}) to "
                         f"{MAX_RECENT} (MAX_RECENT), the completions a group keeps "
                         f"(got {read_as_text(recent)})")
    return checked | {"recent": int(recent)}


def resolved(declared: str | dict[str, Any] | None, old_error: float | None,
             job_list: bool) -> str | dict[str, Any]:
    """The mode a workload runs under: ``declared`` when given; else the older key's
    ``{lognormal: old_error}``; else ``listed`` for a job list and ``exact`` otherwise."""
    if declared is not None:
        return declared
    if old_error is not None:
        return {"lognormal": float(old_error)}
    return "listed" if job_list else "exact"


def estimator_factory(mode: str | dict[str, Any], seed: int,
                      listed: Callable[[], Mapping[int, float]] | None = None):  # noqa: ANN201
    """A function of the jobs (arrival order) that builds the run's estimator for ``mode`` (a
    :func:`resolved` mode).

    :param seed: the workload seed (the log-normal draws' generator is seeded from it).
    :param listed: reads the job list's estimates (job id -> minutes), for ``listed``.
    :raises ValueError: ``listed`` without a job list.
    """
    if mode == "exact":
        return DeclaredRuntime
    if mode == "listed":
        if listed is None:
            raise ValueError("listed tells the scheduler a job list's estimate_min column, and this "
                             "workload has no job list (workload.trace.jobs)")
        return partial(DeclaredRuntime, estimates=listed())
    if mode == "none":
        return UndeclaredRuntime
    if mode == "history":
        return HistoryEstimator
    if "lognormal" in mode:
        return partial(LognormalRuntime, sigma=mode["lognormal"], seed=seed)
    o = mode["history"]
    return partial(HistoryEstimator, keys=[tuple(k) for k in o["keys"]], prior_min=o["prior_min"],
                   min_samples=o["min_samples"], recent=o.get("recent"))


def is_undeclared(declared: str | dict[str, Any] | None) -> bool:
    """Whether nothing is declared (``none``)."""
    return declared == "none"
