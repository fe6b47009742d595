"""Shockwave's files (gpusched/workload/shockwave.py): a small hand-made trace reads back as the
same jobs and writes back as the same text, a throughputs file and the settings read as written,
and the shipped files hold what their README says."""

from __future__ import annotations

import json

import pytest
from hostile_inputs import SW_CONFIG_DOC, SW_THROUGHPUTS_DOC

from gpusched.paths import (
    SHOCKWAVE_CONFIG,
    SHOCKWAVE_RESULTS_DIR,
    SHOCKWAVE_THROUGHPUTS,
    SHOCKWAVE_TRACE,
)
from gpusched.workload.shockwave import (
    MODES,
    TRACE_COLUMNS,
    format_shockwave_trace,
    parse_job_type,
    read_shockwave_config,
    read_shockwave_throughputs,
    read_shockwave_trace,
)

HAND_MADE = (
    "LM (batch size 10)\tpython3 main.py --batch_size 10\tlanguage_modeling\t--steps\t1\t134583\t1\tgns\t1"
    "\t-1.000000\t1418\t0\n"
    "ResNet-50 (batch size 32)\tpython3 main.py -b 32\timagenet\t--num_minibatches\t0\t4000\t2\taccordion"
    "\t5\t1.2\t700.5\t60.25\n"
    "A3C\tpython3 main.py\trl\t--steps\t0\t10\t1\tstatic\t1\t2\t30\t60.25\n"
)
"""Three jobs: one of each mode, a weight of 5, an SLO, fractional times, a job type with no batch
size, and two jobs arriving at the same time."""


def test_a_hand_made_trace_reads_back_as_its_jobs_and_writes_back_as_its_text(tmp_path):
    path = tmp_path / "hand.trace"
    path.write_text(HAND_MADE, encoding="utf-8")
    trace = read_shockwave_trace(path)
    assert [j.id for j in trace.jobs] == [0, 1, 2]
    lm, resnet, a3c = trace.jobs
    assert (lm.model, lm.batch_size, lm.total_steps, lm.scale_factor, lm.mode) == ("LM", 10, 134583, 1, "gns")
    assert lm.slo is None and lm.needs_data_dir and lm.priority_weight == 1.0
    assert (resnet.model, resnet.batch_size, resnet.scale_factor) == ("ResNet-50", 32, 2)
    assert resnet.priority_weight == 5 and not resnet.needs_data_dir
    assert resnet.slo == 1.2 and resnet.duration_s == 700.5 and resnet.arrival_s == 60.25
    assert (a3c.model, a3c.batch_size, a3c.mode, a3c.slo) == ("A3C", None, "static", 2.0)
    assert trace.count_by_mode() == {"static": 1, "accordion": 1, "gns": 1}
    assert format_shockwave_trace(trace.jobs) == HAND_MADE
    again = tmp_path / "again.trace"
    again.write_text(format_shockwave_trace(trace.jobs), encoding="utf-8")
    assert read_shockwave_trace(again).jobs == trace.jobs


def test_windows_line_ends_read_as_the_same_jobs(tmp_path):
    unix, windows = tmp_path / "u.trace", tmp_path / "w.trace"
    unix.write_text(HAND_MADE, encoding="utf-8")
    windows.write_bytes(HAND_MADE.replace("\n", "\r\n").encode())
    assert read_shockwave_trace(windows).jobs == read_shockwave_trace(unix).jobs


def test_job_types_parse_as_shockwave_reads_them():
    assert parse_job_type("ResNet-18 (batch size 32)") == ("ResNet-18", 32)
    assert parse_job_type("Recommendation (batch size 8192)") == ("Recommendation", 8192)
    assert parse_job_type("CycleGAN") == ("CycleGAN", None)
    for bad in ("ResNet 18 (batch size 32)", "ResNet-18 (batch size x)", "ResNet-18 (batch size 32) ", ""):
        with pytest.raises(ValueError):
            parse_job_type(bad)


