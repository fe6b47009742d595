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
"""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gpusched.errors import GpuschedError


class SweepError(GpuschedError):
    """A sweep spec is malformed (names the file and the key)."""


class SeedRange(BaseModel):
    """Seeds ``start .. start + count - 1``."""

    model_config = ConfigDict(extra="forbid")
    start: int = Field(0, ge=0)
    count: int = Field(gt=0)


def _seed_list(value: Any) -> list[int]:
    if isinstance(value, dict):
        r = SeedRange.model_validate(value)
        return list(range(r.start, r.start + r.count))
    return value


class SimulateGrid(BaseModel):
    """Scenarios x policies x seeds x overrides, each run a ``simulate``."""

    model_config = ConfigDict(extra="forbid")
    scenarios: list[str] = Field(min_length=1)
    policies: list[str] = Field(min_length=1)
    seeds: list[int] = Field(min_length=1)
    overrides: dict[str, list[Any]] = Field(default_factory=dict)

    _seeds = field_validator("seeds", mode="before")(_seed_list)


class AllocationGrid(BaseModel):
    """Traces x policies x seeds of the FGD allocation experiment."""

    model_config = ConfigDict(extra="forbid")
    nodes: str = "openb_node_list_gpu_node"
    pods: list[str] = Field(min_length=1)
    policies: list[str] = Field(min_length=1)
    seeds: list[int] = Field(min_length=1)
    tune: float = Field(1.3, gt=0)

    _seeds = field_validator("seeds", mode="before")(_seed_list)


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
        return self

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
    body = json.dumps({k: v for k, v in params.items() if k != "run_id"}, sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()[:12]


def load_sweep(path: str | Path) -> SweepSpec:
    """Load and validate a sweep spec file.

    :raises SweepError: for a missing file, bad YAML, or an invalid key.
    """
    path = Path(path)
    if not path.is_file():
        raise SweepError(f"sweep spec '{path}' not found")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError:
        raise SweepError(f"sweep spec '{path.name}': not valid YAML") from None
    try:
        return SweepSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise SweepError(f"sweep spec '{path.name}', {loc}: {err['msg']}") from None
