"""The catalog of hostile inputs: what a careless or hostile user gives the command line, one row
each, grouped by the class of failure it once caused.

Each :class:`Case` is a command line plus the files it reads. ``{tmp}`` in the arguments and in
the files' text stands for the test's own folder. ``tests/test_hostile_inputs.py`` runs every case
and checks the promise: bad input is one line on stderr and exit code 2, never a traceback;
a case marked ``ok`` runs (exit 0) and says what it did (its needles are in the output).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

import yaml

from gpusched.limits import (
    MAX_GPUS,
    MAX_NAME_CHARS,
    MAX_NODES,
    MAX_TRACE_BYTES,
    MAX_YAML_BYTES,
    MAX_YAML_DEPTH,
)
from gpusched.paths import SHIPPED_MODELS_DIR
from gpusched.workload.shockwave import TRACE_COLUMNS


@dataclass(frozen=True)
class Case:
    """One hostile input.

    :param id: a short unique name.
    :param cls: the class of failure (``files``, ``numbers``, ``silent``, ``args``, ``outputs``,
        ``allocation``, ``sweep``, ``sidecar``, ``traces``, ``newcomer``; and on the newer surfaces
        ``types`` (booleans and quoted numbers), ``speed``, ``training``, ``policies`` and
        ``messages``).
    :param argv: the ``gpusched`` arguments (``{tmp}`` is the test's folder).
    :param files: files to write first, by name relative to ``{tmp}`` (text or bytes).
    :param needles: texts the one error line (or, for ``ok``, the output) must hold.
    :param expect: ``error`` (exit 2, one line) or ``ok`` (exit 0).
    """

    id: str
    cls: str
    argv: tuple[str, ...]
    files: dict[str, str | bytes] = field(default_factory=dict)
    needles: tuple[str, ...] = ()
    expect: str = "error"


# ---------------------------------------------------------------------------- building blocks
BASE_SCENARIO: dict[str, Any] = {
    "name": "t",
    "cluster": {
        "nodes": [
            {"gpu_model": "A100-80GB", "vram_gb": 80, "gpus_per_node": 2, "count": 1},
            {"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 1, "count": 2},
        ]
    },
    "workload": {
        "jobs": 20,
        "arrival_rate_per_hour": 10,
        "mix": {"training": 0.3, "inference": 0.4, "batch": 0.3},
        "seed": 0,
    },
}
"""A small valid synthetic scenario that each scenario case changes in one place."""

TRACE_SCENARIO: dict[str, Any] = {
    "name": "tr",
    "cluster": {"trace": {"nodes": "{tmp}/nodes.csv", "sample_nodes": 2}},
    "workload": {"jobs": 10, "seed": 0, "trace": {"pods": "{tmp}/pods.csv", "time_compression": 60}},
}
"""A small valid trace scenario on the files of :data:`TRACE_FILES`."""

NODES_CSV = "sn,cpu_milli,memory_mib,gpu,model\n" + "".join(
    f"n{i},64000,262144,8,V100M32\n" for i in range(4)
)
PODS_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\n"
PODS_CSV = PODS_HEADER + "".join(
    f"p{i},1000,1024,1,500,{i * 60},{i * 60 + 600},{i * 60}\n" for i in range(10)
)
TRACE_FILES = {"nodes.csv": NODES_CSV, "pods.csv": PODS_CSV}


def _set(data: dict, path: str, value: Any) -> dict:
    out = copy.deepcopy(data)
    target: Any = out
    *parts, last = path.split(".")
    for part in parts:
        target = target[int(part)] if part.isdigit() else target[part]
    if last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return out


def _drop(data: dict, path: str) -> dict:
    out = copy.deepcopy(data)
    target: Any = out
    *parts, last = path.split(".")
    for part in parts:
        target = target[part]
    del target[last]
    return out


def scenario_yaml(changes: dict[str, Any] | None = None, base: dict | None = None) -> str:
    """The YAML of ``base`` (default :data:`BASE_SCENARIO`) with ``changes`` (dotted paths)."""
    data = copy.deepcopy(base or BASE_SCENARIO)
    for path, value in (changes or {}).items():
        data = _set(data, path, value)
    return yaml.safe_dump(data, sort_keys=False)


def _simulate(name: str = "s.yaml", *extra: str) -> tuple[str, ...]:
    return ("simulate", "--scenario", f"{{tmp}}/{name}", "--policy", "first_fit", *extra)


def _scenario_case(
    id: str, cls: str, changes: dict[str, Any], *needles: str, base: dict | None = None
) -> Case:
    files = {"s.yaml": scenario_yaml(changes, base)}
    if base is TRACE_SCENARIO:
        files |= TRACE_FILES
    return Case(id, cls, _simulate(), files, ("'s.yaml'", *needles))


def _alloc(nodes: str = "{tmp}/nodes.csv", pods: str = "{tmp}/pods.csv", *extra: str) -> tuple[str, ...]:
    return (
        "allocation",
        "--nodes",
        nodes,
        "--pods",
        pods,
        "--policies",
        "fgd_best_fit",
        "--seeds",
        "1",
        *extra,
    )


SWEEP_SPEC = {
    "name": "sw",
    "simulate": {
        "scenarios": ["ll-stall-mini"],
        "policies": ["first_fit"],
        "seeds": [0, 1],
        "overrides": {"workload.jobs": [5]},
    },
}


def _sweep_case(
    id: str, cls: str, spec: dict | str | bytes, *needles: str, extra: tuple[str, ...] = ()
) -> Case:
    text = spec if isinstance(spec, str | bytes) else yaml.safe_dump(spec, sort_keys=False)
    return Case(
        id,
        cls,
        ("sweep", "{tmp}/spec.yaml", "--workers", "1", "--out", "{tmp}/out", *extra),
        {"spec.yaml": text},
        needles,
    )


SHIPPED_SIDECAR: dict[str, Any] = json.loads((SHIPPED_MODELS_DIR / "ppo-default.json").read_text())
SHIPPED_ZIP = (SHIPPED_MODELS_DIR / "ppo-default.zip").read_bytes()
WINDOW_SIDECAR: dict[str, Any] = json.loads((SHIPPED_MODELS_DIR / "ppo-window.json").read_text())
WINDOW_ZIP = (SHIPPED_MODELS_DIR / "ppo-window.zip").read_bytes()


def _sidecar_case(
    id: str, changes: dict[str, Any] | str | bytes, *needles: str, window: bool = False
) -> Case:
    """The shipped model (the window model with ``window``), copied into ``{tmp}/models`` with a
    changed sidecar."""
    if isinstance(changes, dict):
        meta = dict(WINDOW_SIDECAR if window else SHIPPED_SIDECAR)
        for key, value in changes.items():
            if value is _DROP:
                meta.pop(key)
            else:
                meta[key] = value
        side: str | bytes = json.dumps(meta)
    else:
        side = changes
    return Case(
        id,
        "sidecar",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "ppo:{tmp}/models/m.zip"),
        {"models/m.zip": WINDOW_ZIP if window else SHIPPED_ZIP, "models/m.json": side},
        needles,
    )


def _train(*extra: str) -> tuple[str, ...]:
    """A ``train`` command that would start (so each case must be refused before it does)."""
    return ("train", "--scenario", "ll-stall-mini", "--timesteps", "10", "--out", "{tmp}/m.zip", *extra)


def _train_set(key_value: str) -> tuple[str, ...]:
    return _train("--set", key_value)


LIST_SCENARIO: dict[str, Any] = {
    "name": "jl",
    "cluster": BASE_SCENARIO["cluster"],
    "workload": {"jobs": 4, "seed": 0, "trace": {"jobs": "{tmp}/jobs.csv"}},
}
"""A small scenario of a plain job list, ``{tmp}/jobs.csv`` (largest node: 2 GPUs)."""

FITS_CSV = "id,arrival_min,model,gpus,duration_min\n" + "".join(
    f"{i},{i * 5},CycleGAN,1,30\n" for i in range(3)
)
NEVER_FITS_CSV = FITS_CSV + "3,20,CycleGAN,8,30\n"
"""A job list whose last job asks for 8 GPUs on one node, which no node of :data:`LIST_SCENARIO`
could ever hold."""


def _train_scenario_case(id: str, changes: dict[str, Any], *needles: str, extra: tuple[str, ...] = (),
                         base: dict | None = None, files: dict[str, str] | None = None) -> Case:
    """``train`` on ``{tmp}/s.yaml`` (``base``, default :data:`BASE_SCENARIO`, with ``changes``),
    refused before training starts."""
    argv = ("train", "--scenario", "{tmp}/s.yaml", "--timesteps", "10", "--out", "{tmp}/m.zip", *extra)
    return Case(id, "training", argv, {"s.yaml": scenario_yaml(changes, base), **(files or {})}, needles)



FAIL_SCENARIO: dict[str, Any] = {
    **BASE_SCENARIO,
    "failures": {"node_failures_per_1000_node_days": 130, "repair_min": {"median": 54, "mean": 355}},
    "checkpoint": {"interval_min": 60, "types": ["training"], "restore_min": 5},
    "queue": {"window": 4, "preemption_min_run_min": 10},
}
""":data:`BASE_SCENARIO` with the ``failures:``, ``checkpoint:`` and ``queue:`` blocks."""


def _failure_case(id: str, cls: str, changes: dict[str, Any], *needles: str) -> Case:
    return _scenario_case(id, cls, changes, *needles, base=FAIL_SCENARIO)


def _never_ending(id: str, failures: dict[str, Any], policy: str, drop_checkpoint: bool = True) -> Case:
    """A run with failures and no horizon that once ran for ever: it ends at its safety horizon."""
    data = {k: v for k, v in FAIL_SCENARIO.items() if not (drop_checkpoint and k == "checkpoint")}
    text = yaml.safe_dump(dict(data, failures=failures), sort_keys=False)
    return Case(id, "ends", ("simulate", "--scenario", "{tmp}/s.yaml", "--policy", policy),
                {"s.yaml": text}, ("run ended: safety_horizon", "note: with failures and no horizon_min"),
                expect="ok")


def _tampered_zip(fill: float) -> bytes:
    """The shipped model's zip with every weight of its policy set to ``fill`` (NaN, or huge)."""
    import io
    import zipfile

    import torch

    source = zipfile.ZipFile(io.BytesIO(SHIPPED_ZIP))
    state = torch.load(io.BytesIO(source.read("policy.pth")), weights_only=True)
    buffer = io.BytesIO()
    torch.save({k: torch.full_like(v, fill) if v.is_floating_point() else v for k, v in state.items()},
               buffer)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            target.writestr(item, buffer.getvalue() if item.filename == "policy.pth" else source.read(item))
    return out.getvalue()


def _tampered_case(id: str, fill: float, *needles: str) -> Case:
    """A tampered zip whose sidecar's sha256 was updated to match it."""
    import hashlib

    data = _tampered_zip(fill)
    side = json.dumps(dict(SHIPPED_SIDECAR, sha256=hashlib.sha256(data).hexdigest()))
    argv = ("simulate", "--scenario", "ll-stall-mini", "--policy", "ppo:{tmp}/models/m.zip")
    return Case(id, "silent", argv, {"models/m.zip": data, "models/m.json": side}, needles)


def _duplicate_key_sidecar(key: str) -> str:
    """The shipped sidecar's JSON with ``key`` given a second time (Python's reader keeps the last)."""
    text = json.dumps(SHIPPED_SIDECAR)
    return text[:-1] + f', "{key}": {json.dumps(SHIPPED_SIDECAR[key])}' + "}"


def _sweep_override_case(id: str, cls: str, scenario: str, overrides: dict[str, list], *needles: str) -> Case:
    spec = {"name": "sw", "simulate": {"scenarios": [scenario], "policies": ["first_fit"], "seeds": [0],
                                       "overrides": {"workload.jobs": [5], **overrides}}}
    return _sweep_case(id, cls, spec, *needles)

_DROP = object()

DEEP_FLOW = "name: x\ncluster: " + "[" * 3000 + "]" * 3000 + "\n"
ALIAS_BOMB = (
    "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcde", "bcdef", strict=True))
    + "name: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
)
VALID = scenario_yaml()

