"""Fuzzing the readers: valid scenarios, scenario YAML text, openb CSV files and sweep specs,
mutated as a careless or hostile user would (keys dropped, types swapped, inf, nan, huge, negative
and empty values, booleans and quoted numbers, deep nesting, bytes inserted). Each must either
load or raise the project's one error type with a one-line message, never another exception;
every scenario that loads must also simulate (on a few jobs, for speed) with finite metrics and
no negative wait.

The newer surfaces too: the ``failures:``, ``checkpoint:`` and ``queue:`` blocks (refused in one
line, or the run ends with finite metrics), sidecar scales (refused, or every observation is
finite), JSON with a key given twice (refused naming the key), speed tables, the queue window,
sweep overrides (refused before any run,
or every grid point builds), ``train --set`` values (refused before anything starts, or the model
the run would write is one the loader accepts), model sidecars (refused in one line, or a working
agent loads), sweep spec names (refused, or the sweep writes inside ``sweeps/<name>`` only), job
lists (refused naming the file, or every job runs at its own model's or type's speed with finite
metrics), speed tables with ``models:``, price tables (every GPU at its own model's price), history
keys (no field or key twice), the Gavel generator's block (flags are real booleans) and the Philly
workload block (through ``gpusched simulate``: exit 2 with one line naming the scenario, the key
and the CSV, or every submitted job completes).

CI runs Hypothesis's default number of examples per test (``max_examples``, 100); for a longer
search, ``pytest tests/test_fuzz.py --hypothesis-profile=slow`` (registered in ``conftest.py``).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hostile_inputs import (
    BASE_SCENARIO,
    FAIL_SCENARIO,
    GAVEL_SCENARIO,
    JOB_LIST_SCENARIO,
    NODES_CSV,
    PH_SCENARIO,
    PHILLY_CSV,
    PODS_CSV,
    RESULT_DOC,
    SW_CONFIG_DOC,
    SW_THROUGHPUTS,
    SW_THROUGHPUTS_DOC,
    SW_TRACE,
    SWEEP_SPEC,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import MODELS

from gpusched.agent.config import TrainConfig, field_names
from gpusched.agent.models import MODELS_DIR_ENV, Sidecar, load_agent, sha256_of
from gpusched.agent.train import sidecar_settings
from gpusched.cli import main
from gpusched.cli.train import _apply_overrides
from gpusched.core.gavel_speeds import measured_scales, runnable_gpu_models
from gpusched.core.history_estimator import KEY_FIELDS
from gpusched.core.prices import gpu_prices
from gpusched.core.speed import MODELS_KEY
from gpusched.env.window import UNTOLD_OBS_VERSIONS
from gpusched.errors import GpuschedError
from gpusched.fgd.allocation import run_allocation
from gpusched.limits import (
    MAX_FAILURE_RATE,
    MAX_GPUS,
    MAX_SIDECAR_HIDDEN,
    MAX_VRAM_GB,
    MAX_WINDOW,
    MAX_YAML_BYTES,
    MIN_CHECKPOINT_MIN,
    MIN_REPAIR_MIN,
    SPEED_RANGE,
    VRAM_SCALE_RANGE_GB,
)
from gpusched.paths import SHIPPED_MODELS_DIR
from gpusched.policies import get_policy, reads_run_times
from gpusched.sweep.runner import execute_run
from gpusched.sweep.spec import RUN_KEYS, load_sweep
from gpusched.workload.build import make_simulator
from gpusched.workload.declared import check_declared, is_undeclared
from gpusched.workload.files import decode_user_bytes, load_json_text
from gpusched.workload.openb import read_openb_nodes, read_openb_pods
from gpusched.workload.philly import read_philly
from gpusched.workload.philly_workload import KEY as PHILLY_KEY
from gpusched.workload.philly_workload import MAX_CLUSTERS, MAX_WINDOW_DAYS
from gpusched.workload.presets import load_scenario, preset_names
from gpusched.workload.scenario import DEFAULT_MIX
from gpusched.workload.scenario_yaml import scenario_from_yaml
from gpusched.workload.shockwave import (
    read_shockwave_config,
    read_shockwave_throughputs,
    read_shockwave_trace,
)
from gpusched.workload.shockwave_phases import trace_phases
from gpusched.workload.shockwave_results import read_shockwave_result
from gpusched.workload.speed_table import SPEED_JOB_TYPES
from gpusched.workload.trace_jobs import openb_jobs

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
"""Per-test settings: no deadline (a run may take a few ms more); the example count comes from
the active profile."""

SCENARIO_BASES: list[dict[str, Any]] = [BASE_SCENARIO] + [
    load_scenario(name).model_dump(mode="json", exclude_none=True) for name in preset_names()
]
"""Valid scenarios to start from: a small one and every preset (one of them a trace scenario)."""

SWEEP_BASES: list[dict[str, Any]] = [
    SWEEP_SPEC,
    {"name": "a", "allocation": {"pods": ["openb_pod_list_default"], "policies": ["fgd"], "seeds": [1, 2],
                                 "tune": 1.3}},
]

HOSTILE_VALUES: list[Any] = [
    math.inf, -math.inf, math.nan, 1e308, -1e308, 1e-300, 0, -1, -0.0, 0.5, 10**20, 2**63, -(2**63), 2**53,
    "", " ", "nan", "inf", "1e20", "-1", "x" * 300, "é", "\x00", [], {}, None, True, False, [1, 2], {"a": 1},
]
"""Values a mutation puts anywhere in a document."""

hostile_value = st.one_of(
    # a copy: a later mutation (nest) writes into the value it put in, and must not change the list
    st.sampled_from(HOSTILE_VALUES).map(copy.deepcopy),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.integers(-5, 5), max_size=3),
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a document: the keys and indexes that lead to each value (not the root)."""
    out = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, child in items:
        out.append((*prefix, key))
        out.extend(_paths(child, (*prefix, key)))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


@st.composite
def mutated(draw, bases: list[dict[str, Any]]) -> dict[str, Any]:
    """A base document with one to three mutations."""
    doc = copy.deepcopy(draw(st.sampled_from(bases)))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, key = _parent(doc, path), path[-1]
        op = draw(st.sampled_from(["drop", "replace", "replace", "nest", "add key", "swap type"]))
        if op == "drop":
            del parent[key]
        elif op == "replace":
            parent[key] = draw(hostile_value)
        elif op == "nest":
            value = parent[key]
            for _ in range(draw(st.integers(1, 60))):
                value = draw(st.sampled_from([[value], {"k": value}]))
            parent[key] = value
        elif op == "add key" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["colour", "seed", "jobs", "nodes", "1"]))] = draw(hostile_value)
        else:  # swap type: a number as text, a text as a list, a list as a mapping, ...
            value = parent[key]
            parent[key] = (str(value) if isinstance(value, int | float) else [value] if isinstance(value, str)
                           else {"x": value} if isinstance(value, list) else 1)
    return doc


