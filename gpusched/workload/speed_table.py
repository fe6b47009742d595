"""A scenario's ``speed:`` value checked: ``default``, ``gavel``, or a table of GPU model -> job type
-> relative speed, where a row may also hold ``models:``, job model -> speed (see
:mod:`gpusched.core.speed` for how a table is resolved, and ``docs/scenarios.md``).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from gpusched.core.numbers import read_as_text
from gpusched.core.numbers import shown as _shown
from gpusched.core.speed import MODELS_KEY
from gpusched.limits import SPEED_RANGE
from gpusched.workload.synthetic import JOB_TYPES

SpeedSpec = Literal["default", "gavel"] | dict[str, dict[str, Any]]
"""``default`` (the shipped table of :mod:`gpusched.core.speed`), ``gavel`` (Gavel's measured
speeds, :mod:`gpusched.core.gavel_speeds`) or GPU model -> job type -> speed, where a row may also
hold ``models:``, job model -> speed."""


SPEED_JOB_TYPES: tuple[str, ...] = (*JOB_TYPES, "trace")
"""The job types a speed table's rows may name: the synthetic types and ``trace`` (trace jobs)."""


def check_speed_table(speed: Any) -> SpeedSpec | None:
    """A scenario's ``speed:`` value checked, with one message per way it can be wrong, each
    naming the GPU model and job type and what was expected. A row may name a GPU model the
    cluster lacks (tables are shared; :meth:`gpusched.workload.scenario.Scenario.speed_note`
    says so), but not a job type that does not exist; job models go under the row's ``models:``
    key (any name but a job type).

    :raises ValueError: naming what is wrong.
    """
    if speed is None or speed in ("default", "gavel"):
        return speed
    if not isinstance(speed, dict):
        raise ValueError(f"must be 'default' or a table of GPU model -> job type -> speed, or "
                         f"'gavel' (got {_shown(speed)})")
    for model, row in speed.items():
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"a row must be named by a GPU model (got {_shown(model)})")
        name = model if len(model) <= 40 else model[:37] + "..."
        if not isinstance(row, dict):
            raise ValueError(f"the row of '{name}' must map job types ({', '.join(SPEED_JOB_TYPES)}) "
                             f"to speeds (got {type(row).__name__})")
        for job_type, factor in _speed_entries(name, row):
            if job_type not in SPEED_JOB_TYPES:
                raise ValueError(f"the row of '{name}' names the job type {_shown(job_type)}, which "
                                 f"does not exist (known: {', '.join(SPEED_JOB_TYPES)}; name job "
                                 f"models under '{MODELS_KEY}:')")
            _check_speed_value(name, job_type, factor)
    return {model: {t: ({m: float(v) for m, v in f.items()} if t == MODELS_KEY else float(f))
                    for t, f in row.items()} for model, row in speed.items()}


def _speed_entries(name: str, row: dict) -> list[tuple[str, Any]]:
    """A row's (job type, speed) pairs, its ``models:`` mapping checked and each job model's
    speed checked as a job type's is (the job model named in place of the type).

    :raises ValueError: for a ``models:`` value that is not a mapping of names to speeds.
    """
    if MODELS_KEY not in row:
        return list(row.items())
    models = row[MODELS_KEY]
    if not isinstance(models, dict):
        raise ValueError(f"the row of '{name}', {MODELS_KEY}: must map job models to speeds "
                         f"(got {_shown(models)})")
    for model, factor in models.items():
        if not isinstance(model, str) or not model.strip() or model in SPEED_JOB_TYPES:
            raise ValueError(f"the row of '{name}', {MODELS_KEY}: a job model must be a name, not a "
                             f"job type or empty (got {_shown(model)})")
        if model != model.strip():
            raise ValueError(f"the row of '{name}', {MODELS_KEY}: the job model {_shown(model)} begins "
                             "or ends with a space, so no job could match it (a job list's models "
                             "are read without them)")
        _check_speed_value(name, f"'{model[:40]}'", factor)
    return [(t, f) for t, f in row.items() if t != MODELS_KEY]


def _check_speed_value(name: str, what: str, factor: Any) -> None:
    """Refuse a speed that is not a finite number within :data:`SPEED_RANGE`."""
    if isinstance(factor, bool) or not isinstance(factor, int | float):
        raise ValueError(f"the speed of {what} jobs on '{name}' must be a number "
                         f"(got {read_as_text(factor)})")
    if not (math.isfinite(factor) and SPEED_RANGE[0] <= factor <= SPEED_RANGE[1]):
        raise ValueError(f"the speed of {what} jobs on '{name}' must be between "
                         f"{SPEED_RANGE[0]:g} and {SPEED_RANGE[1]:g} (SPEED_RANGE; got {factor!r})")