# ---------------------------------------------------------------------------- the catalog
CASES: list[Case] = [
    # --- reading files: encodings, sizes, the YAML loader ------------------------------------
    Case("scenario utf-16", "files", _simulate(), {"s.yaml": VALID.encode("utf-16")}, ("UTF-16",)),
    Case(
        "scenario utf-16 no bom", "files", _simulate(), {"s.yaml": VALID.encode("utf-16-le")}, ("NUL bytes",)
    ),
    Case("scenario utf-32", "files", _simulate(), {"s.yaml": VALID.encode("utf-32")}, ("UTF-32",)),
    Case("scenario binary", "files", _simulate(), {"s.yaml": bytes(range(256)) * 4}, ("NUL bytes",)),
    Case(
        "scenario latin-1",
        "files",
        _simulate(),
        {"s.yaml": VALID.replace("t\n", "café\n", 1).encode("latin-1")},
        ("not UTF-8",),
    ),
    Case(
        "scenario too large",
        "files",
        _simulate(),
        {"s.yaml": VALID + "#" * MAX_YAML_BYTES},
        ("larger than the limit",),
    ),
    Case(
        "scenario deep flow", "files", _simulate(), {"s.yaml": DEEP_FLOW}, (f"deeper than {MAX_YAML_DEPTH}",)
    ),
    Case(
        "scenario deep block",
        "files",
        _simulate(),
        {"s.yaml": "name: x\n" + "".join("  " * i + f"k{i}:\n" for i in range(200)) + "  " * 200 + "v: 1\n"},
        ("deeper than",),
    ),
    Case("scenario alias bomb", "files", _simulate(), {"s.yaml": ALIAS_BOMB}, ("aliases are expanded",)),
    Case("scenario recursive alias", "files", _simulate(), {"s.yaml": "name: &a [*a]\n"}, ("refers to",)),
    Case(
        "scenario duplicate key",
        "silent",
        _simulate(),
        {"s.yaml": VALID + "name: again\n"},
        ("duplicate key 'name' at line",),
    ),
    Case(
        "scenario duplicate nested key",
        "silent",
        _simulate(),
        {"s.yaml": VALID.replace("  jobs: 20\n", "  jobs: 20\n  jobs: 30\n")},
        ("duplicate key 'jobs'",),
    ),
    Case("scenario empty", "files", _simulate(), {"s.yaml": ""}, ("the file is empty",)),
    Case("scenario list top", "files", _simulate(), {"s.yaml": "- 1\n- 2\n"}, ("got list",)),
    Case("scenario scalar top", "files", _simulate(), {"s.yaml": "42\n"}, ("got int",)),
    Case(
        "scenario python tag",
        "files",
        _simulate(),
        {"s.yaml": "name: !!python/object/apply:os.system [ls]\n"},
        ("not valid YAML",),
    ),
    Case(
        "scenario two documents",
        "files",
        _simulate(),
        {"s.yaml": VALID + "---\nname: b\n"},
        ("not valid YAML",),
    ),
    Case(
        "scenario control char",
        "files",
        _simulate(),
        {"s.yaml": VALID.replace("t\n", "t\x1b\n", 1)},
        ("control character",),
    ),
    Case("scenario is a folder", "files", _simulate("adir.yaml"), {"adir.yaml/keep": "x"},
         ("is a folder, not a file",)),
    Case(
        "sweep utf-16",
        "files",
        ("sweep", "{tmp}/spec.yaml"),
        {"spec.yaml": "name: a\n".encode("utf-16")},
        ("sweep spec 'spec.yaml'", "UTF-16"),
    ),
    Case(
        "sweep binary",
        "files",
        ("sweep", "{tmp}/spec.yaml"),
        {"spec.yaml": b"\x00\x01\x02" * 100},
        ("NUL bytes",),
    ),
    Case("sweep deep", "files", ("sweep", "{tmp}/spec.yaml"), {"spec.yaml": DEEP_FLOW}, ("deeper than",)),
    Case(
        "sweep alias bomb",
        "files",
        ("sweep", "{tmp}/spec.yaml"),
        {"spec.yaml": ALIAS_BOMB},
        ("aliases are expanded",),
    ),
    Case(
        "sweep duplicate key",
        "silent",
        ("sweep", "{tmp}/spec.yaml"),
        {"spec.yaml": yaml.safe_dump(SWEEP_SPEC) + "name: again\n"},
        ("duplicate key 'name'",),
    ),
    Case("sweep list top", "files", ("sweep", "{tmp}/spec.yaml"), {"spec.yaml": "- a\n"}, ("got list",)),
    Case(
        "sweep too large",
        "files",
        ("sweep", "{tmp}/spec.yaml"),
        {"spec.yaml": "#" * (MAX_YAML_BYTES + 1)},
        ("larger than the limit",),
    ),
    # --- non-finite and absurd numbers in scenarios -------------------------------------------
    _scenario_case(
        "vram inf", "numbers", {"cluster.nodes.0.vram_gb": float("inf")}, "cluster.nodes[0].vram_gb", "finite"
    ),
    _scenario_case("vram nan", "numbers", {"cluster.nodes.0.vram_gb": float("nan")}, "vram_gb", "finite"),
    _scenario_case("vram huge", "numbers", {"cluster.nodes.0.vram_gb": 1e6}, "vram_gb", "<= 4096"),
    _scenario_case(
        "vram text", "numbers", {"cluster.nodes.0.vram_gb": "lots"}, "vram_gb", "must be a number"
    ),
    _scenario_case("cpu inf", "numbers", {"cluster.nodes.0.cpu_milli": float("inf")}, "cpu_milli", "finite"),
    _scenario_case("memory huge", "numbers", {"cluster.nodes.0.memory_mib": 1e300}, "memory_mib", "<="),
    _scenario_case(
        "count a billion",
        "numbers",
        {"cluster.nodes.0.count": 1_000_000_000},
        "cluster.nodes[0].count",
        f"<= {MAX_NODES}",
    ),
    _scenario_case("count negative", "numbers", {"cluster.nodes.0.count": -3}, "count", "> 0"),
    _scenario_case("count fractional", "numbers", {"cluster.nodes.0.count": 1.5}, "count", "whole number"),
    _scenario_case(
        "nodes over the limit",
        "numbers",
        {"cluster.nodes": [{"gpu_model": "T4", "vram_gb": 16, "gpus_per_node": 1, "count": MAX_NODES}] * 2},
        "cluster:",
        f"limit of {MAX_NODES:,}",
    ),
    _scenario_case(
        "gpus over the limit",
        "numbers",
        {"cluster.nodes": [{"gpu_model": "A", "vram_gb": 80, "gpus_per_node": 8, "count": 5000}]},
        "cluster:",
        f"limit of {MAX_GPUS:,}",
    ),
    _scenario_case(
        "gpus per node 65", "numbers", {"cluster.nodes.0.gpus_per_node": 65}, "gpus_per_node", "<= 64"
    ),
    _scenario_case("jobs huge", "numbers", {"workload.jobs": 99_999_999_999}, "workload.jobs", "<= 1000000"),
    _scenario_case("jobs zero", "numbers", {"workload.jobs": 0}, "workload.jobs", "> 0"),
    _scenario_case(
        "rate inf", "numbers", {"workload.arrival_rate_per_hour": float("inf")}, "arrival_rate", "finite"
    ),
    _scenario_case(
        "rate nan", "numbers", {"workload.arrival_rate_per_hour": float("nan")}, "arrival_rate", "finite"
    ),
    _scenario_case(
        "rate tiny", "numbers", {"workload.arrival_rate_per_hour": 1e-300}, "arrival_rate", ">= 0.001"
    ),
    _scenario_case("rate huge", "numbers", {"workload.arrival_rate_per_hour": 1e300}, "arrival_rate", "<="),
    _scenario_case(
        "mix nan", "numbers", {"workload.mix.training": float("nan")}, "workload.mix.training", "finite"
    ),
    _scenario_case(
        "mix inf", "numbers", {"workload.mix.batch": float("inf")}, "workload.mix.batch", "finite"
    ),
    _scenario_case(
        "mix negative",
        "numbers",
        {"workload.mix": {"training": -0.5, "inference": 1.5}},
        "workload.mix",
        ">= 0",
    ),
    _scenario_case("mix empty", "numbers", {"workload.mix": {}}, "workload.mix", "sum to 1"),
    _scenario_case(
        "reward nan", "numbers", {"reward": {"completion": float("nan")}}, "reward.completion", "finite"
    ),
    _scenario_case("reward inf", "numbers", {"reward": {"wait": -float("inf")}}, "reward.wait", "finite"),
    _scenario_case("reward huge", "numbers", {"reward": {"imbalance": 1e300}}, "reward.imbalance", "<="),
    _scenario_case("horizon inf", "numbers", {"horizon_min": float("inf")}, "horizon_min", "finite"),
    _scenario_case("horizon nan", "numbers", {"horizon_min": float("nan")}, "horizon_min", "finite"),
    _scenario_case("horizon zero", "numbers", {"horizon_min": 0}, "horizon_min", "> 0"),
    # the rounds: block (read by the round policies; checked whatever policy runs)
    _scenario_case("rounds length zero", "numbers", {"rounds": {"length_min": 0}}, "rounds.length_min",
                   "> 0"),
    _scenario_case("rounds length negative", "numbers", {"rounds": {"length_min": -6}}, "rounds.length_min",
                   "> 0"),
    _scenario_case("rounds length inf", "numbers", {"rounds": {"length_min": float("inf")}},
                   "rounds.length_min", "finite"),
    _scenario_case("rounds length nan", "numbers", {"rounds": {"length_min": float("nan")}},
                   "rounds.length_min", "finite"),
    _scenario_case("rounds length huge", "numbers", {"rounds": {"length_min": 1e300}}, "rounds.length_min",
                   "<="),
    _scenario_case("rounds length quoted", "types", {"rounds": {"length_min": "6"}}, "rounds.length_min",
                   "not text"),
    _scenario_case("rounds length true", "types", {"rounds": {"length_min": True}}, "rounds.length_min",
                   "not true or false"),
    _scenario_case("rounds reset negative", "numbers", {"rounds": {"reset_min": -1}}, "rounds.reset_min",
                   ">= 0"),
    _scenario_case("rounds reset nan", "numbers", {"rounds": {"reset_min": float("nan")}}, "rounds.reset_min",
                   "finite"),
    _scenario_case("rounds unknown key", "numbers", {"rounds": {"length_s": 360}}, "rounds.length_s"),
    _scenario_case("rounds not a mapping", "types", {"rounds": 6}, "rounds"),
    _scenario_case("rounds too many before the horizon", "numbers",
                   {"rounds": {"length_min": 1e-6}, "horizon_min": 1000}, "rounds",
                   "over the limit of 1,000,000"),
    _scenario_case("rounds no longer than the restore", "numbers",
                   {"rounds": {"length_min": 5}, "checkpoint": {"interval_min": 60, "restore_min": 5}},
                   "rounds", "checkpoint.restore_min"),
    _scenario_case("rounds no longer than the restore after a move", "numbers",
                   {"rounds": {"length_min": 5},
                    "checkpoint": {"interval_min": 60, "restore_min": 1, "move_restore_min": 5}},
                   "rounds", "checkpoint.move_restore_min"),
    _scenario_case("move restore negative", "numbers",
                   {"checkpoint": {"interval_min": 60, "move_restore_min": -1}},
                   "checkpoint.move_restore_min", ">= 0"),
    _scenario_case("move restore nan", "numbers",
                   {"checkpoint": {"interval_min": 60, "move_restore_min": float("nan")}},
                   "checkpoint.move_restore_min", "finite"),
    _scenario_case("move restore over the limit", "numbers",
                   {"checkpoint": {"interval_min": 60, "move_restore_min": 10001}},
                   "checkpoint.move_restore_min", "10000"),
    Case("rounds too many for the jobs", "numbers",
         ("simulate", "--scenario", "{tmp}/s.yaml", "--policy", "max_min_fairness_perf"),
         {"s.yaml": scenario_yaml({"rounds": {"length_min": 1e-6},
                                   "workload.mix": {"training": 0.0, "inference": 0.5, "batch": 0.5}})},
         ("scenario 's.yaml'", "rounds.length_min", "over the limit of 1,000,000")),
    _scenario_case("util band nan", "numbers", {"util_band": [float("nan"), 0.8]}, "util_band", "finite"),
    _scenario_case("util band reversed", "numbers", {"util_band": [0.9, 0.1]}, "util_band"),
    _scenario_case("seed negative", "numbers", {"workload.seed": -1}, "workload.seed", ">= 0"),
    _scenario_case("seed beyond 2**53", "numbers", {"workload.seed": 2**64}, "workload.seed", "<="),
    _scenario_case(
        "time compression inf",
        "numbers",
        {"workload.trace.time_compression": float("inf")},
        "time_compression",
        "finite",
        base=TRACE_SCENARIO,
    ),
    _scenario_case(
        "time compression tiny",
        "numbers",
        {"workload.trace.time_compression": 1e-300},
        "time_compression",
        ">= 0.01",
        base=TRACE_SCENARIO,
    ),
    _scenario_case(
        "time compression huge",
        "numbers",
        {"workload.trace.time_compression": 1e300},
        "time_compression",
        "<=",
        base=TRACE_SCENARIO,
    ),
    _scenario_case(
        "sample nodes a billion",
        "numbers",
        {"cluster.trace.sample_nodes": 10**9},
        "sample_nodes",
        "<=",
        base=TRACE_SCENARIO,
    ),
    Case(
        "sample more nodes than the list",
        "traces",
        _simulate(),
        TRACE_FILES | {"s.yaml": scenario_yaml({"cluster.trace.sample_nodes": 9}, TRACE_SCENARIO)},
        ("nodes.csv", "cannot sample 9 nodes"),
    ),
    _scenario_case("name missing", "numbers", {"name": ""}, "name", "must not be empty"),
    Case(
        "name dropped",
        "numbers",
        _simulate(),
        {"s.yaml": yaml.safe_dump(_drop(BASE_SCENARIO, "name"))},
        ("name: missing required key",),
    ),
    Case(
        "workload a list",
        "numbers",
        _simulate(),
        {"s.yaml": scenario_yaml({"workload": [1, 2]})},
        ("workload",),
    ),
    Case(
        "override a key that is not there",
        "silent",
        ("sweep", "{tmp}/spec.yaml", "--workers", "1", "--out", "{tmp}/o"),
        {"spec.yaml": yaml.safe_dump(_set(SWEEP_SPEC, "simulate.overrides", {"avg_wait_min": [1]}))},
        ("simulate.overrides", "not a scenario key"),
    ),
    # --- CLI arguments --------------------------------------------------------------------------
    Case(
        "seed -1",
        "args",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--seed", "-1"),
        needles=("--seed", "must be >= 0"),
    ),
    Case(
        "seed=-5",
        "args",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--seed=-5"),
        needles=("--seed", "must be >= 0"),
    ),
    Case(
        "seed 2**64",
        "args",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--seed", str(2**64)),
        needles=("--seed", "largest seed"),
    ),
    Case(
        "seed text",
        "args",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--seed", "1e3"),
        needles=("--seed", "whole number"),
    ),
    Case("seeds=-5", "args", ("compare", "--scenario", "ll-stall-mini", "--seeds=-5"), needles=("--seeds",)),
    Case("seeds 0", "args", ("compare", "--scenario", "ll-stall-mini", "--seeds", "0"), needles=("--seeds",)),
    Case(
        "seeds a hundred million",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--seeds", "100000000"),
        needles=("--max-runs",),
    ),
    Case(
        "seeds over --max-runs",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--policies", "first_fit,best_fit", "--seeds", "6000"),
        needles=("12,000 runs", "--max-runs 12000"),
    ),
    Case(
        "seed list comma",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--seed-list", ","),
        needles=("--seed-list", "at least one seed"),
    ),
    Case(
        "seed list negative",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--seed-list=-1"),
        needles=("--seed-list", ">= 0"),
    ),
    Case(
        "seed list reversed",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--seed-list", "5-1"),
        needles=("empty seed range",),
    ),
    Case(
        "seed range a billion",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--seed-list", "0-1000000000"),
        needles=("more than 100,000 seeds",),
    ),
    Case(
        "seed list repeats a seed",
        "silent",
        ("compare", "--scenario", "ll-stall-mini", "--seed-list", "1-5,3"),
        needles=("--seed-list", "seed 3 appears twice"),
    ),
    Case(
        "policy named twice",
        "silent",
        ("compare", "--scenario", "ll-stall-mini", "--policies", "first_fit,first_fit"),
        needles=("'first_fit' appears twice",),
    ),
    _sweep_case(
        "sweep repeats a seed",
        "silent",
        _set(SWEEP_SPEC, "simulate.seeds", [0, 1, 0]),
        "simulate.seeds",
        "0 appears twice",
    ),
    Case(
        "seed list words",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--seed-list", "a,b"),
        needles=("expected seeds like",),
    ),
    Case(
        "jobs 99999999999",
        "args",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--jobs", "99999999999"),
        needles=("--jobs", "limit on jobs"),
    ),
    Case(
        "jobs -3",
        "args",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--jobs=-3"),
        needles=("--jobs",),
    ),
    Case(
        "max runs 0",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--max-runs", "0"),
        needles=("--max-runs",),
    ),
    Case(
        "max runs too many",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--max-runs", "10000000"),
        needles=("--max-runs", "limit on runs"),
    ),
    Case(
        "workers too many",
        "args",
        ("sweep", "{tmp}/spec.yaml", "--workers", "100000"),
        {"spec.yaml": yaml.safe_dump(SWEEP_SPEC)},
        ("--workers", "limit on workers"),
    ),
    Case(
        "no policies",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--policies", ","),
        needles=("--policies",),
    ),
    Case(
        "unknown policy",
        "args",
        ("compare", "--scenario", "ll-stall-mini", "--policies", "first_fit,nope"),
        needles=("'nope'",),
    ),
    Case(
        "train seed -1",
        "args",
        ("train", "--scenario", "ll-stall-mini", "--timesteps", "10", "--seed", "-1", "--out", "{tmp}/m.zip"),
        needles=("--seed",),
    ),
    # --- outputs, checked before any run -----------------------------------------------------------
    Case(
        "json is a folder",
        "outputs",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--json", "{tmp}/adir"),
        {"adir/keep": ""},
        ("--json", "is a folder"),
    ),
    Case(
        "json under a file",
        "outputs",
        (
            "simulate",
            "--scenario",
            "ll-stall-mini",
            "--policy",
            "first_fit",
            "--json",
            "{tmp}/f.txt/run.json",
        ),
        {"f.txt": "x"},
        ("is a file",),
    ),
    Case(
        "json in a missing folder",
        "outputs",
        ("compare", "--scenario", "ll-stall-mini", "--json", "{tmp}/nope/cmp.json"),
        needles=("does not exist",),
    ),
    Case(
        "jobs csv is a folder",
        "outputs",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--jobs-csv", "{tmp}/adir"),
        {"adir/keep": ""},
        ("--jobs-csv", "is a folder"),
    ),
    Case(
        "allocation json is a folder",
        "outputs",
        _alloc("{tmp}/nodes.csv", "{tmp}/pods.csv", "--json", "{tmp}/adir"),
        TRACE_FILES | {"adir/keep": ""},
        ("--json", "is a folder"),
    ),
    Case(
        "sweep out is a file",
        "outputs",
        ("sweep", "{tmp}/spec.yaml", "--out", "{tmp}/f.txt"),
        {"spec.yaml": yaml.safe_dump(SWEEP_SPEC), "f.txt": "x"},
        ("--out", "is a file, not a folder"),
    ),
    Case(
        "sweep out under a file",
        "outputs",
        ("sweep", "{tmp}/spec.yaml", "--out", "{tmp}/f.txt/out"),
        {"spec.yaml": yaml.safe_dump(SWEEP_SPEC), "f.txt": "x"},
        ("--out", "is a file, not a folder"),
    ),
    Case(
        "train out is a folder",
        "outputs",
        ("train", "--scenario", "ll-stall-mini", "--timesteps", "10", "--out", "{tmp}/adir.zip"),
        {"adir.zip/keep": ""},
        ("--out", "is a folder"),
    ),
    # --- openb traces ----------------------------------------------------------------------------
    Case(
        "pods num_gpu 1e20",
        "traces",
        _alloc(),
        {"nodes.csv": NODES_CSV, "pods.csv": PODS_CSV.replace("p3,1000,1024,1,", "p3,1000,1024,1e20,")},
        ("pods.csv", "line 5", "'num_gpu'", "<= 64"),
    ),
    Case(
        "pods num_gpu inf",
        "traces",
        _alloc(),
        {"nodes.csv": NODES_CSV, "pods.csv": PODS_CSV.replace("p3,1000,1024,1,", "p3,1000,1024,inf,")},
        ("line 5", "'num_gpu'", "finite"),
    ),
    Case(
        "pods cpu nan",
        "traces",
        _alloc(),
        {"nodes.csv": NODES_CSV, "pods.csv": PODS_CSV.replace("p2,1000,", "p2,nan,")},
        ("line 4", "'cpu_milli'", "must be a number"),
    ),
    Case(
        "pods memory huge",
        "traces",
        _alloc(),
        {"nodes.csv": NODES_CSV, "pods.csv": PODS_CSV.replace("p2,1000,1024,", "p2,1000,1e300,")},
        ("line 4", "'memory_mib'"),
    ),
    Case(
        "pods deleted before created",
        "silent",
        _simulate("tr.yaml"),
        TRACE_FILES
        | {
            "tr.yaml": scenario_yaml(base=TRACE_SCENARIO),
            "pods.csv": PODS_CSV.replace("p4,1000,1024,1,500,240,840", "p4,1000,1024,1,500,900,840"),
        },
        ("pods.csv", "line 6", "'deletion_time'", "before creation_time"),
    ),
    Case(
        "pods utf-16",
        "traces",
        _alloc(),
        {"nodes.csv": NODES_CSV, "pods.csv": PODS_CSV.encode("utf-16")},
        ("pods.csv", "UTF-16"),
    ),
    Case(
        "pods binary",
        "traces",
        _alloc(),
        {"nodes.csv": NODES_CSV, "pods.csv": bytes(range(256))},
        ("pods.csv", "NUL bytes"),
    ),
    Case(
        "pods missing column",
        "traces",
        _alloc(),
        {"nodes.csv": NODES_CSV, "pods.csv": "name,cpu_milli\np0,1\n"},
        ("missing column",),
    ),
    Case(
        "nodes gpu 1e20",
        "allocation",
        _alloc(),
        {"nodes.csv": NODES_CSV.replace("n1,64000,262144,8,", "n1,64000,262144,1e20,"), "pods.csv": PODS_CSV},
        ("nodes.csv", "line 3", "'gpu'", "<= 64"),
    ),
    Case(
        "nodes negative cpu",
        "traces",
        _alloc(),
        {"nodes.csv": NODES_CSV.replace("n1,64000,", "n1,-5,"), "pods.csv": PODS_CSV},
        ("nodes.csv", ">= 0"),
    ),
    Case(
        "nodes without a gpu",
        "traces",
        _alloc(),
        {"nodes.csv": "sn,cpu_milli,memory_mib,gpu,model\nc0,64000,262144,0,\n", "pods.csv": PODS_CSV},
        ("no GPU node",),
    ),
]