def _assert_one_line(exc: GpuschedError, starts: str) -> None:
    text = str(exc)
    assert text and "\n" not in text, repr(text)
    assert text.startswith(starts) or text.startswith("trace '"), text


def _simulates(scenario, policy: str = "first_fit"):
    """Run the loaded scenario on a few jobs: finite metrics, no negative wait, every run time
    positive; returns the result."""
    sim = make_simulator(scenario, n_jobs=min(scenario.workload.jobs, 25))
    result = sim.run(get_policy(policy))
    assert all(np.isfinite(v) for v in result.metrics.values()), result.metrics
    assert (result.jobs["wait_min"] >= 0).all()
    assert all(job.duration_min > 0 for job in sim.run_state.jobs)
    return result


@FUZZ
@given(mutated(SCENARIO_BASES))
def test_mutated_scenarios_load_or_fail_in_one_line_and_loaded_ones_simulate(doc):
    text = yaml.safe_dump(doc, sort_keys=False)
    try:
        scenario = scenario_from_yaml(text, source="fuzz.yaml")
    except GpuschedError as exc:
        _assert_one_line(exc, "scenario 'fuzz.yaml'")
        return
    try:
        _simulates(scenario)
    except GpuschedError as exc:  # a trace that cannot be sampled or read: still one line
        _assert_one_line(exc, "scenario 'fuzz.yaml'")


YAML_NOISE = [*":[]{}&*!|>-?,#'\"%@`\t\n ", "\x00", "\x1b", "é", "\ufeff", "\ud7ff", "&a", "*a", "<<: *a",
              "!!python/object:os.system", ".inf", ".nan", "---"]


@FUZZ
@given(st.sampled_from(SCENARIO_BASES), st.lists(st.tuples(st.floats(0, 1), st.sampled_from(YAML_NOISE),
                                                           st.sampled_from(["insert", "replace", "cut"])),
                                                 min_size=1, max_size=6),
       st.sampled_from(["utf-8", "utf-8", "utf-16", "latin-1"]))
def test_scenario_yaml_with_noise_loads_or_fails_in_one_line(base, edits, encoding):
    text = yaml.safe_dump(base, sort_keys=False)
    for where, noise, how in edits:
        i = int(where * len(text))
        text = (text[:i] + noise + text[i:] if how == "insert" else text[:i] + noise + text[i + 1:]
                if how == "replace" else text[:i])
    data = text.encode(encoding, errors="replace")
    try:
        scenario = scenario_from_yaml(decode_user_bytes(data, label="scenario 'noise.yaml'",
                                                        max_bytes=MAX_YAML_BYTES), source="noise.yaml")
    except GpuschedError as exc:
        _assert_one_line(exc, "scenario 'noise.yaml'")
        return
    try:
        _simulates(scenario)
    except GpuschedError as exc:
        _assert_one_line(exc, "scenario 'noise.yaml'")


CSV_CELLS = ["", " ", "inf", "-inf", "nan", "1e20", "-1", "0", "1.5", "9" * 30, "1000", "1001", "abc", "é",
             "\x00", '"', ",", "1e308", "0x10", "8", "64", "65"]


@st.composite
def mutated_csv(draw, text: str, cells: list[str] | None = None, sep: str = ",") -> str:
    """A CSV (or, with ``sep``, another separated text) with some cells, rows or columns changed,
    or cut at a random byte (cells drawn from ``cells``, :data:`CSV_CELLS` by default)."""
    cells = CSV_CELLS if cells is None else cells
    rows = [line.split(sep) for line in text.strip().split("\n")]
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["cell", "cell", "cell", "drop row", "drop column", "extra column", "cut"]))
        r = draw(st.integers(0, len(rows) - 1))
        if op == "cell":
            rows[r][draw(st.integers(0, len(rows[r]) - 1))] = draw(st.sampled_from(cells))
        elif op == "drop row" and len(rows) > 1:
            del rows[r]
        elif op == "drop column":
            c = draw(st.integers(0, len(rows[0]) - 1))
            rows = [row[:c] + row[c + 1:] for row in rows]
        elif op == "extra column":
            rows = [[*row, draw(st.sampled_from(cells))] for row in rows]
        else:
            joined = "\n".join(sep.join(row) for row in rows)
            return joined[: draw(st.integers(0, len(joined)))]
    return "\n".join(sep.join(row) for row in rows) + "\n"


@FUZZ
@given(mutated_csv(NODES_CSV), mutated_csv(PODS_CSV), st.booleans(), st.integers(0, 3))
def test_mutated_openb_files_load_or_fail_in_one_line_and_loaded_ones_run(nodes_csv, pods_csv, mutate_nodes,
                                                                           seed):
    with tempfile.TemporaryDirectory() as folder:
        nodes_path, pods_path = Path(folder) / "nodes.csv", Path(folder) / "pods.csv"
        nodes_path.write_text(nodes_csv if mutate_nodes else NODES_CSV, encoding="utf-8")
        pods_path.write_text(pods_csv, encoding="utf-8")
        try:
            nodes = read_openb_nodes(nodes_path)
            pods = read_openb_pods(pods_path, max_gpus_per_node=int(nodes.gpus.max()))
            jobs, _ = openb_jobs(pods, time_compression=60)
            assert all(j.duration_min > 0 and np.isfinite(j.arrival_min) for j in jobs)
            run = run_allocation(nodes, pods, "fgd_best_fit", seed)
            assert run.failed_pods + run.scheduled_pods >= 0
        except GpuschedError as exc:
            _assert_one_line(exc, "trace '")



# ---------------------------------------------------------------------------- Shockwave and Philly
TRACE_CELLS = ["static", "accordion", "gns", "LM (batch size 20)", "ResNet-18 (batch size 256)", "A3C",
               "LM (batch size 7)", "-1.000000", "0", "2", "\t", "\r"]
"""Cells of a Shockwave trace beside :data:`CSV_CELLS`: its modes and job types, known or not."""


@FUZZ
@given(mutated_csv(SW_TRACE, sep="\t"),
       st.lists(st.tuples(st.integers(0, 2), st.integers(0, 11), st.sampled_from(TRACE_CELLS)), max_size=3))
