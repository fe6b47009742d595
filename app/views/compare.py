"""Compare: the shipped results at once (the headline by default), or the chosen policies run
live over N seeds on the current scenario."""

import streamlit as st
from shared import (
    background_ready,
    best_heuristic_now,
    cached_compare,
    cached_compare_figures,
    cached_failure_bars,
    cached_fairness_bars,
    cached_headline,
    cached_lost_work_story,
    cached_scorecard,
    cached_side_by_side,
    current_scenario,
    headline_markdown,
    is_slow,
    metric_columns,
    page_header,
    policy_options,
    scenario_badge,
    show_chart,
    show_results,
    url_value,
)

from gpusched.agent import AGENT_POLICY
from gpusched.core.metrics import METRIC_KEYS
from gpusched.dashboard.headline import SHIPPED_SOURCE, shipped_defaults, shipped_results
from gpusched.dashboard.policies import policy_help
from gpusched.dashboard.url_state import UrlChoice
from gpusched.dashboard.words import has_failures
from gpusched.errors import GpuschedError
from gpusched.experiment.scorecard import scorecard
from gpusched.figures import OCCUPANCY_NOTE, forest_figure, metric_bars_figure, results_table, scorecard_table
from gpusched.figures.compare import (
    BAR_METRICS,
    FOREST_METRICS,
    forest_panels,
    gini_beside_wait,
    moved_jobs,
    results_sections,
    wide_interval_note,
)
from gpusched.figures.headline import seed_range
from gpusched.figures.same_jobs import identity_notes
from gpusched.policies import policy_label
from gpusched.words.glossary import glossary_line
from gpusched.words.metric_names import metric_title

DEFAULT_POLICIES = ["first_fit", "least_loaded", "least_loaded_fit", "best_fit", AGENT_POLICY]
MAX_SEEDS = 20
DEFAULT_SEEDS = 3
SOURCES = {"shipped": "Shipped results (shown at once)", "live": "Run live on the current scenario"}


@st.cache_resource(show_spinner=False, max_entries=16)
def _shipped_figures(name: str, policies: tuple[str, ...], baseline: str):
    """The shipped runs of ``policies`` on preset ``name``: bars, results table, scorecard, forest."""
    shipped = shipped_results()[name]
    comparison = shipped.subset(policies)
    metrics = gini_beside_wait(shipped.metrics)
    card = scorecard(comparison, baseline, metrics) if len(policies) > 1 else None
    return (metric_bars_figure(comparison, metrics), results_table(comparison, metrics),
            card, None if card is None else forest_figure(card, metrics))


def _paired_table(card, metrics=None) -> None:
    """The paired table of the metrics the forest plot above draws (``metrics``: those it was
    asked for), naming the ones it leaves out."""
    drawn, flat = forest_panels(card, metrics)
    if flat:
        st.caption("Left out, as in the chart: " + ", ".join(metric_title(m) for m in flat)
                   + " — every policy equals the baseline on every seed.")
    shown = card[card["metric"].isin(drawn)]
    st.dataframe(scorecard_table(shown), width="stretch", hide_index=True, column_config={
        "difference [95 % interval]": st.column_config.Column(help=glossary_line("paired difference")),
        "interval": st.column_config.Column(
            width=75,
            help=f"t interval: {glossary_line('t interval')} Bootstrap: {glossary_line('bootstrap')}"),
        "won / tied / lost": st.column_config.Column(width=95),
        "metric": st.column_config.Column(width=150),  # Gini's long title wraps in its cell
        "policy": st.column_config.Column(width=120)})


