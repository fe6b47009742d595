"""Home: what the tool is, the stall call to action, and the headline on the fleet, drawn at once
from the shipped results and recomputed live on request."""

import streamlit as st
from shared import (
    available_policies,
    background_runs,
    beside_time_to_result,
    cached_conditions_findings,
    cached_headline,
    headline_markdown,
    metric_card,
    page_header,
    parse_scenario,
    preset_yaml,
    recompute_button,
    show_chart,
)

from gpusched.core.glossary import GLOSSARY_DOC, glossary_line, glossary_markdown
from gpusched.dashboard.cards import scenario_cards
from gpusched.dashboard.headline import HEADLINE_METRICS, SHIPPED_SOURCE, Headline, shipped_mismatches
from gpusched.dashboard.words import scenario_line
from gpusched.errors import GpuschedError
from gpusched.experiment.paired import METHOD_NAMES
from gpusched.experiment.runner import comparison_from_results
from gpusched.figures import metric_bars_figure, policy_color, stall_blurb
from gpusched.figures.headline import paired_verdict, percent_of, seed_range
from gpusched.policies import policy_label

POLL_S = 1.0  # how often the live recompute checks the background worker (seconds)
LIVE_KEY = "home_live"  # session state: the visitor asked for the headline's runs again, live


@st.cache_data(show_spinner=False, max_entries=1)
def _card_metrics(scenario: str) -> tuple[str, ...]:
    """The headline's cards: :data:`HEADLINE_METRICS`, with the cards its preset earns beside
    time to result (deadlines met, GPU cost) where the shipped runs measured them."""
    h = cached_headline()
    earned = scenario_cards(parse_scenario(preset_yaml(scenario)))
    return beside_time_to_result(HEADLINE_METRICS, tuple(m for m in earned if m in h.shipped.metrics))


@st.cache_resource(show_spinner=False, max_entries=1)
def _headline_figure(_h: Headline):
    return metric_bars_figure(_h.comparison, _card_metrics(_h.scenario))


def _card(col, h: Headline, policy: str, role: str, term: str) -> None:
    with col.container(border=True):
        st.markdown(f"<span style='color:{policy_color(policy)};font-weight:700;font-size:1.1rem'>"
                    f"■ {policy_label(policy)}</span>", unsafe_allow_html=True)
        st.caption(role, help=glossary_line(term))
        mean = h.comparison.summary().loc[policy]
        diff = None if policy == h.baseline else h.against(policy, h.baseline)
        delta = None if diff is None else percent_of(diff.mean, h.mean(h.baseline))
        # One number per row: each card has the panel's whole width, so no title or value is cut
        # off with an ellipsis at laptop widths (the browser test checks 1280 and 1440 px).
        for key in _card_metrics(h.scenario):
            metric_card(st, key, mean[key], delta if key == HEADLINE_METRICS[0] else None,
                        delta_color="inverse")
            if key == HEADLINE_METRICS[0] and diff is not None:
                st.caption(f"{paired_verdict(diff, h.mean(h.baseline), policy_label(h.baseline))}, "
                           f"paired seed by seed ({METHOD_NAMES[diff.method]}).",
                           help=glossary_line("paired difference"))
                if policy == h.agent:
                    verdict = paired_verdict(h.agent_vs_best, h.mean(h.best), policy_label(h.best))
                    st.caption(f"{verdict[:1].upper()}{verdict[1:]} "
                               f"({METHOD_NAMES[h.agent_vs_best.method]}).")


