"""Least-Loaded stalls: when and why Least-Loaded holds a job that could run."""

import streamlit as st
from shared import (
    background_ready,
    cached_run,
    cached_stall,
    cached_stall_figure,
    current_scenario,
    page_header,
    policy_options,
    preset_yaml,
    show_chart,
)

from gpusched.agent import AGENT_POLICY
from gpusched.errors import GpuschedError
from gpusched.experiment.runner import comparison_from_results
from gpusched.figures import results_table, stall_explanation

STALLING = "least_loaded"
CONTRAST = ["least_loaded_fit", "first_fit"]
HETERO_PRESETS = ["phase1-8gpu", "ll-stall-mini", "phase1-4gpu"]
CONTROL = "homogeneous-8gpu"
CURRENT = "current scenario"


def _apply_demo() -> None:
    """Load the demo that Home's "Show me the stall" asks for."""
    if st.session_state.pop("stall_demo", False):
        st.session_state["stall_scenario"] = HETERO_PRESETS[0]
        st.session_state["stall_control"] = False
        st.session_state["stall_seed"] = 0


def main() -> None:
    _apply_demo()
    page_header("Least-Loaded stalls",
                "Queue length, stall intervals, misroutes and idle GPUs on one time axis: "
                "Least-Loaded holds the queue while capacity sits idle.")
    c1, c2, c3 = st.columns([2, 1, 2])
    source = c1.selectbox("Heterogeneous scenario", HETERO_PRESETS + [CURRENT], key="stall_scenario",
                          help="The cluster where Least-Loaded's missing fit check matters.")
    seed = int(c2.number_input("Workload seed", min_value=0, max_value=10_000, value=0, step=1,
                               key="stall_seed"))
    control = c3.toggle(f"Control: switch to `{CONTROL}` (8 identical A100-80GB)",
                        key="stall_control",
                        help="Same workload on a homogeneous cluster: the stall disappears.")
    if control:
        name, text = CONTROL, preset_yaml(CONTROL)
    elif source == CURRENT:
        scenario = current_scenario()
        name, text = scenario.name, scenario.to_yaml()
    else:
        name, text = source, preset_yaml(source)

    policies = [STALLING, *CONTRAST]
    if AGENT_POLICY in policy_options() and background_ready(text, [AGENT_POLICY], [seed]):
        policies.append(AGENT_POLICY)
    try:
        with st.spinner(f"Running {len(policies)} policies on `{name}`…"):
            runs = [cached_run(text, p, seed) for p in policies]
            report, _ = cached_stall(text, STALLING, seed)
            figure = cached_stall_figure(text, tuple(policies), seed, STALLING, "first_fit")
    except GpuschedError as exc:
        st.error(str(exc), icon=":material/error:")
        return

    base = runs[policies.index("first_fit")]
    cols = st.columns(4)
    cols[0].metric("Stall time", f"{report.stall_min:,.0f} min",
                   help="Time the head job could have run somewhere but Least-Loaded held it.")
    cols[1].metric("Stall intervals", f"{len(report.intervals)}")
    cols[2].metric("Misroutes", f"{len(report.misroutes)}",
                   help="Times Least-Loaded sent the head job to a GPU where it did not fit.")
    cols[3].metric("Average wait", f"{report.avg_wait_min:,.0f} min",
                   f"{report.avg_wait_min - base.metrics['avg_wait_min']:+,.0f} min vs First-Fit",
                   delta_color="inverse")

    with st.container(key="stall-explanation", border=True):
        st.markdown(stall_explanation(report, baseline=base))
    with st.container(key="stall-chart" if report.has_stall else "no-stall-chart"):
        show_chart(figure, key="stall_fig")

    st.markdown("##### Same jobs, every policy")
    same_jobs = comparison_from_results(name, {(r.policy, seed): r for r in runs})
    st.dataframe(results_table(same_jobs), width="stretch")
    if len(report.misroutes):
        with st.expander(f"All {len(report.misroutes)} misroutes (job, the GPU it was sent to)"):
            st.dataframe(report.misroutes.rename(columns={
                "time_min": "time (min)", "gpu_label": "GPU", "gpu_vram_gb": "GPU VRAM (GB)",
                "job_vram_gb": "job VRAM per GPU (GB)", "job_gpus": "job GPUs"}).drop(columns="gpu"),
                width="stretch", hide_index=True)


main()
