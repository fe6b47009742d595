"""Sweep specification files (YAML, validated) and their expansion into runs.

```yaml
name: policy-study
simulate:                       # optional: scenarios x policies x seeds x overrides
  scenarios: [phase1-8gpu, homogeneous-8gpu]   # preset names or YAML paths
  policies: [first_fit, least_loaded, best_fit]
  seeds: [0, 1, 2]              # or {start: 0, count: 10}
  overrides:                    # optional: key -> list of values (a grid)
    workload.arrival_rate_per_hour: [4, 5, 6]
    workload.jobs: [250]
allocation:                     # optional: the FGD allocation experiment grid
  nodes: openb_node_list_gpu_node
  pods: [openb_pod_list_default, openb_pod_list_gpushare100]
  policies: [random, best_fit, fgd]
  seeds: {start: 42, count: 10}
  tune: 1.3
```

A spec is read through :mod:`gpusched.workload.files` (at most
:data:`gpusched.limits.MAX_YAML_BYTES`, UTF-8, no duplicate keys). Its ``name`` is one plain
folder name (the default results folder is ``sweeps/<name>``: no ``/`` or ``\\``, not ``.`` or
``..``, no control characters, at most :data:`gpusched.limits.MAX_NAME_CHARS` characters), so a
spec someone sends you cannot write outside ``sweeps/``. Every seed is a whole number from 0 to
:data:`gpusched.limits.MAX_SEED`, a seed list holds at most :data:`gpusched.limits.MAX_SEEDS`,
numbers are finite numbers (never ``true`` or a quoted number), no list holds a value twice,
override keys name scenario keys, and a spec expands to at most :data:`gpusched.limits.MAX_RUNS`
runs (counted without expanding them).

:func:`load_sweep` then checks every run before the first one starts (:func:`check_sweep`): each
scenario loads, every grid point's scenario (a scenario with one combination of override values)
validates, every policy name is known (the agent's model file is checked too), and every grid
point passes the check ``simulate`` makes before its run (:func:`gpusched.policies.preflight.check_runs`:
a policy that reads run times where none is declared, a job list that is missing, malformed or
holds a job no node could ever hold), with the grid's first seed. Two values of one override key
that run the same scenario once read (``[true, "true"]``) are refused: their runs would repeat each
other. So a bad override or policy is one line and exit code 2, not a sweep of failed runs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gpusched.core.numbers import Number, Whole
from gpusched.errors import GpuschedError, shorten
from gpusched.limits import MAX_NAME_CHARS, MAX_RUNS, MAX_SEED, MAX_SEEDS, MAX_TUNE, MAX_YAML_BYTES
from gpusched.workload.files import is_file, load_yaml_mapping, read_user_text
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario
from gpusched.workload.validation import validation_message

Seed = Annotated[Whole, Field(ge=0, le=MAX_SEED)]
"""One seed (see :data:`gpusched.limits.MAX_SEED`): a whole number, never ``true`` or text."""

RUN_KEYS: tuple[str, ...] = ("kind", "scenario", "policy", "seed", "run_id")
"""Parameters every simulate run has; an override key may not be one of them."""


class SweepError(GpuschedError):
    """A sweep spec is malformed (names the file and the key)."""


class SeedRange(BaseModel):
    """Seeds ``start .. start + count - 1``."""

    model_config = ConfigDict(extra="forbid")
    start: Seed = 0
    count: Whole = Field(gt=0, le=MAX_SEEDS)

    @model_validator(mode="after")
    def _last_seed(self) -> SeedRange:
        if self.start + self.count - 1 > MAX_SEED:
            raise ValueError(f"the last seed must be <= {MAX_SEED} (the largest seed)")
        return self


def _same_value(value: Any) -> Any:
    """What ``value`` runs as, for finding a value given twice: a number by its value (``5`` and
    ``5.0`` are one value), a quoted number as that number (``"60"`` and ``60`` are one value
    given twice, whatever the key then says of the text), a list or mapping by its items."""
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return number if math.isfinite(number) else value
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | tuple):
        return [_same_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _same_value(v) for k, v in value.items()}
    return value


def _unique(values: list[Any]) -> list[Any]:
    """``values``, refused when one appears twice, as the same text or the same number (two runs
    would run the same value)."""
    seen: dict[str, Any] = {}
    for value in values:
        key = json.dumps(_same_value(value), sort_keys=True, default=str)
        if key in seen:
            first = seen[key]
            again = "twice" if repr(first) == repr(value) else f"twice ({first!r} and {value!r})"
            raise ValueError(f"{shorten(repr(first), 40)} appears {shorten(again, 90)}")
        seen[key] = value
    return values


def _seed_list(value: Any) -> list[int]:
    if isinstance(value, dict):
        r = SeedRange.model_validate(value)
        return list(range(r.start, r.start + r.count))
    return value


class SimulateGrid(BaseModel):
    """Scenarios x policies x seeds x overrides, each run a ``simulate``."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    scenarios: list[str] = Field(min_length=1)
    policies: list[str] = Field(min_length=1)
    seeds: list[Seed] = Field(min_length=1, max_length=MAX_SEEDS)
    overrides: dict[str, list[Any]] = Field(default_factory=dict)

    _seeds = field_validator("seeds", mode="before")(_seed_list)
    _distinct = field_validator("scenarios", "policies", "seeds")(_unique)

    @field_validator("overrides")
    @classmethod
    def _scenario_keys(cls, overrides: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for key, values in overrides.items():
            if key in RUN_KEYS or key.split(".")[0] not in Scenario.model_fields:
                raise ValueError(f"'{shorten(key, 40)}' is not a scenario key (e.g. workload.jobs, "
                                 "horizon_min)")
            if not values:
                raise ValueError(f"'{shorten(key, 40)}': give at least one value")
            try:
                _unique(values)
            except ValueError as exc:
                raise ValueError(f"'{key}': {exc}") from None
        return overrides

    def run_count(self) -> int:
        """Runs of this grid (counted, not expanded)."""
        return (len(self.scenarios) * len(self.policies) * len(self.seeds)
                * math.prod(len(v) for v in self.overrides.values()))


class AllocationGrid(BaseModel):
    """Traces x policies x seeds of the FGD allocation experiment."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    nodes: str = "openb_node_list_gpu_node"
    pods: list[str] = Field(min_length=1)
    policies: list[str] = Field(min_length=1)
    seeds: list[Seed] = Field(min_length=1, max_length=MAX_SEEDS)
    tune: Number = Field(1.3, gt=0, le=MAX_TUNE)

    _seeds = field_validator("seeds", mode="before")(_seed_list)
    _distinct = field_validator("pods", "policies", "seeds")(_unique)

    def run_count(self) -> int:
        """Runs of this grid."""
        return len(self.pods) * len(self.policies) * len(self.seeds)


class SweepSpec(BaseModel):
    """A whole sweep: one or both grids."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    description: str = ""
    simulate: SimulateGrid | None = None
    allocation: AllocationGrid | None = None

    @field_validator("name")
    @classmethod
    def _plain_folder_name(cls, name: str) -> str:
        return check_folder_name(name)

    @model_validator(mode="after")
    def _needs_a_grid(self) -> SweepSpec:
        if self.simulate is None and self.allocation is None:
            raise ValueError("a sweep needs a 'simulate' or an 'allocation' grid")
        if self.run_count() > MAX_RUNS:
            raise ValueError(f"{self.run_count():,} runs, more than the limit of {MAX_RUNS:,} runs")
        return self

    def run_count(self) -> int:
        """Runs of the whole sweep (counted, not expanded)."""
        return sum(g.run_count() for g in (self.simulate, self.allocation) if g is not None)

    def runs(self) -> list[dict[str, Any]]:
        """Every run's parameters, in a fixed order, each with a stable ``run_id``."""
        out: list[dict[str, Any]] = []
        if self.simulate:
            g = self.simulate
            keys = sorted(g.overrides)
            for scenario, combo, policy, seed in itertools.product(
                    g.scenarios, itertools.product(*(g.overrides[k] for k in keys)),
                    g.policies, g.seeds):
                params = {"kind": "simulate", "scenario": scenario, "policy": policy,
                          "seed": seed, **dict(zip(keys, combo, strict=True))}
                out.append(params)
        if self.allocation:
            a = self.allocation
            for pods, policy, seed in itertools.product(a.pods, a.policies, a.seeds):
                out.append({"kind": "allocation", "nodes": a.nodes, "pods": pods,
                            "policy": policy, "seed": seed, "tune": a.tune})
        for params in out:
            params["run_id"] = run_id(params)
        return out


def check_folder_name(name: str) -> str:
    """``name`` if it is one plain folder name (see the module docstring), for ``sweeps/<name>``.

    :raises ValueError: naming what is wrong.
    """
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"{len(name):,} characters, more than the limit of {MAX_NAME_CHARS} "
                         "(MAX_NAME_CHARS)")
    if not name.strip():
        raise ValueError("must be a folder name, not blank")
    if name in (".", ".."):
        raise ValueError(f"'{name}' is not a folder name of its own; the results go to sweeps/<name>")
    bad = next((c for c in name if c in "/\\" or not c.isprintable()), None)
    if bad is not None:
        what = {"/": "'/'", "\\": "'\\'"}.get(bad, f"the control character {bad!r}")
        raise ValueError(f"must be one plain folder name (the results go to sweeps/<name>), but it "
                         f"holds {what}")
    return name