def test_a_throughputs_file_reads_as_written(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(SW_THROUGHPUTS_DOC), encoding="utf-8")
    table = read_shockwave_throughputs(path)
    assert table.gpu_models == ("V100",)
    assert table.steps_per_s("V100", "LM (batch size 10)", 1) == 94.9
    assert table.steps_per_s("V100", "LM (batch size 10)", 1, spread=True) == 94.9
    assert table.steps_per_s("V100", "LM (batch size 10)", 2) == 0.0      # not measured
    assert table.steps_per_s("K80", "LM (batch size 10)", 1) == 0.0       # no such GPU type
    assert len(table.consolidated["V100"]) == len(SW_THROUGHPUTS_DOC["v100"])


def test_the_settings_read_as_written(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(SW_CONFIG_DOC), encoding="utf-8")
    config = read_shockwave_config(path)
    assert (config.future_rounds, config.k, config.lam, config.rhomax) == (20, 1e-3, 12.0, 1.0)
    assert config.log_approximation_bases == (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    assert (config.gpu_ram_gb, config.solver_num_threads, config.solver_timeout_s) == (16, 24, 15)


def test_the_shipped_trace_holds_what_its_readme_says():
    trace = read_shockwave_trace(SHOCKWAVE_TRACE)
    assert len(trace) == 120 and [j.id for j in trace.jobs] == list(range(120))
    assert trace.count_by_mode() == {"static": 4, "accordion": 59, "gns": 57}
    assert set(MODES) == {j.mode for j in trace.jobs} and len(TRACE_COLUMNS) == 12
    assert sorted({j.scale_factor for j in trace.jobs}) == [1, 2, 4]
    # The writer reproduces the shipped file byte for byte.
    assert format_shockwave_trace(trace.jobs) == SHOCKWAVE_TRACE.read_text(encoding="utf-8")


def test_the_shipped_durations_are_the_steps_at_the_measured_v100_throughput():
    trace = read_shockwave_trace(SHOCKWAVE_TRACE)
    table = read_shockwave_throughputs(SHOCKWAVE_THROUGHPUTS)
    assert set(table.gpu_models) == set(table.unconsolidated) == {"K80", "P100", "V100"}
    for job in trace.jobs:
        rate = table.steps_per_s("V100", job.job_type, job.scale_factor)
        assert rate > 0
        # the trace writes durations in whole seconds
        assert job.total_steps / rate == pytest.approx(job.duration_s, abs=1.0), job.id


def test_the_shipped_settings_and_results_files_are_there():
    config = read_shockwave_config(SHOCKWAVE_CONFIG)
    assert config.future_rounds == 20 and config.lam == 12.0
    for policy in ("allox", "finish_time_fairness", "max_min_fairness"):
        for kind in ("physical", "simulation"):
            data = json.loads((SHOCKWAVE_RESULTS_DIR / f"{policy}.{kind}.json").read_text(encoding="utf-8"))
            assert len(data["jct_s"]) == 120 and data["time_per_iteration_s"] == 120
            assert data["avg_jct_s"] == pytest.approx(sum(data["jct_s"]) / 120)


def test_the_shipped_files_are_the_ones_their_readmes_name():
    """Each file listed with a sha256 in ``assets/shockwave/README.md`` and the Philly sample in
    ``assets/philly/README.md`` hash to what the README says, and every shipped file is listed."""
    import hashlib
    import re

    from gpusched.paths import PHILLY_SAMPLE, SHOCKWAVE_DIR

    readme = (SHOCKWAVE_DIR / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| ([\d,]+) \| ([0-9a-f]{64}) \|$", readme, flags=re.MULTILINE)
    listed = {name: digest for name, _, digest in rows}
    shipped = {p.relative_to(SHOCKWAVE_DIR).as_posix() for p in SHOCKWAVE_DIR.rglob("*")
               if p.is_file() and p.name not in ("README.md", "LICENSE")}
    assert set(listed) == shipped and len(shipped) == 9
    for name, size, digest in rows:
        data = (SHOCKWAVE_DIR / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest and len(data) == int(size.replace(",", "")), name
    assert "MIT License" in (SHOCKWAVE_DIR / "LICENSE").read_text(encoding="utf-8")
    philly = (PHILLY_SAMPLE.parent / "README.md").read_text(encoding="utf-8")
    assert hashlib.sha256(PHILLY_SAMPLE.read_bytes()).hexdigest() in philly