# ---------------------------------------------------------------------------- Shockwave and Philly
# Shockwave's trace, throughputs and settings (gpusched/workload/shockwave.py), the phases built from
# them (gpusched/workload/shockwave_phases.py), and Microsoft's Philly trace
# (gpusched/workload/philly.py). Each row hands its files straight to a reader
# (tests/test_hostile_readers.py), which must raise the project's one error type with one line that
# names the file and the line, column or key. A Shockwave trace given as a scenario's workload has
# its own command-line rows (SW_WORKLOAD_CASES, at the end).
@dataclass(frozen=True)
class ReaderCase:
    """One hostile file handed straight to a reader.

    :param id: a short unique name.
    :param reader: ``shockwave trace`` (reads ``w.trace``), ``shockwave throughputs`` (``t.json``),
        ``shockwave settings`` (``c.json``), ``shockwave phases`` (``w.trace`` with ``t.json``),
        ``shockwave results`` (``r.json``) or ``philly`` (``p.csv``).
    :param files: the files, by name (text or bytes); absent ones are the valid files below.
    :param needles: texts the one error line must hold.
    """

    id: str
    reader: str
    files: dict[str, str | bytes]
    needles: tuple[str, ...]


SW_FIELDS: tuple[str, ...] = ("LM (batch size 10)", "python3 main.py --batch_size 10", "language_modeling",
                              "--steps", "1", "134583", "1", "gns", "1", "-1.000000", "1418", "0")
"""One valid trace line's fields (the first job of Shockwave's TACC trace)."""


def sw_line(**changes: str) -> str:
    """A trace line with some fields changed (by column name)."""
    fields = dict(zip(TRACE_COLUMNS, SW_FIELDS, strict=True)) | changes
    return "\t".join(fields.values()) + "\n"


SW_TRACE = (sw_line()
            + sw_line(job_type="ResNet-18 (batch size 32)", total_steps="143450", mode="accordion",
                      duration="3338", arrival_time="55")
            + sw_line(job_type="ResNet-50 (batch size 64)", total_steps="5279", mode="static",
                      duration="895", arrival_time="64"))
"""A valid three-job trace: a gns, an accordion and a static job."""

SW_THROUGHPUTS_DOC: dict[str, Any] = {
    gpu: {f"('{job_type}', 1)": {"null": speed, f"('{job_type}', 1)": [speed / 2, speed / 2]}
          for job_type, speed in (("LM (batch size 10)", 94.9), ("LM (batch size 20)", 68.1),
                                  ("LM (batch size 40)", 46.8), ("LM (batch size 80)", 21.7),
                                  ("ResNet-18 (batch size 32)", 43.0), ("ResNet-18 (batch size 256)", 6.3),
                                  ("ResNet-50 (batch size 64)", 3.1))}
    for gpu in ("v100", "v100_unconsolidated")
}
"""Valid throughputs for the jobs of :data:`SW_TRACE` and the batch sizes they change to."""

SW_THROUGHPUTS = json.dumps(SW_THROUGHPUTS_DOC)

SW_CONFIG_DOC: dict[str, Any] = {"future_rounds": 20, "k": 1e-3, "lambda": 12.0, "rhomax": 1.0,
                                 "log_approximation_bases": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], "gpu_ram": 16,
                                 "solver_rel_gap": 1e-3, "solver_num_threads": 24, "solver_timeout": 15}
"""Valid Shockwave settings (those of the TACC run)."""

PHILLY_CSV = ("timestamp,duration,num_gpus,gpu_time,cluster\n"
              "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
              "2017-10-09 06:13:03,2951.0,2,5902.0,6214e9\n"
              "2017-09-29 07:58:32,860662.0,1,860662.0,6c71a0\n"
              "2017-10-09 06:13:36,2759.0,8,22072.0,6214e9\n")
"""A valid four-job Philly CSV (submissions out of order, as in the trace)."""

RESULT_DOC: dict[str, Any] = {
    "policy": "fifo", "kind": "physical", "avg_jct_s": 200.0, "makespan_s": 500.0, "cluster_util": 0.5,
    "time_per_iteration_s": 120, "rounds": 9, "jct_s": [100.0, 250.0, 250.0],
    "finish_time_fairness": [1.0, 1.5, 0.9],
    "throughput_timeline": {"0": [[1, 94.9, 10]], "1": [[2, 40.5, 32], [3, 5.5, 256]], "2": []},
}
"""A valid outcome file of three jobs (Shockwave's results format)."""

READER_FILES: dict[str, str] = {"w.trace": SW_TRACE, "t.json": SW_THROUGHPUTS,
                                "c.json": json.dumps(SW_CONFIG_DOC), "p.csv": PHILLY_CSV,
                                "r.json": json.dumps(RESULT_DOC)}
"""The valid file each reader reads when a case does not give its own."""


def _trace_case(id: str, text: str | bytes, *needles: str, reader: str = "shockwave trace") -> ReaderCase:
    return ReaderCase(id, reader, {"w.trace": text}, ("w.trace", *needles))


def _line2(**changes: str) -> str:
    """:data:`SW_TRACE` with its second line's fields changed."""
    lines = SW_TRACE.splitlines(keepends=True)
    fields = dict(zip(TRACE_COLUMNS, lines[1].rstrip("\n").split("\t"), strict=True)) | changes
    return lines[0] + "\t".join(fields.values()) + "\n" + lines[2]


def _throughputs_case(id: str, doc_or_text: Any, *needles: str) -> ReaderCase:
    text = doc_or_text if isinstance(doc_or_text, str | bytes) else json.dumps(doc_or_text)
    return ReaderCase(id, "shockwave throughputs", {"t.json": text}, ("t.json", *needles))


def _with_entry(key: str, value: Any, gpu: str = "v100") -> dict[str, Any]:
    return _with_entries({key: value}, gpu)


def _with_entries(entries: dict[str, Any], gpu: str = "v100") -> dict[str, Any]:
    """:data:`SW_THROUGHPUTS_DOC` with ``entries`` added to (or replacing those of) ``gpu``."""
    doc = copy.deepcopy(SW_THROUGHPUTS_DOC)
    doc[gpu] |= entries
    return doc


def _config_case(id: str, changes: dict[str, Any], *needles: str, drop: str | None = None) -> ReaderCase:
    doc = copy.deepcopy(SW_CONFIG_DOC) | changes
    if drop:
        del doc[drop]
    return ReaderCase(id, "shockwave settings", {"c.json": json.dumps(doc)}, ("c.json", *needles))


def _result_case(id: str, changes: dict[str, Any], *needles: str) -> ReaderCase:
    doc = copy.deepcopy(RESULT_DOC) | changes
    return ReaderCase(id, "shockwave results", {"r.json": json.dumps(doc)}, ("r.json", *needles))


def _philly_case(id: str, text: str | bytes, *needles: str) -> ReaderCase:
    return ReaderCase(id, "philly", {"p.csv": text}, ("p.csv", *needles))


def _philly_row(row: str) -> str:
    """:data:`PHILLY_CSV` with its third data row (line 4) replaced."""
    lines = PHILLY_CSV.splitlines(keepends=True)
    return "".join(lines[:3]) + row + "\n" + lines[4]


