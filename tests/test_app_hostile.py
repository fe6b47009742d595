"""The dashboard under bad uploads and edits: for each class, an inline error that names the file
and the key, the session's scenario unchanged, and no exception on this page or on the pages
visited afterwards. Also: widgets take every value the schema takes, an upload runs exactly as
uploaded, the preset box shows the current preset, and the workload note appears inline."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest
import yaml
from apptest_support import ENTRY, SMALL_SCENARIO_YAML, assert_clean, open_page
from hostile_inputs import ALIAS_BOMB, DEEP_FLOW, scenario_yaml
from streamlit.testing.v1 import AppTest

from gpusched.limits import MAX_TRACE_BYTES, MAX_YAML_BYTES
from gpusched.paths import SHIPPED_SWEEP_RESULTS_DIR, TRACES_DIR
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario_yaml import scenario_from_yaml

CLUSTER = "views/cluster.py"
OTHER_PAGES = ["views/replay.py", "views/compare.py", "views/stalls.py", "views/home.py"]
MIB = 1024 * 1024

BAD_UPLOADS = {
    "binary": (bytes(range(256)) * 8, "NUL bytes"),
    "utf-16": (SMALL_SCENARIO_YAML.encode("utf-16"), "UTF-16"),
    "too large": (SMALL_SCENARIO_YAML.encode() + b"#" * MAX_YAML_BYTES, "larger than the limit"),
    "duplicate key": ((SMALL_SCENARIO_YAML + "name: again\n").encode(), "duplicate key 'name'"),
    "deep nesting": (DEEP_FLOW.encode(), "nested deeper than"),
    "alias bomb": (ALIAS_BOMB.encode(), "aliases are expanded"),
    "a list on top": (b"- 1\n- 2\n", "expected a mapping"),
    "nan in the mix": (scenario_yaml({"workload.mix.training": float("nan")}).encode(),
                       "workload.mix.training"),
    "infinite vram": (scenario_yaml({"cluster.nodes.0.vram_gb": float("inf")}).encode(), "vram_gb"),
    "a billion nodes": (scenario_yaml({"cluster.nodes.0.count": 10**9}).encode(), "count: must be <= 10000"),
    "trace file missing": (scenario_yaml({"workload.trace": {"pods": "no/such/pods.csv"}, "workload.jobs": 5,
                                          "workload.arrival_rate_per_hour": None},
                                         base=yaml.safe_load(SMALL_SCENARIO_YAML)).encode(),
                           "cannot run as uploaded: trace 'no/such/pods.csv': no such file"),
}


def _current(at: AppTest):
    return scenario_from_yaml(at.session_state["scenario_yaml"])


@pytest.mark.parametrize("case", sorted(BAD_UPLOADS))
def test_a_bad_upload_is_an_inline_error_and_every_page_keeps_working(case):
    data, needle = BAD_UPLOADS[case]
    at = open_page(CLUSTER)
    before = at.session_state["scenario_yaml"]
    at.file_uploader(key="upload_0").set_value((f"{case}.yaml", data, "application/x-yaml")).run()
    assert_clean(at)
    errors = [e.value for e in at.error]
    assert any(f"{case}.yaml" in e and needle in e for e in errors), errors
    assert at.session_state["scenario_yaml"] == before
    at.switch_page(OTHER_PAGES[sorted(BAD_UPLOADS).index(case) % len(OTHER_PAGES)]).run()
    assert_clean(at)


def test_an_invalid_scenario_in_the_session_breaks_no_page():
    """A NaN share that got into the session anyhow: each page says so inline and runs the default."""
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.session_state["scenario_yaml"] = SMALL_SCENARIO_YAML.replace("training: 0.2", "training: .nan")
    at.run()
    at.switch_page("views/replay.py").run()
    assert_clean(at)
    assert any("not valid" in e.value and "workload.mix.training" in e.value for e in at.error)
    assert _current(at).name == "phase1-8gpu"
    for page in ["views/cluster.py", "views/compare.py", "views/stalls.py", "views/agent.py",
                 "views/sweeps.py", "views/home.py"]:
        at.switch_page(page).run()
        assert_clean(at)


def test_a_huge_node_count_in_the_editor_is_refused_at_once():
    at = open_page(CLUSTER)
    before = at.session_state["scenario_yaml"]
    at.session_state["nodes_0"] = {"edited_rows": {0: {"count": 100_000_000}}, "added_rows": [],
                                   "deleted_rows": []}
    start = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - start
    assert_clean(at)
    assert any("cluster.nodes[0].count: must be <= 10000 (got 100000000)" in e.value for e in at.error)
    assert at.session_state["scenario_yaml"] == before
    assert elapsed < 10, f"refusing took {elapsed:.1f} s"
    at.switch_page("views/compare.py").run()
    assert_clean(at)


def test_an_empty_cell_in_the_editor_is_an_inline_error():
    at = open_page(CLUSTER)
    at.session_state["nodes_0"] = {"edited_rows": {1: {"vram_gb": None}}, "added_rows": [{"gpu_model": "X"}],
                                   "deleted_rows": []}
    at.run()
    assert_clean(at)
    assert any("cluster.nodes[" in e.value for e in at.error), [e.value for e in at.error]


def _open_on(scenario_text: str, page: str) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.session_state["scenario_yaml"] = scenario_text
    at.run()
    at.switch_page(page).run()
    return at


def test_widgets_take_every_value_the_schema_takes():
    base = load_scenario("phase1-4gpu")
    big = base.with_overrides(**{"workload.jobs": 6000, "workload.arrival_rate_per_hour": 2000.0,
                                 "workload.seed": 2**40}).to_yaml()
    at = _open_on(big, CLUSTER)
    assert_clean(at)
    assert at.number_input(key="jobs_0").value == 6000
    assert at.number_input(key="rate_0").value == 2000.0
    assert at.number_input(key="seed_0").value == 2**40
    at.switch_page("views/replay.py").run()
    assert_clean(at)
    assert at.number_input(key="replay_seed").value == 2**40
    low = base.with_overrides(**{"workload.arrival_rate_per_hour": 0.001, "workload.jobs": 20}).to_yaml()
    at = _open_on(low, CLUSTER)
    assert_clean(at)
    assert at.number_input(key="rate_0").value == 0.001


def test_an_uploaded_trace_scenario_runs_exactly_as_uploaded(tmp_path):
    pods = tmp_path / "my pods.csv"
    shutil.copy(TRACES_DIR / "openb_pod_list_default.csv", pods)
    text = yaml.safe_dump({
        "name": "whole-cluster",
        "cluster": {"trace": {"nodes": "openb_node_list_gpu_node"}},  # no sample_nodes: every node
        "workload": {"jobs": 30, "seed": 0, "trace": {"pods": str(pods), "time_compression": 300}},
    })
    at = open_page(CLUSTER)
    at.file_uploader(key="upload_0").set_value(("whole.yaml", text.encode(), "application/x-yaml")).run()
    assert_clean(at)
    current = _current(at)
    assert current.cluster.trace.sample_nodes is None and current.workload.trace.pods == str(pods)
    assert current.n_gpus == 6212
    assert at.selectbox(key="tr_pods_1").value == str(pods)
    assert at.number_input(key="tr_sample_1").value is None
    assert any("6212 GPUs" in s.value for s in at.success)
    at.number_input(key="jobs_1").set_value(40).run()  # an edit keeps the path and every node
    assert_clean(at)
    assert _current(at).workload.trace.pods == str(pods) and _current(at).n_gpus == 6212


def test_the_preset_box_shows_the_current_preset_and_the_note_is_inline():
    at = open_page(CLUSTER, small=False)
    assert_clean(at)
    assert at.selectbox(key="preset_0").value == "phase1-8gpu"
    assert any(i.value.startswith("note: ") and "training jobs with 4 or 8 GPUs" in i.value for i in at.info)
    at.selectbox(key="preset_0").set_value("homogeneous-8gpu").run()
    assert_clean(at)
    assert at.selectbox(key="preset_1").value == "homogeneous-8gpu"
    assert not any(i.value.startswith("note: ") for i in at.info)  # 8 A100s hold every shape
    small = open_page(CLUSTER)
    assert small.selectbox(key="preset_0").value == "—"  # an edited scenario is no preset


def test_uploads_are_capped_at_the_limits():
    at = open_page(CLUSTER)
    assert at.get("file_uploader")[0].proto.max_upload_size_mb * MIB == MAX_YAML_BYTES


APP = Path(__file__).resolve().parent.parent / "app"
TRACES_PAGE = str(APP / "views" / "traces.py")
HEADER = b"name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
BAD_POD_LISTS = {
    "binary": (bytes(range(256)), "NUL bytes"),
    "header only": (HEADER, "no rows"),
    "num_gpu 1e20": (HEADER + b"p0,1000,1024,1e20,1000\n", "column 'num_gpu'"),
    "utf-16": ((HEADER + b"p0,1000,1024,1,500\n").decode().encode("utf-16"), "UTF-16"),
}


@pytest.mark.parametrize("case", sorted(BAD_POD_LISTS))
def test_a_bad_pod_list_upload_is_an_inline_error(case):
    if str(APP) not in sys.path:
        sys.path.insert(0, str(APP))
    data, needle = BAD_POD_LISTS[case]
    at = AppTest.from_file(TRACES_PAGE, default_timeout=180)
    at.run()
    at.selectbox(key="traces_trace").set_value("upload").run()
    assert at.get("file_uploader")[0].proto.max_upload_size_mb * MIB == MAX_TRACE_BYTES
    at.file_uploader(key="traces_upload").set_value((f"{case}.csv", data, "text/csv")).run()
    assert_clean(at)
    assert any(case in e.value and needle in e.value for e in at.error), [e.value for e in at.error]
    assert at.button(key="traces_run").disabled


def test_a_pod_list_without_gpu_pods_says_why_it_cannot_run():
    if str(APP) not in sys.path:
        sys.path.insert(0, str(APP))
    at = AppTest.from_file(TRACES_PAGE, default_timeout=180)
    at.run()
    at.selectbox(key="traces_trace").set_value("upload").run()
    cpu_only = HEADER + b"c0,100,64,0,0\n"
    at.file_uploader(key="traces_upload").set_value(("cpu.csv", cpu_only, "text/csv")).run()
    at.button(key="traces_run").click().run()
    assert_clean(at)
    assert any("no GPU pod" in e.value for e in at.error), [e.value for e in at.error]


def _sweeps_on(folder: str) -> AppTest:
    at = open_page("views/sweeps.py", small=False)
    at.selectbox(key="sweep_folder").set_value("other…").run()
    at.text_input(key="sweep_path").input(folder).run()
    return at


def test_hostile_results_folders_are_inline_errors(tmp_path):
    binary = tmp_path / "binary"
    binary.mkdir()
    (binary / "results.csv").write_bytes(bytes(range(256)) * 4)
    for folder in ("x" * 300, str(binary), str(tmp_path / "a\x00b")):
        at = _sweeps_on(folder)
        assert_clean(at)
        assert at.error, folder[:40]


def test_a_results_table_cut_off_by_a_crash_shows_its_complete_rows(tmp_path):
    data = (SHIPPED_SWEEP_RESULTS_DIR / "policy-study" / "results.csv").read_bytes()
    (tmp_path / "results.csv").write_bytes(data[: len(data) - 40])  # the last row cut mid-way
    at = _sweeps_on(str(tmp_path))
    assert_clean(at)
    rows = data.count(b"\n") - 1
    captions = [c.value for c in at.caption]
    assert any(c.startswith(f"{rows - 1} runs · 0 failed") for c in captions), captions


def test_a_trace_file_that_vanishes_after_upload_is_an_inline_error(tmp_path):
    from gpusched.workload import scenario as scenario_module

    pods = tmp_path / "pods.csv"
    shutil.copy(TRACES_DIR / "openb_pod_list_default.csv", pods)
    text = yaml.safe_dump({"name": "vanishing",
                           "cluster": {"trace": {"nodes": "openb_node_list_gpu_node", "sample_nodes": 4}},
                           "workload": {"jobs": 20, "trace": {"pods": str(pods), "time_compression": 300}}})
    at = open_page(CLUSTER)
    at.file_uploader(key="upload_0").set_value(("vanishing.yaml", text.encode(), "application/x-yaml")).run()
    assert _current(at).name == "vanishing"
    pods.unlink()
    scenario_module._openb_pods.cache_clear()  # as on a fresh server process
    at.run()
    assert_clean(at)
    assert any("no such file" in e.value for e in at.error), [e.value for e in at.error]
    at.switch_page("views/replay.py").run()
    assert_clean(at)
