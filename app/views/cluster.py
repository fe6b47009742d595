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

from gpusched import ScenarioError, preset_names
from gpusched.jobs import JOB_TYPES
from gpusched.scenario import scenario_from_dict, scenario_from_yaml

NODE_COLUMNS = ["gpu_model", "vram_gb", "gpus_per_node", "count"]
VERSION_KEY = "cluster_editor_version"


def _load(text: str, source: str) -> None:
    """Replace the current scenario and reset the editors to it.

    :raises ScenarioError: when the YAML is not a valid scenario (nothing changes then).
    """
    set_scenario(scenario_from_yaml(text, source=source))
    st.session_state[VERSION_KEY] = st.session_state.get(VERSION_KEY, 0) + 1


def main() -> None:
    page_header("Cluster & workload",
                "The scenario every page runs on: its GPUs, its jobs, and what the workload looks "
                "like.")
    scenario = current_scenario()
    version = st.session_state.setdefault(VERSION_KEY, 0)

    top = st.columns([2, 2, 1])
    presets = preset_names()
    preset = top[0].selectbox("Start from a preset", ["—"] + presets, key=f"preset_{version}",
                              help="Loads the preset into the editors below.")
    if preset != "—":
        _load(preset_yaml(preset), preset)
        st.rerun()
    upload = top[1].file_uploader("Upload a scenario YAML", type=["yaml", "yml"],
                                  key=f"upload_{version}")
    if upload is not None:
        try:
            _load(upload.getvalue().decode("utf-8", errors="replace"), upload.name)
            st.rerun()
        except ScenarioError as exc:
            top[1].error(f"{exc}. Nothing was loaded; fix the file and upload it again.",
                         icon=":material/error:")
    top[2].download_button("Download YAML", scenario.to_yaml(), file_name=f"{scenario.name}.yaml",
                           mime="application/x-yaml", key="download_yaml", width="stretch",
                           icon=":material/download:")

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
                "gpu_model": st.column_config.TextColumn("GPU model", required=True),
                "vram_gb": st.column_config.NumberColumn("VRAM per GPU (GB)", required=True),
                "gpus_per_node": st.column_config.NumberColumn("GPUs per node", step=1, required=True),
                "count": st.column_config.NumberColumn("Node count", step=1, required=True),
            })
        cluster_error = st.empty()
    with right:
        st.markdown("##### Workload")
        w = data["workload"]
        name = st.text_input("Scenario name", data["name"], key=f"name_{version}")
        c1, c2 = st.columns(2)
        n_jobs = c1.number_input("Jobs", min_value=1, max_value=5000, value=int(w["jobs"]), step=10,
                                 key=f"jobs_{version}")
        rate = c2.number_input("Arrivals per hour", min_value=0.1, max_value=1000.0,
                               value=float(w["arrival_rate_per_hour"]), step=0.5,
                               key=f"rate_{version}")
        mix_cols = st.columns(len(JOB_TYPES) + 1)
        mix = {t: mix_cols[i].number_input(f"{t} share", min_value=0.0, max_value=1.0,
                                           value=float(w["mix"].get(t, 0.0)), step=0.05,
                                           key=f"mix_{t}_{version}")
               for i, t in enumerate(JOB_TYPES)}
        seed = mix_cols[-1].number_input("Seed", min_value=0, value=int(w["seed"]), step=1,
                                         key=f"seed_{version}")
        workload_error = st.empty()

    data["name"] = name
    data["cluster"]["nodes"] = edited.dropna(how="all").to_dict("records")
    data["workload"].update(jobs=int(n_jobs), arrival_rate_per_hour=float(rate), mix=mix,
                            seed=int(seed))
    try:
        candidate = scenario_from_dict(data, source=name or "scenario")
    except ScenarioError as exc:
        target = cluster_error if ".cluster" in str(exc) or "cluster." in str(exc) else workload_error
        target.error(f"{exc}. The pages keep using the last valid scenario.", icon=":material/error:")
    else:
        if candidate.to_yaml() != scenario.to_yaml():
            set_scenario(candidate)
            scenario = candidate

    st.success(f"Every page now runs on **`{scenario.name}`**: {scenario.n_gpus} GPUs, "
               f"{scenario.workload.jobs} jobs at {scenario.workload.arrival_rate_per_hour:g}/h.",
               icon=":material/check_circle:")
    arrivals, duration, vram, gpus = cached_workload_figures(scenario.to_yaml())
    st.markdown("##### The workload")
    a, b = st.columns(2)
    with a:
        show_chart(arrivals, key="wl_arrivals")
        show_chart(duration, key="wl_duration")
    with b:
        show_chart(vram, key="wl_vram")
        show_chart(gpus, key="wl_gpus")
    with st.expander("Scenario YAML"):
        st.code(scenario.to_yaml(), language="yaml")


main()
