"""Cluster & workload: pick a preset or edit the cluster and workload; upload or download YAML."""

import pandas as pd
import streamlit as st
from shared import (
    cached_workload_figures,
    current_scenario,
    page_header,
    preset_yaml,
    set_scenario,
    show_chart,
)

from gpusched import GpuschedError, Scenario, preset_names
from gpusched.core.speed import DEFAULT_SPEEDS, speed_rows, speed_table
from gpusched.dashboard.scenarios import matching_preset, scenario_from_upload
from gpusched.dashboard.words import (
    failure_line,
    failure_settings,
    has_failures,
    left_out_line,
    scenario_line,
)
from gpusched.dashboard.workload import has_job_type_shares
from gpusched.limits import (
    ARRIVAL_RATE_RANGE_PER_HOUR,
    LOAD_RANGE,
    MAX_ESTIMATE_ERROR,
    MAX_GPUS_PER_NODE,
    MAX_JOBS,
    MAX_NODES,
    MAX_SEED,
    MAX_VRAM_GB,
    MAX_WINDOW,
    MAX_YAML_BYTES,
    TIME_COMPRESSION_RANGE,
)
from gpusched.workload.openb import bundled_traces
from gpusched.workload.scenario_yaml import scenario_from_dict, scenario_from_yaml
from gpusched.workload.synthetic import JOB_TYPES

NODE_COLUMNS = ["gpu_model", "vram_gb", "gpus_per_node", "count"]
VERSION_KEY = "cluster_editor_version"
NO_PRESET = "—"
MIB = 1024 * 1024
ARRIVALS_BY = {"load": "offered load", "rate": "jobs per hour"}
DEFAULT_LOAD = 0.3
WIDE_PANELS = ("model_speeds",)  # drawn across the page, under the caption that explains speeds


def _load(scenario: Scenario) -> None:
    """Replace the current scenario and reset the editors to it."""
    set_scenario(scenario)
    st.session_state[VERSION_KEY] = st.session_state.get(VERSION_KEY, 0) + 1


def _pick_preset(key: str) -> None:
    """Load the preset just chosen in the selectbox ``key`` (its on-change callback)."""
    name = st.session_state[key]
    if name != NO_PRESET:
        _load(scenario_from_yaml(preset_yaml(name), source=name))