READER_CASES: list[ReaderCase] = [
    # --- Shockwave's trace ------------------------------------------------------------------------
    _trace_case("sw trace empty", "", "holds no job"),
    _trace_case("sw trace utf-16", SW_TRACE.encode("utf-16"), "UTF-16"),
    _trace_case("sw trace binary", bytes(range(256)), "NUL bytes"),
    _trace_case("sw trace too large", b"x" * (MAX_TRACE_BYTES + 1), "larger than the limit"),
    _trace_case("sw trace 11 fields", SW_TRACE.replace("\t-1.000000", "", 1), "line 1", "11 tab-separated"),
    _trace_case("sw trace comma separated", SW_TRACE.replace("\t", ","), "line 1", "1 tab-separated"),
    _trace_case("sw trace blank line", SW_TRACE.replace("\n", "\n\n", 1), "line 2", "blank"),
    _trace_case("sw trace no batch size", _line2(job_type="ResNet-18"), "line 2", "'job_type'",
                "accordion job changes its batch size"),
    _trace_case("sw trace job type with spaces", _line2(job_type="Res Net (batch size 3)"), "line 2",
                "'job_type'", "batch size"),
    _trace_case("sw trace batch size 0", _line2(job_type="ResNet-18 (batch size 0)"), "line 2", "from 1"),
    _trace_case("sw trace unknown mode", _line2(mode="elastic"), "line 2", "'mode'",
                "static, accordion, gns"),
    _trace_case("sw trace steps 0", _line2(total_steps="0"), "line 2", "'total_steps'", ">= 1"),
    _trace_case("sw trace steps fraction", _line2(total_steps="1.5"), "line 2", "'total_steps'", "whole"),
    _trace_case("sw trace steps nan", _line2(total_steps="nan"), "line 2", "'total_steps'", "a number"),
    _trace_case("sw trace steps inf", _line2(total_steps="inf"), "line 2", "'total_steps'", "a number"),
    _trace_case("sw trace steps 1e400", _line2(total_steps="1e400"), "line 2", "'total_steps'", "finite"),
    _trace_case("sw trace steps huge", _line2(total_steps="1e20"), "line 2", "'total_steps'", "<= 1e+15"),
    _trace_case("sw trace steps hex", _line2(total_steps="0x10"), "line 2", "'total_steps'", "a number"),
    _trace_case("sw trace steps underscore", _line2(total_steps="1_000"), "line 2", "a number"),
    _trace_case("sw trace steps arabic digits", _line2(total_steps="\u0661\u0662"), "line 2", "a number"),
    _trace_case("sw trace steps true", _line2(total_steps="true"), "line 2", "a number"),
    _trace_case("sw trace gpus 0", _line2(scale_factor="0"), "line 2", "'scale_factor'", ">= 1"),
    _trace_case("sw trace gpus 65", _line2(scale_factor="65"), "line 2", "'scale_factor'", "<= 64"),
    _trace_case("sw trace data dir 2", _line2(needs_data_dir="2"), "line 2", "'needs_data_dir'", "<= 1"),
    _trace_case("sw trace weight 0", _line2(priority_weight="0"), "line 2", "'priority_weight'", "> 0"),
    _trace_case("sw trace weight huge", _line2(priority_weight="1e7"), "line 2", "'priority_weight'"),
    _trace_case("sw trace slo 0", _line2(SLO="0"), "line 2", "'SLO'", "negative for none"),
    _trace_case("sw trace duration negative", _line2(duration="-5"), "line 2", "'duration'", "> 0"),
    _trace_case("sw trace duration empty", _line2(duration=""), "line 2", "'duration'", "a number"),
    _trace_case("sw trace arrival negative", _line2(arrival_time="-1"), "line 2", "'arrival_time'", ">= 0"),
    _trace_case("sw trace arrival backwards", _line2(arrival_time="70"), "line 3", "'arrival_time'",
                "arrival order"),
    _trace_case("sw trace control character", _line2(command="run\x1b[2J"), "line 2", "'command'",
                "control character"),
    _trace_case("sw trace job type too long", _line2(job_type="R" * 300 + " (batch size 1)"), "line 2",
                "longer than 200"),
    # --- Shockwave's throughputs --------------------------------------------------------------------
    _throughputs_case("sw throughputs not json", "{'v100': 1}", "not valid JSON"),
    _throughputs_case("sw throughputs nan", SW_THROUGHPUTS.replace("94.9", "NaN", 1), "finite"),
    _throughputs_case("sw throughputs infinity", SW_THROUGHPUTS.replace("94.9", "1e400", 1), "finite"),
    _throughputs_case("sw throughputs key twice", '{"v100": {}, "v100": {}}', "duplicate key 'v100'"),
    _throughputs_case("sw throughputs deep", "[" * 100_000 + "]" * 100_000, "nested too deep"),
    _throughputs_case("sw throughputs a list", "[1, 2]", "expected a mapping of GPU types"),
    _throughputs_case("sw throughputs gpu not a mapping", {"v100": [1, 2]}, "'v100'", "mapping of job types"),
    _throughputs_case("sw throughputs bad job key", _with_entry("ResNet-18 (batch size 32)", {"null": 1.0}),
                      "'v100'", "ResNet-18 (batch size 32)", "('<job type>', GPUs)"),
    _throughputs_case("sw throughputs gpus 0", _with_entry("('LM (batch size 10)', 0)", {"null": 1.0}),
                      "('LM (batch size 10)', 0)", ">= 1"),
    _throughputs_case("sw throughputs entry a number", _with_entry("('LM (batch size 10)', 1)", 94.9),
                      "('LM (batch size 10)', 1)", "'null' throughput"),
    _throughputs_case("sw throughputs no null", _with_entry("('LM (batch size 10)', 1)", {"x": 1}),
                      "('LM (batch size 10)', 1)", "no 'null'"),
    _throughputs_case("sw throughputs null negative", _with_entry("('LM (batch size 10)', 1)", {"null": -1}),
                      "'null'", ">= 0"),
    _throughputs_case("sw throughputs null text", _with_entry("('LM (batch size 10)', 1)", {"null": "94.9"}),
                      "'null'", "must be a number"),
    _throughputs_case("sw throughputs null true", _with_entry("('LM (batch size 10)', 1)", {"null": True}),
                      "'null'", "must be a number"),
    _throughputs_case("sw throughputs null huge", _with_entry("('LM (batch size 10)', 1)", {"null": 1e300}),
                      "'null'", "<= 1e+15"),
    _throughputs_case("sw throughputs gpu type in two cases", SW_THROUGHPUTS_DOC | {"V100": {}}, "'V100'",
                      "the same GPU type as 'v100'"),
    _throughputs_case("sw throughputs job key twice",
                      _with_entry("('LM (batch size 10)', 01)", {"null": 1.0}),
                      "('LM (batch size 10)', 01)", "the same job type and GPUs"),
    _throughputs_case("sw throughputs only spread gangs",
                      {"v100_unconsolidated": SW_THROUGHPUTS_DOC["v100_unconsolidated"]}, "no throughput"),
    # --- Shockwave's settings -----------------------------------------------------------------------
    ReaderCase("sw settings a list", "shockwave settings", {"c.json": "[]"}, ("c.json", "mapping of keys")),
    _config_case("sw settings unknown key", {"lamda": 12.0}, "'lamda'", "unknown"),
    _config_case("sw settings missing key", {}, "'k'", "missing", drop="k"),
    _config_case("sw settings k 0", {"k": 0}, "'k'", "> 0"),
    _config_case("sw settings lambda true", {"lambda": True}, "'lambda'", "a number"),
    _config_case("sw settings threads fraction", {"solver_num_threads": 2.5}, "'solver_num_threads'",
                 "whole"),
    _config_case("sw settings threads huge", {"solver_num_threads": 10**6}, "'solver_num_threads'",
                 "<= 1024"),
    _config_case("sw settings gpu ram huge", {"gpu_ram": 1e5}, "'gpu_ram'", "<= 4096"),
    _config_case("sw settings bases empty", {"log_approximation_bases": []}, "'log_approximation_bases'",
                 "non-empty list"),
    _config_case("sw settings bases unordered", {"log_approximation_bases": [0.0, 0.4, 0.2]},
                 "'log_approximation_bases'", "increasing"),
    _config_case("sw settings bases text", {"log_approximation_bases": [0.0, "0.2"]},
                 "'log_approximation_bases'[1]", "a number"),
    # --- the phases of Shockwave's jobs -------------------------------------------------------------
    _trace_case("sw phases unmeasured job type", _line2(job_type="ResNet-18 (batch size 48)"), "line 2",
                "no throughput", "ResNet-18 (batch size 48)", reader="shockwave phases"),
    ReaderCase("sw phases no accordion rule", "shockwave phases",
               {"w.trace": _line2(job_type="Recommendation (batch size 300)", total_steps="9000"),
                "t.json": json.dumps(_with_entry("('Recommendation (batch size 300)', 1)", {"null": 50.0}))},
               ("w.trace", "line 2", "no Accordion rule", "Recommendation at batch size 300")),
    ReaderCase("sw phases no dataset size", "shockwave phases",
               {"w.trace": _line2(job_type="BERT (batch size 8)", mode="gns"),
                "t.json": json.dumps(_with_entry("('BERT (batch size 8)', 1)", {"null": 9.0}))},
               ("w.trace", "line 2", "no dataset size for BERT")),
    ReaderCase("sw phases too many changes", "shockwave phases",
               {"w.trace": _line2(job_type="ResNet-50 (batch size 32)", total_steps="100000000000000"),
                "t.json": json.dumps(_with_entries({"('ResNet-50 (batch size 32)', 1)": {"null": 5.9},
                                                    "('ResNet-50 (batch size 128)', 1)": {"null": 1.6}}))},
               ("w.trace", "line 2", "changes so often", "MAX_PHASES (100,000)")),
    # --- Shockwave's outcomes ------------------------------------------------------------------------
    _result_case("sw results average not the mean", {"avg_jct_s": 210.0}, "'avg_jct_s'", "not the mean"),
    _result_case("sw results unknown kind", {"kind": "emulated"}, "'kind'", "physical, simulation"),
    _result_case("sw results jct 0", {"jct_s": [0.0, 300.0, 300.0]}, "'jct_s'[0]", "> 0"),
    _result_case("sw results lengths differ", {"finish_time_fairness": [1.0]}, "'finish_time_fairness'",
                 "1 values for 3 jobs"),
    _result_case("sw results unknown job", {"throughput_timeline": {"3": []}}, "'throughput_timeline'",
                 "job id from 0 to 2"),
    _result_case("sw results bad entry", {"throughput_timeline": {"0": [[1, 94.9]]}}, "[0]",
                 "[round, steps/s, batch size]"),
    _result_case("sw results batch size fraction", {"throughput_timeline": {"0": [[1, 94.9, 10.5]]}},
                 "[0][2]", "whole number"),
    ReaderCase("sw results missing key", "shockwave results",
               {"r.json": json.dumps({k: v for k, v in RESULT_DOC.items() if k != "rounds"})},
               ("r.json", "'rounds'", "missing")),
    # --- Philly -----------------------------------------------------------------------------------------
    _philly_case("philly utf-16", PHILLY_CSV.encode("utf-16"), "UTF-16"),
    _philly_case("philly header only", PHILLY_CSV.splitlines()[0] + "\n", "no rows"),
    _philly_case("philly missing column", PHILLY_CSV.replace("cluster", "vc", 1), "missing column 'cluster'"),
    _philly_case("philly month 13", _philly_row("2017-13-09 06:13:03,10.0,1,10.0,6214e9"), "line 4",
                 "'timestamp'", "YYYY-MM-DD HH:MM:SS"),
    _philly_case("philly iso time", _philly_row("2017-10-09T06:13:03,10.0,1,10.0,6214e9"), "line 4",
                 "'timestamp'"),
    _philly_case("philly empty time", _philly_row(",10.0,1,10.0,6214e9"), "line 4", "an empty cell"),
    _philly_case("philly duration 0", _philly_row("2017-10-09 06:13:03,0,1,0,6214e9"), "line 4",
                 "'duration'", "> 0"),
    _philly_case("philly duration nan", _philly_row("2017-10-09 06:13:03,nan,1,10.0,6214e9"), "line 4",
                 "'duration'", "must be a number"),
    _philly_case("philly duration inf", _philly_row("2017-10-09 06:13:03,inf,1,10.0,6214e9"), "line 4",
                 "'duration'", "finite"),
    _philly_case("philly gpus fraction", _philly_row("2017-10-09 06:13:03,10.0,1.5,15.0,6214e9"), "line 4",
                 "'num_gpus'", "whole number"),
    _philly_case("philly gpus 0", _philly_row("2017-10-09 06:13:03,10.0,0,0,6214e9"), "line 4",
                 "'num_gpus'", ">= 1"),
    _philly_case("philly gpus huge", _philly_row("2017-10-09 06:13:03,10.0,20000,200000,6214e9"), "line 4",
                 "'num_gpus'", "<= 10000"),
    _philly_case("philly gpu time off", _philly_row("2017-10-09 06:13:03,10.0,2,10.0,6214e9"), "line 4",
                 "'gpu_time'", "duration * num_gpus = 20"),
    _philly_case("philly a cell left out", _philly_row("2017-10-09 06:13:03,10.0,10.0,6214e9"), "line 4",
                 "'gpu_time'", "duration * num_gpus = 100"),
    _philly_case("philly no cluster", _philly_row("2017-10-09 06:13:03,10.0,1,10.0,"), "line 4",
                 "'cluster'", "1 to 200"),
    _philly_case("philly cluster too long", _philly_row("2017-10-09 06:13:03,10.0,1,10.0," + "c" * 300),
                 "line 4", "'cluster'"),
]
"""Hostile files handed straight to the readers (see the section's comment)."""