def test_mutated_shockwave_traces_load_or_fail_in_one_line_and_loaded_ones_have_phases(text, cells):
    lines = [line.split("\t") for line in text.split("\n")]
    for row, column, cell in cells:  # a mode or job type, known or not, in some field
        if row < len(lines) and column < len(lines[row]):
            lines[row][column] = cell
    text = "\n".join("\t".join(line) for line in lines)
    with tempfile.TemporaryDirectory() as folder:
        trace_path, table_path = Path(folder) / "w.trace", Path(folder) / "t.json"
        trace_path.write_text(text, encoding="utf-8")
        table_path.write_text(SW_THROUGHPUTS, encoding="utf-8")
        try:
            trace = read_shockwave_trace(trace_path)
            phases = trace_phases(trace, read_shockwave_throughputs(table_path))
        except GpuschedError as exc:
            _assert_one_line(exc, "trace '")
            return
    assert [job.id for job in trace.jobs] == list(range(len(trace.jobs))) and len(phases) == len(trace.jobs)
    for job_phases_ in phases:
        minutes = job_phases_.duration_min("V100")
        assert 0 < minutes < math.inf and job_phases_.advance("V100", minutes) == job_phases_.finished


@FUZZ
@given(mutated_csv(PHILLY_CSV))
def test_mutated_philly_files_load_or_fail_in_one_line_and_loaded_ones_are_whole(text):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.csv"
        path.write_text(text, encoding="utf-8")
        try:
            jobs = read_philly(path)
        except GpuschedError as exc:
            _assert_one_line(exc, "trace '")
            return
    assert len(jobs.cluster) == len(jobs.submit_s) == len(jobs.duration_s) == len(jobs.num_gpus) >= 1
    assert np.isfinite(jobs.submit_s).all() and jobs.submit_s.min() == 0
    assert (jobs.duration_s > 0).all() and np.isfinite(jobs.duration_s).all() and (jobs.num_gpus >= 1).all()
    assert all(jobs.cluster) and sum(jobs.count_by_cluster().values()) == len(jobs.cluster)


@FUZZ
@given(mutated([SW_THROUGHPUTS_DOC, SW_CONFIG_DOC, RESULT_DOC]))
def test_mutated_shockwave_throughputs_settings_and_outcomes_load_or_fail_in_one_line(doc):
    text = json.dumps(doc)  # NaN and Infinity among the values are written as such
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.json"
        path.write_text(text, encoding="utf-8")
        for read, starts in ((read_shockwave_throughputs, "throughputs '"),
                             (read_shockwave_config, "Shockwave settings '"),
                             (read_shockwave_result, "results '")):
            try:
                loaded = read(path)
            except GpuschedError as exc:
                text_ = str(exc)
                assert text_ and "\n" not in text_ and text_.startswith(starts), text_
                continue
            if read is read_shockwave_throughputs:
                values = [v for table in (*loaded.consolidated.values(), *loaded.unconsolidated.values())
                          for v in table.values()]
                assert values and all(math.isfinite(v) and v >= 0 for v in values)
            elif read is read_shockwave_config:
                bases = loaded.log_approximation_bases
                assert bases and all(b > a for a, b in zip(bases, bases[1:], strict=False))
            else:
                assert len(loaded.jct_s) == len(loaded.finish_time_fairness) and (loaded.jct_s > 0).all()
                assert loaded.avg_jct_s == pytest.approx(float(np.mean(loaded.jct_s)))
                assert all(job < len(loaded.jct_s) for job in loaded.timeline)

def _sweep_spec_or_refusal(doc: dict):
    """``doc`` written as a sweep spec file and loaded; ``None`` when it is refused, after checking
    that the refusal is one line naming the file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "spec.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        try:
            return load_sweep(path)
        except GpuschedError as exc:
            _assert_one_line(exc, "sweep spec 'spec.yaml'")
            return None


@FUZZ
@given(mutated(SWEEP_BASES))
def test_mutated_sweep_specs_load_or_fail_in_one_line(doc):
    spec = _sweep_spec_or_refusal(doc)
    if spec is None:
        return
    if spec.run_count() <= 20_000:
        runs = spec.runs()
        assert len(runs) == spec.run_count() and len({r["run_id"] for r in runs}) == len(runs)


# ---------------------------------------------------------------------------- the newer surfaces
# Booleans, quoted numbers, NaN and huge values are in HOSTILE_VALUES; each fuzzer below also
# draws them for the one surface it tries.
SPEED_MODELS = [m for m, _ in MODELS] + ["T4-16gb", "", " ", "x" * 300]
SPEED_TYPES_TRIED = [*SPEED_JOB_TYPES, "trainig", "Training", "", "gpu"]

speed_table = st.one_of(
    st.sampled_from(["default", "fast", None, 1, True, [], "0.5", {}]),
    st.dictionaries(
        st.one_of(st.sampled_from(SPEED_MODELS), st.text(max_size=8)),
        st.one_of(st.dictionaries(st.one_of(st.sampled_from(SPEED_TYPES_TRIED), st.text(max_size=6)),
                                  hostile_value | st.floats(0.001, 100), max_size=4),
                  hostile_value),
        max_size=4),
)


@FUZZ
@given(speed_table, st.sampled_from([None, 4]))
def test_speed_tables_load_or_fail_in_one_line_and_loaded_ones_simulate(table, window):
    doc = copy.deepcopy(BASE_SCENARIO) | {"speed": table}
    if window:
        doc["queue"] = {"window": window}
    try:
        scenario = scenario_from_yaml(yaml.safe_dump(doc, sort_keys=False), source="fuzz.yaml")
    except GpuschedError as exc:
        _assert_one_line(exc, "scenario 'fuzz.yaml'")
        return
    table = scenario.speed_table() or {}
    for row in table.values():
        assert set(row) - {MODELS_KEY} <= set(SPEED_JOB_TYPES)
        assert all(type(v) is float and SPEED_RANGE[0] <= v <= SPEED_RANGE[1]
                   for t, v in row.items() if t != MODELS_KEY)
    note = scenario.speed_note()
    assert note is None or (note.startswith("note: ") and "\n" not in note)
    _simulates(scenario, "sjf")


# ---------------------------------------------------------------------------- job lists and their keys
# Job lists, speed tables with ``models:``, prices, history keys and Gavel's generator: each is
# refused in one line, or what loads is what was written (exact names, real booleans, no key twice)
# and runs with finite metrics, every job at the speed its own model or type gives it.
JOB_LIST_FULL = (
    "id,arrival_min,model,gpus,duration_min,type,vram_gb,compute,priority,weight,deadline_min,estimate_min,"
    "vram_frac,cpu_milli,memory_mib,gpu_spec\n"
    "0,0,CycleGAN,1,30,training,4,1,2,1,60,25,0,1000,2048,\n"
    "1,5,ResNet-50 (batch size 128),2,90,,0,1,3,5,,,0,,,P100|V100\n"
    "2,12,inference,1,45,inference,8,1,1,1,,,0.1,,,K80\n"
    "3,20,,1,15,batch,0,0.5,2,1,,,0,,,\n")
"""A job list with every column: a Gavel model, a gang Gavel cannot run on K80s, a model spelt like
a job type and a job that shares its GPU."""

JOB_LIST_CELLS = [*CSV_CELLS, "|", "K80||V100", "K80", "V100|K80", "inference", "training", "CycleGAN",
                  "ResNet-50 (batch size 128)", "0.5", "2", "100000", "gpus"]
"""Cells a job list's mutation draws: numbers at and beyond their limits, separators, job models
and types, and a header name (a column given twice)."""

LIST_SPEEDS: list[Any] = [None, "default", "gavel",
                          {"K80": {"inference": 0.5, "training": 0.8, MODELS_KEY: {"CycleGAN": 2.0}},
                           "V100": {"batch": 3.0}}]


@st.composite
def job_list_text(draw) -> str:
    """:data:`JOB_LIST_FULL` mutated, with blank lines put between its rows."""
    text = draw(mutated_csv(JOB_LIST_FULL, JOB_LIST_CELLS))
    lines = text.split("\n")
    for _ in range(draw(st.integers(0, 2))):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", " ", ",,"])))
    return "\n".join(lines)


def _expected_speed(table: dict, gpu_model: str, job) -> float:  # noqa: ANN001 - a Job
    """A job's speed on a GPU model read from a scenario's own table: its model's entry under
    ``models``, else its type's, else 1.0 (the documented rule, written out apart from GpuSpeeds)."""
    row = table.get(gpu_model, {})
    models = row.get(MODELS_KEY, {})
    if job.model is not None and job.model in models:
        return models[job.model]
    return row.get(job.type, 1.0)


