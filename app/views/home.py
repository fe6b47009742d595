"""Home: one story in one picture. First the stall as it happens (Least-Loaded beside First-Fit on
the same jobs, with their wait and imbalance between GPUs, and a way into Replay at the stall),
then the headline on a bigger cluster, drawn at once from the shipped results and recomputed live
on request; every page linked at the bottom."""

import streamlit as st
from shared import (
    available_policies,
    background_runs,
    beside_time_to_result,
    cached_headline,
    cached_run,
    cached_stall,
    metric_card,
    open_replay_at,
    page_header,
    parse_scenario,
    preset_yaml,
    recompute_button,
    show_chart,
)

from gpusched.agent import AGENT_POLICY
from gpusched.dashboard.cards import scenario_cards
from gpusched.dashboard.deltas import metric_delta
from gpusched.dashboard.headline import HEADLINE_METRICS, SHIPPED_SOURCE, Headline, shipped_mismatches
from gpusched.dashboard.pages import PAGES
from gpusched.dashboard.story import (
    STORY_LABELS,
    STORY_METRICS,
    STORY_REFERENCE,
    STORY_SCENARIO,
    STORY_SEED,
    STORY_STALLING,
    StallStory,
    stall_story,
)
from gpusched.dashboard.words import scenario_line
from gpusched.errors import GpuschedError
from gpusched.experiment.runner import comparison_from_results
from gpusched.figures import metric_bars_figure, policy_color
from gpusched.figures.headline import paired_verdict, plain_headline, seed_range
from gpusched.figures.story import stall_story_figure, story_sentence
from gpusched.policies import policy_label
from gpusched.words.glossary import GLOSSARY_DOC, glossary_line, glossary_markdown

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
    """One rule's card: its name in its colour, its role, and one number per row (each card has
    the column's whole width, so no title or value is cut off at laptop widths)."""
    with col:
        st.markdown(f"<span style='color:{policy_color(policy)};font-weight:700;font-size:1.1rem'>"
                    f"■ {policy_label(policy)}</span>", unsafe_allow_html=True)
        st.caption(role, help=glossary_line(term))
        mean = h.comparison.summary().loc[policy]
        diff = None if policy == h.baseline else h.against(policy, h.baseline)
        for key in _card_metrics(h.scenario):
            delta = (metric_delta(key, diff.mean, percent_of=h.mean(h.baseline))
                     if key == HEADLINE_METRICS[0] and diff is not None else None)
            metric_card(st, key, mean[key], delta)


def _verdicts(h: Headline) -> list[str]:
    """Each rule against arrival order, and the agent against the best rule, in words."""
    out = []
    for policy in h.policies:
        if policy == h.baseline:
            continue
        diff = h.against(policy, h.baseline)
        verdict = paired_verdict(diff, h.mean(h.baseline), policy_label(h.baseline))
        out.append(f"{policy_label(policy)}: {verdict}.")
        if policy == h.agent:
            verdict = paired_verdict(h.agent_vs_best, h.mean(h.best), policy_label(h.best))
            out.append(f"{policy_label(policy)}: {verdict}.")
    return out


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
    st.subheader(f"Second, on a bigger cluster: which job starts next (`{h.scenario}`)")
    st.caption(f"Scenario `{h.scenario}`: {scenario_line(scenario)}. Here the scheduler may start any "
               f"of the {scenario.window} oldest waiting jobs, and a job runs slower on a slower GPU. Every "
               f"rule ran the same workloads, one per seed: {seed_range(h.seeds)}; the numbers are the "
               "means.", help=f"{glossary_line('queue window')} {glossary_line('seed')}")
    st.markdown(plain_headline(policy_label(h.best), len(h.shipped.heuristics), h.mean(h.best),
                               policy_label(h.baseline), h.mean(h.baseline), h.best_vs_baseline),
                help=glossary_line("paired difference"))
    roles = {h.baseline: "jobs start in arrival order, each on the first GPU with room",
             h.best: f"the best of the {len(h.shipped.heuristics)} fixed rules measured here, by "
                     "time to result",
             h.agent: "the trained agent, taking its first choice at every step"}
    terms = {h.baseline: "strict queue (FIFO)", h.best: "heuristic", h.agent: "greedy (no search)"}
    cols = st.columns(len(h.policies), border=True)
    for col, p in zip(cols, h.policies, strict=True):
        _card(col, h, p, roles[p], terms[p])
    for line in _verdicts(h):
        st.caption(line, help=glossary_line("paired difference"))
    show_chart(_headline_figure(h), key="home_bars")

    if recompute_button("These numbers are the shipped results", SHIPPED_SOURCE,
                        "benchmarks/window_agent_table.py", "home_recompute", ", in the background"):
        st.session_state[LIVE_KEY] = True
    if st.session_state.get(LIVE_KEY):
        bg = background_runs()
        pending = not all(bg.ready(text, p, h.seeds) for p in h.policies
                          if p != h.agent or p in available_policies())
        st.fragment(_live_check, run_every=POLL_S if pending else None)(h, pending)