CASES += [
    # --- the allocation experiment -------------------------------------------------------------------
    Case(
        "header-only pod list",
        "allocation",
        _alloc(),
        {"nodes.csv": NODES_CSV, "pods.csv": PODS_HEADER},
        ("pods.csv", "no rows"),
    ),
    Case(
        "header-only node list",
        "allocation",
        _alloc(),
        {"nodes.csv": "sn,cpu_milli,memory_mib,gpu,model\n", "pods.csv": PODS_CSV},
        ("nodes.csv", "no rows"),
    ),
    Case(
        "empty pod list",
        "allocation",
        _alloc(),
        {"nodes.csv": NODES_CSV, "pods.csv": ""},
        ("pods.csv", "not a readable CSV"),
    ),
    Case(
        "cpu-only pod list",
        "allocation",
        _alloc(),
        {"nodes.csv": NODES_CSV, "pods.csv": "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nc0,100,64,0,0\n"},
        ("no GPU pod",),
    ),
    Case(
        "tune nan",
        "allocation",
        _alloc("{tmp}/nodes.csv", "{tmp}/pods.csv", "--tune", "nan"),
        TRACE_FILES,
        ("--tune",),
    ),
    Case(
        "tune inf",
        "allocation",
        _alloc("{tmp}/nodes.csv", "{tmp}/pods.csv", "--tune", "inf"),
        TRACE_FILES,
        ("--tune",),
    ),
    Case(
        "pods need more gpus than a node",
        "allocation",
        _alloc(),
        {
            "nodes.csv": NODES_CSV.replace(",8,", ",2,"),
            "pods.csv": "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,100,64,4,1000\n",
        },
        ("no node holds more",),
    ),
    Case(
        "small trace with missing columns",
        "allocation",
        (
            "allocation",
            "--nodes",
            "{tmp}/nodes.csv",
            "--pods",
            "{tmp}/big.csv",
            "--policies",
            "fgd,fgd_best_fit",
            "--seeds",
            "1,2",
        ),
        {
            "nodes.csv": NODES_CSV,
            "big.csv": "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
            + "".join(f"p{i},1000,1024,8,1000\n" for i in range(10)),
        },
        ("—", "note: no sample at @130", "left out of the means"),
        expect="ok",
    ),
    # --- sweeps -------------------------------------------------------------------------------------
    _sweep_case(
        "sweep of 100,000 runs",
        "sweep",
        _set(SWEEP_SPEC, "simulate.seeds", {"count": 100_000}),
        "100,000 runs",
        "--max-runs 100000",
    ),
    _sweep_case(
        "sweep of a million runs",
        "sweep",
        _set(
            _set(SWEEP_SPEC, "simulate.seeds", {"count": 100_000}),
            "simulate.overrides",
            {"workload.jobs": list(range(5, 15))},
        ),
        "1,000,000 runs",
        "--max-runs 1000000",
    ),
    _sweep_case(
        "sweep a trillion runs",
        "sweep",
        {
            "name": "huge",
            "simulate": {
                "scenarios": [f"a{i}" for i in range(1000)],
                "policies": [f"b{i}" for i in range(1000)],
                "seeds": {"start": 0, "count": 100_000},
            },
        },
        "limit of 1,000,000 runs",
    ),
    _sweep_case(
        "sweep seed count a billion",
        "sweep",
        _set(SWEEP_SPEC, "simulate.seeds", {"count": 10**9}),
        "simulate.seeds.count",
        "<= 100000",
    ),
    _sweep_case(
        "sweep negative seed",
        "sweep",
        _set(SWEEP_SPEC, "simulate.seeds", [0, -1]),
        "simulate.seeds[1]",
        ">= 0",
    ),
    _sweep_case(
        "sweep tune nan",
        "sweep",
        {"name": "a", "allocation": {"pods": ["p"], "policies": ["fgd"], "seeds": [1], "tune": float("nan")}},
        "allocation.tune",
        "finite",
    ),
    _sweep_case("sweep no grid", "sweep", {"name": "a"}, "needs a 'simulate' or an 'allocation' grid"),
    _sweep_case("sweep unknown key", "sweep", _set(SWEEP_SPEC, "simulate.colour", "red"), "simulate.colour"),
    _sweep_case("sweep seeds text", "sweep", _set(SWEEP_SPEC, "simulate.seeds", "all"), "simulate.seeds"),
    # --- model sidecars ----------------------------------------------------------------------------
    _sidecar_case("max_gpus string", {"max_gpus": "16"}, "sidecar 'm.json', max_gpus", "whole number"),
    _sidecar_case("max_gpus negative", {"max_gpus": -16}, "max_gpus", "> 0"),
    _sidecar_case("max_gpus huge", {"max_gpus": 10**12}, "max_gpus", "<="),
    _sidecar_case("max_gpus null", {"max_gpus": None}, "max_gpus", "whole number"),
    _sidecar_case("max_gpus list", {"max_gpus": [16]}, "max_gpus", "whole number"),
    _sidecar_case("max_gpus float", {"max_gpus": 16.0}, "max_gpus", "whole number"),
    _sidecar_case("hidden string", {"hidden": "64"}, "hidden", "whole number"),
    _sidecar_case("hidden negative", {"hidden": -64}, "hidden", "> 0"),
    _sidecar_case("hidden huge", {"hidden": 10**9}, "hidden", "<="),
    _sidecar_case("hidden null", {"hidden": None}, "hidden"),
    _sidecar_case("hidden list", {"hidden": [64]}, "hidden"),
    _sidecar_case("hidden missing", {"hidden": _DROP}, "hidden", "missing required key"),
    _sidecar_case("obs_version string", {"obs_version": "1"}, "obs_version", "whole number"),
    _sidecar_case("obs_version unknown", {"obs_version": 7}, "observation version 7"),
    _sidecar_case("queue_window negative", {"queue_window": -1}, "queue_window", "> 0"),
    _sidecar_case(
        "vram_scale_gb nan",
        '{"format": "gpusched-ppo", "obs_version": 1, "hidden": 64, '
        '"vram_scale_gb": NaN, "sha256": "' + SHIPPED_SIDECAR["sha256"] + '"}',
        "vram_scale_gb",
        "finite",
    ),
    _sidecar_case("vram_scale_gb string", {"vram_scale_gb": "80"}, "vram_scale_gb", "number"),
    _sidecar_case("sha256 not hex", {"sha256": "zz"}, "sha256"),
    _sidecar_case("sha256 of another file", {"sha256": "0" * 64}, "does not match the sha256"),
    _sidecar_case("format other", {"format": "pickle"}, "not a gpusched-ppo sidecar"),
    _sidecar_case("sidecar a list", "[1, 2]", "not a gpusched-ppo sidecar"),
    _sidecar_case("sidecar not json", "{nope", "not valid JSON"),
    _sidecar_case("sidecar deep json", "[" * 100_000 + "]" * 100_000, "not valid JSON"),
    _sidecar_case("sidecar binary", b"\x00\xff" * 50, "NUL bytes"),
    _sidecar_case(
        "sidecar too large",
        json.dumps(SHIPPED_SIDECAR | {"pad": "x" * (2 * 1024 * 1024)}),
        "larger than the limit",
    ),
    # --- newcomer defects: said, not silent ---------------------------------------------------------
    Case(
        "training-only mix on two T4s",
        "newcomer",
        _simulate(),
        {
            "s.yaml": scenario_yaml(
                {
                    "cluster.nodes": [
                        {"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 1, "count": 2}
                    ],
                    "workload.mix": {"training": 1.0},
                }
            )
        },
        ("note: ", "training jobs with 2, 4 or 8 GPUs, or 24, 32, 40 or 80 GB per GPU"),
        expect="ok",
    ),
    Case(
        "horizon before later arrivals",
        "silent",
        _simulate("h.yaml", "--jobs-csv", "{tmp}/jobs.csv"),
        {"h.yaml": scenario_yaml({"horizon_min": 30.0, "workload.jobs": 40})},
        ("run ended: horizon",),
        expect="ok",
    ),  # --- the newer surfaces: sweep names can write anywhere ----------------------------------------
    *[
        Case(
            f"sweep name {label}",
            "silent",
            ("sweep", "{tmp}/spec.yaml", "--workers", "1"),
            {"spec.yaml": yaml.safe_dump(_set(SWEEP_SPEC, "name", name))},
            ("sweep spec 'spec.yaml', name:", *needles),
        )
        for label, name, needles in [
            ("root", "/", ("'/'",)),
            ("dot dot", "..", ("'..'",)),
            ("parent path", "../escape", ("'/'",)),
            ("absolute", "/tmp/escape", ("'/'",)),
            ("backslash", "..\\escape", ("'\\'",)),
            ("nul byte", "a\x00b", ("control character",)),
            ("escape char", "a\x1bb", ("control character",)),
            ("blank", "   ", ("not blank",)),
            ("too long", "x" * (MAX_NAME_CHARS + 1), ("MAX_NAME_CHARS",)),
        ]
    ],
    # --- the newer surfaces: booleans and quoted numbers are not numbers ---------------------------
    _scenario_case("horizon true", "types", {"horizon_min": True}, "horizon_min", "not true or false"),
    _scenario_case(
        "load true",
        "types",
        {"workload.load": True, "workload.arrival_rate_per_hour": None},
        "workload.load",
        "not true or false",
    ),
    _scenario_case(
        "load quoted",
        "types",
        {"workload.load": "0.5", "workload.arrival_rate_per_hour": None},
        "workload.load",
        "not text",
    ),
    _scenario_case(
        "jobs quoted", "types", {"workload.jobs": "20"}, "workload.jobs", "whole number, not text"
    ),
    _scenario_case("count true", "types", {"cluster.nodes.0.count": True}, "count", "not true or false"),
    _scenario_case(
        "mix share quoted", "types", {"workload.mix.batch": "0.3"}, "workload.mix.batch", "not text"
    ),
    _scenario_case("queue window true", "types", {"queue": {"window": True}}, "queue.window", "not true"),
    _scenario_case("queue window quoted", "types", {"queue": {"window": "8"}}, "queue.window", "not text"),
    _scenario_case(
        "reward weight true", "types", {"reward": {"wait": True}}, "reward.wait", "must be a number"
    ),
    _scenario_case("util band quoted", "types", {"util_band": ["0.6", 0.8]}, "util_band[0]", "not text"),
    _sweep_case(
        "sweep seed true",
        "types",
        _set(SWEEP_SPEC, "simulate.seeds", [0, True]),
        "simulate.seeds[1]",
        "not true or false",
    ),
    _sweep_case(
        "sweep seed count quoted",
        "types",
        _set(SWEEP_SPEC, "simulate.seeds", {"count": "3"}),
        "simulate.seeds.count",
        "not text",
    ),
    _sweep_case(
        "sweep tune true",
        "types",
        {
            "name": "a",
            "allocation": {
                "pods": ["openb_pod_list_default"],
                "policies": ["fgd"],
                "seeds": [1],
                "tune": True,
            },
        },
        "allocation.tune",
        "not true or false",
    ),
    _sweep_case(
        "sweep override load true",
        "types",
        _set(SWEEP_SPEC, "simulate.overrides", {"workload.load": [True]}),
        "simulate.overrides (workload.load=True)",
        "workload.load",
        "not true or false",
    ),
    _sweep_case(
        "sweep override jobs quoted",
        "types",
        _set(SWEEP_SPEC, "simulate.overrides", {"workload.jobs": ["5"]}),
        "workload.jobs",
        "not text",
    ),
    _sidecar_case("max_gpus true", {"max_gpus": True}, "max_gpus", "whole number"),
    _sidecar_case("timesteps quoted", {"timesteps": "200000"}, "timesteps", "whole number"),
    _sidecar_case("randomize a number", {"randomize": 1}, "randomize", "true or false"),
    # --- the newer surfaces: the speed table ------------------------------------------------------
    Case(
        "speed row for a model the cluster lacks",
        "speed",
        _simulate(),
        {"s.yaml": scenario_yaml({"speed": {"T4-16gb": {"training": 0.5}, "A100-80GB": {"batch": 1.0}}})},
        ("note: the speed table names GPU models the cluster does not have", "'T4-16gb'"),
        expect="ok",
    ),
    _scenario_case(
        "speed unknown job type",
        "speed",
        {"speed": {"T4-16GB": {"trainig": 0.5}}},
        "speed:",
        "'T4-16GB'",
        "'trainig'",
        "known: training",
    ),
    _scenario_case(
        "speed true",
        "speed",
        {"speed": {"T4-16GB": {"training": True}}},
        "training jobs on 'T4-16GB'",
        "must be a number",
    ),
    _scenario_case(
        "speed quoted",
        "speed",
        {"speed": {"T4-16GB": {"inference": "0.5"}}},
        "inference jobs on 'T4-16GB'",
        "must be a number",
    ),
    _scenario_case(
        "speed zero", "speed", {"speed": {"T4-16GB": {"batch": 0}}}, "batch jobs on 'T4-16GB'", "SPEED_RANGE"
    ),
    _scenario_case(
        "speed nan",
        "speed",
        {"speed": {"T4-16GB": {"batch": float("nan")}}},
        "batch jobs on 'T4-16GB'",
        "SPEED_RANGE",
    ),
    _scenario_case(
        "speed row a number",
        "speed",
        {"speed": {"T4-16GB": 0.5}},
        "the row of 'T4-16GB'",
        "must map job types",
    ),
    _scenario_case("speed a word", "speed", {"speed": "fast"}, "speed:", "'default' or a table"),
    _scenario_case(
        "arrival rate on a trace",
        "silent",
        {"workload.arrival_rate_per_hour": 5},
        "'arrival_rate_per_hour'",
        "a trace has its own arrival times",
        base=TRACE_SCENARIO,
    ),
    Case(
        "trace pod of one second at a large compression",
        "silent",
        _simulate(),
        TRACE_FILES
        | {
            "s.yaml": scenario_yaml({"workload.trace.time_compression": 1e6}, TRACE_SCENARIO),
            "pods.csv": PODS_CSV.replace("p3,1000,1024,1,500,180,780,180", "p3,1000,1024,1,500,180,181,180"),
        },
        ("pods.csv", "line 5", "pod 'p3'", "rounds to 0", "at most"),
    ),
    # --- the newer surfaces: training settings (refused before anything starts) -------------------
    Case("set hidden 0", "training", _train_set("hidden=0"), needles=("training settings, hidden", ">= 1")),
    Case("set n_envs 0", "training", _train_set("n_envs=0"), needles=("n_envs", ">= 1")),
    Case("set batch_size 0", "training", _train_set("batch_size=0"), needles=("batch_size", ">= 2")),
    Case(
        "set timesteps huge", "training", _train_set("timesteps=1000000000000"), needles=("timesteps", "<=")
    ),
    Case("set speed_sigma 5", "training", _train_set("speed_sigma=5"), needles=("speed_sigma", "<= 1")),
    Case(
        "set random_windows past the limit",
        "training",
        _train_set("random_windows=[1,500]"),
        needles=("random_windows[1]", "<= 128"),
    ),
    Case("set hidden text", "training", _train_set("hidden=abc"), needles=("hidden", "not text")),
    Case("set hidden quoted", "training", _train_set('hidden="64"'), needles=("hidden", "not text")),
    Case("set hidden true", "training", _train_set("hidden=true"), needles=("hidden", "not true or false")),
    Case(
        "set learning rate nan",
        "training",
        _train_set("learning_rate=NaN"),
        needles=("learning_rate", "finite"),
    ),
    Case("set randomize 1", "training", _train_set("randomize=1"), needles=("randomize", "true or false")),
    Case("set eval seeds empty", "training", _train_set("eval_seeds=[]"), needles=("eval_seeds", "empty")),
    Case(
        "set teacher unknown",
        "training",
        _train_set("bc_policy=nope"),
        needles=("bc_policy", "unknown policy 'nope'"),
    ),
    Case(
        "set train reward true",
        "training",
        _train_set('train_reward={"wait": true}'),
        needles=("train_reward", "wait"),
    ),
    Case("set out not a zip", "training", _train_set("out=model.pt"), needles=("--out", ".zip")),
    Case("set unknown key", "training", _train_set("colour=red"), needles=("--set", "TrainConfig field")),
    Case(
        "loads in scientific notation",
        "training",
        _train("--loads", "5e-2-0.3"),
        needles=("--loads sets the load of random clusters",),
    ),
    Case(
        "loads with a colon",
        "training",
        _train("--loads", "5e-2:0.3"),
        needles=("--loads sets the load of random clusters",),
    ),
    Case(
        "loads reversed",
        "training",
        _train("--randomize", "--loads", "0.3:5e-2"),
        needles=("--loads", "above the second"),
    ),
    Case(
        "max gpus past the limit",
        "training",
        _train("--max-gpus", "100000"),
        needles=("--max-gpus", "limit on GPUs"),
    ),
    # train refuses what its evaluation (or its teacher) could not run, and flags --urgency overrides
    Case(
        "train fifo agent told none",
        "training",
        _train_set("declared_run_time=none"),
        needles=(
            "training settings, declared_run_time",
            "observation version 1 reads them",
            "--urgency none",
        ),
    ),
    Case(
        "train window agent told none",
        "training",
        _train("--windows", "1-4", "--set", "declared_run_time=none"),
        needles=("training settings, declared_run_time", "observation version 4 reads them"),
    ),
    _train_scenario_case(
        "train on a scenario that declares none",
        {"workload.declared_run_time": "none"},
        "scenario 's.yaml', workload.declared_run_time",
        "observation version 1 reads them",
    ),
    Case(
        "train urgency none with a teacher that reads run times",
        "training",
        _train("--urgency", "none", "--set", "bc_policy=sjf+first_fit"),
        needles=("training settings, bc_policy", "'sjf+first_fit' reads them"),
    ),
    Case(
        "train urgency with randomize",
        "training",
        _train("--urgency", "history", "--randomize"),
        needles=("--urgency", "leave out --randomize"),
    ),
    Case(
        "train urgency with speed sigma",
        "training",
        _train("--urgency", "none", "--speed-sigma", "0.2"),
        needles=("--urgency", "leave out --speed-sigma"),
    ),
    Case(
        "train urgency with fewer gpu slots than the cluster",
        "training",
        _train("--urgency", "history", "--max-gpus", "2"),
        needles=("max_gpus (--max-gpus)", "has 3 GPUs"),
    ),
    _train_scenario_case(
        "train on a job list that never fits",
        {},
        "job 3",
        base=LIST_SCENARIO,
        files={"jobs.csv": NEVER_FITS_CSV},
    ),
    _train_scenario_case("train on a missing job list", {}, "jobs.csv", base=LIST_SCENARIO),
    Case(
        "train fifo agent with loads",
        "training",
        _train("--randomize", "--loads", "0.2-0.4"),
        needles=("training settings, random_loads (--loads)", "FIFO agent's, which would ignore it"),
    ),
    Case(
        "train fifo agent with a speed sigma",
        "training",
        _train_set("speed_sigma=0.3"),
        needles=("training settings, speed_sigma", "would ignore it"),
    ),
    _train_scenario_case(
        "train randomized on a job list without loads",
        {},
        "training settings, randomize (--randomize)",
        "no arrival rate",
        "--loads",
        extra=("--randomize",),
        base=LIST_SCENARIO,
        files={"jobs.csv": FITS_CSV},
    ),
    # --- the newer surfaces: policy names ----------------------------------------------------------
    Case(
        "agent as a placement",
        "policies",
        ("simulate", "--scenario", "fleet-16gpu", "--policy", "fcfs+ppo", "--jobs", "20"),
        needles=("'fcfs+ppo'", "cannot be the placement"),
    ),
    Case(
        "agent as a placement in compare",
        "policies",
        ("compare", "--scenario", "fleet-16gpu", "--policies", "first_fit,sjf+ppo_rollout", "--seeds", "1"),
        needles=("'sjf+ppo_rollout'", "cannot be the placement"),
    ),
    Case(
        "empty model path",
        "policies",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "ppo:"),
        needles=("'ppo:'", "nothing after"),
    ),
    Case(
        "empty model path with rollouts",
        "policies",
        ("compare", "--scenario", "ll-stall-mini", "--policies", "first_fit,ppo_rollout:", "--seeds", "1"),
        needles=("ppo_rollout:",),
    ),
    Case(
        "missing model in compare",
        "policies",
        ("compare", "--scenario", "ll-stall-mini", "--policies", "first_fit,ppo:nope.zip", "--seeds", "1"),
        needles=("model 'nope.zip' not found",),
    ),
    Case(
        "two pluses",
        "policies",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "sjf++best_fit"),
        needles=("takes one '+'",),
    ),
    Case(
        "nothing after the plus",
        "policies",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "sjf+"),
        needles=("nothing after '+'",),
    ),
    Case(
        "a very long policy name",
        "policies",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "x" * 5000),
        needles=("unknown policy", "..."),
    ),
    Case(
        "a very long queue policy name",
        "policies",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "sjf+" + "y" * 5000),
        needles=("...",),
    ),
    Case(
        "a sidecar given as the model",
        "policies",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "ppo:{tmp}/models/m.json"),
        {"models/m.zip": SHIPPED_ZIP, "models/m.json": json.dumps(SHIPPED_SIDECAR)},
        ("is a sidecar", "m.zip"),
    ),
    # --- the newer surfaces: model sidecars -------------------------------------------------------
    _sidecar_case("max_window text", {"max_window": "abc"}, "max_window", "whole number", window=True),
    _sidecar_case("max_window null", {"max_window": None}, "max_window", "whole number", window=True),
    _sidecar_case("max_window negative", {"max_window": -4}, "max_window", ">= 1", window=True),
    _sidecar_case("max_window a billion", {"max_window": 10**9}, "max_window", "<= 128", window=True),
    _sidecar_case("max_window 1e9", {"max_window": 1e9}, "max_window", "whole number", window=True),
    _sidecar_case(
        "random_windows reversed types", {"random_windows": ["1", 16]}, "random_windows[0]", window=True
    ),
    _sidecar_case("speed_sigma huge", {"speed_sigma": 1e300}, "speed_sigma", "<= 1", window=True),
    _sidecar_case(
        "scenario_speed unknown type",
        {"scenario_speed": {"T4-16GB": {"x": 1}}},
        "scenario_speed",
        "'x'",
        window=True,
    ),
    _sidecar_case(
        "eval nan",
        json.dumps(
            SHIPPED_SIDECAR | {"eval": {"seeds": [1], "avg": {"ppo": {"avg_wait_min": float("nan")}}}}
        ),
        "sidecar 'm.json', eval.avg.ppo.avg_wait_min",
        "finite",
    ),
    _sidecar_case(
        "config infinity",
        json.dumps(SHIPPED_SIDECAR | {"config": {"learning_rate": float("inf")}}),
        "config.learning_rate",
        "finite",
    ),
    _sidecar_case("eval seeds text", {"eval": {"seeds": "all", "avg": {}}}, "eval.seeds"),
    _sidecar_case(
        "config declared_run_time junk",
        {"config": {**SHIPPED_SIDECAR["config"], "declared_run_time": "banana"}},
        "sidecar 'm.json', config.declared_run_time",
        "'banana'",
    ),
    _sidecar_case(
        "config declared_run_time lognormal text",
        {"config": {**SHIPPED_SIDECAR["config"], "declared_run_time": {"lognormal": "1"}}},
        "config.declared_run_time",
        "lognormal",
    ),
    _sidecar_case(
        "config declared_run_time a list",
        {"config": {**SHIPPED_SIDECAR["config"], "declared_run_time": ["none"]}},
        "config.declared_run_time",
        "got list",
    ),
    # --- the newer surfaces: sweep specs checked before the first run -----------------------------
    _sweep_case(
        "sweep queue window 0",
        "sweep",
        _set(SWEEP_SPEC, "simulate.overrides", {"queue.window": [0]}),
        "simulate.overrides (queue.window=0)",
        "queue.window",
        ">= 1",
    ),
    _sweep_case(
        "sweep load 101",
        "sweep",
        _set(SWEEP_SPEC, "simulate.overrides", {"workload.load": [0.5, 101]}),
        "workload.load=101",
        "<= 100",
    ),
    _sweep_case(
        "sweep unknown policy",
        "sweep",
        _set(SWEEP_SPEC, "simulate.policies", ["first_fit", "nope"]),
        "simulate.policies[1]",
        "unknown policy 'nope'",
    ),
    _sweep_case(
        "sweep agent as a placement",
        "sweep",
        _set(SWEEP_SPEC, "simulate.policies", ["fcfs+ppo"]),
        "simulate.policies[0]",
        "cannot be the placement",
    ),
    _sweep_case(
        "sweep unknown scenario",
        "sweep",
        _set(SWEEP_SPEC, "simulate.scenarios", ["nope"]),
        "simulate.scenarios[0]",
        "unknown scenario 'nope'",
    ),
    _sweep_case(
        "sweep override without values",
        "sweep",
        _set(SWEEP_SPEC, "simulate.overrides", {"workload.jobs": []}),
        "at least one value",
    ),
    _sweep_case(
        "sweep unknown allocation policy",
        "sweep",
        {
            "name": "a",
            "allocation": {"pods": ["openb_pod_list_default"], "policies": ["fgd", "nope"], "seeds": [1]},
        },
        "allocation.policies[1]",
        "unknown policy 'nope'",
    ),
    _sweep_case(
        "sweep missing pod list",
        "sweep",
        {"name": "a", "allocation": {"pods": ["nope"], "policies": ["fgd"], "seeds": [1]}},
        "allocation.pods[0]",
        "no such file",
    ),
    # every grid point passes the check simulate makes before its run (gpusched.policies.preflight)
    _sweep_case(
        "sweep policy that reads run times under none",
        "sweep",
        _set(
            _set(SWEEP_SPEC, "simulate.policies", ["first_fit", "sjf+first_fit"]),
            "simulate.overrides",
            {"workload.declared_run_time": ["exact", "none"]},
        ),
        "sweep spec 'spec.yaml'",
        "workload.declared_run_time='none'",
        "simulate.policies[1]",
        "'sjf+first_fit' reads them",
    ),
    Case(
        "sweep model that reads run times under none",
        "sweep",
        ("sweep", "{tmp}/spec.yaml", "--workers", "1", "--out", "{tmp}/out"),
        {
            "spec.yaml": yaml.safe_dump(
                _set(
                    _set(SWEEP_SPEC, "simulate.policies", ["ppo:models/m.zip"]),
                    "simulate.overrides",
                    {"workload.declared_run_time": ["none"]},
                )
            ),
            "models/m.zip": SHIPPED_ZIP,
            "models/m.json": json.dumps(SHIPPED_SIDECAR),
        },
        ("simulate.policies[0]", "'ppo:models/m.zip' reads them"),
    ),
    Case(
        "sweep job list override missing",
        "sweep",
        ("sweep", "{tmp}/spec.yaml", "--workers", "1", "--out", "{tmp}/out"),
        {
            "spec.yaml": yaml.safe_dump(
                {
                    "name": "sw",
                    "simulate": {
                        "scenarios": ["{tmp}/s.yaml"],
                        "policies": ["first_fit"],
                        "seeds": [0],
                        "overrides": {"workload.trace.jobs": ["{tmp}/jobs.csv", "{tmp}/nope.csv"]},
                    },
                }
            ),
            "s.yaml": scenario_yaml(base=LIST_SCENARIO),
            "jobs.csv": FITS_CSV,
        },
        (
            "sweep spec 'spec.yaml', simulate.scenarios[0], simulate.overrides (workload.trace.jobs=",
            "nope.csv",
        ),
    ),
    Case(
        "sweep job list override malformed",
        "sweep",
        ("sweep", "{tmp}/spec.yaml", "--workers", "1", "--out", "{tmp}/out"),
        {
            "spec.yaml": yaml.safe_dump(
                {
                    "name": "sw",
                    "simulate": {
                        "scenarios": ["{tmp}/s.yaml"],
                        "policies": ["first_fit"],
                        "seeds": [0],
                        "overrides": {"workload.trace.jobs": ["{tmp}/bad.csv"]},
                    },
                }
            ),
            "s.yaml": scenario_yaml(base=LIST_SCENARIO),
            "jobs.csv": FITS_CSV,
            "bad.csv": "id,arrival_min,gpus\n0,0,1\n",
        },
        ("simulate.overrides (workload.trace.jobs=", "bad.csv"),
    ),
    Case(
        "sweep job list that never fits",
        "sweep",
        ("sweep", "{tmp}/spec.yaml", "--workers", "1", "--out", "{tmp}/out"),
        {
            "spec.yaml": yaml.safe_dump(_set(SWEEP_SPEC, "simulate.scenarios", ["{tmp}/s.yaml"])),
            "s.yaml": scenario_yaml(base=LIST_SCENARIO),
            "jobs.csv": NEVER_FITS_CSV,
        },
        ("sweep spec 'spec.yaml', simulate.scenarios[0]", "job 3"),
    ),
    _sweep_case(
        "sweep axis true and quoted true",
        "sweep",
        {
            "name": "sw",
            "simulate": {
                "scenarios": ["gavel-108gpu"],
                "policies": ["first_fit"],
                "seeds": [0],
                "overrides": {"workload.jobs": [5], "workload.multi_gpu": [True, "true"]},
            },
        },
        "sweep spec 'spec.yaml', simulate.scenarios[0], simulate.overrides",
        "workload.multi_gpu",
    ),
    # --- the newer surfaces: messages and notes -----------------------------------------------------
    Case(
        "seed range 1--3",
        "messages",
        ("compare", "--scenario", "ll-stall-mini", "--seed-list", "1--3"),
        needles=("seed range '1--3'", "FIRST-LAST"),
    ),
    Case(
        "seed range 1-x",
        "messages",
        ("compare", "--scenario", "ll-stall-mini", "--seed-list", "1-x"),
        needles=("seed range '1-x'",),
    ),
    Case(
        "baseline the only policy",
        "messages",
        (
            "compare",
            "--scenario",
            "ll-stall-mini",
            "--policies",
            "first_fit",
            "--baseline",
            "first_fit",
            "--seeds",
            "1",
        ),
        needles=("note: --baseline 'first_fit' is the only policy",),
        expect="ok",
    ),
    Case(
        "baseline over one seed",
        "messages",
        (
            "compare",
            "--scenario",
            "ll-stall-mini",
            "--policies",
            "first_fit,best_fit",
            "--baseline",
            "first_fit",
            "--seeds",
            "1",
            "--json",
            "{tmp}/cmp.json",
        ),
        needles=("[no interval]",),
        expect="ok",
    ),
    Case(
        "baseline a long name",
        "messages",
        ("compare", "--scenario", "ll-stall-mini", "--policies", "first_fit", "--baseline", "z" * 5000),
        needles=("--baseline", "..."),
    ),
    # --- the newer surfaces: outputs ---------------------------------------------------------------
    Case(
        "json empty",
        "outputs",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--json", ""),
        needles=("--json ''", "not an empty one"),
    ),
    Case(
        "jobs csv empty",
        "outputs",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--jobs-csv", " "),
        needles=("--jobs-csv",),
    ),
    Case(
        "json and jobs csv on one file",
        "outputs",
        (
            "simulate",
            "--scenario",
            "ll-stall-mini",
            "--policy",
            "first_fit",
            "--json",
            "{tmp}/out.txt",
            "--jobs-csv",
            "{tmp}/./out.txt",
        ),
        needles=("--jobs-csv", "--json writes the same file"),
    ),
    Case(
        "jobs csv to /dev/full",
        "outputs",
        (
            "simulate",
            "--scenario",
            "ll-stall-mini",
            "--policy",
            "first_fit",
            "--json",
            "{tmp}/run.json",
            "--jobs-csv",
            "/dev/full",
        ),
        needles=("--jobs-csv '/dev/full'", "not a regular file"),
    ),
    Case(
        "json under /proc",
        "outputs",
        ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--json", "/proc/gpusched.json"),
        needles=("--json '/proc/gpusched.json'", "cannot create a file"),
    ),
    Case(
        "train out under /proc",
        "outputs",
        ("train", "--scenario", "ll-stall-mini", "--timesteps", "10", "--out", "/proc/gpusched.zip"),
        needles=("--out '/proc/gpusched.zip'", "cannot create a file"),
    ),
    Case(
        "sweep out under /proc",
        "outputs",
        ("sweep", "{tmp}/spec.yaml", "--out", "/proc/gpusched-sweep"),
        {"spec.yaml": yaml.safe_dump(SWEEP_SPEC)},
        ("--out '/proc/gpusched-sweep'", "cannot create a file"),
    ),
    Case(
        "allocation json empty",
        "outputs",
        _alloc("{tmp}/nodes.csv", "{tmp}/pods.csv", "--json", ""),
        TRACE_FILES,
        ("--json ''",),
    ),
    # --- the failure, checkpoint, preemption and planner surfaces -----------------------------
    # silently wrong: a sidecar's scale that makes every observation infinite, weights that are
    # NaN or huge (a tampered zip, its sha256 updated), a key given twice in the sidecar's JSON
    _sidecar_case("vram scale tiny", {"vram_scale_gb": 1e-300}, "sidecar 'm.json', vram_scale_gb", ">= 1"),
    _sidecar_case("vram scale below the range", {"vram_scale_gb": 0.5}, "vram_scale_gb", ">= 1"),
    _tampered_case("weights all NaN", float("nan"), "model 'm.zip'", "NaN or infinite"),
    _tampered_case("weights huge", 1e30, "model 'm.zip'", "MAX_MODEL_WEIGHT"),
    _sidecar_case("sidecar duplicate key", _duplicate_key_sidecar("hidden"), "sidecar 'm.json'",
                  "duplicate key 'hidden'"),
    _sidecar_case("sidecar duplicate obs_version", _duplicate_key_sidecar("obs_version"),
                  "duplicate key 'obs_version'"),
    Case("jobs table at the horizon", "silent",
         ("simulate", "--scenario", "{tmp}/s.yaml", "--policy", "first_fit", "--jobs-csv", "{tmp}/jobs.csv"),
         {"s.yaml": scenario_yaml({"horizon_min": 100}, FAIL_SCENARIO)}, ("run ended: horizon",),
         expect="ok"),
    # tracebacks: a planner as the placement of an order; a checkpoint interval of almost nothing
    Case("lookahead_jct as a placement", "policies",
         ("simulate", "--scenario", "ll-stall-mini", "--policy", "sjf+lookahead_jct"),
         needles=("'lookahead_jct' cannot be the placement", "run it alone")),
    Case("lookahead_jct as the placement of las", "policies",
         ("simulate", "--scenario", "ll-stall-mini", "--policy", "las+lookahead_jct"),
         needles=("'lookahead_jct' cannot be the placement",)),
    _sweep_case("sweep lookahead_jct as a placement", "sweep",
                dict(SWEEP_SPEC, simulate=dict(SWEEP_SPEC["simulate"], policies=["las+lookahead_jct"])),
                "simulate.policies[0]", "cannot be the placement"),
    _failure_case("checkpoint interval 1e-320", "numbers", {"checkpoint.interval_min": 1e-320},
                  "checkpoint.interval_min", ">= 0.01"),
    _failure_case("checkpoint interval 1e-307 at a high rate", "numbers",
                  {"checkpoint.interval_min": 1e-307, "failures.node_failures_per_1000_node_days": 1e5},
                  "checkpoint.interval_min", ">= 0.01"),
    # runs that could never end: refused up front, or stopped at the safety horizon
    _failure_case("up time shorter than a checkpoint", "ends",
                  {"failures.node_failures_per_1000_node_days": 1e6}, "checkpoint:", "mean up time",
                  "no job that checkpoints could ever finish"),
    _failure_case("restore 10000 at a high rate", "ends",
                  {"checkpoint.restore_min": 10000, "failures.node_failures_per_1000_node_days": 1e4},
                  "restore_min + checkpoint.interval_min"),
    _failure_case("repair median 5e-324", "ends", {"failures.repair_min": {"median": 5e-324, "mean": 1e6}},
                  "failures.repair_min.median", ">= 0.01"),
    _failure_case("failure rate 1e-300", "ends", {"failures.node_failures_per_1000_node_days": 1e-300},
                  "failures.node_failures_per_1000_node_days", "MIN_FAILURE_RATE"),
    _never_ending("max failure rate with las+eft", {"node_failures_per_1000_node_days": 1e6}, "las+eft"),
    _never_ending("every node down", {"node_failures_per_1000_node_days": 1e6,
                                      "repair_min": {"median": 1e6, "mean": 1e6}}, "first_fit"),
    _never_ending("fast repairs at the max rate with srtf+eft",
                  {"node_failures_per_1000_node_days": 1e6, "repair_min": {"median": 0.01, "mean": 1e6}},
                  "srtf+eft"),
    # accepted without a word: booleans and quoted numbers in the new blocks
    _failure_case("failure rate true", "types", {"failures.node_failures_per_1000_node_days": True},
                  "failures.node_failures_per_1000_node_days", "not true or false"),
    _failure_case("failure rate false", "types", {"failures.node_failures_per_1000_node_days": False},
                  "failures.node_failures_per_1000_node_days", "not true or false"),
    _failure_case("failure rate quoted", "types", {"failures.node_failures_per_1000_node_days": "130"},
                  "failures.node_failures_per_1000_node_days", "not text"),
    _failure_case("failure rate 1e3 as text", "types", {"failures.node_failures_per_1000_node_days": "1e3"},
                  "not text"),
    _failure_case("repair median quoted", "types", {"failures.repair_min.median": "54"},
                  "failures.repair_min.median", "not text"),
    _failure_case("repair mean true", "types", {"failures.repair_min.mean": True},
                  "failures.repair_min.mean", "must be a number, not true or false"),
    _failure_case("failure seed true", "types", {"failures.seed": True}, "failures.seed",
                  "not true or false"),
    _failure_case("failure seed quoted", "types", {"failures.seed": "7"}, "failures.seed", "not text"),
    _failure_case("checkpoint interval quoted", "types", {"checkpoint.interval_min": "60"},
                  "checkpoint.interval_min", "not text"),
    _failure_case("checkpoint restore true", "types", {"checkpoint.restore_min": True},
                  "checkpoint.restore_min", "not true or false"),
    _failure_case("preemption min run quoted", "types", {"queue.preemption_min_run_min": "10"},
                  "queue.preemption_min_run_min", "not text"),
    _failure_case("preemption min run true", "types", {"queue.preemption_min_run_min": True},
                  "queue.preemption_min_run_min", "not true or false"),
    _sweep_override_case("sweep failure rate true", "sweep", "fleet-16gpu-failures",
                         {"failures.node_failures_per_1000_node_days": [True]},
                         "failures.node_failures_per_1000_node_days", "not true or false"),
    _sweep_override_case("sweep checkpoint interval quoted", "sweep", "fleet-16gpu-failures",
                         {"checkpoint.interval_min": ["60"]}, "checkpoint.interval_min", "not text"),
    _sweep_override_case("sweep 60 and '60'", "sweep", "fleet-16gpu-failures",
                         {"checkpoint.interval_min": [60, "60"]}, "appears twice (60 and '60')"),
    _sweep_override_case("sweep 5 and 5.0", "sweep", "ll-stall-mini", {"queue.window": [5, 5.0]},
                         "appears twice (5 and 5.0)"),
    Case("json with a trailing slash", "outputs",
         ("simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit", "--json", "{tmp}/out/"),
         needles=("--json", "ends in '/'")),
    Case("train --set label_workers without expert iteration", "training", _train_set("label_workers=4"),
         needles=("label_workers", "set expert_iterations too")),
    Case("train --set label_backend without expert iteration", "training", _train_set("label_backend=ray"),
         needles=("label_backend", "set expert_iterations too")),
    Case("train --label-workers without expert iteration", "training", _train("--label-workers", "4"),
         needles=("label_workers (--label-workers)", "set expert_iterations too")),
    # unclear messages
    _failure_case("failure seed 1e20", "messages", {"failures.seed": 1e20}, "failures.seed",
                  "must be <= 9007199254740991"),
    Case("ppo folder with a slash", "messages",
         ("simulate", "--scenario", "ll-stall-mini", "--policy", "ppo:{tmp}/models/"),
         {"models/keep.txt": "x"}, ("give a model file, not a folder",)),
    _sweep_override_case("sweep repair median on a preset without failures", "messages", "fleet-16gpu",
                         {"failures.repair_min.median": [10, 54]}, "has no 'failures:' block",
                         "override failures.node_failures_per_1000_node_days as well"),
    _sweep_override_case("sweep restore on a preset without checkpoints", "messages", "fleet-16gpu",
                         {"checkpoint.restore_min": [5]}, "has no 'checkpoint:' block",
                         "override checkpoint.interval_min as well"),
]
"""Every hostile input the tests try through the command line."""

