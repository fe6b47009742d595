"""Home: what the tool is, the stall call to action, and the headline numbers on the fleet."""

import streamlit as st
from shared import (
    available_policies,
    background_runs,
    cached_best_heuristic,
    cached_conditions_findings,
    metric_card,
    page_header,
    parse_scenario,
    preset_yaml,
    show_chart,
)

from gpusched.agent import AGENT_POLICY
from gpusched.core.glossary import GLOSSARY_DOC, glossary_line, glossary_markdown
from gpusched.dashboard.headline import (
    HEADLINE_BASELINE,
    HEADLINE_METRICS,
    HEADLINE_SCENARIO,
    HEADLINE_SEEDS,
    headline_heuristics,
)
from gpusched.dashboard.words import scenario_line
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


def _card(col, policy: str, role: str, term: str, m, base) -> None:
    with col.container(border=True):
        st.markdown(f"<span style='color:{policy_color(policy)};font-weight:700;font-size:1.1rem'>"
                    f"■ {policy_label(policy)}</span>", unsafe_allow_html=True)
        st.caption(role, help=glossary_line(term))
        if m is None:
            st.markdown("Running the agent on the same jobs…")
            st.progress(0.5, text="in the background; the numbers appear here")
            return
        delta = (None if policy == HEADLINE_BASELINE
                 else f"{(m['avg_jct_min'] / base['avg_jct_min'] - 1) * 100:+.0f} %")
        # One number per row: each card has the panel's whole width, so no title or value is cut
        # off with an ellipsis at laptop widths (the browser test checks 1280 and 1440 px).
        for key in HEADLINE_METRICS:
            metric_card(st, key, m[key], delta if key == HEADLINE_METRICS[0] else None,
                        delta_color="inverse")


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
    roles = {HEADLINE_BASELINE: "jobs start in arrival order, each on the first GPU with room",
             best: f"the best of the {len(headline_heuristics())} fixed rules we tried here, by time "
                   "to result",
             AGENT_POLICY: "the trained agent, taking its first choice at every step"}
    terms = {HEADLINE_BASELINE: "strict queue (FIFO)", best: "heuristic", AGENT_POLICY: "greedy (no search)"}
    policies = list(dict.fromkeys([HEADLINE_BASELINE, best, *([AGENT_POLICY] if agent else [])]))
    cols = st.columns(len(policies))
    for col, p in zip(cols, policies, strict=True):
        _card(col, p, roles[p], terms[p], mean.loc[p] if p in mean.index else None,
              mean.loc[HEADLINE_BASELINE])
    show_chart(_headline_figure(ready), key="home_bars")
    if polling and (ready or not agent):
        st.rerun(scope="app")  # everything is in: redraw once and stop polling


def main() -> None:
    page_header("gpusched — GPU-cluster scheduling lab",
                "How the order and placement of jobs on shared GPUs changes how soon people get "
                "their results.")
    st.markdown(
        "gpusched simulates a cluster of GPUs (fast and slow models side by side, or all alike) and "
        "replays exactly the same stream of training, inference and batch jobs under different "
        "rules for which job starts next and on which GPU. It shows how long people wait for their "
        "results under each rule, and why.",
        help=glossary_line("time to result (JCT)"))
    st.markdown(stall_blurb(cached_conditions_findings(None, "least_loaded")),
                help=f"{glossary_line('stall')} {glossary_line('misroute')} {glossary_line('head job')}")
    with st.expander("What the words on these pages mean (glossary)", icon=":material/menu_book:"):
        st.markdown(glossary_markdown())
        st.caption(f"The same glossary, with more words, is in the repository at `{GLOSSARY_DOC}`.")

    agent = AGENT_POLICY in available_policies()
    text = preset_yaml(HEADLINE_SCENARIO)
    # Submit the agent's runs first: the worker process computes them while the heuristics run here.
    pending = agent and not background_runs().ready(text, AGENT_POLICY, HEADLINE_SEEDS)
    with st.spinner("Running the headline scenario…"):
        _heuristics()

    with st.container(border=True):
        text_col, button_col = st.columns([3, 1], vertical_alignment="center")
        text_col.markdown("**See it happen.** One run of Least-Loaded minute by minute: the queue "
                          "growing while GPUs sit idle, and every job it sent to a GPU where it did "
                          "not fit, with why.", help=glossary_line("stall"))
        if button_col.button("Show me the stall", type="primary", key="show_stall",
                             width="stretch", icon=":material/traffic:"):
            st.session_state["stall_demo"] = True
            st.switch_page("views/stalls.py")

    st.subheader(f"Headline: `{HEADLINE_SCENARIO}`, mean of {len(HEADLINE_SEEDS)} seeds")
    st.caption(f"{scenario_line(parse_scenario(text))}. The scheduler may start any of the "
               f"{parse_scenario(text).window} oldest waiting jobs, and a job runs slower on a "
               "slower GPU. The stall above is on `phase1-8gpu`, where jobs start strictly in "
               "arrival order.", help=f"{glossary_line('queue window')} {glossary_line('seed')}")
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
