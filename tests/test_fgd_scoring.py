"""FGD math on tiny hand-checkable clusters: typical pods, fragmentation, scores and GPUs."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.fgd.fragmentation import FragmentationModel, node_fragmentation
from gpusched.fgd.nodes import NodeArrays, PodRequest
from gpusched.fgd.scoring import (
    BestFitPolicy,
    DotProductPolicy,
    FgdPolicy,
    GpuClusteringPolicy,
    GpuPackingPolicy,
    RandomPolicy,
    decide,
)
from gpusched.fgd.typical_pods import typical_pods, typical_pods_from_shapes
from gpusched.workload.openb import read_openb_nodes, read_openb_pods

BIG_MEM = 1e9


def share(milli: int, cpu: int = 1000) -> PodRequest:
    return PodRequest(cpu, 10.0, 1, milli)


def whole(gpus: int, cpu: int = 1000) -> PodRequest:
    return PodRequest(cpu, 10.0, gpus, 1000)


def cluster(specs: list[tuple[int, int, str]]) -> NodeArrays:
    """Nodes from (cpu_milli, gpus, model); positions follow the list (position 0 wins ties)."""
    return NodeArrays(
        [c for c, _, _ in specs],
        [BIG_MEM] * len(specs),
        [g for _, g, _ in specs],
        [m for *_, m in specs],
    )


def all_nodes(nodes: NodeArrays) -> np.ndarray:
    return np.arange(nodes.n)


# --- typical pods and fragmentation -------------------------------------------------------------


def test_default_trace_has_35_typical_pods() -> None:
    typical = typical_pods(read_openb_pods("openb_pod_list_default"))
    assert len(typical) == 35
    assert typical.coverage == pytest.approx(0.9526, abs=1e-4)
    assert sum(typical.prob) == pytest.approx(1.0)
    assert list(typical.prob) == sorted(typical.prob, reverse=True)


def test_typical_pods_order_ties_by_shape_descending_and_stop_at_threshold() -> None:
    shapes = [(1000, 500, 1, ())] * 5 + [(2000, 1000, 1, ())] * 3 + [(4000, 1000, 1, ())] * 3
    shapes += [(1000, 0, 0, ())]
    typical = typical_pods_from_shapes(shapes, threshold_pct=80)
    # 5 + 3 + 3 = 11 of 12 pods reach 80 %; the tie (3, 3) goes to the larger CPU first.
    assert typical.cpu_milli == (1000, 4000, 2000)
    assert typical.prob == pytest.approx((5 / 11, 3 / 11, 3 / 11))


def test_empty_cluster_fragmentation_default_trace() -> None:
    nodes = read_openb_nodes("openb_node_list_gpu_node")
    frag = FragmentationModel(typical_pods(read_openb_pods("openb_pod_list_default")))
    total = sum(
        frag.value(
            nodes.model[i], (1000,) * int(nodes.gpus[i]), frag.bucket(int(nodes.cpu_milli[i]))
        )
        for i in range(len(nodes))
    )
    assert 100 * total / 1000 / nodes.total_gpus == pytest.approx(13.94, abs=0.05)


@pytest.fixture
def two_shapes() -> FragmentationModel:
    """Typical pods: a 500-milli sharing pod (p 0.75) and a whole 1-GPU pod (p 0.25), 1000 mCPU."""
    shapes = [(1000, 500, 1, ())] * 3 + [(1000, 1000, 1, ())]
    return FragmentationModel(typical_pods_from_shapes(shapes))


@pytest.mark.parametrize(
    ("rem", "cpu", "expected"),
    [
        ((1000, 1000), 64000, 0.0),  # both shapes fit; no GPU is too small
        ((500, 1000), 64000, 125.0),  # the 500-milli GPU is too small for the whole pod: 0.25 * 500
        ((200, 1000), 64000, 200.0),  # 200 too small for both: 0.75 * 200 + 0.25 * 200
        ((300, 300), 64000, 600.0),  # neither shape fits: all 600 idle milli count
        ((1000, 1000), 500, 2000.0),  # CPU short for both: all idle counts
        ((0, 1000), 64000, 0.0),
    ],
)
def test_node_fragmentation_by_hand(
    two_shapes: FragmentationModel, rem: tuple[int, int], cpu: int, expected: float
) -> None:
    assert node_fragmentation("T4", cpu, rem, two_shapes.typical) == pytest.approx(expected)
    bucket = two_shapes.bucket(cpu)
    assert two_shapes.value("T4", tuple(sorted(rem)), bucket) == pytest.approx(expected)


def test_fragmentation_counts_model_mismatch_and_cpu_only_pods_as_idle() -> None:
    shapes = [(1000, 500, 1, ("A10",))] * 2 + [(1000, 0, 0, ())] * 2
    typical = typical_pods_from_shapes(shapes)
    # A T4 node cannot take the A10-only pod, and CPU-only pods make all idle GPU a fragment.
    assert node_fragmentation("T4", 64000, (1000, 400), typical) == pytest.approx(1400.0)
    # On an A10 node the sharing pod fits; only the CPU-only half counts all idle milli.
    assert node_fragmentation("A10", 64000, (1000, 400), typical) == pytest.approx(
        0.5 * 400 + 0.5 * 1400
    )


# --- policies -----------------------------------------------------------------------------------


def test_dot_product_scores_and_gpu() -> None:
    nodes = cluster([(128000, 8, "G2"), (64000, 2, "T4")])
    nodes.place(1, (), PodRequest(0, 0.0, 0, 0))
    pod = share(500, cpu=16000)
    scores = DotProductPolicy().scores(nodes, pod, all_nodes(nodes))
    # A: (1 * 0.125 + 1 * 0.0625) / 2 = 0.09375 -> 90; B: (0.5 * 0.125 + 0.25 * 0.0625) / 2 -> 96.
    assert scores.tolist() == [90, 96]
    assert decide(DotProductPolicy(), nodes, pod) == (1, (0,))


def _clustering_nodes() -> NodeArrays:
    nodes = cluster([(96000, 8, "G2"), (64000, 2, "T4"), (64000, 4, "V100M16"), (64000, 2, "P100")])
    nodes.place(1, (0,), share(500))  # B: one sharing pod, rem [500, 1000]
    nodes.place(2, (1,), share(300))  # C: a sharing pod and a 1-GPU pod, rem [0, 700, 1000, 1000]
    nodes.place(2, (0,), whole(1))
    nodes.place(3, (0,), whole(1))  # D: one 1-GPU pod, rem [0, 1000]
    return nodes


def test_gpu_clustering_scores_and_gpu() -> None:
    nodes = _clustering_nodes()
    pod = share(300)
    scores = GpuClusteringPolicy().scores(nodes, pod, all_nodes(nodes))
    # base = 25 * (8000 - gpuL) // 8000: A 0 (+25 empty), B 20 (+75 same tag only),
    # C 16 (+50 tag among others), D 21 (+0 other tags only).
    assert scores.tolist() == [25, 95, 66, 21]
    assert decide(GpuClusteringPolicy(), nodes, pod) == (1, (0,))
    assert GpuClusteringPolicy().scores(
        nodes, PodRequest(1000, 1.0, 0, 0), all_nodes(nodes)
    ).tolist() == [0, 0, 0, 0]


def test_gpu_packing_scores_and_gpu() -> None:
    nodes = _clustering_nodes()
    scores = GpuPackingPolicy().scores(nodes, share(300), all_nodes(nodes))
    # A all free (k=8): max(33-8, 8) = 25; B shares rem 500: 100 - 5 = 95; C shares rem 700: 93;
    # D needs its fully free GPU: max(50-1, 33) = 49.
    assert scores.tolist() == [25, 95, 93, 49]
    assert decide(GpuPackingPolicy(), nodes, share(300)) == (1, (0,))
    # A whole 2-GPU pod fits A (all free: 25) and C (two free GPUs: max(50-2, 33) = 48).
    pod = whole(2)
    feasible = np.flatnonzero(nodes.fit_mask(pod))
    assert feasible.tolist() == [0, 2]
    assert GpuPackingPolicy().scores(nodes, pod, feasible).tolist() == [25, 48]
    assert decide(GpuPackingPolicy(), nodes, pod) == (2, (2, 3))


def test_best_fit_scores_normalised_and_gpu() -> None:
    nodes = cluster([(96000, 8, "G2"), (64000, 2, "T4"), (32000, 4, "V100M16")])
    nodes.place(1, (1,), share(500))
    pod = PodRequest(8000, 10.0, 1, 1000)
    # raw = int((1 - s) * 100): A s = 0.5*88000/128000 + 0.5*7000/8000 = 0.78125 -> 21;
    # B (63000 mCPU, 1500 milli-GPU left) s = 0.5*55000/128000 + 0.5*500/8000 = 0.2461 -> 75;
    # C s = 0.5*24000/128000 + 0.5*3000/8000 = 0.28125 -> 71. Normalised: (raw - 21) * 100 // 54.
    scores = BestFitPolicy().scores(nodes, pod, all_nodes(nodes))
    assert scores.tolist() == [0, 100, (71 - 21) * 100 // (75 - 21)]
    assert decide(BestFitPolicy(), nodes, pod) == (1, (0,))
    # The tightest GPU for a sharing pod: B has rem [1000, 500] -> GPU 1.
    assert decide(BestFitPolicy(), nodes, share(400))[1] == (1,)


def test_best_fit_single_score_level_gives_zeros() -> None:
    nodes = cluster([(64000, 2, "T4"), (64000, 2, "T4")])
    assert BestFitPolicy().scores(nodes, share(500), all_nodes(nodes)).tolist() == [0, 0]
    assert decide(BestFitPolicy(), nodes, share(500)) == (0, (0,))  # tie -> lowest position


def test_fgd_scores_and_gpu(two_shapes: FragmentationModel) -> None:
    nodes = cluster([(64000, 2, "T4"), (64000, 2, "T4"), (64000, 2, "T4")])
    nodes.place(1, (1,), share(500))  # Y: rem [1000, 500], F = 125
    nodes.place(2, (0,), PodRequest(1000, 1.0, 1, 800))  # Z: rem [200, 1000], F = 200
    policy = FgdPolicy(two_shapes)
    pod = share(500)
    # X: [1000,1000] -> [500,1000]: F 0 -> 125, sigmoid(-0.125) -> 46.
    # Y: GPU 1 (500 -> 0): F 125 -> 0 -> 53; GPU 0 (1000 -> 500): F 125 -> 250 -> 46.
    # Z: GPU 1 -> [200, 500]: F 200 -> 325 -> 46.
    assert policy.scores(nodes, pod, all_nodes(nodes)).tolist() == [46, 53, 46]
    assert decide(policy, nodes, pod) == (1, (1,))


def test_fgd_ties_go_to_lowest_position_and_whole_pods_take_lowest_free_gpus(
    two_shapes: FragmentationModel,
) -> None:
    nodes = cluster([(64000, 4, "T4"), (64000, 4, "T4")])
    nodes.place(1, (0,), whole(1))
    policy = FgdPolicy(two_shapes)
    pod = whole(1)
    # Taking a whole free GPU leaves no GPU too small: F stays 0 on both nodes -> 50 each, tie.
    assert policy.scores(nodes, pod, all_nodes(nodes)).tolist() == [50, 50]
    assert decide(policy, nodes, pod) == (0, (0,))
    assert policy.gpus(nodes, 1, whole(2)) == (1, 2)


def test_fgd_gpu_type_constraint_filters_nodes(two_shapes: FragmentationModel) -> None:
    nodes = cluster([(64000, 2, "T4"), (64000, 2, "A10")])
    pod = PodRequest(1000, 1.0, 1, 500, ("A10",))
    assert decide(FgdPolicy(two_shapes), nodes, pod) == (1, (0,))
    assert nodes.fit_mask(PodRequest(1000, 1.0, 1, 500, ("V100M32",))).tolist() == [False, False]


def test_random_picks_only_feasible_nodes_and_fitting_gpus_reproducibly() -> None:
    nodes = cluster([(64000, 2, "T4"), (500, 2, "T4"), (64000, 4, "T4"), (64000, 2, "T4")])
    nodes.place(2, (0,), share(900))  # rem [100, 1000, 1000, 1000]

    def picks(seed: int) -> list[tuple[int, tuple[int, ...]]]:
        policy = RandomPolicy(np.random.default_rng(seed))
        return [decide(policy, nodes, share(500)) for _ in range(200)]

    first = picks(7)
    assert first == picks(7)
    assert first != picks(8)
    chosen = {n for n, _ in first}
    assert chosen == {0, 2, 3}  # node 1 lacks CPU
    assert all(g[0] != 0 for n, g in first if n == 2)  # GPU 0 of node 2 has only 100 milli
    assert {g[0] for n, g in first if n == 2} == {1, 2, 3}


def test_cpu_and_memory_are_hard_limits() -> None:
    nodes = NodeArrays([4000, 64000], [100.0, 50.0], [2, 2], ["T4", "T4"])
    assert nodes.fit_mask(PodRequest(8000, 10.0, 1, 500)).tolist() == [False, True]
    assert nodes.fit_mask(PodRequest(1000, 80.0, 1, 500)).tolist() == [True, False]
    assert nodes.fit_mask(PodRequest(1000, 10.0, 0, 0)).tolist() == [True, True]
    assert decide(DotProductPolicy(), nodes, PodRequest(8000, 80.0, 0, 0)) is None
