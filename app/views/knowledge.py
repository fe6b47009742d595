"""What the scheduler knows: the same jobs when the scheduler is told each job's run time exactly,
with an error, not at all, or predicts it from history, and what not knowing costs each rule."""

import streamlit as st
from shared import page_header, show_chart, url_value

from gpusched.dashboard.knowledge import (
    FEW_SEEDS,
    KNOWLEDGE_PRESETS,
    LIVE_POLICIES,
    LIVE_SEEDS,
    MAX_LIVE_SEEDS,
    METRIC,
    LiveKnowledge,
    agent_among,
    cost_frame,
    means_frame,
    refused_rules,
)
from gpusched.dashboard.policies import policy_help
from gpusched.dashboard.url_state import UrlChoice
from gpusched.experiment.knowledge import KnowledgeTable, shipped_knowledge
from gpusched.figures.headline import seed_range
from gpusched.figures.knowledge import (
    REFUSED,
    SETTING_NOTES,
    cost_of_not_knowing_figure,
    cost_table,
    knowledge_means_figure,
    knowledge_table,
    setting_word,
)
from gpusched.policies import policy_label
from gpusched.words.glossary import glossary_line

LIVE_KEY = "knowledge_live"  # session state: the live comparison the visitor started
POLL_S = 1.0  # how often a live comparison's progress is read (seconds)


@st.cache_resource(show_spinner=False, max_entries=8)
def _shipped(name: str) -> KnowledgeTable | None:
    return shipped_knowledge(name)


@st.cache_resource(show_spinner=False, max_entries=16)
def _figures(key: str, _table: KnowledgeTable):
    """Figures and tables of one knowledge table (``key`` names it: shipped or live, and which)."""
    means, cost = means_frame(_table), cost_frame(_table)
    n_seeds = len(_table.seeds)
    return (knowledge_means_figure(means, METRIC, n_seeds), knowledge_table(means, METRIC),
            cost_of_not_knowing_figure(cost, METRIC), cost_table(cost, METRIC))


def _settings_caption() -> None:
    st.caption(" · ".join(f"**{setting_word(s).capitalize()}**: {note}" for s, note in SETTING_NOTES.items()),
               help=glossary_line("declared run time"))


def _show(key: str, table: KnowledgeTable, where: str) -> None:
    """One knowledge table: the means by setting, then the cost of not knowing."""
    means_fig, means_tab, cost_fig, cost_tab = _figures(key, table)
    st.markdown(f"##### Time to result by what the scheduler is told · `{table.scenario}`, "
                f"{seed_range(table.seeds)}")
    st.caption(where)
    show_chart(means_fig, key=f"knowledge_means_{key}")
    st.dataframe(means_tab, width="stretch",
                 column_config={c: st.column_config.Column(help=SETTING_NOTES.get(s))
                                for s, c in ((s, setting_word(s)) for s in table.settings)})
    refused = refused_rules(table)
    if refused and "none" in table.settings:
        st.caption(f"“{REFUSED}”: {', '.join(policy_label(p) for p in refused)} order or place "
                   "jobs by their run times, so with none declared they cannot run.")
    st.markdown("##### What not knowing costs each rule")
    st.caption("Each rule's time to result when not told exactly, minus its time to result when "
               "told exactly, on the same jobs, seed by seed: above 0, not knowing costs it that "
               "many minutes on average." + ("" if agent_among(table) else
                                              " The agent is not among these rules."),
               help=glossary_line("paired difference"))
    show_chart(cost_fig, key=f"knowledge_cost_{key}")
    st.dataframe(cost_tab, width="stretch", hide_index=True, column_config={
        "interval": st.column_config.Column(
            help=f"t interval: {glossary_line('t interval')} Bootstrap: {glossary_line('bootstrap')}")})


def _live(name: str) -> None:
    """Run live: a few seeds of the chosen preset in the background, with progress."""
    c1, c2 = st.columns([4, 1])
    rules = [*dict.fromkeys([*LIVE_POLICIES, *_offered(name)])]
    policies = c1.multiselect("Rules", rules, format_func=policy_label, key="knowledge_policies",
                              default=url_value(UrlChoice("policy", list(LIVE_POLICIES), rules, many=True),
                                                "knowledge_policies"),
                              help=policy_help(*st.session_state.get("knowledge_policies", LIVE_POLICIES)))
    n_seeds = int(c2.number_input("Seeds", min_value=1, max_value=MAX_LIVE_SEEDS, step=1,
                                  value=url_value(UrlChoice("seeds", len(LIVE_SEEDS), low=1,
                                                            high=MAX_LIVE_SEEDS), "knowledge_seeds"),
                                  key="knowledge_seeds",
                                  help=f"Workload seeds 0 … N−1. {glossary_line('seed')} Fewer than "
                                       f"{FEW_SEEDS} give intervals too wide to tell rules apart."))
    if n_seeds < FEW_SEEDS:
        st.caption(f"On {n_seeds} seed{'s' if n_seeds > 1 else ''}, a 95 % interval is wide (on two, "
                   "it runs from 0 to about twice the mean): the means alone are shown for one seed, "
                   "and the shipped comparison above has ten.")
    job: LiveKnowledge | None = st.session_state.get(LIVE_KEY)
    if st.button("Run live", key="knowledge_run", icon=":material/play_arrow:", disabled=not policies,
                 help="Runs every chosen rule under each of the four settings on this preset, in "
                      "the background; the shipped numbers stay on the page meanwhile."):
        job = LiveKnowledge(name, tuple(policies), tuple(range(n_seeds))).start()
        st.session_state[LIVE_KEY] = job
    if job is None or job.scenario != name:
        return
    st.fragment(_poll, run_every=None if job.finished else POLL_S)(job)


def _poll(job: LiveKnowledge) -> None:
    if job.error is not None:
        st.error(f"The live comparison could not finish: {job.error}", icon=":material/error:")
        return
    if job.table is None:
        st.progress(job.fraction, text=f"Running live on `{job.scenario}`: {job.done} of {job.total} "
                                       "runs done in the background.")
        return
    _show(f"live-{job.scenario}-{'-'.join(job.policies)}-{len(job.seeds)}", job.table,
          f"Run live here on {seed_range(job.seeds)}.")


def _offered(name: str) -> list[str]:
    table = _shipped(name)
    return list(table.policies) if table is not None else []


def main() -> None:
    page_header("What the scheduler knows",
                "The same jobs when the scheduler is told each job's run time exactly, told it with "
                "an error, not told it, or predicts it from the jobs that finished before: what not "
                "knowing costs each rule.")
    _settings_caption()
    opened = url_value(UrlChoice("scenario", KNOWLEDGE_PRESETS[0], KNOWLEDGE_PRESETS), "knowledge_preset")
    name = st.selectbox("Preset", KNOWLEDGE_PRESETS, key="knowledge_preset",
                        index=KNOWLEDGE_PRESETS.index(opened),
                        help="The shipped benchmark's presets (the heavy Gavel load first).")
    table = _shipped(name)
    if table is None:
        st.info(f"No shipped comparison for `{name}`: press **Run live** to measure one here.")
    else:
        _show(f"shipped-{name}", table, f"The shipped comparison ({seed_range(table.seeds)}), "
                                        "measured by `gpusched.experiment.knowledge` and shown without "
                                        "running anything; Run live measures it again here on a few seeds.")
    st.markdown("##### Run live")
    _live(name)


main()