@FUZZ
@given(job_list_text(), st.sampled_from(LIST_SPEEDS), st.sampled_from([None, 1, 8, 1e4]),
       st.sampled_from(["node", "spread"]))
def test_job_lists_load_or_fail_in_one_line_and_loaded_ones_run_at_their_own_speeds(csv, speed, horizon,
                                                                                    gang):
    """A job list with cells, rows and columns changed, blank lines, a column given twice, under
    each kind of speed table and a horizon: refused in one line naming the file, or every job has
    a ``gpu_spec`` that names models (never an empty one, read as "any GPU"), under ``speed:
    gavel`` whole GPUs and a model it can run, and the run's metrics are finite and not negative."""
    doc = copy.deepcopy(JOB_LIST_SCENARIO)
    doc["cluster"]["gang_placement"] = gang
    if speed is not None:
        doc["speed"] = speed
    if horizon is not None:
        doc["horizon_min"] = horizon
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "jobs.csv").write_text(csv, encoding="utf-8")
        text = yaml.safe_dump(doc, sort_keys=False).replace("{tmp}", folder)
        try:
            scenario = scenario_from_yaml(text, source="fuzz.yaml")
            sim = make_simulator(scenario)
        except GpuschedError as exc:  # a check made once the jobs are read names the scenario
            _assert_one_line(exc, "scenario '")
            return
        result = sim.run(get_policy("first_fit"))
    for job in sim.run_state.jobs:
        assert job.gpu_spec is None or (job.gpu_spec and all(job.gpu_spec)), job
        if speed == "gavel":
            assert job.compute == 1.0
            if job.model is not None:
                assert job.gpus in measured_scales()[job.model]
                assert set(job.gpu_spec or runnable_gpu_models(job.model, job.gpus)) <= set(
                    runnable_gpu_models(job.model, job.gpus))
        elif isinstance(speed, dict):
            row = sim.setup.speeds.row_of_job(job)
            for g, gpu_model in enumerate(sim.setup.cluster.gpu_model):
                assert row[g] == _expected_speed(speed, gpu_model, job), (job, gpu_model)
    for key in ("makespan_min", "avg_jct_min", "cost_usd", "gpu_hours", "avg_wait_min"):
        assert math.isfinite(result.metrics[key]) and result.metrics[key] >= 0, (key, result.metrics)
    assert (result.jobs["wait_min"] >= 0).all()


MODEL_KEYS = ["ResNet", " ResNet", "ResNet ", "inference", "training", "", "models",
              "ResNet-50 (batch size 64)"]


@FUZZ
@given(st.dictionaries(st.sampled_from(["A100-80GB", "T4-16GB", "K80"]),
                       st.one_of(st.fixed_dictionaries(
                           {}, optional={"training": hostile_value | st.floats(0.001, 100),
                                         "inference": st.floats(0.001, 100),
                                         MODELS_KEY: st.one_of(
                                             st.none(), hostile_value,
                                             st.dictionaries(st.sampled_from(MODEL_KEYS),
                                                             hostile_value | st.floats(0.001, 100),
                                                             max_size=3))}),
                                 hostile_value),
                       min_size=1, max_size=3))
def test_speed_tables_with_models_load_or_fail_in_one_line_and_keep_models_apart_from_types(table):
    """A speed table whose rows name job models under ``models:``: refused in one line, or every
    model key is a name a job can carry (no job type, no leading or trailing space), and a job's
    speed comes from its model's entry, else its type's, never from a type spelt like its model."""
    doc = copy.deepcopy(BASE_SCENARIO) | {"speed": table}
    try:
        scenario = scenario_from_yaml(yaml.safe_dump(doc, sort_keys=False), source="fuzz.yaml")
    except GpuschedError as exc:
        _assert_one_line(exc, "scenario 'fuzz.yaml'")
        return
    checked = scenario.speed_table()
    for row in checked.values():
        for model, factor in row.get(MODELS_KEY, {}).items():
            assert model == model.strip() and model and model not in SPEED_JOB_TYPES
            assert type(factor) is float and SPEED_RANGE[0] <= factor <= SPEED_RANGE[1]
    cluster = scenario.build_cluster()
    speeds = scenario.gpu_speeds(cluster)
    from gpusched.core.jobs import Job

    for model, job_type in [("ResNet", "trace"), ("inference", "trace"), ("training", "batch"),
                            (None, "training"), ("ResNet-50 (batch size 64)", "inference")]:
        job = Job(id=0, type=job_type, arrival_min=0.0, duration_min=1.0, gpus=1, vram_gb=0.0, compute=1.0,
                  model=model)
        row = speeds.row_of_job(job)
        for g, gpu_model in enumerate(cluster.gpu_model):
            assert row[g] == _expected_speed(checked, gpu_model, job)


PRICE_KEYS: list[Any] = ["A100-80GB", "a100-80gb", "T4-16GB", "t4-16gb", "T4", "A100", "H100", "", " ", 1,
                         None]


@FUZZ
@given(st.one_of(hostile_value, st.dictionaries(st.sampled_from(PRICE_KEYS),
                                                hostile_value | st.floats(0, 2000), max_size=4)))
