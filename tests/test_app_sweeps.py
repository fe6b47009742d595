"""Sweeps page: loads a results folder, plots a metric against a parameter, reports bad folders."""

from __future__ import annotations

import json

import pandas as pd
from apptest_support import assert_clean, open_page, plotly_specs

from gpusched.policies import policy_label


def _folder(at, name: str) -> str:
    return next(f for f in at.selectbox(key="sweep_folder").options if f.endswith(name))


def test_shipped_policy_study_plots_every_policy():
    at = open_page("views/sweeps.py", small=False)
    assert_clean(at)
    at.selectbox(key="sweep_folder").set_value(_folder(at, "policy-study")).run()
    assert at.selectbox(key="sweep_metric_policy-study").value == "avg_wait_min"
    assert at.selectbox(key="sweep_param_policy-study").value == "workload.arrival_rate_per_hour"
    assert_clean(at)
    text = json.dumps(plotly_specs(at)[0], ensure_ascii=False)
    for policy in ("first_fit", "least_loaded", "best_fit"):
        assert policy_label(policy) in text
    # Changing the scenario filter changes the plotted numbers.
    before = plotly_specs(at)[0]["data"][0]["y"]
    at.multiselect(key="sweep_keep_policy-study_scenario").set_value(["homogeneous-8gpu"]).run()
    after = plotly_specs(at)[0]["data"][0]["y"]
    assert before != after


def test_sweeps_open_on_the_stall_map_where_the_policies_differ_most():
    """Not on homogeneous-8gpu, where every line overlaps: on the cluster whose policies' mean
    waits are furthest apart, measured here from the results themselves."""
    from gpusched.dashboard.sweeps import policy_spread
    from gpusched.sweep.analysis import load_sweep_results

    at = open_page("views/sweeps.py", small=False)
    assert_clean(at)
    folder = at.selectbox(key="sweep_folder").value
    assert folder.endswith("stall-conditions")
    chosen = at.multiselect(key="sweep_keep_stall-conditions_scenario").value
    table = load_sweep_results(folder)
    spreads = {s: policy_spread(table[table["scenario"] == s], "avg_wait_min")
               for s in table["scenario"].unique()}
    assert chosen == [max(spreads, key=spreads.get)] and chosen != ["homogeneous-8gpu"]
    assert spreads[chosen[0]] > 2 * spreads["homogeneous-8gpu"]


def test_a_filter_of_one_folder_does_not_leak_into_the_next():
    at = open_page("views/sweeps.py", small=False)
    at.multiselect(key="sweep_keep_stall-conditions_scenario").set_value(["homogeneous-16gpu"]).run()
    at.selectbox(key="sweep_folder").set_value(_folder(at, "policy-study")).run()
    assert_clean(at)
    keys = [w.key for w in at.multiselect]
    assert "sweep_keep_policy-study_scenario" in keys and "sweep_keep_stall-conditions_scenario" not in keys
    assert at.multiselect(key="sweep_keep_policy-study_scenario").value != ["homogeneous-16gpu"]


def test_the_sweep_chart_keeps_error_bars_above_0_and_whole_ticks_whole():
    at = open_page("views/sweeps.py", small=False)
    at.selectbox(key="sweep_folder").set_value(_folder(at, "policy-study")).run()
    spec = plotly_specs(at)[0]
    assert spec["layout"]["xaxis"]["tickvals"] == [4, 5, 6]
    for trace in spec["data"]:
        low = [m - d for m, d in zip(trace["y"], trace["error_y"]["arrayminus"], strict=True)]
        assert min(low) >= 0, trace["name"]
    dashes = [t["line"]["dash"] for t in spec["data"]]
    assert len(set(dashes)) == len(dashes)


def test_shipped_fgd_sweep_opens_on_its_allocation_curves():
    at = open_page("views/sweeps.py", small=False)
    folders = at.selectbox(key="sweep_folder").options
    shipped = next(f for f in folders if f.endswith("fgd-openb-shipped"))
    at.selectbox(key="sweep_folder").set_value(shipped).run()
    assert_clean(at)
    names = [t.get("name", "") for t in plotly_specs(at)[0]["data"]]
    for policy in ("fgd", "fgd_best_fit", "gpu_packing"):
        assert policy_label(policy) in names
    assert sum("published" in n for n in names) == 6


def test_allocation_sweep_shows_curves_with_published_overlay(tmp_path):
    row = {"run_id": "a", "kind": "allocation", "nodes": "openb_node_list_gpu_node",
           "pods": "openb_pod_list_default", "policy": "fgd_best_fit", "seed": 42, "tune": 1.3,
           "alloc_at_100": 93.0, "alloc_at_130": 93.2, "failed_pods": 10, "error": ""}
    row.update({f"alloc_pct_{k}": float(min(k, 93)) for k in range(131)})
    pd.DataFrame([row]).to_csv(tmp_path / "results.csv", index=False)
    at = open_page("views/sweeps.py", small=False)
    at.selectbox(key="sweep_folder").set_value("other…").run()
    at.text_input(key="sweep_path").input(str(tmp_path)).run()
    assert_clean(at)
    spec = plotly_specs(at)[0]
    names = [t["name"] for t in spec["data"]]
    assert any("published" in n for n in names) and policy_label("fgd_best_fit") in names


def test_bad_folder_shows_inline_error(tmp_path):
    at = open_page("views/sweeps.py", small=False)
    at.selectbox(key="sweep_folder").set_value("other…").run()
    at.text_input(key="sweep_path").input(str(tmp_path / "nowhere")).run()
    assert_clean(at)
    assert at.error and "results.csv" in at.error[0].value