def _shipped_view() -> None:
    """The shipped results of one preset, with the headline on its scenario by default."""
    h = cached_headline()
    shipped_all = shipped_results()
    names = list(shipped_all)
    c1, c2 = st.columns([1, 3])
    name = c1.selectbox("Preset", names, key="compare_shipped_scenario",
                        index=names.index(url_value(UrlChoice("scenario", h.scenario, names),
                                                    "compare_shipped_scenario")),
                        help="The presets the shipped benchmark measured.")
    shipped = shipped_all[name]
    defaults = list(h.policies) if name == h.scenario else shipped_defaults(shipped)
    policies = c2.multiselect("Policies", shipped.policies, format_func=policy_label,
                              default=url_value(UrlChoice("policy", defaults, shipped.policies, many=True),
                                                "compare_shipped_policies"),
                              key="compare_shipped_policies")
    st.caption(f"`{name}`, {seed_range(shipped.seeds)}: measured by `benchmarks/window_agent_table.py` "
               f"into `{SHIPPED_SOURCE}` and checked by a test that runs them again. The best "
               f"heuristic there is {policy_label(shipped.best)}, by time to result.")
    if name == h.scenario:
        st.markdown(headline_markdown(h), help=glossary_line("paired difference"))
    if not policies:
        st.info("Choose at least one policy.")
        return
    base_default = h.baseline if h.baseline in policies else policies[0]
    baseline = (st.selectbox("Baseline", policies, index=policies.index(base_default),
                             format_func=policy_label, key="compare_shipped_baseline")
                if len(policies) > 1 else policies[0])
    bars, table, card, forest = _shipped_figures(name, tuple(policies), baseline)
    show_chart(bars, key="compare_shipped_bars")
    st.markdown("##### Results (mean ± std over seeds)")
    st.dataframe(table, width="stretch", column_config=metric_columns(table.columns, width=88))
    if card is not None:
        st.markdown(f"##### Paired against {policy_label(baseline)} (the same jobs, seed by seed)")
        show_chart(forest, key="compare_shipped_forest")
        _paired_table(card, gini_beside_wait(shipped.metrics))
    st.caption("The shipped results keep a few numbers per run; the wait-time distribution, the "
               "occupancy over time and the replay need the runs themselves: choose *Run live*.")


def main() -> None:
    page_header("Compare policies",
                "Every chosen policy on exactly the same jobs over N seeds: means with error "
                "bars, paired differences, and, run live, wait-time CDFs, utilisation over time "
                "and a synchronised replay.")
    source = st.radio("Numbers from", list(SOURCES), format_func=SOURCES.get, horizontal=True,
                      index=list(SOURCES).index(url_value(UrlChoice("view", "shipped", list(SOURCES)),
                                                          "compare_source")),
                      key="compare_source")
    if source == "shipped":
        _shipped_view()
    else:
        _live_view()