CLASSES: tuple[str, ...] = tuple(dict.fromkeys(c.cls for c in CASES))
"""The classes of failure, in catalog order."""


# ---------------------------------------------------------------------------- job lists
# Plain job lists (workload.trace.jobs) and Gavel's speeds and generator, in a section of their
# own. They use the classes ``traces`` (a job list is read as a trace) and ``speed``.
JOB_LIST_SCENARIO: dict[str, Any] = {
    "name": "jl",
    "cluster": {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 8, "count": 1}
                          for m in ("K80", "P100", "V100")]},
    "workload": {"jobs": 10, "trace": {"jobs": "{tmp}/jobs.csv"}},
}
"""A small valid job-list scenario on Gavel's three GPU models."""

JOB_LIST_HEADER = "id,arrival_min,model,gpus,duration_min\n"
JOB_LIST_CSV = JOB_LIST_HEADER + "".join(f"{i},{i * 5},CycleGAN,1,30\n" for i in range(3))


def _job_list_case(id: str, csv: str, *needles: str, speed: str | None = None,
                   expect: str = "error") -> Case:
    data = _set(JOB_LIST_SCENARIO, "speed", speed) if speed else JOB_LIST_SCENARIO
    files = {"s.yaml": scenario_yaml(base=data), "jobs.csv": csv}
    return Case(id, "traces", _simulate(), files, ("jobs.csv",) + needles if expect == "error"
                else needles, expect)


