"""Home: what the tool is, the stall call to action, and the headline numbers on the fleet."""

import streamlit as st
from shared import (
    available_policies,
    background_runs,
    cached_best_heuristic,
    cached_conditions_findings,
    page_header,
    parse_scenario,
    preset_yaml,
    show_chart,
)

from gpusched.agent import AGENT_POLICY
from gpusched.dashboard.headline import (
    HEADLINE_BASELINE,
    HEADLINE_METRICS,
    HEADLINE_SCENARIO,
    HEADLINE_SEEDS,
    headline_heuristics,
)
from gpusched.errors import GpuschedError
from gpusched.experiment.runner import comparison_from_results
from gpusched.figures import metric_bars_figure, policy_color, stall_blurb
from gpusched.policies import policy_label

POLL_S = 1.0  # how often the headline checks whether the agent's runs are done (seconds)


def _heuristics():
    """Every queue-aware pair on the headline's jobs (cached), and the best of them."""
    return cached_best_heuristic(preset_yaml(HEADLINE_SCENARIO))


def _headline_comparison(with_agent: bool):
    """FCFS First-Fit and the best heuristic, plus the agent's background runs when asked."""
    heuristics, best = _heuristics()
    shown = (HEADLINE_BASELINE, best)
    runs = {key: r for key, r in heuristics.results.items() if key[0] in shown}
    agent = (background_runs().results(preset_yaml(HEADLINE_SCENARIO), AGENT_POLICY, HEADLINE_SEEDS)
             if with_agent else {})
    return comparison_from_results(HEADLINE_SCENARIO, runs, agent, order=[*shown, AGENT_POLICY])


@st.cache_resource(show_spinner=False, max_entries=4)
def _headline_figure(with_agent: bool):
    return metric_bars_figure(_headline_comparison(with_agent), HEADLINE_METRICS)


def _card(col, policy: str, role: str, m, base) -> None:
    with col.container(border=True):
        st.markdown(f"<span style='color:{policy_color(policy)};font-weight:700;font-size:1.1rem'>"
                    f"■ {policy_label(policy)}</span>", unsafe_allow_html=True)
        st.caption(role)
        if m is None:
            st.markdown("Running the agent on the same jobs…")
            st.progress(0.5, text="in the background; the numbers appear here")
            return
        delta = (None if policy == HEADLINE_BASELINE
                 else f"{(m['avg_jct_min'] / base['avg_jct_min'] - 1) * 100:+.0f} %")
        top, bottom = st.columns(2), st.columns(2)
        # Units sit in the labels, so that a four-digit value fits its half of a card.
        top[0].metric("Time to result (min)", f"{m['avg_jct_min']:,.1f}", delta, delta_color="inverse",
                      help="Average job completion time (JCT): from a job's arrival to its end, "
                           "waiting and running.")
        top[1].metric("Average wait (min)", f"{m['avg_wait_min']:,.1f}")
        bottom[0].metric("p99 wait (min)", f"{m['p99_wait_min']:,.0f}",
                         help="The wait that 99 % of jobs stay under.")
        bottom[1].metric("Slowdown", f"{m['avg_slowdown']:.2f}",
                         help="Time to result divided by the job's run time on the best GPU this "
                              "cluster could give it (1 = no wait and the best GPU).")


def _headline(agent: bool, polling: bool) -> None:
    text = preset_yaml(HEADLINE_SCENARIO)
    ready = agent and background_runs().ready(text, AGENT_POLICY, HEADLINE_SEEDS)
    try:
        comparison = _headline_comparison(ready)
    except GpuschedError as exc:
        st.error(f"The agent could not run: {exc}", icon=":material/error:")
        comparison, ready, agent = _headline_comparison(False), False, False
    mean = comparison.summary()
    best = _heuristics()[1]
    roles = {HEADLINE_BASELINE: "the strict queue, first GPU that fits",
             best: f"the best of {len(headline_heuristics())} queue-aware heuristics here, by time to result",
             AGENT_POLICY: "the trained agent, greedy (no search)"}
    policies = list(dict.fromkeys([HEADLINE_BASELINE, best, *([AGENT_POLICY] if agent else [])]))
    cols = st.columns(len(policies))
    for col, p in zip(cols, policies, strict=True):
        _card(col, p, roles[p], mean.loc[p] if p in mean.index else None, mean.loc[HEADLINE_BASELINE])
    show_chart(_headline_figure(ready), key="home_bars")
    if polling and (ready or not agent):
        st.rerun(scope="app")  # everything is in: redraw once and stop polling


def main() -> None:
    page_header("gpusched — GPU-cluster scheduling lab",
                "What the tool is, and how the strict queue, the best queue-aware heuristic and "
                "the agent do on a heterogeneous fleet.")
    st.markdown(
        "gpusched simulates a GPU cluster — A100s, V100s and T4s side by side, or identical GPUs — "
        "and replays exactly the same stream of training, inference and batch jobs under "
        "different placement policies. "
        "Configure a cluster, replay a run minute by minute, compare policies over many seeds, "
        "and explore the stall with measured numbers.")
    st.markdown(stall_blurb(cached_conditions_findings(None, "least_loaded")))

    agent = AGENT_POLICY in available_policies()
    text = preset_yaml(HEADLINE_SCENARIO)
    # Submit the agent's runs first: the worker process computes them while the heuristics run here.
    pending = agent and not background_runs().ready(text, AGENT_POLICY, HEADLINE_SEEDS)
    with st.spinner("Running the headline scenario…"):
        _heuristics()

    with st.container(border=True):
        text_col, button_col = st.columns([3, 1], vertical_alignment="center")
        text_col.markdown("**See it happen.** Least-Loaded's stall on one time axis: the queue, "
                          "the stall intervals, and every job it sent where it did not fit, with why.")
        if button_col.button("Show me the stall", type="primary", key="show_stall",
                             width="stretch", icon=":material/traffic:"):
            st.session_state["stall_demo"] = True
            st.switch_page("views/stalls.py")

    st.subheader(f"Headline: `{HEADLINE_SCENARIO}`, mean of {len(HEADLINE_SEEDS)} seeds")
    st.caption(f"{parse_scenario(text).summary()}. Each job may start from the first "
               f"{parse_scenario(text).window} queued jobs, and runs slower on slower GPUs. "
               "The stall above is on the strict queue of `phase1-8gpu`.")
    st.fragment(_headline, run_every=POLL_S if pending else None)(agent, pending)
    if not agent:
        st.caption("The trained agent appears here once its model ships in `assets/models/`.")

    st.markdown("#### Explore")
    links = st.columns(5)
    links[0].page_link("views/cluster.py", label="Cluster & workload", icon=":material/dns:")
    links[1].page_link("views/replay.py", label="Replay a run", icon=":material/play_circle:")
    links[2].page_link("views/compare.py", label="Compare policies", icon=":material/bar_chart:")
    links[3].page_link("views/stalls.py", label="Least-Loaded stalls", icon=":material/traffic:")
    links[4].page_link("views/agent.py", label="Agent models", icon=":material/smart_toy:")


main()
