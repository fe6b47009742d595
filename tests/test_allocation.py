"""The allocation experiment: tuning, columns, a full run against the published means, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpusched.cli import main as gpusched_main
from gpusched.cli.args import parse_seeds
from gpusched.fgd.allocation import discrete_columns, run_allocation, tuned_order
from gpusched.fgd.published import published_means, published_runs
from gpusched.fgd.typical_pods import typical_pods
from gpusched.workload.openb import read_openb_nodes, read_openb_pods

NODES = "openb_node_list_gpu_node"
DEFAULT = "openb_pod_list_default"


def main(args: list[str]) -> int:
    """``gpusched allocation ARGS``."""
    return gpusched_main(["allocation", *args])


@pytest.fixture(scope="module")
def nodes():
    return read_openb_nodes(NODES)


@pytest.fixture(scope="module")
def pods():
    return read_openb_pods(DEFAULT)


def test_tuning_up_reaches_target_with_original_pods_first(nodes, pods) -> None:
    order = tuned_order(pods, nodes.total_gpus, 1.3, np.random.default_rng(42))
    request = pods.num_gpu * pods.gpu_milli
    total = int(request[order].sum())
    target = 1.3 * nodes.total_gpus * 1000
    assert sorted(order[: len(pods)]) == list(range(len(pods)))  # a permutation of the trace first
    assert len(order) > len(pods)
    assert target - 1000 < total <= target + 7000  # a multi-GPU copy may overshoot by < 8 GPUs
    assert order != tuned_order(pods, nodes.total_gpus, 1.3, np.random.default_rng(43))
    assert order == tuned_order(pods, nodes.total_gpus, 1.3, np.random.default_rng(42))


def test_tuning_down_drops_pods_until_within_target(nodes) -> None:
    pods = read_openb_pods("openb_pod_list_multigpu50")
    order = tuned_order(pods, nodes.total_gpus, 1.3, np.random.default_rng(42))
    request = pods.num_gpu * pods.gpu_milli
    assert len(set(order)) == len(order) < len(pods)
    assert (
        1.3 * nodes.total_gpus * 1000 - 8000
        < int(request[order].sum())
        <= 1.3 * nodes.total_gpus * 1000
    )


def test_discrete_columns_average_by_rounded_arrival_and_fill_gaps() -> None:
    total_gpus = 10  # 1 % of capacity = 100 milli
    arrived = np.array(
        [0, 40, 60, 140, 160, 350]
    )  # rounds to 0, 0, 1, 1, 2, 4 (3.5 -> 4 half-even)
    values = np.array([1.0, 2.0, 3.0, 5.0, 7.0, 9.0])
    cols = discrete_columns(arrived, values, total_gpus)
    assert len(cols) == 131
    assert cols[:3] == [1.5, 4.0, 7.0]
    assert cols[3] == 8.0  # no sample at 3 %: mean of 2 % and 4 %
    assert cols[4] == 9.0
    assert cols[6] is None


def test_full_run_default_trace_matches_published_mean(nodes, pods) -> None:
    typical = typical_pods(pods)
    published = published_means(DEFAULT)
    for policy in ("fgd_best_fit", "fgd"):
        run = run_allocation(nodes, pods, policy, 42, typical=typical)
        for col in (100, 130):
            assert run.alloc_pct[col] == pytest.approx(published[policy][col], abs=1.0), (
                policy,
                col,
            )
        assert len(run.alloc_pct) == len(run.frag_pct) == 131
        assert all(v is not None for v in run.alloc_pct)
        # The cluster starts with ~13.9 % fragmentation and allocation grows with arrivals.
        assert run.frag_pct[0] == pytest.approx(13.94, abs=0.3)
        assert run.alloc_pct[50] < run.alloc_pct[100] <= run.alloc_pct[130]
        assert run.failed_pods > 0 and run.unhostable_pods == 0
        assert run.scheduled_pods + run.failed_pods > len(pods)
        # The final GPU state accounts for every allocated milli-GPU.
        free = np.where(run.final_rem >= 0, run.final_rem, 0).sum()
        assert run.final_rem.shape == (len(nodes), 8)
        assert 100 * (nodes.total_gpus * 1000 - free) / (nodes.total_gpus * 1000) == pytest.approx(
            run.alloc_pct[130], abs=0.5
        )


def test_fgd_beats_best_fit_and_random_on_same_seed(nodes, pods) -> None:
    typical = typical_pods(pods)
    alloc = {
        p: run_allocation(nodes, pods, p, 44, typical=typical).alloc_pct[130]
        for p in ("fgd_random", "fgd")
    }
    assert alloc["fgd"] > alloc["fgd_random"] + 5


def test_published_runs_have_ten_seeds_per_policy() -> None:
    runs = published_runs(DEFAULT)
    assert runs.shape == (60, 131)
    assert sorted(set(runs.index.get_level_values("seed"))) == list(range(42, 52))


def test_cli_writes_json_and_compares(tmp_path: Path, capsys) -> None:
    out = tmp_path / "alloc.json"
    code = main(
        [
            "--nodes",
            NODES,
            "--pods",
            DEFAULT,
            "--policies",
            "gpu_packing",
            "--seeds",
            "42",
            "--json",
            str(out),
            "--compare-published",
        ]
    )
    assert code == 0
    doc = json.loads(out.read_text())
    assert [r["policy"] for r in doc["runs"]] == ["gpu_packing"]
    run = doc["runs"][0]
    assert len(run["alloc_pct"]) == len(run["frag_pct"]) == 131
    assert {"failed_pods", "seconds", "seed"} <= set(run)
    assert set(doc["summary"]["gpu_packing"]) >= {"alloc_at_100", "alloc_at_130"}
    printed = capsys.readouterr().out
    assert "pub@100" in printed and "91.78" in printed


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--nodes", "nope.csv", "--pods", DEFAULT], "trace 'nope.csv'"),
        (["--nodes", NODES, "--pods", DEFAULT, "--policies", "tetris"], "unknown policy 'tetris'"),
        (["--nodes", NODES, "--pods", DEFAULT, "--seeds", "a,b"], "--seeds"),
        (["--nodes", NODES, "--pods", DEFAULT, "--tune", "-1"], "--tune"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(args: list[str], fragment: str, capsys) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert err.count("\n") == 1


def test_cli_bad_trace_file_exits_2(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "pods.csv"
    bad.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,10,1,2000\n")
    assert main(["--nodes", NODES, "--pods", str(bad)]) == 2
    assert "line 2, column 'gpu_milli'" in capsys.readouterr().err


def test_parse_seeds_ranges() -> None:
    assert parse_seeds("42-45,50") == [42, 43, 44, 45, 50]


def test_gpusched_cli_has_allocation_command(capsys) -> None:
    code = gpusched_main(
        ["allocation", "--nodes", NODES, "--pods", "openb_pod_list_gpuspec33", "--policies", "fgd_random"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "127 typical pods" in out
    assert "unhostable 1" in out  # a pod whose GPU-type constraint no node meets is reported
    assert gpusched_main(["allocation", "--nodes", "missing.csv", "--pods", DEFAULT]) == 2


def test_progress_is_reported_to_the_end(nodes) -> None:
    pods = read_openb_pods("openb_pod_list_gpushare100")
    calls: list[tuple[int, int]] = []
    run = run_allocation(
        nodes, pods, "gpu_packing", 1, progress=lambda done, total: calls.append((done, total))
    )
    total = calls[-1][1]
    assert calls[0] == (0, total) and calls[-1] == (total, total)
    assert 100 <= len(calls) <= 102
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert run.scheduled_pods + run.failed_pods == total


SMALL_NODES = ("sn,cpu_milli,memory_mib,gpu,model\n"
               + "".join(f"n{i},64000,262144,8,V100M32\n" for i in range(4)))


@pytest.mark.parametrize("pods_per_gpu", [8, 4])
def test_a_small_trace_reports_columns_it_never_sampled_as_missing(tmp_path: Path, capsys,
                                                                    pods_per_gpu: int) -> None:
    """4 nodes of 8 GPUs, 10 pods of 8 (or 4) whole GPUs: one pod moves the arrived load by 25 %
    (or 12.5 %) of capacity, so some runs have no sample within a point of 130 %."""
    nodes, pods, out = tmp_path / "n.csv", tmp_path / "p.csv", tmp_path / "a.json"
    nodes.write_text(SMALL_NODES)
    pods.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                    + "".join(f"p{i},1000,1024,{pods_per_gpu},1000\n" for i in range(10)))
    code = main(["--nodes", str(nodes), "--pods", str(pods), "--policies", "fgd,fgd_best_fit",
                 "--seeds", "1-3", "--json", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(out.read_text())
    missing = {c: [r["alloc_pct"][c] is None for r in doc["runs"]] for c in (100, 130)}
    assert any(missing[130])
    for policy, summary in doc["summary"].items():
        mine = [r for r in doc["runs"] if r["policy"] == policy]
        for c in (100, 130):
            present = [r["alloc_pct"][c] for r in mine if r["alloc_pct"][c] is not None]
            expected = round(float(np.mean(present)), 2) if present else None
            assert summary[f"alloc_at_{c}"] == expected
    assert "—" in captured.out
    notes = captured.err.strip().splitlines()
    assert len(notes) == 1 and notes[0].startswith("note: no sample at @")


def test_a_pod_list_without_gpu_pods_is_refused_not_looped_forever(tmp_path: Path) -> None:
    pods = tmp_path / "cpu.csv"
    pods.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\nc0,100,64,0,0\nc1,200,64,0,0\n")
    nodes = tmp_path / "n.csv"
    nodes.write_text(SMALL_NODES)
    from gpusched.errors import GpuschedError

    with pytest.raises(GpuschedError, match="no GPU pod"):
        run_allocation(read_openb_nodes(nodes), read_openb_pods(pods), "fgd", 1)
