"""Tables and helpers behind the Real traces page: long-form curves, ours against published, the
GPU state per model, trace loading (bundled and uploaded) and the run grid's progress."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from test_figures_traces import REM, tiny_nodes, tiny_run

from gpusched.fgd.allocation import N_COLUMNS
from gpusched.fgd.experiment import (
    BUNDLED_POD_LISTS,
    estimated_seconds,
    load_trace,
    run_grid,
    run_grid_polled,
    upload_key,
)
from gpusched.fgd.published import published_means
from gpusched.fgd.report import comparison_table, curves_frame, gpu_state_table, published_curves
from gpusched.workload.openb import TraceError

DEFAULT = "openb_pod_list_default"


def test_curves_are_long_form_with_one_row_per_column():
    runs = [tiny_run(REM, "fgd_best_fit", 42), tiny_run(REM, "fgd", 43)]
    curves = curves_frame(runs, DEFAULT)
    assert len(curves) == 2 * N_COLUMNS
    assert set(curves["pods"]) == {DEFAULT}
    fgd = curves[curves["policy"] == "fgd"]
    assert fgd["seed"].unique().tolist() == [43]
    assert fgd["arrived_pct"].tolist() == list(range(N_COLUMNS))


def test_missing_columns_become_nan():
    alloc = [None] + [50.0] * (N_COLUMNS - 1)
    curves = curves_frame([tiny_run(REM, alloc=alloc)], DEFAULT)
    assert np.isnan(curves["alloc_pct"].iloc[0]) and curves["alloc_pct"].iloc[1] == 50.0


def test_published_curves_keep_only_the_chosen_policies():
    alloc = published_curves(DEFAULT, ["fgd"])
    assert set(alloc["policy"]) == {"fgd"} and sorted(alloc["seed"].unique()) == list(range(42, 52))
    assert alloc["arrived_pct"].max() == 130
    frag = published_curves(DEFAULT, ["fgd"], metric="frag")
    # FGD's fragmentation of the empty default cluster is about 13.9 % of capacity.
    assert frag[frag["arrived_pct"] == 0]["frag_pct"].mean() == pytest.approx(13.9, abs=0.1)
    assert published_curves("upload:x.csv:abc", ["fgd"]).empty


def test_comparison_puts_our_mean_beside_the_published_one():
    runs = [tiny_run(REM, "fgd_best_fit", 42), tiny_run(REM, "fgd_best_fit", 43,
                                                    alloc=[92.0] * N_COLUMNS)]
    table = comparison_table(runs, DEFAULT)
    row = table.iloc[0]
    pub = published_means(DEFAULT)["fgd_best_fit"]
    assert row["policy"] == "fgd_best_fit" and row["seeds"] == 2
    assert row["ours @100 (%)"] == 91.0  # mean of 90 and 92
    assert row["published @130 (%)"] == pytest.approx(pub[130], abs=0.005)
    assert row["Δ @100 (points)"] == pytest.approx(91.0 - pub[100], abs=0.01)
    assert row["failed pods"] == 3 and row["s/run"] == 0.5


def test_comparison_without_published_results_leaves_them_blank():
    table = comparison_table([tiny_run(REM)], None)
    assert table["published @100 (%)"].isna().all() and table["Δ @130 (points)"].isna().all()
    assert table["ours @130 (%)"].iloc[0] == 90.0


def test_gpu_state_counts_full_partly_allocated_and_idle_gpus():
    table = gpu_state_table(REM, tiny_nodes()).set_index("model")
    a = table.loc["A"]
    assert (a["nodes"], a["GPUs"], a["fully allocated"], a["partly allocated"], a["idle"]) == (3, 5, 1, 2, 2)
    # 500 + 1 free milli-GPU stranded on partly allocated GPUs, of 5 GPUs' 5,000.
    assert a["free on partly allocated (% of capacity)"] == pytest.approx(10.02)
    assert table.loc["B", "idle"] == 1
    assert table.index.tolist() == ["A", "B"]


def test_bundled_trace_loads_with_its_typical_pods():
    trace = load_trace(DEFAULT)
    assert trace.published_workload == DEFAULT
    assert len(trace.pods) == 8152 and trace.nodes.total_gpus == 6212
    assert len(trace.typical.prob) == 35


def test_unknown_bundled_trace_is_a_trace_error():
    with pytest.raises(TraceError, match="not a bundled pod list"):
        load_trace("openb_pod_list_nope")


def test_uploaded_pod_list_errors_name_the_uploaded_file():
    data = b"name,cpu_milli,memory_mib,num_gpu,gpu_milli\npod-1,1000,1024,1,1500\n"
    key = upload_key("my pods.csv", data)
    with pytest.raises(TraceError) as err:
        load_trace(key, data)
    message = str(err.value)
    assert "'my pods.csv', line 2, column 'gpu_milli'" in message
    assert "/" not in message.split("'")[1]


def test_uploaded_pod_list_runs_without_published_results():
    data = b"name,cpu_milli,memory_mib,num_gpu,gpu_milli\npod-1,1000,1024,1,500\npod-2,0,0,2,1000\n"
    trace = load_trace(upload_key("small.csv", data), data)
    assert trace.label == "small.csv" and trace.published_workload is None and len(trace.pods) == 2
    assert upload_key("small.csv", data) != upload_key("small.csv", data + b"\n")


def test_a_lost_upload_asks_to_upload_again():
    with pytest.raises(TraceError, match="upload it again"):
        load_trace(upload_key("a.csv", b"x"), None)


def _fake_run_one(policy: str, seed: int, step):
    for done in (0, 50, 100):
        step(done, 100)
    return tiny_run(REM, policy, seed)


def test_grid_runs_policy_major_with_monotone_progress():
    seen: list[float] = []
    runs = run_grid(["fgd_best_fit", "fgd"], [42, 43], _fake_run_one, lambda f, _: seen.append(f))
    assert [(r.policy, r.seed) for r in runs] == [
        ("fgd_best_fit", 42), ("fgd_best_fit", 43), ("fgd", 42), ("fgd", 43)]
    assert seen == sorted(seen) and seen[-1] == 1.0 and 0.0 <= seen[0] < 0.25


def test_polled_grid_reports_on_the_calling_thread_and_reraises_errors():
    threads: set[str] = set()

    def slow_run_one(policy, seed, step):
        time.sleep(0.05)
        return _fake_run_one(policy, seed, step)

    runs = run_grid_polled(["fgd"], [42], slow_run_one,
                           lambda *_: threads.add(threading.current_thread().name), poll_s=0.005)
    assert [r.policy for r in runs] == ["fgd"]
    assert threads == {threading.current_thread().name}

    def broken(policy, seed, step):
        raise TraceError("bad trace")

    with pytest.raises(TraceError, match="bad trace"):
        run_grid_polled(["fgd"], [42], broken, lambda *_: None, poll_s=0.001)


def test_estimate_counts_fgd_as_the_slow_one():
    assert estimated_seconds(["fgd"], 2) > estimated_seconds(["fgd_best_fit"], 2) > 0
    assert set(BUNDLED_POD_LISTS) >= {DEFAULT, "openb_pod_list_multigpu50"}