def _live_check(h: Headline, polling: bool) -> None:
    """The headline's runs again, on the background worker: progress, then whether they give the
    shipped numbers."""
    text = preset_yaml(h.scenario)
    policies = [p for p in h.policies if p != h.agent or p in available_policies()]
    bg = background_runs()
    done = sum(bg.submit(text, p, s).done() for p in policies for s in h.seeds)
    total = len(policies) * len(h.seeds)
    if done < total:
        st.progress(done / total, text=f"Recomputing live: {done} of {total} runs done in the "
                                       "background; the shipped numbers stay above meanwhile.")
        return
    try:
        live = comparison_from_results(h.scenario, *(bg.results(text, p, h.seeds) for p in policies))
    except GpuschedError as exc:
        st.error(f"The live runs could not finish: {exc}", icon=":material/error:")
        return
    wrong = shipped_mismatches(h.comparison, live)
    if not wrong:
        st.success(f"Recomputed live: the {total} runs give exactly the shipped numbers.",
                   icon=":material/check_circle:")
    else:
        st.warning(f"Recomputed live: {len(wrong)} number(s) differ from the shipped results, e.g. "
                   f"{policy_label(wrong[0][0])} on seed {wrong[0][1]}: {wrong[0][2]} "
                   f"{wrong[0][4]:,.2f} live against {wrong[0][3]:,.2f} shipped.", icon=":material/warning:")
    if polling:
        st.rerun(scope="app")  # everything is in: redraw once and stop polling


def _headline() -> None:
    h = cached_headline()
    text = preset_yaml(h.scenario)
    scenario = parse_scenario(text)
    st.subheader(f"Headline: `{h.scenario}`, mean of {seed_range(h.seeds)}")
    st.caption(f"{scenario_line(scenario)}. The scheduler may start any of the {scenario.window} oldest "
               "waiting jobs, and a job runs slower on a slower GPU. The stall above is on "
               "`phase1-8gpu`, where jobs start strictly in arrival order.",
               help=f"{glossary_line('queue window')} {glossary_line('seed')}")
    st.markdown(headline_markdown(h), help=glossary_line("paired difference"))
    roles = {h.baseline: "jobs start in arrival order, each on the first GPU with room",
             h.best: f"the best of the {len(h.shipped.heuristics)} fixed rules measured here, by "
                     "time to result",
             h.agent: "the trained agent, taking its first choice at every step"}
    terms = {h.baseline: "strict queue (FIFO)", h.best: "heuristic", h.agent: "greedy (no search)"}
    cols = st.columns(len(h.policies))
    for col, p in zip(cols, h.policies, strict=True):
        _card(col, h, p, roles[p], terms[p])
    show_chart(_headline_figure(h), key="home_bars")

    if recompute_button("These numbers are the shipped results", SHIPPED_SOURCE,
                        "benchmarks/window_agent_table.py", "home_recompute", ", in the background"):
        st.session_state[LIVE_KEY] = True
    if st.session_state.get(LIVE_KEY):
        bg = background_runs()
        pending = not all(bg.ready(text, p, h.seeds) for p in h.policies
                          if p != h.agent or p in available_policies())
        st.fragment(_live_check, run_every=POLL_S if pending else None)(h, pending)


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
    with st.container(border=True):
        text_col, button_col = st.columns([3, 1], vertical_alignment="center")
        text_col.markdown("**See it happen.** One run of Least-Loaded minute by minute: the queue "
                          "growing while GPUs sit idle, and every job it sent to a GPU where it did "
                          "not fit, with why.", help=glossary_line("stall"))
        if button_col.button("Show me the stall", type="primary", key="show_stall",
                             width="stretch", icon=":material/traffic:"):
            st.session_state["stall_demo"] = True
            st.switch_page("views/stalls.py")
    st.markdown(stall_blurb(cached_conditions_findings(None, "least_loaded")),
                help=f"{glossary_line('stall')} {glossary_line('misroute')} {glossary_line('head job')}")
    with st.expander("What the words on these pages mean (glossary)", icon=":material/menu_book:"):
        st.markdown(glossary_markdown())
        st.caption(f"The same glossary, with more words, is in the repository at `{GLOSSARY_DOC}`.")

    _headline()

    st.markdown("#### Explore")
    links = st.columns(5)
    links[0].page_link("views/cluster.py", label="Cluster & workload", icon=":material/dns:")
    links[1].page_link("views/replay.py", label="Replay a run", icon=":material/play_circle:")
    links[2].page_link("views/compare.py", label="Compare policies", icon=":material/bar_chart:")
    links[3].page_link("views/stalls.py", label="Least-Loaded stalls", icon=":material/traffic:")
    links[4].page_link("views/agent.py", label="Agent models", icon=":material/smart_toy:")
    # Start the background worker once the page is drawn: the agent's runs on the other pages
    # (Stalls, Replay, Compare live) then find torch and the model loaded, not their first visit.
    background_runs()


main()
