"""The paper's policies behind the simulator's ``select(state, job)``: registry, projection, exactness."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.core.cluster import Cluster, ClusterState, NodeGroup
from gpusched.core.jobs import Job
from gpusched.experiment.runner import run_policy
from gpusched.fgd.fragmentation import FragmentationModel
from gpusched.fgd.nodes import NodeArrays, PodRequest
from gpusched.fgd.policies import PaperPolicy, job_share_milli, project
from gpusched.fgd.scoring import POLICY_NAMES as REGISTERED
from gpusched.fgd.scoring import BestFitPolicy, DotProductPolicy, FgdPolicy, GpuPackingPolicy, decide
from gpusched.fgd.typical_pods import typical_pods
from gpusched.policies import HOLD, get_policy, policy_names
from gpusched.workload.openb import GPU_VRAM_GB, read_openb_nodes, read_openb_pods
from gpusched.workload.presets import load_scenario


def trace_job(i: int, cpu: int, mem: float, gpus: int, milli: int, spec: tuple[str, ...] = ()) -> Job:
    share = milli / 1000
    return Job(i, "trace", 0.0, 1.0, gpus, 0.0, share, vram_frac=share, cpu_milli=cpu,
               memory_mib=mem, gpu_spec=spec or None)


def test_all_six_are_registered_and_build() -> None:
    assert set(REGISTERED) <= set(policy_names())
    for name in REGISTERED:
        assert get_policy(name, seed=3).name == name


def test_job_share_milli() -> None:
    assert job_share_milli(trace_job(0, 1000, 0, 1, 460), 32.0) == 460
    # A synthetic 16 GB job with 10 % compute is 200 milli of an 80 GB GPU and all of a 16 GB GPU.
    synthetic = Job(1, "batch", 0.0, 1.0, 1, 16.0, 0.1)
    assert job_share_milli(synthetic, 80.0) == 200
    assert job_share_milli(synthetic, 16.0) == 1000


def test_projection_in_milli() -> None:
    cluster = Cluster([NodeGroup("T4", 16.0, 2, cpu_milli=8000, memory_mib=1000)])
    state = ClusterState(cluster)
    state.place(trace_job(0, 3000, 100, 1, 250), (1,))
    nodes = project(state)
    assert nodes.rem[0].tolist() == [1000, 750]
    assert int(nodes.cpu_left[0]) == 5000 and float(nodes.mem_left[0]) == 900
    assert nodes.n_tags[0] == 1 and nodes.tag_counts[0, 0] == 1


def test_hold_when_nothing_fits() -> None:
    state = ClusterState(Cluster([NodeGroup("T4", 16.0, 1)]))
    state.place(trace_job(0, 0, 0, 1, 1000), (0,))
    assert PaperPolicy("fgd", "fgd").select(state, trace_job(1, 0, 0, 1, 500)) == HOLD


@pytest.mark.parametrize("kind", ["dot_product", "gpu_packing", "fgd_best_fit", "fgd"])
def test_select_matches_the_allocation_experiment_on_trace_jobs(kind: str) -> None:
    """On openb jobs the simulator adapter makes exactly the experiment's decisions."""
    nodes_csv = read_openb_nodes("openb_node_list_gpu_node")
    pods = read_openb_pods("openb_pod_list_default")
    rng = np.random.default_rng(5)
    picked = np.sort(rng.choice(len(nodes_csv), 40, replace=False))
    cluster = Cluster(
        [
            NodeGroup(nodes_csv.model[i], GPU_VRAM_GB[nodes_csv.model[i]], int(nodes_csv.gpus[i]),
                      cpu_milli=float(nodes_csv.cpu_milli[i]), memory_mib=float(nodes_csv.memory_mib[i]))
            for i in picked
        ]
    )
    state = ClusterState(cluster)
    typical = typical_pods(pods)
    policy = PaperPolicy(kind, kind, seed=9, typical=typical)
    rank = policy._ranks(cluster.n_nodes)
    order = np.argsort(rank)  # experiment position -> cluster node
    lean = NodeArrays(
        [int(nodes_csv.cpu_milli[picked[n]]) for n in order],
        [float(nodes_csv.memory_mib[picked[n]]) for n in order],
        [int(nodes_csv.gpus[picked[n]]) for n in order],
        [nodes_csv.model[picked[n]] for n in order],
    )
    scorer = {
        "dot_product": DotProductPolicy(),
        "gpu_packing": GpuPackingPolicy(),
        "fgd_best_fit": BestFitPolicy(),
        "fgd": FgdPolicy(FragmentationModel(typical)),
    }[kind]
    gpu_pods = np.flatnonzero(pods.num_gpu > 0)
    placed = 0
    for j, i in enumerate(rng.permutation(gpu_pods)[:300]):
        pod = PodRequest(int(pods.cpu_milli[i]), float(pods.memory_mib[i]), int(pods.num_gpu[i]),
                         int(pods.gpu_milli[i]), pods.gpu_spec[i])
        job = trace_job(j, pod.cpu_milli, pod.memory_mib, pod.num_gpu, pod.gpu_milli, pod.gpu_spec)
        expected = decide(scorer, lean, pod)
        action = policy.select(state, job)
        if expected is None:
            assert action == HOLD
            continue
        position, local = expected
        node = int(order[position])
        first = int(cluster.node_first_gpu[node])
        want = tuple(first + g for g in local)
        got = (action,) if isinstance(action, int) else tuple(action)
        assert got == want, (j, kind)
        lean.place(position, local, pod)
        state.place(job, got)
        placed += 1
    assert placed > 100


def test_paper_policies_run_on_a_synthetic_preset() -> None:
    scenario = load_scenario("phase1-4gpu")
    for name in REGISTERED:
        result = run_policy(scenario, name, seed=1)
        assert result.metrics["jobs_completed"] == result.metrics["jobs_submitted"] > 0
