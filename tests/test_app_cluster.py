"""Cluster & workload page: presets, workload widgets, YAML upload with inline errors."""

from __future__ import annotations

import json

from apptest_support import assert_clean, open_page, plotly_specs

from gpusched.workload.scenario_yaml import scenario_from_yaml

PAGE = "views/cluster.py"


def _scenario(at):
    return scenario_from_yaml(at.session_state["scenario_yaml"])


def test_page_has_its_widgets_and_workload_charts():
    at = open_page(PAGE)
    assert_clean(at)
    assert at.selectbox(key="preset_0") is not None
    assert at.number_input(key="jobs_0").value == 40
    assert at.file_uploader(key="upload_0") is not None
    assert len(plotly_specs(at)) == 4  # no speed table: no run time by GPU model


def test_the_run_time_by_gpu_model_shows_only_with_a_speed_table():
    at = open_page(PAGE)
    at.selectbox(key="preset_0").set_value("fleet-16gpu").run()
    assert_clean(at)
    titles = [spec["layout"]["title"]["text"] for spec in plotly_specs(at)]
    assert len(titles) == 6 and any("by GPU model" in t for t in titles)
    assert any(t.startswith("Speed of each job model on each GPU model") for t in titles)
    assert any("d ÷ speed" in c.value for c in at.caption)


def test_changing_the_job_count_updates_the_shared_scenario():
    at = open_page(PAGE)
    at.number_input(key="jobs_0").set_value(55).run()
    assert_clean(at)
    assert _scenario(at).workload.jobs == 55
    assert any("55 jobs" in s.value for s in at.success)


def test_picking_a_preset_loads_it():
    at = open_page(PAGE)
    at.selectbox(key="preset_0").set_value("ll-stall-mini").run()
    assert_clean(at)
    assert _scenario(at).name == "ll-stall-mini"
    assert at.number_input(key="jobs_1").value == 30


def test_a_mix_that_does_not_sum_to_one_is_an_inline_error():
    at = open_page(PAGE)
    before = at.session_state["scenario_yaml"]
    at.number_input(key="mix_training_0").set_value(0.9).run()
    assert_clean(at)
    assert any("mix" in e.value and "sum to 1" in e.value for e in at.error)
    assert at.session_state["scenario_yaml"] == before


def test_bad_scenario_upload_shows_an_inline_error():
    at = open_page(PAGE)
    bad = b"name: broken\ncluster:\n  nodes:\n    - {gpu_model: T4, vram_gb: -16, gpus_per_node: 1}\n" \
          b"workload: {jobs: 10, arrival_rate_per_hour: 5}\n"
    at.file_uploader(key="upload_0").set_value(("broken.yaml", bad, "application/x-yaml")).run()
    assert_clean(at)
    errors = [e.value for e in at.error]
    assert any("broken.yaml" in e and "vram_gb" in e for e in errors), errors
    assert _scenario(at).name != "broken"


def test_good_scenario_upload_becomes_the_current_scenario():
    at = open_page(PAGE)
    good = scenario_from_yaml(at.session_state["scenario_yaml"]).with_overrides(name="uploaded")
    at.file_uploader(key="upload_0").set_value(
        ("uploaded.yaml", good.to_yaml().encode(), "application/x-yaml")).run()
    assert_clean(at)
    assert _scenario(at).name == "uploaded"


def test_trace_preset_offers_real_jobs_and_reports_left_out_pods():
    at = open_page(PAGE)
    at.selectbox(key="preset_0").set_value("openb-sample").run()
    assert_clean(at)
    assert _scenario(at).is_trace
    assert at.selectbox(key="tr_pods_1").value == "openb_pod_list_default"
    assert any("CPU-only" in c.value for c in at.caption)
    assert len(plotly_specs(at)) == 4
    at.number_input(key="tr_sample_1").set_value(5).run()
    assert_clean(at)
    assert _scenario(at).cluster.trace.sample_nodes == 5


def test_trace_without_times_is_an_inline_error():
    at = open_page(PAGE)
    at.selectbox(key="preset_0").set_value("openb-sample").run()
    before = at.session_state["scenario_yaml"]
    at.selectbox(key="tr_pods_1").set_value("openb_pod_list_multigpu50").run()
    assert_clean(at)
    assert any("creation_time" in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["scenario_yaml"] == before


def test_replay_runs_on_real_jobs():
    at = open_page(PAGE)
    at.selectbox(key="preset_0").set_value("openb-sample").run()
    at.number_input(key="jobs_1").set_value(120).run()
    at.switch_page("views/replay.py").run()
    assert_clean(at)
    assert plotly_specs(at)


def test_queue_window_speeds_and_estimate_error_are_edited_here():
    at = open_page("views/cluster.py")
    at.number_input(key="window_0").set_value(16).run()
    at.radio(key="speed_mode_0").set_value("default").run()
    at.number_input(key="estimate_error_0").set_value(0.4).run()
    assert_clean(at)
    scenario = _scenario(at)
    assert scenario.window == 16 and scenario.speed == "default"
    assert scenario.workload.runtime_estimate_error == 0.4
    runtime = next(spec for spec in plotly_specs(at) if "GPU model" in json.dumps(spec["layout"]))
    training = next(t for t in runtime["data"] if t["name"] == "training")
    assert len(set(training["y"])) > 1  # run times differ by GPU model
    at.radio(key="speed_mode_0").set_value("custom").run()
    assert_clean(at)
    assert isinstance(_scenario(at).speed, dict)


def test_every_preset_opens_in_the_editors():
    from gpusched import preset_names

    for name in preset_names():
        at = open_page(PAGE)
        at.selectbox(key="preset_0").set_value(name).run()
        assert_clean(at)
        assert _scenario(at).name == name


def test_arrivals_are_set_by_load_or_by_rate():
    at = open_page(PAGE)
    at.selectbox(key="preset_0").set_value("fleet-16gpu").run()
    assert at.radio(key="arrivals_by_1").value == "load"
    at.number_input(key="load_1").set_value(0.5).run()
    assert_clean(at)
    assert _scenario(at).workload.load == 0.5
    at.radio(key="arrivals_by_1").set_value("rate").run()
    assert_clean(at)
    scenario = _scenario(at)
    assert scenario.workload.load is None and scenario.workload.arrival_rate_per_hour > 0
    assert any("an hour" in s.value for s in at.success)