def _live_view() -> None:
    scenario = current_scenario()
    scenario_badge(scenario)
    text = scenario.to_yaml()
    try:
        with st.spinner("Finding the best heuristic on this scenario…"):
            found = best_heuristic_now(text)
    except GpuschedError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    best = None if found is None else found[0]
    options = list(dict.fromkeys([*policy_options(), *([best] if best else [])]))
    defaults = list(dict.fromkeys(p for p in [*DEFAULT_POLICIES, best] if p in options))
    c1, c2 = st.columns([4, 1])
    if found is None:
        about = "The best heuristic on this scenario joins these once it is measured. "
    else:
        where = (f"in the shipped results of this preset ({seed_range(found[1])})" if found[2]
                 else f"of the queue-aware heuristics run here on {seed_range(found[1])}")
        about = f"{policy_label(best)} is the best heuristic {where}, by time to result (mean JCT). "
    policies = c1.multiselect("Policies", options,
                              default=url_value(UrlChoice("policy", defaults, options, many=True),
                                                "compare_policies"),
                              help=about + policy_help(*st.session_state.get("compare_policies", defaults)),
                              format_func=policy_label, key="compare_policies")
    n_seeds = int(c2.number_input("Seeds", min_value=1, max_value=MAX_SEEDS, step=1,
                                  value=url_value(UrlChoice("seeds", DEFAULT_SEEDS, low=1, high=MAX_SEEDS),
                                                  "compare_seeds"),
                                  key="compare_seeds",
                                  help=f"Workload seeds 0 … N−1. {glossary_line('seed')} Three give "
                                       "quick but wide intervals; the paired differences below are "
                                       "sharper on the same seeds."))
    if not policies:
        st.info("Choose at least one policy.")
        return
    seeds = tuple(range(n_seeds))
    if not background_ready(text, policies, seeds):
        policies = [p for p in policies if not is_slow(p)]
        if not policies:
            return
    try:
        with st.spinner(f"Running {len(policies) * n_seeds} simulations…"):
            comparison = cached_compare(text, tuple(policies), seeds)
    except GpuschedError as exc:
        st.error(str(exc), icon=":material/error:")
        return

    _, seed_col = st.columns([4, 1])
    seed = seed_col.selectbox("Seed of the utilisation curve", seeds, key="compare_util_seed")
    bars, cdf, util = cached_compare_figures(text, tuple(policies), seeds, seed)
    wide = wide_interval_note(comparison, BAR_METRICS)
    if wide:
        st.info(wide, icon=":material/info:")
    show_chart(bars, key="compare_bars")
    st.caption(OCCUPANCY_NOTE)
    left, right = st.columns(2)
    with left:
        show_chart(cdf, key="compare_cdf")
    with right:
        show_chart(util, key="compare_util")
    st.markdown("##### Fairness")
    st.caption(glossary_line("finish-time fairness (ρ)") + " " + glossary_line("Jain's index") + " "
               + glossary_line("GPU-type change"))
    show_chart(cached_fairness_bars(text, tuple(policies), seeds), key="compare_fairness_bars")
    failure_bars = cached_failure_bars(text, tuple(policies), seeds)
    if failure_bars is not None:
        moved = moved_jobs(comparison)
        st.markdown("##### Failures, preemption and moves" if moved else "##### Failures and preemption")
        st.caption("Goodput is the share of the GPU-hours jobs held that did useful work: neither thrown "
                   "away by a node failure (progress since the last checkpoint) nor spent restoring "
                   "after a stop." + (" A move stops a running job and restarts it on faster GPUs "
                                      "(its restore counts as time spent restoring)." if moved else ""))
        show_chart(failure_bars, key="compare_failure_bars")
        if has_failures(scenario):
            with st.container(key="compare-lost-work", border=True):
                st.markdown("\n".join(f"- {line}" for line in
                                       cached_lost_work_story(text, tuple(policies), seeds)))

    st.markdown("##### Results (mean ± std over seeds)" if n_seeds > 1 else "##### Results (one seed)")
    show_results(results_sections(comparison), key="compare_results")
    for note in identity_notes(comparison, scenario.window):
        st.caption(note)
    st.download_button("Download every run (CSV)",
                       comparison.runs[["policy", "seed", *METRIC_KEYS]].to_csv(index=False),
                       icon=":material/download:", file_name=f"compare-{scenario.name}.csv", mime="text/csv",
                       key="compare_csv")

    if len(policies) > 1 and n_seeds > 1:
        st.markdown("##### Paired against a baseline (the same jobs, seed by seed)")
        base_default = "first_fit" if "first_fit" in policies else policies[0]
        baseline = st.selectbox("Baseline", policies, index=policies.index(base_default),
                                format_func=policy_label, key="compare_baseline",
                                help="Each metric's per-seed difference against this policy: its mean "
                                     "with a 95 % interval, and the seeds won, tied and lost.")
        card, forest = cached_scorecard(text, tuple(policies), seeds, baseline)
        show_chart(forest, key="compare_forest")
        _paired_table(card, FOREST_METRICS)

    st.markdown("##### Side by side, on the same jobs")
    a_col, b_col, s_col = st.columns([2, 2, 1])
    a = a_col.selectbox("Left", policies, index=policies.index("least_loaded")
                        if "least_loaded" in policies else 0, format_func=policy_label,
                        key="sbs_a")
    b_default = next((p for p in policies if p != a), a)
    b = b_col.selectbox("Right", policies, index=policies.index(b_default),
                        format_func=policy_label, key="sbs_b")
    sbs_seed = s_col.selectbox("Seed", seeds, key="sbs_seed")
    with st.spinner("Building the synchronised replay…"):
        show_chart(cached_side_by_side(text, a, b, sbs_seed), key="compare_sbs")


main()
