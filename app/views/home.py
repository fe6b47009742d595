"""Home: what the tool is, and the headline numbers on phase1-8gpu."""

import streamlit as st
from shared import (
    DEFAULT_SCENARIO,
    available_policies,
    cached_compare,
    page_header,
    preset_yaml,
    show_chart,
)

from gpusched.catalog import AGENT_POLICY
from gpusched.figures import metric_bars_figure, policy_color, policy_label

HEADLINE_SEEDS = (0, 1, 2)  # workload seeds of the headline numbers

HEADLINE_METRICS = {
    "avg_wait_min": ("Average wait (min)", 1.0),
    "p95_wait_min": ("p95 wait (min)", 1.0),
    "stall_min": ("Head-of-line stall (min)", 1.0),
}


@st.cache_resource(show_spinner=False, max_entries=4)
def _headline_figure(policies: tuple[str, ...]):
    comparison = cached_compare(preset_yaml(DEFAULT_SCENARIO), policies, HEADLINE_SEEDS)
    return metric_bars_figure(comparison, HEADLINE_METRICS)


def main() -> None:
    page_header("gpusched — GPU-cluster scheduling lab",
                "What the tool is, and how First-Fit, Least-Loaded and the agent do on the "
                "headline cluster.")
    st.markdown(
        "gpusched simulates a heterogeneous GPU cluster — A100s, V100s and T4s side by side — "
        "and replays exactly the same stream of training, inference and batch jobs under "
        "different placement policies. "
        "It shows why the textbook Least-Loaded rule stalls the whole queue: it keeps sending "
        "big jobs to idle small GPUs that cannot hold them, while a fit-aware rule or a trained "
        "agent keeps the cluster moving. "
        "Configure a cluster, replay a run minute by minute, compare policies over many seeds, "
        "and explore the stall with measured numbers.")

    policies = ["first_fit", "least_loaded"]
    agent = AGENT_POLICY in available_policies()
    if agent:
        policies.append(AGENT_POLICY)
    with st.spinner("Running the headline scenario…"):
        comparison = cached_compare(preset_yaml(DEFAULT_SCENARIO), tuple(policies), HEADLINE_SEEDS)
    mean = comparison.summary()

    st.subheader(f"Headline: `{DEFAULT_SCENARIO}`, mean of {len(HEADLINE_SEEDS)} seeds")
    cols = st.columns(len(policies) + 1)
    base = mean.loc["first_fit"]
    for col, p in zip(cols, policies, strict=False):
        m = mean.loc[p]
        with col.container(border=True):
            st.markdown(f"<span style='color:{policy_color(p)};font-weight:700;font-size:1.1rem'>"
                        f"■ {policy_label(p)}</span>", unsafe_allow_html=True)
            delta = None if p == "first_fit" else f"{m['avg_wait_min'] - base['avg_wait_min']:+.0f} min"
            top, bottom = st.columns(2), st.columns(2)
            top[0].metric("Average wait", f"{m['avg_wait_min']:.0f} min", delta, delta_color="inverse")
            top[1].metric("p95 wait", f"{m['p95_wait_min']:.0f} min")
            bottom[0].metric("Stall", f"{m['stall_min']:,.0f} min")
            bottom[1].metric("Utilisation", f"{m['avg_util'] * 100:.0f} %")
    with cols[-1]:
        st.markdown("#### See it happen")
        st.write("Least-Loaded's stall, on one time axis: the queue, the stall intervals and "
                 "every job it sent to a GPU too small for it.")
        if st.button("Show me the stall", type="primary", key="show_stall", width="stretch",
                     icon=":material/traffic:"):
            st.session_state["stall_demo"] = True
            st.switch_page("views/stalls.py")
        if not agent:
            st.caption("The trained agent appears here once a model ships in `assets/models/`.")

    show_chart(_headline_figure(tuple(policies)), key="home_bars")

    st.markdown("#### Explore")
    links = st.columns(5)
    links[0].page_link("views/cluster.py", label="Cluster & workload", icon=":material/dns:")
    links[1].page_link("views/replay.py", label="Replay a run", icon=":material/play_circle:")
    links[2].page_link("views/compare.py", label="Compare policies", icon=":material/bar_chart:")
    links[3].page_link("views/stalls.py", label="Least-Loaded stalls", icon=":material/traffic:")
    links[4].page_link("views/agent.py", label="Agent models", icon=":material/smart_toy:")


main()