def run_id(params: dict[str, Any]) -> str:
    """A stable id for a run: a short hash of its parameters."""
    body = json.dumps({k: v for k, v in params.items() if k != "run_id"}, sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()[:12]


def spec_digest(spec: SweepSpec) -> str:
    """The sha256 of what a spec runs (its grids; not its name or description)."""
    body = json.dumps(spec.model_dump(mode="json", exclude={"name", "description"}), sort_keys=True,
                      default=str)
    return hashlib.sha256(body.encode()).hexdigest()


def load_sweep(path: str | Path) -> SweepSpec:
    """Load and validate a sweep spec file.

    :raises SweepError: for a missing file, bad YAML, or an invalid key.
    """
    path = Path(path)
    if not is_file(path):
        raise SweepError(f"sweep spec '{path}' not found")
    label = f"sweep spec '{path.name}'"
    text = read_user_text(path, label=label, max_bytes=MAX_YAML_BYTES, error=SweepError)
    spec = sweep_from_dict(load_yaml_mapping(text, label=label, error=SweepError), path.name)
    check_sweep(spec, path.name)
    return spec


def check_sweep(spec: SweepSpec, source: str = "<dict>") -> None:
    """Check every run of ``spec`` before the first one starts (see the module docstring).

    :raises SweepError: naming ``source``, the key and the grid point or name that is wrong.
    """
    from gpusched.fgd.scoring import POLICY_NAMES, unknown_policy_message
    from gpusched.policies import check_policy
    from gpusched.workload.openb import resolve_trace

    label = f"sweep spec '{source}'"
    if spec.simulate is not None:
        g = spec.simulate
        for i, name in enumerate(g.policies):
            try:
                check_policy(name)
            except GpuschedError as exc:
                raise SweepError(f"{label}, simulate.policies[{i}]: {exc}") from None
        for i, name in enumerate(g.scenarios):
            try:
                scenario = load_scenario(name)
            except GpuschedError as exc:
                raise SweepError(f"{label}, simulate.scenarios[{i}]: {exc}") from None
            _check_grid_points(g, scenario, f"{label}, simulate.scenarios[{i}]")
    if spec.allocation is not None:
        a = spec.allocation
        for i, name in enumerate(a.policies):
            if name not in POLICY_NAMES:
                why = unknown_policy_message(shorten(name))
                raise SweepError(f"{label}, allocation.policies[{i}]: {why}")
        for key, names in (("nodes", [a.nodes]), ("pods", a.pods)):
            for i, name in enumerate(names):
                try:
                    resolve_trace(name)
                except GpuschedError as exc:
                    where = key if key == "nodes" else f"pods[{i}]"
                    raise SweepError(f"{label}, allocation.{where}: {exc}") from None


_NOT_BUILT = {"name", "description", "reward", "util_band"}
"""Scenario keys that building a run's simulator does not read: grid points that differ only in
them are built once by :func:`_check_grid_points` (a sweep over reward weights on
``gavel-108gpu`` builds one simulator, about half a second, not one per weight)."""


def _check_grid_points(grid: SimulateGrid, scenario: Scenario, where: str) -> None:
    """Check every grid point of ``scenario`` as ``simulate`` would check its runs
    (:func:`gpusched.policies.preflight.check_runs`, with the grid's first seed), and refuse two
    override values that run the same scenario once read (``[true, "true"]``, where the key reads
    the text as the value): their runs would repeat each other.

    :raises SweepError: naming ``where``, the override key or the policy, and the grid point.
    """
    from gpusched.policies.preflight import check_runs, check_told

    keys = sorted(grid.overrides)
    seen: dict[str, dict[str, Any]] = {}
    checked: set[str] = set()
    for combo in itertools.product(*(grid.overrides[k] for k in keys)):
        changes = dict(zip(keys, combo, strict=True))
        point = ", ".join(f"{k}={shorten(repr(v), 30)}" for k, v in changes.items())
        at = f"{where}, simulate.overrides ({point})" if changes else where
        try:
            run = scenario.with_overrides(**changes) if changes else scenario
        except GpuschedError as exc:
            raise SweepError(f"{at}: {exc}") from None
        body = json.dumps(run.model_dump(mode="json"), sort_keys=True, default=str)
        if body in seen:
            first = seen[body]
            key = next(k for k in keys if first[k] != changes[k] or repr(first[k]) != repr(changes[k]))
            shown = [shorten(json.dumps(v, default=str), 30) for v in (first[key], changes[key])]
            raise SweepError(f"{where}, simulate.overrides.{shorten(key, 40)}: {shown[0]} and {shown[1]} "
                             "run the same scenario once read; give each value once")
        seen[body] = changes
        for j, policy in enumerate(grid.policies):
            try:
                check_told(run, policy)
            except GpuschedError as exc:
                raise SweepError(f"{at}, simulate.policies[{j}]: {exc}") from None
        built = json.dumps(run.model_dump(mode="json", exclude=_NOT_BUILT), sort_keys=True, default=str)
        if built in checked:  # the same cluster and workload: built once
            continue
        checked.add(built)
        try:
            check_runs(run, [], seed=grid.seeds[0])
        except GpuschedError as exc:
            raise SweepError(f"{at}: {exc}") from None


def sweep_from_dict(data: Any, source: str = "<dict>") -> SweepSpec:
    """Validate a sweep spec mapping.

    :raises SweepError: naming ``source`` and the bad key.
    """
    try:
        return SweepSpec.model_validate(data)
    except ValidationError as exc:
        raise SweepError(validation_message(exc, f"sweep spec '{source}'")) from None
