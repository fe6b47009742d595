"""Readers and validation of the openb trace files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpusched.workload.openb import (
    GPU_VRAM_GB,
    TraceError,
    read_openb_nodes,
    read_openb_pods,
    resolve_trace,
)

POD_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"


def _write(tmp_path: Path, text: str, name: str = "pods.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_bundled_default_trace_matches_documented_counts() -> None:
    nodes = read_openb_nodes("openb_node_list_gpu_node")
    pods = read_openb_pods("openb_pod_list_default", max_gpus_per_node=8)
    assert len(nodes) == 1213
    assert nodes.total_gpus == 6212
    assert len(pods) == 8152
    assert pods.total_gpu_milli == 6_086_800
    assert int((pods.num_gpu == 0).sum()) == 1088
    assert int(((pods.num_gpu == 1) & (pods.gpu_milli < 1000)).sum()) == 3078
    # CPU-only pods carry no GPU share; every model of the node list has a documented VRAM.
    assert (pods.gpu_milli[pods.num_gpu == 0] == 0).all()
    assert set(nodes.model) <= set(GPU_VRAM_GB)


def test_gpu_spec_is_split_on_bar() -> None:
    pods = read_openb_pods("openb_pod_list_gpuspec33")
    specs = {s for s in pods.gpu_spec if s}
    assert specs, "gpuspec33 has constrained pods"
    assert all(isinstance(s, tuple) and all("|" not in t for t in s) for s in specs)
    assert any(len(s) > 1 for s in specs)


def test_multigpu_file_without_time_columns_reads() -> None:
    pods = read_openb_pods("openb_pod_list_multigpu50")
    assert len(pods) == 9061
    assert all(s == () for s in pods.gpu_spec)


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        (
            "name,cpu_milli,memory_mib,gpu_milli\np0,1000,10,500\n",
            ["pods.csv", "missing column 'num_gpu'"],
        ),
        (
            POD_HEADER + "p0,1000,10,1,500,\np1,abc,10,1,500,\n",
            ["pods.csv", "line 3", "column 'cpu_milli'", "must be a number", "'abc'"],
        ),
        (
            POD_HEADER + "p0,1000,-5,1,500,\n",
            ["pods.csv", "line 2", "column 'memory_mib'", "must be >= 0", "-5"],
        ),
        (
            POD_HEADER + "p0,1000,10,1,500,\np1,1000,10,1,1500,\n",
            ["line 3", "column 'gpu_milli'", "between 1 and 1000", "1500"],
        ),
        (
            POD_HEADER + "p0,1000,10,1,0,\n",
            ["line 2", "column 'gpu_milli'", "between 1 and 1000"],
        ),
        (
            POD_HEADER + "p0,1000,10,2,500,\n",
            ["line 2", "column 'gpu_milli'", "whole GPUs"],
        ),
        (
            POD_HEADER + "p0,1000,10,1.5,500,\n",
            ["line 2", "column 'num_gpu'", "whole number"],
        ),
        (
            POD_HEADER + "p0,1000,10,16,1000,\n",
            ["line 2", "column 'num_gpu'", "16 GPUs", "no node holds more than 8"],
        ),
        (
            POD_HEADER + "p0,,10,1,500,\n",
            ["line 2", "column 'cpu_milli'", "an empty cell"],
        ),
    ],
)
def test_pod_validation_names_file_line_and_column(
    tmp_path: Path, body: str, fragments: list[str]
) -> None:
    path = _write(tmp_path, body)
    with pytest.raises(TraceError) as info:
        read_openb_pods(path, max_gpus_per_node=8)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def test_node_validation(tmp_path: Path) -> None:
    header = "sn,cpu_milli,memory_mib,gpu,model\n"
    path = _write(tmp_path, header + "n0,64000,1024,2,T4\nn1,64000,1024,x,T4\n", "nodes.csv")
    with pytest.raises(TraceError, match=r"nodes.csv', line 3, column 'gpu': must be a number"):
        read_openb_nodes(path)
    path = _write(tmp_path, header + "n0,64000,1024,2,\n", "nodes.csv")
    with pytest.raises(TraceError, match=r"line 2, column 'model': empty for a node with 2 GPUs"):
        read_openb_nodes(path)
    path = _write(tmp_path, "sn,cpu_milli,gpu,model\nn0,1,2,T4\n", "nodes.csv")
    with pytest.raises(TraceError, match="missing column 'memory_mib'"):
        read_openb_nodes(path)


def test_valid_small_files_read(tmp_path: Path) -> None:
    pods = read_openb_pods(
        _write(
            tmp_path, POD_HEADER + "p0,1000,10,1,500,A10|T4\np1,2000,0,0,0,\np2,4000,5,4,1000,\n"
        )
    )
    assert pods.gpu_spec == (("A10", "T4"), (), ())
    assert pods.num_gpu.tolist() == [1, 0, 4]
    assert pods.total_gpu_milli == 4500


def test_unknown_trace_lists_bundled_stems() -> None:
    with pytest.raises(TraceError, match="openb_pod_list_default"):
        resolve_trace("no_such_trace")