def test_price_tables_load_or_fail_in_one_line_and_price_each_model_exactly(table):
    """A ``prices:`` table: refused in one line, or every key is a GPU model of the cluster
    spelt exactly, each GPU pays its own model's price (no other row's), the note names exactly the
    unpriced models, and the run's cost is finite and not negative."""
    doc = copy.deepcopy(BASE_SCENARIO) | {"prices": table}
    try:
        scenario = scenario_from_yaml(yaml.safe_dump(doc, sort_keys=False), source="fuzz.yaml")
    except GpuschedError as exc:
        _assert_one_line(exc, "scenario 'fuzz.yaml'")
        return
    cluster = scenario.build_cluster()
    if scenario.prices is None:  # no table: the shipped one, and no note
        assert table is None and scenario.prices_note(cluster) is None
        return
    models = list(dict.fromkeys(cluster.gpu_model))
    assert set(scenario.prices) <= set(models)
    prices = gpu_prices(cluster.gpu_model, scenario.prices)
    for price, model in zip(prices.tolist(), cluster.gpu_model, strict=True):
        assert price == scenario.prices[model] if model in scenario.prices else math.isnan(price)
    missing = [m for m in models if m not in scenario.prices]
    note = scenario.prices_note(cluster)
    assert (note is None) == (not missing)
    assert note is None or (all(m in note for m in missing) and "\n" not in note)
    result = _simulates(scenario)
    assert result.metrics["cost_usd"] >= 0


history_keys = st.one_of(
    hostile_value,
    st.lists(st.one_of(st.lists(st.sampled_from([*KEY_FIELDS, "user", ""]), max_size=4), hostile_value),
             max_size=5))


@FUZZ
@given(history_keys, st.one_of(st.none(), st.sampled_from([0, 1e-300, 60, 1e6, 2e6, "60", "1e0", True])))
def test_history_keys_load_or_fail_in_one_line_and_loaded_ones_name_each_field_and_key_once(keys, prior):
    """``declared_run_time: {history: {keys, prior_min}}``: refused in one line, or no key names a
    field twice, no two keys group by the same fields, and a run that reads the estimates ends
    with finite metrics."""
    options: dict[str, Any] = {"keys": keys}
    if prior is not None:
        options["prior_min"] = prior
    doc = copy.deepcopy(BASE_SCENARIO)
    doc["workload"]["declared_run_time"] = {"history": options}
    try:
        scenario = scenario_from_yaml(yaml.safe_dump(doc, sort_keys=False), source="fuzz.yaml")
    except GpuschedError as exc:
        _assert_one_line(exc, "scenario 'fuzz.yaml'")
        return
    checked = scenario.workload.declared_run_time["history"]
    as_sets = [frozenset(k) for k in checked["keys"]]
    assert all(len(set(k)) == len(k) for k in checked["keys"]) and len(set(as_sets)) == len(as_sets)
    assert type(checked["prior_min"]) is float and math.isfinite(checked["prior_min"])
    _simulates(scenario, "sjf+first_fit")


GAVEL_VALUES: dict[str, Any] = {
    "multi_gpu": st.sampled_from([True, False, "yes", "true", 1, 0, "no", [], None]),
    "weights": st.sampled_from([True, False, "yes", 1, 0, 1.0, None]),
    "deadlines": st.sampled_from([True, False, "true", 0, None]),
    "mix": st.sampled_from([dict(DEFAULT_MIX), {"training": 1.0}, {}, "training", None]),
    "load": st.one_of(st.sampled_from([0.1, 0, -1, 1e9, "0.5", True, None]), st.floats(0, 200)),
    "arrival_rate_per_hour": st.sampled_from([2, 0, "2", None]),
    "jobs": st.sampled_from([1, 10, 0, 2.5, "10"]),
    "generator": st.sampled_from(["gavel", "Gavel", "synthetic", 1]),
}
"""Each key of the Gavel generator's block, with valid values, values beyond their limits and
values of the wrong type (numbers and text for a flag)."""


@FUZZ
@given(st.dictionaries(st.sampled_from(sorted(GAVEL_VALUES)), st.just(None), min_size=1, max_size=4),
       st.data())
def test_gavel_generator_blocks_load_or_fail_in_one_line_and_flags_are_real_booleans(keys, data):
    """Gavel's generator block: refused in one line, or every flag is a YAML boolean (never a
    number or text read as one), no mix is given for it, and its jobs are Gavel's: training jobs on
    whole GPUs, one GPU each without ``multi_gpu``, weights of 1 or 5."""
    doc = copy.deepcopy(GAVEL_SCENARIO)
    for key in keys:
        value = data.draw(GAVEL_VALUES[key], label=key)
        if value is None:
            doc["workload"].pop(key, None)
        else:
            doc["workload"][key] = value
    try:
        scenario = scenario_from_yaml(yaml.safe_dump(doc, sort_keys=False), source="fuzz.yaml")
    except GpuschedError as exc:
        _assert_one_line(exc, "scenario 'fuzz.yaml'")
        return
    w = scenario.workload
    for flag in (w.multi_gpu, w.weights, w.deadlines):
        assert flag is None or type(flag) is bool
    if w.generator != "gavel":
        return
    assert w.mix == DEFAULT_MIX
    jobs = scenario.jobs(n_jobs=min(w.jobs, 25))
    assert all(j.type == "training" and j.compute == 1.0 and j.weight in (1.0, 5.0) for j in jobs)
    assert w.multi_gpu or all(j.gpus == 1 for j in jobs)
    _simulates(scenario)


@FUZZ
@given(st.one_of(hostile_value, st.integers(-5, 300),
                 st.sampled_from([1, 2, 16, MAX_WINDOW, MAX_WINDOW + 1])))
def test_queue_windows_load_or_fail_in_one_line_and_loaded_ones_start_only_window_jobs(window):
    doc = copy.deepcopy(BASE_SCENARIO) | {"queue": {"window": window}}
    try:
        scenario = scenario_from_yaml(yaml.safe_dump(doc, sort_keys=False), source="fuzz.yaml")
    except GpuschedError as exc:
        _assert_one_line(exc, "scenario 'fuzz.yaml'")
        return
    assert type(scenario.window) is int and 1 <= scenario.window <= MAX_WINDOW
    result = _simulates(scenario, "sjf")
    assert (result.jobs["start_slot"] < scenario.window).all()


OVERRIDE_KEYS = ["workload.load", "workload.arrival_rate_per_hour", "queue.window", "horizon_min",
                 "workload.jobs", "workload.seed", "speed", "reward.wait", "workload.mix.training",
                 "util_band", "workload.runtime_estimate_error", "workload.trace.pods", "nope.key",
                 "avg_wait_min", "failures.node_failures_per_1000_node_days", "failures.repair_min.median",
                 "failures.seed", "checkpoint.interval_min", "checkpoint.restore_min",
                 "queue.preemption_min_run_min", "workload.declared_run_time", "workload.trace.jobs"]
OVERRIDE_WORDS = ["none", "history", "exact", "true", "nope.csv", "", "None"]
"""Words an override value may be: what ``declared_run_time`` reads, and what it does not."""
SWEEP_POLICIES = ["first_fit", "sjf+first_fit", "las+first_fit", "easy"]
"""Policies a fuzzed sweep runs: some read run times (refused under ``none``), some do not."""