@st.cache_resource(show_spinner=False, max_entries=1)
def _story() -> StallStory:
    """Home's story (:mod:`gpusched.dashboard.story`), on the story's preset."""
    text = preset_yaml(STORY_SCENARIO)
    stalling = cached_run(text, STORY_STALLING, STORY_SEED)
    reference = cached_run(text, STORY_REFERENCE, STORY_SEED)
    return stall_story(stalling, reference, cached_stall(text, STORY_STALLING, STORY_SEED)[0])


@st.cache_resource(show_spinner=False, max_entries=1)
def _story_figure() -> object:
    """The story's picture (:func:`~gpusched.figures.story.stall_story_figure`)."""
    text = preset_yaml(STORY_SCENARIO)
    report, idle_stalling = cached_stall(text, STORY_STALLING, STORY_SEED)
    _, idle_reference = cached_stall(text, STORY_REFERENCE, STORY_SEED)
    return stall_story_figure(cached_run(text, STORY_STALLING, STORY_SEED),
                              cached_run(text, STORY_REFERENCE, STORY_SEED), report, idle_stalling,
                              idle_reference)


def _first_screen() -> None:
    """The stall as it happens, in one sentence and one picture, and the rules' wait and imbalance
    under it. The sentence and the ways in (Replay, the Stalls page) go out before the picture is
    drawn: the browser holds back what arrives with a page's first chart until it has loaded its
    charting library, so text sent with the chart would show only with it."""
    story = _story()
    st.markdown(story_sentence(story),
                help=f"{glossary_line('stall')} {glossary_line('misroute')}")
    buttons = st.columns(2)
    if buttons[0].button("Watch it minute by minute", type="primary", key="show_replay", width="stretch",
                         icon=":material/play_circle:",
                         help="Replay opens on this run at its first stall, stalls and misroutes marked."):
        open_replay_at(preset_yaml(STORY_SCENARIO), story.stalling, story.seed, story.first_stall_min)
    if buttons[1].button("Show me the stall", key="show_stall", width="stretch", icon=":material/traffic:",
                         help="The stall explained: which job, which GPU, why, and where else it happens."):
        st.session_state["stall_demo"] = True
        st.switch_page("views/stalls.py")
    show_chart(_story_figure(), key="home_story")
    scenario = parse_scenario(preset_yaml(STORY_SCENARIO))
    st.caption(f"Scenario `{story.scenario}`: {scenario_line(scenario)}; jobs start strictly in arrival "
               f"order; workload seed {story.seed}.", help=glossary_line("seed"))
    cols = st.columns(2, border=True)
    for col, policy in zip(cols, (story.stalling, story.reference), strict=True):
        with col:
            st.markdown(f"<span style='color:{policy_color(policy)};font-weight:700'>■ "
                        f"{policy_label(policy)}</span>", unsafe_allow_html=True)
            values, other = story.metrics[policy], story.metrics[story.reference]
            for c, key in zip(st.columns(2), STORY_METRICS, strict=True):
                delta = (metric_delta(key, values[key] - other[key], against=policy_label(story.reference))
                         if policy != story.reference else None)
                metric_card(c, key, values[key], delta, label=STORY_LABELS[key])


def main() -> None:
    page_header("gpusched — GPU-cluster scheduling lab",
                "How the order and placement of jobs on shared GPUs changes how soon people get "
                "their results: the same jobs, replayed under different rules.")
    _first_screen()
    st.divider()
    _headline()

    with st.expander("What the words on these pages mean (glossary)", icon=":material/menu_book:"):
        st.markdown(glossary_markdown())
        st.caption(f"The same glossary, with more words, is in the repository at `{GLOSSARY_DOC}`.")
    st.markdown("#### Explore")
    others = [p for p in PAGES if p.name != "home"]
    per_row = 4
    for start in range(0, len(others), per_row):
        for col, p in zip(st.columns(per_row), others[start:start + per_row], strict=False):
            col.page_link(p.file, label=p.title, icon=p.icon, help=p.blurb[:1].upper() + p.blurb[1:] + ".")
    # Start the background worker once the page is drawn: the agent's runs on the other pages
    # (Stalls, Replay, Compare live) then find torch and the model loaded, not their first visit.
    # Its first run is the agent on the story's jobs, which the Stalls page opens on: that page
    # then draws once, with the agent, instead of again when the run is in.
    if AGENT_POLICY in available_policies():
        background_runs().submit(preset_yaml(STORY_SCENARIO), AGENT_POLICY, STORY_SEED)
    else:
        background_runs()


main()