def _row(row: str, header: str = JOB_LIST_HEADER) -> str:
    return header + "0,0,CycleGAN,1,30\n" + row + "\n"


def _job_list_scenario_case(id: str, cls: str, changes: dict[str, Any], csv: str, *needles: str,
                            expect: str = "error", extra: dict[str, str] | None = None) -> Case:
    """A case of :data:`JOB_LIST_SCENARIO` with ``changes`` and the job list ``csv``."""
    files = {"s.yaml": scenario_yaml(changes, JOB_LIST_SCENARIO), "jobs.csv": csv, **(extra or {})}
    return Case(id, cls, _simulate(), files, needles, expect)


GAVEL_SCENARIO: dict[str, Any] = {
    "name": "gv",
    "cluster": {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 8, "count": 1}
                          for m in ("K80", "P100", "V100")]},
    "workload": {"jobs": 10, "arrival_rate_per_hour": 2, "generator": "gavel", "multi_gpu": True,
                 "seed": 0},
    "speed": "gavel",
}
"""A small valid scenario of Gavel's generator on Gavel's three GPU models."""


JOB_LIST_CASES: list[Case] = [
    _job_list_case("job list runs", JOB_LIST_CSV, "jobs_completed", speed="gavel", expect="ok"),
    _job_list_case("job list nan duration", _row("1,0,,1,nan"), "line 3", "'duration_min'",
                   "must be a number"),
    _job_list_case("job list negative arrival", _row("1,-5,,1,30"), "line 3", "'arrival_min'", ">= 0"),
    _job_list_case("job list zero duration", _row("1,0,,1,0"), "line 3", "'duration_min'", ">= 1e-06"),
    _job_list_case("job list subnormal duration", _row("1,0,,1,5e-324"), "line 3", "'duration_min'",
                   ">= 1e-06"),
    _job_list_case("job list subnormal estimate",
                   _row("1,0,,1,30,5e-324", JOB_LIST_HEADER[:-1] + ",estimate_min\n"),
                   "line 3", "'estimate_min'", ">= 1e-06"),
    _job_list_case("job list huge duration", _row("1,0,,1,1e300"), "line 3", "'duration_min'",
                   "<= 1e+09"),
    _job_list_case("job list infinite arrival", _row("1,inf,,1,30"), "line 3", "'arrival_min'",
                   "finite"),
    _job_list_case("job list gpus fraction", _row("1,0,,1.5,30"), "line 3", "'gpus'", "whole number"),
    _job_list_case("job list gpus zero", _row("1,0,,0,30"), "line 3", "'gpus'", ">= 1"),
    _job_list_case("job list gpus huge", _row("1,0,,100000,30"), "line 3", "'gpus'", "<= 64"),
    _job_list_case("job list missing column", "id,arrival_min,model,duration_min\n0,0,,30\n",
                   "missing column 'gpus'"),
    _job_list_case("job list header only", JOB_LIST_HEADER, "no rows"),
    _job_list_case("job list duplicate id", _row("0,4,,1,30"), "line 3", "'id'", "duplicate id 0",
                   "line 2"),
    _job_list_case("job list id not a number", _row("x,0,,1,30"), "line 3", "'id'", "'x'"),
    _job_list_case("job list empty cell", _row("1,,,1,30"), "line 3", "'arrival_min'", "empty cell"),
    _job_list_case("job list compute above one", _row("1,0,,1,30,1.5", JOB_LIST_HEADER[:-1] + ",compute\n"),
                   "line 3", "'compute'", "<= 1"),
    _job_list_case("job list weight zero", _row("1,0,,1,30,0", JOB_LIST_HEADER[:-1] + ",weight\n"),
                   "line 3", "'weight'", ">= 1e-06"),
    _job_list_case("job list weight subnormal", _row("1,0,,1,30,5e-324", JOB_LIST_HEADER[:-1] + ",weight\n"),
                   "line 3", "'weight'", ">= 1e-06"),
    _job_list_case("job list priority four", _row("1,0,,1,30,4", JOB_LIST_HEADER[:-1] + ",priority\n"),
                   "line 3", "'priority'", "<= 3"),
    _job_list_case("job list unknown type", _row("1,0,,1,30,gpu", JOB_LIST_HEADER[:-1] + ",type\n"),
                   "line 3", "'type'", "unknown job type 'gpu'"),
    _job_list_case("job list long model", _row("1,0," + "m" * 5000 + ",1,30"), "line 3", "'model'",
                   "longer than 200"),
    _job_list_case("job list binary", "id,arrival_min\x00\x01", "NUL bytes"),
    _job_list_case("job list unknown model with gavel", _row("1,0,ResNet-51,1,30"), "line 3",
                   "'model'", "'ResNet-51' is not one of Gavel's 26 job models", speed="gavel"),
    _job_list_case("job list unmeasured scale with gavel", _row("1,0,A3C,2,30"), "line 3", "'model'",
                   "'A3C' was measured on 1 GPU, not on 2", speed="gavel"),
    Case("job list missing file", "traces", _simulate(),
         {"s.yaml": scenario_yaml(base=JOB_LIST_SCENARIO)}, ("jobs.csv", "no such file")),
    _scenario_case("job list and pods", "traces", {"workload.trace.pods": "openb_pod_list_default"},
                   "workload.trace", "either 'pods'", base=JOB_LIST_SCENARIO),
    _scenario_case("gavel speeds on other gpus", "speed", {"speed": "gavel"}, "speed:",
                   "K80, P100, V100", "'A100-80GB'"),
    _scenario_case("gavel key without the generator", "speed", {"workload.multi_gpu": True},
                   "workload", "'multi_gpu' belongs to the gavel generator"),
    _scenario_case("gavel generator unknown", "speed", {"workload.generator": "philly"},
                   "workload.generator"),
    _scenario_case("speed model row not a mapping", "speed", {"speed": {"T4-16GB": {"models": 2}}},
                   "models: must map job models"),
    _scenario_case("speed model named like a type", "speed",
                   {"speed": {"T4-16GB": {"models": {"training": 2}}}}, "not a job type"),
    _scenario_case("speed model nan", "speed", {"speed": {"T4-16GB": {"models": {"X": float("nan")}}}},
                   "'X' jobs on 'T4-16GB'", "SPEED_RANGE"),
    # silently wrong once (exit 0, wrong numbers): now refused, or right
    _job_list_scenario_case("job list horizon before the first arrival", "silent", {"horizon_min": 50},
                            JOB_LIST_HEADER + "0,100,CycleGAN,1,30\n1,105,CycleGAN,1,30\n",
                            "horizon_min", "later than the first job's arrival", "minute 100"),
    _job_list_scenario_case("job list model named like a type", "silent",
                            {"speed": {"K80": {"inference": 0.5}}}, _row("1,0,inference,1,30"),
                            "jobs_completed", expect="ok"),
    _job_list_case("job list gpu spec gavel cannot run", _row("1,0,ResNet-50 (batch size 128),2,30,K80",
                                                                 JOB_LIST_HEADER[:-1] + ",gpu_spec\n"),
                   "line 3", "'gpu_spec'", "names none of the GPU models", "P100, V100", speed="gavel"),
    # silently accepted once: refused, or said in a note
    _job_list_case("job list column twice", "id,arrival_min,model,gpus,duration_min,gpus\n0,0,,1,30,2\n",
                   "column 'gpus' is named twice", "columns 4 and 6"),
    _job_list_case("job list gpu spec only a separator",
                   _row("1,0,,1,30,|", JOB_LIST_HEADER[:-1] + ",gpu_spec\n"),
                   "line 3", "'gpu_spec'", "empty GPU model name"),
    _job_list_case("job list gpu spec empty name", _row("1,0,,1,30,K80||V100",
                                                        JOB_LIST_HEADER[:-1] + ",gpu_spec\n"),
                   "line 3", "'gpu_spec'", "empty GPU model name"),
    _job_list_scenario_case("job list time compression", "silent", {"workload.trace.time_compression": 60},
                            JOB_LIST_CSV, "'s.yaml'", "time_compression applies to pod lists"),
    _job_list_case("job list half gpus under gavel", _row("1,0,CycleGAN,1,30,0.5",
                                                          JOB_LIST_HEADER[:-1] + ",compute\n"),
                   "line 3", "'compute'", "must be 1 under speed: gavel", speed="gavel"),
    _scenario_case("speed model key with a space", "speed",
                   {"speed": {"T4-16GB": {"models": {"ResNet-50 ": 2.0}}}}, "begins or ends with a space"),
    _scenario_case("speed model key empty models", "messages", {"speed": {"T4-16GB": {"models": None}}},
                   "models: must map job models to speeds"),
    Case("speed default on gavel gpus", "silent", _simulate(),
         {"s.yaml": scenario_yaml({"speed": "default", "workload.arrival_rate_per_hour": 1,
                                   "workload.mix": {"training": 1.0}},
                                  {**JOB_LIST_SCENARIO, "workload": {"jobs": 3, "seed": 0}})},
         ("note: speed: default", "'K80', 'P100', 'V100'", "speed 1.0", "speed: gavel"), "ok"),
    _scenario_case("gavel flag as text", "types", {"workload.multi_gpu": "yes"}, "workload.multi_gpu",
                   "must be true or false, not text", base=GAVEL_SCENARIO),
    _scenario_case("gavel flag as true text", "types", {"workload.weights": "true"}, "workload.weights",
                   "must be true or false, not text", base=GAVEL_SCENARIO),
    _scenario_case("gavel flag as one", "types", {"workload.deadlines": 1}, "workload.deadlines",
                   "must be true or false (got 1)", base=GAVEL_SCENARIO),
    _scenario_case("gavel flag as zero", "types", {"workload.multi_gpu": 0}, "workload.multi_gpu",
                   "must be true or false (got 0)", base=GAVEL_SCENARIO),
    _scenario_case("gavel generator with a mix", "silent", {"workload.mix": {"training": 1.0}}, "workload",
                   "'mix' does not apply to the gavel generator", base=GAVEL_SCENARIO),
    # unclear messages once
    _job_list_case("job list too many cells", _row("1,0,,1,30,7"), "line 3", "6 cells",
                   "the header names 5 columns"),
    _job_list_case("job list bad row after blank lines", JOB_LIST_HEADER + "0,0,,1,30\n\n\n1,0,,1,nan\n",
                   "line 5", "'duration_min'"),
    _job_list_case("job list short row", JOB_LIST_HEADER + "0,0,,1,30\n1,0,,1\n", "line 3",
                   "'duration_min'", "no cell: the row has 4 of the header's 5"),
    _job_list_scenario_case("job list cpu fits no node", "messages",
                            {"cluster.nodes": [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 8,
                                                "cpu_milli": 8000}]},
                            _row("1,0,,1,30,64000", JOB_LIST_HEADER[:-1] + ",cpu_milli\n"),
                            "jobs.csv", "64000 milli-cores of CPU", "most CPU of a node: 8000"),
    _job_list_scenario_case("job list memory fits no node", "messages",
                            {"cluster.nodes": [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 8,
                                                "memory_mib": 1024}]},
                            _row("1,0,,1,30,4096", JOB_LIST_HEADER[:-1] + ",memory_mib\n"),
                            "jobs.csv", "4096 MiB of memory", "most memory of a node: 1024"),
    _job_list_scenario_case("job list spread gang over a model's gpus", "messages",
                            {"cluster.gang_placement": "spread",
                             "cluster.nodes": [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 1,
                                                "count": 4}]},
                            _row("1,0,,8,30"), "jobs.csv", "8 GPU(s)", "most GPUs of one model: 4"),
    _job_list_scenario_case("job list is a folder", "messages", {"workload.trace.jobs": "{tmp}/folder/"},
                            JOB_LIST_CSV, "is a folder, not a file", extra={"folder/x.txt": "x"}),
]
"""Hostile job lists, Gavel speeds and Gavel generator keys."""

CASES.extend(JOB_LIST_CASES)


# ---------------------------------------------------------------------------- urgency
# What the scheduler is told (workload.declared_run_time), deadlines and weights in job lists, and
# price tables, in a section of their own. They use the classes ``numbers``, ``traces`` and
# ``policies``.
def _declared_case(id: str, value: Any, *needles: str) -> Case:
    return _scenario_case(id, "numbers", {"workload.declared_run_time": value},
                          "workload.declared_run_time", *needles)


def _price_case(id: str, value: Any, *needles: str) -> Case:
    return _scenario_case(id, "numbers", {"prices": value}, "prices", *needles)


DEADLINE_HEADER = JOB_LIST_HEADER[:-1] + ",deadline_min\n"

