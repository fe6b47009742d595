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
:data:`gpusched.limits.MAX_YAML_BYTES`, UTF-8, no duplicate keys). Every seed is from 0 to
:data:`gpusched.limits.MAX_SEED`, a seed list holds at most :data:`gpusched.limits.MAX_SEEDS`,
numbers are finite, no list holds a value twice, override keys name scenario keys, and a spec
expands to at most
:data:`gpusched.limits.MAX_RUNS` runs (counted without expanding them).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gpusched.errors import GpuschedError
from gpusched.limits import MAX_RUNS, MAX_SEED, MAX_SEEDS, MAX_TUNE, MAX_YAML_BYTES
from gpusched.workload.files import is_file, load_yaml_mapping, read_user_text
from gpusched.workload.scenario import Scenario, validation_message

Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]
"""One seed (see :data:`gpusched.limits.MAX_SEED`)."""

RUN_KEYS: tuple[str, ...] = ("kind", "scenario", "policy", "seed", "run_id")
"""Parameters every simulate run has; an override key may not be one of them."""


class SweepError(GpuschedError):
    """A sweep spec is malformed (names the file and the key)."""


class SeedRange(BaseModel):
    """Seeds ``start .. start + count - 1``."""

    model_config = ConfigDict(extra="forbid")
    start: Seed = 0
    count: int = Field(gt=0, le=MAX_SEEDS)

    @model_validator(mode="after")
    def _last_seed(self) -> SeedRange:
        if self.start + self.count - 1 > MAX_SEED:
            raise ValueError(f"the last seed must be <= {MAX_SEED} (the largest seed)")
        return self


def _unique(values: list[Any]) -> list[Any]:
    """``values``, refused when one appears twice (two runs would share a ``run_id``)."""
    seen: set[str] = set()
    for value in values:
        key = json.dumps(value, sort_keys=True, default=str)
        if key in seen:
            raise ValueError(f"{value!r} appears twice")
        seen.add(key)
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
                raise ValueError(f"'{key}' is not a scenario key (e.g. workload.jobs, horizon_min)")
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
    tune: float = Field(1.3, gt=0, le=MAX_TUNE)

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
    return sweep_from_dict(load_yaml_mapping(text, label=label, error=SweepError), path.name)


def sweep_from_dict(data: Any, source: str = "<dict>") -> SweepSpec:
    """Validate a sweep spec mapping.

    :raises SweepError: naming ``source`` and the bad key.
    """
    try:
        return SweepSpec.model_validate(data)
    except ValidationError as exc:
        raise SweepError(validation_message(exc, f"sweep spec '{source}'")) from None