@FUZZ
@given(st.dictionaries(st.sampled_from(OVERRIDE_KEYS),
                       st.lists(hostile_value | st.floats(0.01, 50) | st.integers(1, 40)
                                | st.sampled_from(OVERRIDE_WORDS), max_size=3),
                       min_size=1, max_size=3),
       st.sampled_from(["ll-stall-mini", "phase1-4gpu", "fleet-16gpu", "fleet-16gpu-failures"]),
       st.lists(st.sampled_from(SWEEP_POLICIES), min_size=1, max_size=2, unique=True))
def test_sweep_overrides_are_refused_up_front_or_every_grid_point_builds(overrides, scenario_name, policies):
    """A spec is refused in one line, or every grid point builds and the first runs of each
    policy are not refused (a policy that reads run times under ``none``, a missing job list, two
    values that run one scenario: once every run failed with exit 1 after the spec check passed)."""
    doc = copy.deepcopy(SWEEP_SPEC)
    doc["simulate"]["scenarios"] = [scenario_name]
    doc["simulate"]["policies"] = policies
    doc["simulate"]["overrides"] = overrides
    spec = _sweep_spec_or_refusal(doc)
    if spec is None:
        return
    scenario = load_scenario(scenario_name)
    built_once: dict[str, dict] = {}
    for params in spec.runs():  # what load_sweep accepted, no run can refuse as input
        changes = {k: v for k, v in params.items() if k not in RUN_KEYS}
        built = scenario.with_overrides(**changes)
        assert built.name == scenario.name
        body = json.dumps(built.model_dump(mode="json"), sort_keys=True, default=str)
        assert built_once.setdefault(body, changes) == changes, "two grid points run one scenario"
    for params in spec.runs()[:len(policies)]:  # the first grid point, each policy: a short run
        row, _ = execute_run({**params, "workload.jobs": 8, "horizon_min": 2000})
        assert row["error"] == "", row["error"]


SET_RAW = ["0", "-1", "1", "2", "1e9", "1e20", "true", "false", "null", '"64"', '"0.5"', "NaN", "Infinity",
           "-Infinity", "[1,16]", "[16,1]", "[1,500]", "[]", "{}", '{"wait": true}', '{"colour": 1}', "abc",
           "1.5", "2.0", "1e-300", "9" * 30, "", "best_fit", "fcfs+ppo", "x.zip", "[0.1,0.5]", "[true,2]",
           "none", "history", '{"lognormal": 1}', "sjf+first_fit", "las+fastest_fit", "5"]


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(field_names()),
                          st.one_of(st.sampled_from(SET_RAW), st.text(max_size=8), st.integers().map(str),
                                    st.floats().map(repr))),
                min_size=1, max_size=3))
def test_set_values_are_refused_or_give_a_model_the_loader_accepts(pairs):
    """``train --set``: refused in one line before anything starts, or every setting is within its
    bounds, and the sidecar the run would write is one the loader accepts (``--set hidden=0``
    once trained a model that could not be loaded)."""
    config = TrainConfig(scenario="ll-stall-mini", out="models/m.zip")
    try:
        _apply_overrides(config, [f"{key}={raw}" for key, raw in pairs])
        config.check()
    except GpuschedError as exc:
        text = str(exc)
        assert text and "\n" not in text, text
        assert text.startswith(("training settings", "--set", "scenario", "unknown scenario")), text
        return
    meta = {"format": "gpusched-ppo", **sidecar_settings(config, load_scenario(config.scenario)),
            "sha256": "0" * 64}
    Sidecar.model_validate(json.loads(json.dumps(meta, allow_nan=False)))
    assert TrainConfig.from_json(config.to_json()) == config
    scenario = config.training_scenario()  # what the run is told, its evaluation and teacher run
    if is_undeclared(scenario.workload.declared_run_time):
        assert config.obs_version in UNTOLD_OBS_VERSIONS
        assert config.bc_policy is None or not reads_run_times(config.bc_policy)


SIDECAR_BASES = [json.loads((SHIPPED_MODELS_DIR / f"{name}.json").read_text())
                 for name in ("ppo-default", "ppo-window", "ppo-urgency")]
SHIPPED_ZIPS = {f"{name}.zip": sha256_of(SHIPPED_MODELS_DIR / f"{name}.zip")
                for name in ("ppo-default", "ppo-window", "ppo-urgency")}


@FUZZ
@given(mutated(SIDECAR_BASES))
def test_mutated_sidecars_are_refused_in_one_line_or_load_a_working_agent(doc):
    with tempfile.TemporaryDirectory() as folder:
        models = Path(folder)
        zip_name = next((name for name, sha in SHIPPED_ZIPS.items()
                         if isinstance(doc, dict) and doc.get("sha256") == sha), "ppo-default.zip")
        shutil.copy(SHIPPED_MODELS_DIR / zip_name, models / "m.zip")
        (models / "m.json").write_text(json.dumps(doc), encoding="utf-8")
        old = os.environ.get(MODELS_DIR_ENV)
        os.environ[MODELS_DIR_ENV] = str(models)
        try:
            agent = load_agent(models / "m.zip")
        except GpuschedError as exc:
            text = str(exc)
            assert text and "\n" not in text and text.startswith(("sidecar 'm.json'", "model 'm.zip'")), text
            return
        finally:
            if old is None:
                os.environ.pop(MODELS_DIR_ENV)
            else:
                os.environ[MODELS_DIR_ENV] = old
    assert 1 <= int(agent.meta.get("max_window", 1)) <= MAX_WINDOW
    assert 1 <= int(agent.meta["max_gpus"]) <= MAX_GPUS
    assert 1 <= int(agent.meta["hidden"]) <= MAX_SIDECAR_HIDDEN
    told = (agent.meta.get("config") or {}).get("declared_run_time")
    assert told is None or check_declared(told) is not None  # what the model was told is a setting


SWEEP_NAMES = ["/", "..", ".", "../up", "a/../../up", "/tmp/abs", "..\\up", "a\x00b", "\x1b[2J", "~", "-rf",
               " lead", "x" * 100, "x" * 101, "ok.name", "é—名", "\ud800", "a\nb", "$HOME", "*"]