URGENCY_CASES: list[Case] = [
    _declared_case("declared unknown mode", "oracle", "must be one of exact, none, history"),
    _declared_case("declared lognormal negative", {"lognormal": -1.0}, "sigma must be a number between 0"),
    _declared_case("declared lognormal nan", {"lognormal": float("nan")}, "sigma must be a number"),
    _declared_case("declared lognormal text", {"lognormal": "big"}, "sigma must be a number"),
    _declared_case("declared two modes", {"lognormal": 1.0, "history": {}}, "must be one of"),
    _declared_case("declared history unknown field", {"history": {"keys": [["user"]]}},
                   "unknown job field 'user'"),
    _declared_case("declared history prior zero", {"history": {"prior_min": 0}}, "prior_min"),
    _declared_case("declared history prior nan", {"history": {"prior_min": float("nan")}}, "prior_min"),
    _declared_case("declared history prior subnormal", {"history": {"prior_min": 5e-324}}, "prior_min",
                   "from 1e-06 (MIN_DURATION_MIN)"),
    _declared_case("declared history min samples fraction", {"history": {"min_samples": 1.5}},
                   "min_samples"),
    _declared_case("declared history unknown option", {"history": {"window": 3}}, "unknown option 'window'"),
    _declared_case("declared history recent zero", {"history": {"recent": 0}}, "history.recent",
                   "from min_samples (1)"),
    _declared_case("declared history recent below min samples", {"history": {"min_samples": 5, "recent": 3}},
                   "history.recent", "from min_samples (5)"),
    _declared_case("declared history recent absurd", {"history": {"recent": 10**12}}, "history.recent",
                   "100000 (MAX_RECENT)"),
    _declared_case("declared history recent fraction", {"history": {"recent": 2.5}}, "history.recent"),
    _declared_case("declared history recent nan", {"history": {"recent": float("nan")}}, "history.recent"),
    _scenario_case("declared and the older key", "numbers",
                   {"workload.declared_run_time": "exact", "workload.runtime_estimate_error": 1.0},
                   "workload", "not both"),
    _scenario_case("declared listed without a job list", "numbers",
                   {"workload.declared_run_time": "listed"}, "workload", "has no job list"),
    Case("declared none with sjf", "policies",
         ("simulate", "--scenario", "{tmp}/s.yaml", "--policy", "sjf+first_fit"),
         {"s.yaml": scenario_yaml({"workload.declared_run_time": "none"})},
         ("declared_run_time: none", "'sjf+first_fit' reads them")),
    Case("declared none with las", "policies",
         ("simulate", "--scenario", "{tmp}/s.yaml", "--policy", "las+first_fit"),
         {"s.yaml": scenario_yaml({"workload.declared_run_time": "none"})}, ("jobs_completed",), "ok"),
    Case("declared history with qssf", "policies",
         ("simulate", "--scenario", "{tmp}/s.yaml", "--policy", "qssf+cheapest_fit"),
         {"s.yaml": scenario_yaml({"workload.declared_run_time": "history"})}, ("jobs_completed",), "ok"),
    _price_case("prices unknown model", {"H100-80GB": 3.0}, "'H100-80GB'", "which the cluster lacks"),
    _price_case("prices nan", {"T4-16GB": float("nan")}, "'T4-16GB'", "between 0 and"),
    _price_case("prices negative", {"T4-16GB": -0.35}, "'T4-16GB'", "between 0 and"),
    _price_case("prices text", {"T4-16GB": "cheap"}, "'T4-16GB'", "must be a number"),
    _price_case("prices not a mapping", [0.35], "must map GPU models"),
    _price_case("prices in another letter case", {"a100-80gb": 3.0}, "'a100-80gb'",
                "which the cluster names 'A100-80GB'", "case included"),
    _price_case("prices one gpu in two cases", {"T4-16GB": 0.35, "t4-16gb": 9.0}, "'t4-16gb'",
                "which the cluster names 'T4-16GB'"),
    _price_case("prices by family", {"T4": 0.35}, "'T4'", "which the cluster lacks", "exactly"),
    _price_case("prices read as text", {"T4-16GB": "1e0"}, "'T4-16GB'", "the text '1e0'",
                "YAML reads it as text"),
    Case("prices partial table", "silent", _simulate(),
         {"s.yaml": scenario_yaml({"prices": {"T4-16GB": 0.35}})},
         ("note: prices names no price for A100-80GB", "cost nothing"), "ok"),
    _declared_case("declared exact as a mapping", {"exact": 1}, "'exact' takes no options",
                   "declared_run_time: exact"),
    _declared_case("declared lognormal read as text", {"lognormal": "1e0"}, "the text '1e0'",
                   "YAML reads it as text", "write 1.0"),
    _declared_case("declared history field twice", {"history": {"keys": [["model", "model"]]}},
                   "history.keys[0]", "'model' twice"),
    _declared_case("declared history key twice",
                   {"history": {"keys": [["model", "gpus"], ["gpus", "model"]]}},
                   "history.keys[1]", "the same key as history.keys[0]"),
    _job_list_case("job list negative deadline", _row("1,0,,1,30,-5", DEADLINE_HEADER),
                   "line 3", "'deadline_min'", "got -5"),
    _job_list_case("job list nan weight", _row("1,0,,1,30,nan", JOB_LIST_HEADER[:-1] + ",weight\n"),
                   "line 3", "'weight'"),
    _job_list_case("job list infinite deadline", _row("1,0,,1,30,inf", DEADLINE_HEADER),
                   "line 3", "'deadline_min'"),
]
"""Hostile ``declared_run_time`` values, job-list deadlines and weights, and price tables."""

CASES.extend(URGENCY_CASES)


# ---------------------------------------------------------------------------- spread gangs
# cluster.gang_placement and cluster.spread_speed (gangs across servers), in a section of their
# own. They use the classes ``numbers``, ``types`` and ``silent``.
SPREAD_SCENARIO: dict[str, Any] = {
    "name": "sp",
    "cluster": {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 1, "count": 8}
                          for m in ("K80", "P100", "V100")], "gang_placement": "spread"},
    "workload": {"jobs": 30, "arrival_rate_per_hour": 6, "generator": "gavel", "multi_gpu": True,
                 "seed": 0},
    "speed": "gavel",
}
"""A small valid scenario of Gavel's multi-GPU jobs on one-GPU servers, with spread gangs."""


def _spread_case(id: str, cls: str, changes: dict[str, Any], *needles: str, expect: str = "error") -> Case:
    """A case of :data:`SPREAD_SCENARIO` with ``changes``; an error names the file, a check made
    once the jobs are drawn too."""
    files = {"s.yaml": scenario_yaml(changes, SPREAD_SCENARIO)}
    return Case(id, cls, _simulate(), files, ("'s.yaml'", *needles) if expect == "error" else needles,
                expect)


SPREAD_CASES: list[Case] = [
    _spread_case("spread gangs run", "numbers", {}, "jobs_completed", expect="ok"),
    _spread_case("spread gang placement unknown", "types", {"cluster.gang_placement": "rack"},
                 "cluster.gang_placement", "'node' or 'spread'"),
    _spread_case("spread gang placement a number", "types", {"cluster.gang_placement": 1},
                 "cluster.gang_placement"),
    _spread_case("spread gang placement empty", "types", {"cluster.gang_placement": None},
                 "cluster.gang_placement"),
    _spread_case("spread speed zero", "numbers", {"cluster.spread_speed": 0}, "spread_speed", ">= 0.001"),
    _spread_case("spread speed above one", "numbers", {"cluster.spread_speed": 1.5}, "spread_speed", "<= 1"),
    _spread_case("spread speed nan", "numbers", {"cluster.spread_speed": float("nan")}, "spread_speed",
                 "finite"),
    _spread_case("spread speed subnormal", "numbers", {"cluster.spread_speed": 5e-324}, "spread_speed",
                 ">= 0.001"),
    _spread_case("spread speed quoted", "types", {"cluster.spread_speed": "0.5"}, "spread_speed"),
    _spread_case("spread speed boolean", "types", {"cluster.spread_speed": True}, "spread_speed"),
    _spread_case("spread speed on one-node gangs", "silent",
                 {"cluster.gang_placement": "node", "cluster.spread_speed": 0.5},
                 "spread_speed", "gang_placement: spread"),
    _spread_case("gavel gangs on one-gpu servers without spread", "silent",
                 {"cluster.gang_placement": "node"}, "workload.multi_gpu", "8 GPUs on one node"),
    _spread_case("gavel gangs larger than a model's gpus", "silent",
                 {"cluster.nodes": [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 1, "count": 4}]},
                 "workload.multi_gpu", "at most 4 GPUs of one model"),
    _spread_case("gavel gangs only the slowest model could hold", "silent",
                 {"cluster.nodes": [{"gpu_model": "P100", "vram_gb": 16, "gpus_per_node": 1, "count": 1},
                                    {"gpu_model": "K80", "vram_gb": 12, "gpus_per_node": 1, "count": 8}],
                  "workload.seed": 1},  # draws a 2-GPU job Gavel measured on P100 and V100 only
                 "scenario 's.yaml', cluster: job 15", "could ever hold it"),
]
"""Hostile spread-gang keys."""

CASES.extend(SPREAD_CASES)


# ---------------------------------------------------------------------------- Shockwave as a workload
# A Shockwave trace and its throughputs as a scenario's workload (workload.trace.shockwave,
# gpusched/workload/shockwave_workload.py), run under a round policy: every problem is one line
# naming the scenario's key and the file.
SW_SCENARIO: dict[str, Any] = {
    "name": "sw",
    "cluster": {"nodes": [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 4, "count": 1}]},
    "workload": {"jobs": 3,
                 "trace": {"shockwave": {"trace": "{tmp}/w.trace", "throughputs": "{tmp}/t.json"}}},
    "rounds": {"length_min": 2.0},
}
"""A small valid scenario of :data:`SW_TRACE` on four V100s, in 2-minute rounds."""


def _sw_case(id: str, cls: str, changes: dict[str, Any], *needles: str, expect: str = "error",
             files: dict[str, str] | None = None) -> Case:
    given = {"s.yaml": scenario_yaml(changes, SW_SCENARIO), "w.trace": SW_TRACE, "t.json": SW_THROUGHPUTS}
    given |= files or {}
    argv = ("simulate", "--scenario", "{tmp}/s.yaml", "--policy", "max_min_fairness")
    return Case(id, cls, argv, given, needles, expect)


SW_WORKLOAD_CASES: list[Case] = [
    _sw_case("shockwave workload runs", "traces", {}, "jobs_completed", "rounds", expect="ok"),
    _sw_case("shockwave trace missing", "traces", {"workload.trace.shockwave.trace": "{tmp}/nope.trace"},
             "workload.trace.shockwave", "nope.trace", "no such file"),
    _sw_case("shockwave throughputs missing", "traces",
             {"workload.trace.shockwave.throughputs": "{tmp}/nope.json"},
             "workload.trace.shockwave", "nope.json", "no such file"),
    _sw_case("shockwave trace bad scale factor", "traces", {}, "workload.trace.shockwave", "w.trace",
             "line 1", "'scale_factor'", files={"w.trace": sw_line(scale_factor="0")}),
    _sw_case("shockwave trace nan arrival", "numbers", {}, "workload.trace.shockwave", "w.trace",
             "line 1", "'arrival_time'", files={"w.trace": sw_line(arrival_time="nan")}),
    _sw_case("shockwave throughputs not json", "traces", {}, "workload.trace.shockwave", "t.json",
             files={"t.json": "{"}),
    _sw_case("shockwave throughputs without the job", "traces", {}, "workload.trace.shockwave", "t.json",
             "no throughput", files={"t.json": json.dumps({"v100": {}})}),
    _sw_case("shockwave throughputs without v100", "traces", {}, "workload.trace.shockwave", "t.json",
             "V100", files={"t.json": json.dumps({"k80": SW_THROUGHPUTS_DOC["v100"]})}),
    _sw_case("shockwave block unknown key", "newcomer", {"workload.trace.shockwave.speedup": 2},
             "workload.trace.shockwave", "speedup"),
    _sw_case("shockwave block without trace", "newcomer", {"workload.trace.shockwave": {}},
             "workload.trace.shockwave", "trace"),
    _sw_case("shockwave trace a number", "types", {"workload.trace.shockwave.trace": 3},
             "workload.trace.shockwave.trace"),
    _sw_case("shockwave and a job list", "traces", {"workload.trace.jobs": "{tmp}/jobs.csv"},
             "workload.trace", "either 'pods'"),
    _sw_case("shockwave trace is a folder", "messages", {"workload.trace.shockwave.trace": "{tmp}/folder/"},
             "workload.trace.shockwave", "folder", files={"folder/x.txt": "x"}),
]
"""Hostile Shockwave workloads."""

CASES.extend(SW_WORKLOAD_CASES)


# ---------------------------------------------------------------------------- Philly as a workload
# A processed Philly CSV as a scenario's workload (workload.trace.philly,
# gpusched/workload/philly_workload.py): every problem is one line naming the scenario's key and
# the file.
PH_SCENARIO: dict[str, Any] = {
    "name": "ph",
    "cluster": {"nodes": [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 8, "count": 1}]},
    "workload": {"jobs": 10, "trace": {"philly": {"file": "{tmp}/p.csv"}}},
}
"""A small valid scenario of :data:`PHILLY_CSV` on one 8-GPU server."""


def _ph_case(id: str, cls: str, changes: dict[str, Any], *needles: str, expect: str = "error",
             files: dict[str, str] | None = None) -> Case:
    given = {"s.yaml": scenario_yaml(changes, PH_SCENARIO), "p.csv": PHILLY_CSV} | (files or {})
    argv = ("simulate", "--scenario", "{tmp}/s.yaml", "--policy", "fcfs+first_fit")
    return Case(id, cls, argv, given, needles, expect)


PH_WORKLOAD_CASES: list[Case] = [
    _ph_case("philly workload runs", "traces", {}, "jobs_completed", expect="ok"),
    _ph_case("philly file missing", "traces", {"workload.trace.philly.file": "{tmp}/nope.csv"},
             "workload.trace.philly", "nope.csv", "no such file"),
    _ph_case("philly row bad gpus", "traces", {}, "workload.trace.philly", "p.csv", "line 4", "'num_gpus'",
             files={"p.csv": _philly_row("2017-10-09 06:13:03,10.0,1.5,15.0,6214e9")}),
    _ph_case("philly row nan duration", "numbers", {}, "workload.trace.philly", "p.csv", "line 4",
             "'duration'", files={"p.csv": _philly_row("2017-10-09 06:13:03,nan,1,10.0,6214e9")}),
    _ph_case("philly unknown virtual cluster", "traces", {"workload.trace.philly.clusters": ["zz"]},
             "workload.trace.philly", "p.csv", "'zz' is no virtual cluster"),
    _ph_case("philly job larger than every server", "traces",
             {"cluster.nodes": [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 4, "count": 2}]},
             "workload.trace.philly", "p.csv", "8 GPU(s)", "largest node: 4 GPUs"),
    _ph_case("philly window nan", "numbers", {"workload.trace.philly.window_days": "nan"},
             "workload.trace.philly.window_days"),
    _ph_case("philly window 0", "numbers", {"workload.trace.philly.window_days": 0},
             "workload.trace.philly.window_days", "> 0"),
    _ph_case("philly window huge", "numbers", {"workload.trace.philly.window_days": 1e9},
             "workload.trace.philly.window_days", "3650"),
    _ph_case("philly clusters empty", "newcomer", {"workload.trace.philly.clusters": []},
             "workload.trace.philly.clusters"),
    _ph_case("philly block unknown key", "newcomer", {"workload.trace.philly.speedup": 2},
             "workload.trace.philly", "speedup"),
    _ph_case("philly and a pod list", "traces", {"workload.trace.pods": "openb_pod_list_default"},
             "workload.trace", "either 'pods'"),
]
"""Hostile Philly workloads."""

CASES.extend(PH_WORKLOAD_CASES)