def main() -> None:
    page_header("Cluster & workload",
                "The scenario every page runs on: its GPUs, its jobs, and what the workload looks "
                "like.")
    scenario = current_scenario()
    version = st.session_state.setdefault(VERSION_KEY, 0)

    top = st.columns([2, 2, 1])
    options = [NO_PRESET, *preset_names()]
    current = matching_preset(scenario) or NO_PRESET
    top[0].selectbox("Start from a preset", options, index=options.index(current),
                     key=f"preset_{version}", on_change=_pick_preset, args=(f"preset_{version}",),
                     help="Loads the preset into the editors below; shows the preset the current "
                          f"scenario is, or {NO_PRESET} once it is edited.")
    upload = top[1].file_uploader("Upload a scenario YAML", type=["yaml", "yml"],
                                  key=f"upload_{version}", max_upload_size=max(1, MAX_YAML_BYTES // MIB))
    if upload is not None:
        try:
            _load(scenario_from_upload(upload.getvalue(), upload.name))
            st.rerun()
        except GpuschedError as exc:
            top[1].error(f"{exc}. Nothing was loaded; fix the file and upload it again.",
                         icon=":material/error:")
    top[2].download_button("Download YAML", scenario.to_yaml(), file_name=f"{scenario.name}.yaml",
                           mime="application/x-yaml", key="download_yaml", width="stretch",
                           icon=":material/download:")

    if scenario.is_trace:
        scenario = _trace_editors(scenario, version)
    else:
        scenario = _synthetic_editors(scenario, version)

    st.success(f"Every page now runs on **`{scenario.name}`**: {scenario_line(scenario)}. "
               f"{failure_line(scenario)}", icon=":material/check_circle:")
    note = left_out_line(scenario)
    if note:
        st.info(note, icon=":material/info:")
    with st.expander("Failures, repairs and checkpoints", expanded=has_failures(scenario)):
        st.dataframe(pd.DataFrame(failure_settings(scenario)), hide_index=True, width="stretch",
                     column_config={"setting": "Setting", "value": "Value", "meaning": "What it means"})
        st.caption("Set them in the scenario's `failures:` and `checkpoint:` blocks (download the "
                   "YAML, edit, upload); the preset `fleet-16gpu-failures` has them.")
    try:
        panels = cached_workload_figures(scenario.to_yaml())
    except GpuschedError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    st.markdown("##### The workload")
    halves = [p for p in panels if p not in WIDE_PANELS]
    for start in range(0, len(halves), 2):
        for col, name in zip(st.columns(2), halves[start:start + 2], strict=False):
            with col:
                show_chart(panels[name], key=f"wl_{name}")
    if "model_speeds" in panels:
        st.caption("The speed table says how fast each GPU model runs each job (by its job model, "
                   "or its job type), relative to the reference GPU: a job of duration d runs "
                   "d ÷ speed minutes there.")
        show_chart(panels["model_speeds"], key="wl_model_speeds")
    with st.expander("Scenario YAML"):
        st.code(scenario.to_yaml(), language="yaml")


def _apply(data: dict, scenario: Scenario, name: str, cluster_error,
           workload_error) -> tuple[Scenario, dict | None]:
    """Validate the edited scenario (and, for a trace, that its jobs load); make it current, or
    show the error next to its field.

    :return: the current scenario, and the pods a trace left out (``{}`` for a synthetic
        workload; ``None`` when the edit was refused).
    """
    try:
        candidate = scenario_from_dict(data, source=name or "scenario")
        left_out = candidate.trace_jobs()[1] if candidate.is_trace else {}
    except GpuschedError as exc:
        target = cluster_error if ".cluster" in str(exc) or "cluster." in str(exc) else workload_error
        target.error(f"{exc}. The pages keep using the last valid scenario.", icon=":material/error:")
        return scenario, None
    if candidate.to_yaml() != scenario.to_yaml():
        set_scenario(candidate)
    return candidate, left_out


def _trace_editors(scenario: Scenario, version: int) -> Scenario:
    """Editors of a trace-driven scenario: the node sample and the pod list."""
    data = scenario.model_dump(exclude_none=True)  # edited in place: every other key stays as it is
    st.info("Real jobs from Alibaba's openb trace: each pod arrives at its creation time and runs "
            "until its deletion, scaled by the time compression; a pod's `gpu_milli` is its share "
            "of the GPU's compute and VRAM. Pick a synthetic preset above to edit nodes instead.",
            icon=":material/dataset:")
    left, right = st.columns(2)
    with left:
        st.markdown("##### Nodes (sampled from the trace)")
        c = data["cluster"].get("trace")
        c1, c2 = st.columns(2)
        node_lists = _with(bundled_traces("openb_node_list"), c and c["nodes"])
        nodes = c1.selectbox("Node list", node_lists, key=f"tr_nodes_{version}",
                             index=_index(node_lists, c and c["nodes"]), disabled=c is None,
                             help="A bundled node list, or the CSV path the scenario names.")
        sample = c2.number_input("Nodes to sample", min_value=1, max_value=MAX_NODES,
                                 value=c.get("sample_nodes") if c else None, step=1, placeholder="all",
                                 key=f"tr_sample_{version}", disabled=c is None,
                                 help="Empty: every GPU node of the list.")
        cluster_error = st.empty()
    with right:
        st.markdown("##### Jobs (pods of the trace)")
        w = data["workload"]
        t = w.get("trace")
        name = st.text_input("Scenario name", data["name"], key=f"name_{version}")
        c1, c2, c3, c4 = st.columns(4)
        pod_lists = _with(bundled_traces("openb_pod_list"), t and t.get("pods"))
        pods = c1.selectbox("Pod list", pod_lists, key=f"tr_pods_{version}",
                            index=_index(pod_lists, t and t.get("pods")), disabled=t is None,
                            help="A bundled pod list, or the CSV path the scenario names.")
        n_jobs = c2.number_input("Jobs (first N)", min_value=1, max_value=MAX_JOBS,
                                 value=int(w["jobs"]), step=50, key=f"jobs_{version}")
        compression = c3.number_input("Time compression", min_value=TIME_COMPRESSION_RANGE[0],
                                      max_value=TIME_COMPRESSION_RANGE[1],
                                      value=float(t["time_compression"]) if t else 1.0, step=50.0,
                                      key=f"tr_tc_{version}", disabled=t is None,
                                      help="Trace seconds per simulated second.")
        seed = c4.number_input("Seed", min_value=0, max_value=MAX_SEED, value=int(w["seed"]), step=1,
                               key=f"seed_{version}", help="Seeds the node sample.")
        workload_error = st.empty()
    data["name"] = name
    if c is not None:
        c.update(nodes=nodes, sample_nodes=None if sample is None else int(sample))
    w.update(jobs=int(n_jobs), seed=int(seed))
    if t is not None and t.get("pods") is not None:  # a job list keeps its file
        t.update(pods=pods, time_compression=float(compression))
    _queue_editors(data, version)
    scenario, left_out = _apply(data, scenario, name, cluster_error, workload_error)
    if left_out is None:  # the edit was refused: the pods of the scenario still current
        try:
            left_out = scenario.trace_jobs()[1]
        except GpuschedError as exc:  # its trace files changed since it was chosen
            st.error(str(exc), icon=":material/error:")
            return scenario
    if left_out:
        st.caption(f"Left out of the jobs (never silently): {left_out['cpu_only_pods']} CPU-only "
                   f"pods, {left_out['unhostable_pods']} pods no sampled node could host.")
    return scenario


SPEED_MODES = {"none": "every GPU at speed 1.0", "default": "the shipped table",
               "gavel": "Gavel's measured speeds", "custom": "your own table"}


def _queue_editors(data: dict, version: int) -> None:
    """Editors of the queue window, the GPU speeds and the error of declared run times; they
    write into ``data`` (a scenario dictionary)."""
    st.markdown("##### Queue and GPU speeds")
    c1, c2, c3 = st.columns([1, 2, 1])
    queue = data.get("queue") or {}
    window = c1.number_input("Queue window (jobs)", min_value=1, max_value=MAX_WINDOW,
                             value=int(queue.get("window", 1)), step=1, key=f"window_{version}",
                             help="The scheduler may start any of the first N queued jobs; 1 is a strict "
                                  "FIFO queue.")
    speed = data.get("speed")
    current = "none" if speed is None else speed if speed in ("default", "gavel") else "custom"
    mode = c2.radio("GPU speeds", list(SPEED_MODES), index=list(SPEED_MODES).index(current),
                    format_func=SPEED_MODES.get, horizontal=True, key=f"speed_mode_{version}",
                    help="A job's duration is its run time on an A100-80GB; on a GPU of speed s it runs "
                         "duration / s.")
    error = c3.number_input("Run-time estimate error (σ)", min_value=0.0, max_value=MAX_ESTIMATE_ERROR,
                            value=float(data["workload"].get("runtime_estimate_error") or 0.0), step=0.1,
                            key=f"estimate_error_{version}",
                            help="Declared run time = duration × exp(σ·Z): rules and agents see it, the "
                                 "simulator runs the true duration.")
    if mode == "custom":
        base = speed if isinstance(speed, dict) else DEFAULT_SPEEDS
        rows = st.data_editor(pd.DataFrame(speed_rows(base)), num_rows="dynamic", width="stretch",
                              key=f"speed_table_{version}")
        data["speed"] = speed_table(rows.to_dict("records"))
    else:
        data["speed"] = None if mode == "none" else mode
    with st.expander("The shipped speed table (relative to the A100-80GB; sources in docs/scenarios.md)"):
        st.dataframe(pd.DataFrame(speed_rows(DEFAULT_SPEEDS)), hide_index=True, width="stretch")
    data["queue"] = {"window": int(window)} if int(window) > 1 or data.get("queue") else None
    data["workload"]["runtime_estimate_error"] = float(error) or None


def _with(options: list[str], value: str | None) -> list[str]:
    """``options``, and ``value`` after them when it is not one (a CSV path the scenario names)."""
    return options if value is None or value in options else [*options, value]


def _index(options: list[str], value: str | None) -> int:
    return options.index(value) if value in options else 0


def _synthetic_editors(scenario: Scenario, version: int) -> Scenario:
    """Editors of a synthetic scenario: the node table and the workload generator."""
    data = scenario.model_dump()
    left, right = st.columns([3, 2])
    with left:
        st.markdown("##### Nodes")
        # The editor keeps its base table until a preset or upload replaces it (or the page is
        # opened afresh): a changing base would make it a new widget and drop the next edit.
        editor_key, base_key = f"nodes_{version}", f"nodes_base_{version}"
        if editor_key not in st.session_state or base_key not in st.session_state:
            st.session_state[base_key] = data["cluster"]["nodes"]
        nodes = pd.DataFrame(st.session_state[base_key])[NODE_COLUMNS]
        edited = st.data_editor(
            nodes, num_rows="dynamic", width="stretch", key=editor_key,
            column_config={
                "gpu_model": st.column_config.TextColumn("GPU model", required=True, width=110),
                "vram_gb": st.column_config.NumberColumn("VRAM per GPU (GB)", required=True, width=125,
                                                         min_value=0.0, max_value=MAX_VRAM_GB),
                "gpus_per_node": st.column_config.NumberColumn("GPUs per node", step=1, required=True,
                                                               width=100,
                                                               min_value=1, max_value=MAX_GPUS_PER_NODE),
                "count": st.column_config.NumberColumn("Node count", step=1, required=True, width=85,
                                                       min_value=1, max_value=MAX_NODES),
            })
        cluster_error = st.empty()
    with right:
        st.markdown("##### Workload")
        w = data["workload"]
        name = st.text_input("Scenario name", data["name"], key=f"name_{version}")
        c1, c2, c3 = st.columns(3)
        n_jobs = c1.number_input("Jobs", min_value=1, max_value=MAX_JOBS, value=int(w["jobs"]), step=10,
                                 key=f"jobs_{version}")
        arrivals_by = c2.radio("Arrivals set by", list(ARRIVALS_BY), format_func=ARRIVALS_BY.get,
                               index=0 if w.get("load") is not None else 1, key=f"arrivals_by_{version}",
                               help="Offered load: the rate that asks, on average, for this fraction of "
                                    "the cluster's compute (with the GPU speeds).")
        if arrivals_by == "load":
            value = w.get("load") or DEFAULT_LOAD
            arrivals = {"load": c3.number_input("Offered load", min_value=LOAD_RANGE[0],
                                                max_value=LOAD_RANGE[1], value=float(value), step=0.05,
                                                format="%g", key=f"load_{version}"),
                        "arrival_rate_per_hour": None}
        else:
            value = w.get("arrival_rate_per_hour") or scenario.arrival_rate_per_hour()
            arrivals = {"arrival_rate_per_hour": c3.number_input(
                "Arrivals per hour", min_value=ARRIVAL_RATE_RANGE_PER_HOUR[0],
                max_value=ARRIVAL_RATE_RANGE_PER_HOUR[1], value=float(value), step=0.5, format="%g",
                key=f"rate_{version}"), "load": None}
        if has_job_type_shares(scenario):
            mix_cols = st.columns(len(JOB_TYPES) + 1)
            mix = {t: mix_cols[i].number_input(f"{t} share", min_value=0.0, max_value=1.0,
                                               value=float(w["mix"].get(t, 0.0)), step=0.05,
                                               key=f"mix_{t}_{version}")
                   for i, t in enumerate(JOB_TYPES)}
        else:  # Gavel's generator draws job models, not job types: shares would change nothing
            mix_cols = st.columns([len(JOB_TYPES), 1], vertical_alignment="bottom")
            mix_cols[0].caption("Gavel's generator draws each job's model (ResNet-50, Transformer, "
                                "…) from Gavel's table and asks for whole GPUs, no VRAM: there are "
                                "no job-type shares to set; the job models are charted below.")
            mix = w["mix"]
        seed = mix_cols[-1].number_input("Seed", min_value=0, max_value=MAX_SEED, value=int(w["seed"]),
                                         step=1, key=f"seed_{version}")
        workload_error = st.empty()

    _queue_editors(data, version)
    data["name"] = name
    data["cluster"]["nodes"] = edited.dropna(how="all").to_dict("records")
    data["workload"].update(jobs=int(n_jobs), mix=mix, seed=int(seed), **arrivals)
    return _apply(data, scenario, name, cluster_error, workload_error)[0]


main()