@FUZZ
@given(st.one_of(st.sampled_from(SWEEP_NAMES), st.text(min_size=1, max_size=120)))
def test_no_sweep_spec_writes_outside_its_output_folder_whatever_its_name(name):
    """A spec's name is refused in one line, or the sweep writes into ``sweeps/<name>`` and
    nowhere else: every file the command leaves lies under that one folder of the working folder."""
    with tempfile.TemporaryDirectory() as root:
        work = Path(root) / "work"
        work.mkdir()
        spec = Path(root) / "spec.json"  # JSON is YAML: any name, written exactly
        spec.write_text(json.dumps({"name": name, "simulate": {
            "scenarios": ["ll-stall-mini"], "policies": ["first_fit"], "seeds": [0],
            "overrides": {"workload.jobs": [3]}}}), encoding="utf-8")
        cwd = os.getcwd()
        os.chdir(work)
        try:
            with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.redirect_stdout(io.StringIO()):
                code = main(["sweep", str(spec), "--workers", "1"])
        finally:
            os.chdir(cwd)
        left = sorted(p for p in Path(root).rglob("*") if p.is_file() and p != spec)
        if code != 0:
            line = err.getvalue().strip()
            assert code == 2 and "\n" not in line and line.startswith("gpusched: error: "), line
            assert left == []
            return
        folder = (work / "sweeps" / name).resolve()
        assert folder.parent == (work / "sweeps").resolve()
        assert left and all(p.resolve().parent == folder for p in left), left


# ---------------------------------------------------------------------------- failures, checkpoints, queue
BLOCK_VALUES: dict[str, Any] = {
    "failures.node_failures_per_1000_node_days": st.one_of(
        st.sampled_from([0, 1e-300, 0.001, 6.5, 130, MAX_FAILURE_RATE, MAX_FAILURE_RATE * 2]),
        st.floats(0, 2e6)),
    "failures.repair_min.median": st.one_of(st.sampled_from([5e-324, MIN_REPAIR_MIN, 54, 1e6, 2e6]),
                                            st.floats(0, 2e6)),
    "failures.repair_min.mean": st.one_of(st.sampled_from([5e-324, 355, 1e6, 2e6]), st.floats(0, 2e6)),
    "failures.seed": st.one_of(st.sampled_from([0, 7, 1e20, 2**53, 2.5]), st.integers(-5, 2**60)),
    "checkpoint.interval_min": st.one_of(
        st.sampled_from([1e-320, 1e-307, MIN_CHECKPOINT_MIN, 60, 1e6, 2e6]), st.floats(0, 2e6)),
    "checkpoint.restore_min": st.one_of(st.sampled_from([0, 5, 10_000, 10_001]), st.floats(0, 2e4)),
    "checkpoint.move_restore_min": st.one_of(st.none(), st.sampled_from([0, 5, 10_000, 10_001, -1]),
                                             st.floats(0, 2e4)),
    "checkpoint.types": st.sampled_from([["training"], ["batch", "inference"], ["trainig"], [], "training"]),
    "queue.window": st.one_of(st.sampled_from([1, 4, MAX_WINDOW, MAX_WINDOW + 1]), st.integers(-2, 200)),
    "queue.preemption_min_run_min": st.one_of(st.sampled_from([1e-300, 0.5, 10, 1e6, 2e6]),
                                              st.floats(0, 2e6)),
}
"""Each key of the three blocks, with values inside, at and beyond its limits."""


@st.composite
def block_documents(draw, base: dict[str, Any] = FAIL_SCENARIO,
                    values: dict[str, Any] = BLOCK_VALUES) -> dict[str, Any]:
    """``base`` (default :data:`FAIL_SCENARIO`) with one to four keys of ``values`` (dotted paths;
    default its ``failures:``, ``checkpoint:`` and ``queue:`` blocks, :data:`BLOCK_VALUES`) set to a
    value in or beyond its limits, or to a hostile value (a boolean, a quoted number, NaN, a list
    ...), or dropped."""
    doc = copy.deepcopy(base)
    for key in draw(st.lists(st.sampled_from(sorted(values)), min_size=1, max_size=4, unique=True)):
        *path, last = key.split(".")
        target = doc
        for part in path:
            target = target.setdefault(part, {})
        how = draw(st.sampled_from(["value", "value", "hostile", "text", "drop"]))
        value = draw(values[key])
        if how == "drop":
            target.pop(last, None)
        else:
            target[last] = (draw(hostile_value) if how == "hostile"
                            else str(value) if how == "text" else value)
    return doc


@FUZZ
@given(block_documents(), st.sampled_from(["first_fit", "srtf", "sjf+eft"]), st.booleans())
def test_failure_checkpoint_and_queue_blocks_load_or_fail_in_one_line_and_loaded_runs_end(doc, policy,
                                                                                         horizon):
    """No boolean or quoted number is read as a number, every value is within its limits, and a
    run that loads ends (by its horizon, or with failures and none, by its safety horizon) with
    finite metrics."""
    if horizon:
        doc["horizon_min"] = 500
    try:
        scenario = scenario_from_yaml(yaml.safe_dump(doc, sort_keys=False), source="fuzz.yaml")
    except GpuschedError as exc:
        _assert_one_line(exc, "scenario 'fuzz.yaml'")
        return
    f, c, q = scenario.failures, scenario.checkpoint, scenario.queue
    for value in (f.node_failures_per_1000_node_days, f.repair_min.median, f.repair_min.mean,
                  *(() if c is None else (c.interval_min, c.restore_min, c.move_min)),
                  *(() if q.preemption_min_run_min is None else (q.preemption_min_run_min,))):
        assert type(value) is float and math.isfinite(value)
    assert f.seed is None or type(f.seed) is int
    assert f.repair_min.median >= MIN_REPAIR_MIN and (c is None or c.interval_min >= MIN_CHECKPOINT_MIN)
    assert (c is None or f.node_failures_per_1000_node_days == 0
            or f.node_mttf_min >= c.restore_min + c.interval_min)
    result = _simulates(scenario, policy)
    assert result.end_reason in ("completed", "dead_stall", "horizon", "safety_horizon")
    assert (result.end_reason == "safety_horizon") == (not horizon and result.end_reason.endswith("horizon"))


@FUZZ
@given(st.one_of(st.sampled_from([1e-300, 5e-324, 0.5, 1.0, 80.0, MAX_VRAM_GB, MAX_VRAM_GB * 2]),
                 st.floats(0, 1e5), hostile_value))
