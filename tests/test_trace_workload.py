"""Trace-driven workloads: openb nodes and pods as a simulator cluster and jobs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpusched.core.simulator import Simulator
from gpusched.policies import get_policy
from gpusched.workload.openb import TraceError, read_openb_nodes, read_openb_pods
from gpusched.workload.trace_jobs import openb_cluster, openb_jobs, openb_workload


@pytest.fixture(scope="module")
def nodes():
    return read_openb_nodes("openb_node_list_gpu_node")


@pytest.fixture(scope="module")
def pods():
    return read_openb_pods("openb_pod_list_default")


def test_cluster_sample_is_seeded(nodes) -> None:
    a, b, c = openb_cluster(nodes, 50, seed=1), openb_cluster(nodes, 50, seed=1), openb_cluster(nodes, 50, 2)
    assert a.n_nodes == 50 and a.node_name == b.node_name != c.node_name
    first = nodes.name.index(a.node_name[0])
    assert a.node_model[0] == nodes.model[first]
    assert a.node_cpu_milli[0] == nodes.cpu_milli[first]
    assert openb_cluster(nodes).n_gpus == 6212
    with pytest.raises(TraceError, match="cannot sample 5000 nodes"):
        openb_cluster(nodes, 5000)


def test_jobs_follow_trace_times_and_shares(pods) -> None:
    jobs, cpu_only = openb_jobs(pods, time_compression=60.0)
    assert cpu_only == 1088 and len(jobs) == len(pods) - 1088
    arrivals = np.array([j.arrival_min for j in jobs])
    assert arrivals[0] == 0.0 and (np.diff(arrivals) >= 0).all()
    assert [j.id for j in jobs[:5]] == [0, 1, 2, 3, 4]
    # Pod 0001: 460 milli, created at 427061 s, scheduled at once, deleted at 12902960 s.
    row = pods.name.index("openb-pod-0001")
    job = next(j for j in jobs if j.compute == 0.46 and abs(j.arrival_min - 427061 / 3600) < 1e-3)
    assert job.vram_frac == job.compute == pods.gpu_milli[row] / 1000
    assert job.duration_min == pytest.approx((12902960 - 427061) / 3600, rel=1e-6)
    slow, _ = openb_jobs(pods, time_compression=1.0, max_jobs=100)
    assert len(slow) == 100
    assert slow[-1].arrival_min == pytest.approx(jobs[99].arrival_min * 60)


def test_pod_list_without_times_is_refused() -> None:
    with pytest.raises(TraceError, match="needs creation_time and deletion_time"):
        openb_jobs(read_openb_pods("openb_pod_list_multigpu50"))


def test_unhostable_and_cpu_only_pods_are_counted(tmp_path: Path) -> None:
    node_csv = tmp_path / "nodes.csv"
    node_csv.write_text("sn,cpu_milli,memory_mib,gpu,model\nn0,32000,65536,2,T4\nn1,32000,65536,2,T4\n")
    pod_csv = tmp_path / "pods.csv"
    header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
    pod_csv.write_text(
        header + "scheduled_time\n"
        "p0,4000,1024,1,500,,LS,Running,0,600,0\n"
        "p1,4000,1024,8,1000,,LS,Running,60,600,60\n"
        "p2,4000,1024,0,0,,LS,Running,120,600,120\n"
        "p3,4000,1024,1,1000,V100M32,LS,Running,180,600,\n"
        "p4,4000,1024,2,1000,,LS,Running,240,900,300\n"
    )
    work = openb_workload(read_openb_nodes(node_csv), read_openb_pods(pod_csv))
    assert work.cpu_only_pods == 1
    assert work.unhostable_pods == 2  # 8 GPUs, and a V100M32-only pod on T4 nodes
    assert [j.id for j in work.jobs] == [0, 1]
    assert work.jobs[1].arrival_min == 4.0 and work.jobs[1].duration_min == 10.0
    result = Simulator(work.cluster, work.jobs).run(get_policy("fgd", seed=0))
    assert result.metrics["jobs_completed"] == 2


def test_trace_workload_runs_in_the_simulator(nodes, pods) -> None:
    work = openb_workload(nodes, pods, n_nodes=20, seed=3, time_compression=600.0, max_jobs=300)
    assert work.unhostable_pods + len(work.jobs) == 300
    for name in ("best_fit", "fgd", "gpu_packing"):
        result = Simulator(work.cluster, work.jobs).run(get_policy(name, seed=3))
        assert result.metrics["jobs_completed"] == len(work.jobs)
