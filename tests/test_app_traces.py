"""Real traces page: opens on a default run, draws each chosen policy with its published curve
dashed, reruns on another trace, and reports a bad upload inline."""

from __future__ import annotations

import sys
from pathlib import Path

from apptest_support import assert_clean, plotly_specs
from streamlit.testing.v1 import AppTest

from gpusched.policies import policy_label

APP = Path(__file__).resolve().parent.parent / "app"
PAGE = str(APP / "views" / "traces.py")
if str(APP) not in sys.path:
    sys.path.insert(0, str(APP))  # the page imports the dashboard's shared module


def open_traces() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.run()
    return at


def chart_named(at: AppTest, key: str) -> dict:
    """The spec of the chart drawn with ``key``."""
    for element, spec in zip(at.get("plotly_chart"), plotly_specs(at), strict=True):
        if element.proto.id.endswith(f"-{key}"):
            return spec
    raise AssertionError(f"no chart with key {key}")


def lines(spec: dict) -> dict[str, dict]:
    return {t["name"]: t for t in spec["data"] if t.get("name")}


def test_first_open_runs_the_default_and_overlays_published_curves():
    at = open_traces()
    assert_clean(at)
    assert at.selectbox(key="traces_trace").value == "openb_pod_list_default"
    assert at.multiselect(key="traces_policies").value == ["fgd_best_fit", "fgd"]
    assert at.multiselect(key="traces_seeds").value == [42]
    assert at.number_input(key="traces_tune").value == 1.3
    assert at.button(key="traces_run")
    assert at.selectbox(key="traces_heatmap_run")
    alloc = lines(chart_named(at, "traces_alloc"))
    for policy in ("fgd_best_fit", "fgd"):
        assert policy_label(policy) in alloc
        assert alloc[f"{policy_label(policy)} (published)"]["line"]["dash"] == "dash"
    heatmap = chart_named(at, "traces_heatmap")
    assert [t["type"] for t in heatmap["data"]].count("heatmap") == 7  # the openb cluster's 7 GPU models
    table = at.dataframe[0].value
    assert table["policy"].tolist() == [policy_label("fgd_best_fit"), policy_label("fgd")]
    assert at.dataframe[1].value["Δ @130 (points)"].abs().max() < 3


def test_running_another_trace_changes_the_result():
    at = open_traces()
    before = at.dataframe[0].value.set_index("policy")
    at.multiselect(key="traces_policies").set_value(["fgd_best_fit"]).run()
    at.selectbox(key="traces_trace").set_value("openb_pod_list_gpushare100").run()
    assert at.info, "changed settings should say the results are stale until Run"
    at.button(key="traces_run").click().run()
    assert_clean(at)
    assert not at.info
    after = at.dataframe[0].value.set_index("policy")
    label = policy_label("fgd_best_fit")
    assert after.index.tolist() == [label]
    assert after.loc[label, "ours @100 (%)"] != before.loc[label, "ours @100 (%)"]
    assert after.loc[label, "published @100 (%)"] != before.loc[label, "published @100 (%)"]
    names = [trace.get("name") for trace in chart_named(at, "traces_alloc")["data"]]
    assert label in names and not any(str(n).startswith(policy_label("fgd")) for n in names)


def test_bad_upload_shows_an_inline_error_and_disables_run():
    at = open_traces()
    at.selectbox(key="traces_trace").set_value("upload").run()
    assert at.button(key="traces_run").disabled
    bad = b"name,cpu_milli,memory_mib,num_gpu,gpu_milli\npod-1,1000,1024,1,1500\n"
    at.file_uploader(key="traces_upload").set_value(("bad pods.csv", bad, "text/csv")).run()
    assert_clean(at)
    assert at.error and "bad pods.csv" in at.error[0].value and "gpu_milli" in at.error[0].value
    assert at.button(key="traces_run").disabled
    # The last good results stay on the page.
    assert at.get("plotly_chart")


def test_a_good_upload_runs_without_a_published_overlay():
    at = open_traces()
    at.multiselect(key="traces_policies").set_value(["fgd_best_fit"]).run()
    at.selectbox(key="traces_trace").set_value("upload").run()
    pods = b"name,cpu_milli,memory_mib,num_gpu,gpu_milli\npod-1,2000,4096,1,500\npod-2,4000,8192,2,1000\n"
    at.file_uploader(key="traces_upload").set_value(("two pods.csv", pods, "text/csv")).run()
    assert not at.error and not at.button(key="traces_run").disabled
    at.button(key="traces_run").click().run()
    assert_clean(at)
    table = at.dataframe[0].value
    assert table["published @100 (%)"].isna().all() and table["ours @100 (%)"].notna().all()
    names = list(lines(chart_named(at, "traces_alloc")))
    assert names == [policy_label("fgd_best_fit")]


def test_the_default_opens_on_the_shipped_runs_and_recomputes_them_on_request():
    """The first view draws the shipped runs (named with their seed) without running; Recompute
    runs them here and says they give the same numbers; another seed runs live, as before."""
    from gpusched.dashboard.traces import TRACES_SOURCE

    at = open_traces()
    captions = " ".join(c.value for c in at.caption)
    assert TRACES_SOURCE in captions and "1 seed (42)" in captions
    assert at.button(key="traces_recompute")
    at.button(key="traces_recompute").click().run()
    assert_clean(at)
    assert at.success and "exactly the shipped numbers" in at.success[0].value
    at.multiselect(key="traces_seeds").set_value([43]).run()
    at.button(key="traces_run").click().run()
    assert_clean(at)
    assert "traces_recompute" not in {b.key for b in at.button}
    assert TRACES_SOURCE not in " ".join(c.value for c in at.caption)


def test_the_real_cluster_section_draws_the_shipped_comparison_side_by_side():
    """The section on Shockwave's 32 V100s: the grouped bars (three sides of each shared policy),
    the per-job scatter (one point per job) and the table, all from the shipped comparison."""
    from gpusched.dashboard.real_cluster import SOURCES, shipped_real_cluster

    at = open_traces()
    assert_clean(at)
    data = shipped_real_cluster()
    assert any("Shockwave's 32 V100s" in h.value for h in at.subheader)
    bars = chart_named(at, "traces_real_cluster_bars")
    assert [t["name"] for t in bars["data"]] == [*SOURCES, *SOURCES]
    assert all(len(t["x"]) == len(data["shared"]) for t in bars["data"])
    jobs = chart_named(at, "traces_real_cluster_jobs")
    n_jobs = sum(len(t["x"]) for t in jobs["data"][2:])
    assert n_jobs == sum(len(data["runs"][p]["jct_s"]) for p in data["shared"])
    table = at.dataframe[-1].value
    assert list(table["policy"]) == [policy_label(p) for p in data["shared"] for _ in SOURCES]
    assert list(table["side"]) == [*SOURCES] * len(data["shared"])
    # the caption says how close the two simulators come when told the same costs
    from gpusched.dashboard.real_cluster import real_cluster_summary

    resume_s, worst, _ = real_cluster_summary(data).sim_costs
    captions = " ".join(c.value for c in at.caption)
    assert f"({resume_s:g} s to a job back after a round off, nothing to a move)" in captions
    assert f"within {worst:.1f} % of that simulator's" in captions