def test_sidecar_scales_are_refused_or_every_observation_is_finite(scale):
    """``vram_scale_gb`` of a sidecar: refused in one line, or the observation of a cluster with
    the largest VRAM a GPU may have is finite (a scale of 1e-300 once made every logit NaN)."""
    from gpusched.core.cluster import Cluster, NodeGroup
    from gpusched.core.simulator import Simulator
    from gpusched.env.observation import ObservationBuilder
    from gpusched.env.window import WindowObservationBuilder

    meta = dict(SIDECAR_BASES[0], vram_scale_gb=scale)
    try:
        checked = Sidecar.model_validate(json.loads(json.dumps(meta)))
    except (ValueError, TypeError) as exc:  # pydantic's ValidationError, or JSON refusing NaN
        assert "vram_scale_gb" in str(exc) or isinstance(exc, TypeError)
        return
    assert VRAM_SCALE_RANGE_GB[0] <= checked.vram_scale_gb <= VRAM_SCALE_RANGE_GB[1]
    from gpusched.core.jobs import Job

    cluster = Cluster([NodeGroup("big", MAX_VRAM_GB, 2), NodeGroup("small", 1.0, 1)])
    jobs = [Job(id=i, type="training", arrival_min=0.0, duration_min=60.0, gpus=1, vram_gb=vram, compute=1.0)
            for i, vram in enumerate([MAX_VRAM_GB, 1.0, MAX_VRAM_GB])]
    sim = Simulator(cluster, jobs)
    fifo = ObservationBuilder(cluster, 4, 8, checked.vram_scale_gb)
    window = WindowObservationBuilder(cluster, 4, 4, None, checked.vram_scale_gb)
    view = sim.view  # builders observe what a scheduler sees
    for obs in (fifo.observe(view, view.state.fit_mask(view.head_job)), window.observe(view)):
        assert all(np.isfinite(v).all() for v in obs.values())


json_values = st.recursive(
    st.one_of(st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=4),
              st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.lists(st.tuples(st.sampled_from(["a", "b", "obs_version", "é", ""]), inner),
                                     max_size=4)),
    max_leaves=12)
"""JSON values; a list of (key, value) pairs stands for an object, which may name a key twice."""


def _json_text(value: Any) -> str:
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        return "{" + ", ".join(f"{json.dumps(k)}: {_json_text(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_json_text(v) for v in value) + "]"
    return json.dumps(value)


def _first_duplicate(value: Any) -> str | None:
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        # the reader builds each object when it closes: every inner object before this one
        inner = next((d for d in (_first_duplicate(v) for _, v in value) if d is not None), None)
        if inner is not None:
            return inner
        keys = [k for k, _ in value]
        return next((k for i, k in enumerate(keys) if k in keys[:i]), None)
    if isinstance(value, list):
        return next((d for d in map(_first_duplicate, value) if d is not None), None)
    return None


@FUZZ
@given(json_values)
def test_json_with_a_key_given_twice_is_refused_naming_the_key(value):
    """A sidecar's JSON (any JSON a user gives) that names a key twice in one object is refused,
    naming the first such key; any other JSON reads as Python's reader reads it."""
    text = _json_text(value)
    duplicate = _first_duplicate(value)
    try:
        data = load_json_text(text, label="sidecar 'm.json'")
    except GpuschedError as exc:
        line = str(exc)
        assert duplicate is not None and "\n" not in line, (text, line)
        assert line == f"sidecar 'm.json': duplicate key '{duplicate}' (the last value would silently win)"
        return
    assert duplicate is None and data == json.loads(text)


# ---------------------------------------------------------------------------- Philly as a workload
PH_BLOCK_VALUES: dict[str, Any] = {
    f"{PHILLY_KEY}.file": st.sampled_from(["{tmp}/p.csv", "{tmp}/p.csv", "{tmp}/nope.csv", "{tmp}",
                                           "philly-sample", "philly-nope", "", "x" * 5000]),
    f"{PHILLY_KEY}.clusters": st.one_of(
        st.lists(st.sampled_from(["6214e9", "11cb48", "6c71a0", "zz", "", " ", "x" * 300, "\x00"]),
                 max_size=3),
        st.sampled_from([["6214e9"] * (MAX_CLUSTERS + 1), "6214e9", None])),
    f"{PHILLY_KEY}.window_days": st.one_of(
        st.sampled_from([5e-324, 1e-3, 0.05, 1, 14, MAX_WINDOW_DAYS, MAX_WINDOW_DAYS * 2, 0, -1]),
        st.floats(0, 2 * MAX_WINDOW_DAYS)),
    "workload.jobs": st.one_of(st.sampled_from([0, 1, 3, 10, 10**7]), st.integers(-2, 20)),
    "workload.declared_run_time": st.sampled_from(["exact", "history", "none", "histroy"]),
    "cluster.nodes": st.builds(lambda gpus, count: [{"gpu_model": "V100", "vram_gb": 16,
                                                     "gpus_per_node": gpus, "count": count}],
                               st.sampled_from([1, 2, 4, 8, 0, 9]), st.sampled_from([1, 2, 0])),
}
"""Each key of a Philly workload (the block, the job count, what the scheduler is told, the
server's size), with values inside, at and beyond its limits."""


def _with_folder(doc: Any, folder: str) -> Any:
    """``doc`` with ``{tmp}`` in its texts replaced by ``folder``."""
    if isinstance(doc, dict):
        return {k: _with_folder(v, folder) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_with_folder(v, folder) for v in doc]
    return doc.replace("{tmp}", folder) if isinstance(doc, str) else doc


@FUZZ
@given(block_documents(PH_SCENARIO, PH_BLOCK_VALUES),
       st.one_of(st.just(PHILLY_CSV), mutated_csv(PHILLY_CSV)), st.integers(0, 2**32 - 1),
       st.sampled_from(["fcfs+first_fit", "qssf+first_fit", "max_min_fairness"]))
def test_philly_workloads_fail_in_one_line_or_run_to_the_end(doc, csv, seed, policy):
    """A ``workload.trace.philly`` scenario with its block, job count, setting or server mutated
    and its CSV mutated or not, through ``gpusched simulate``: exit 2 with one line that names the
    scenario (its file, or its name once it has loaded) and, when only the CSV is bad, the key and
    the CSV, never a traceback; or the
    run ends with every job it submitted completed and finite metrics."""
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        (tmp / "p.csv").write_text(csv, encoding="utf-8")
        (tmp / "s.yaml").write_text(yaml.safe_dump(_with_folder(doc, folder), sort_keys=False),
                                    encoding="utf-8")
        with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.redirect_stdout(io.StringIO()):
            code = main(["simulate", "--scenario", str(tmp / "s.yaml"), "--policy", policy,
                         "--seed", str(seed), "--json", str(tmp / "m.json")])
        if code != 0:
            line = err.getvalue().strip()
            assert code == 2 and line and "\n" not in line and line.startswith("gpusched: error: "), line
            assert "scenario 's.yaml'" in line or f"scenario '{doc['name']}'" in line, line
            if _with_folder(doc, "") == _with_folder(PH_SCENARIO, ""):  # only the CSV is bad
                assert PHILLY_KEY in line and "p.csv" in line, line
            return
        run = json.loads((tmp / "m.json").read_text(encoding="utf-8"))
    metrics = run["metrics"]
    assert run["end_reason"] == "completed", run["end_reason"]
    assert 1 <= metrics["jobs_submitted"] == metrics["jobs_completed"] <= max(doc["workload"]["jobs"], 1)
    assert metrics["jobs_unfinished"] == 0
    assert all(v is not None and math.isfinite(v) for v in metrics.values()), metrics
