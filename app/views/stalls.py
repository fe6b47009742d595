"""Least-Loaded stalls: when and why a policy holds jobs that could run, and where it happens."""

import streamlit as st
from shared import (
    background_ready,
    background_runs,
    cached_conditions_figures,
    cached_conditions_findings,
    cached_run,
    cached_stall,
    cached_stall_figure,
    current_scenario,
    metric_card,
    open_replay_at,
    page_header,
    parse_scenario,
    policy_options,
    preset_yaml,
    run_family,
    shipped_family,
    show_chart,
    show_results,
    url_value,
)

from gpusched.agent import AGENT_POLICY
from gpusched.dashboard.deltas import metric_delta
from gpusched.dashboard.policies import policy_help
from gpusched.dashboard.story import STORY_SCENARIO
from gpusched.dashboard.url_state import UrlChoice
from gpusched.errors import GpuschedError
from gpusched.experiment.runner import comparison_from_results
from gpusched.experiment.stall import NO_FIT_CHECK_VARIANTS, REFERENCE_POLICY
from gpusched.figures import (
    conditions_summary,
    control_note,
    control_table,
    findings_table,
    stall_explanation,
)
from gpusched.figures.compare import results_sections
from gpusched.policies import policy_label
from gpusched.words.metric_names import format_metric, metric_help, metric_title

STALLING = "least_loaded"
CONTRAST = ["least_loaded_fit", "first_fit"]
SCENARIOS = [STORY_SCENARIO, "ll-stall-mini", "phase1-4gpu", "hetero-bigfirst-16gpu",
             "hetero-biglast-16gpu", "small-nodes-16gpu", "fleet-16gpu-failures"]
# The homogeneous controls: the same job mix on identical A100-80GB GPUs.
CONTROLS = {"one node": "homogeneous-8gpu", "two nodes": "homogeneous-16gpu"}
CURRENT = "current scenario"
# Session-state key of the user's own family on the conditions map: (scenario YAML, rows).
FAMILY_KEY = "stall_family_rows"
# Session-state key of the last scenario chosen that is not a control (the toggle's way back).
LAST_KEY = "stall_last_scenario"


def _apply_demo() -> None:
    """Load the demo that Home's "Show me the stall" asks for."""
    if st.session_state.pop("stall_demo", False):
        st.session_state["stall_scenario"] = SCENARIOS[0]
        st.session_state["stall_control"] = False
        st.session_state["stall_seed"] = 0
        st.session_state["stall_policy"] = STALLING


def _scenario_chosen() -> None:
    """The Scenario box changed: a control there turns the control on, anything else off."""
    source = st.session_state["stall_scenario"]
    kind = next((k for k, v in CONTROLS.items() if v == source), None)
    st.session_state["stall_control"] = kind is not None
    if kind is not None:
        st.session_state["stall_control_kind"] = kind
    else:
        st.session_state[LAST_KEY] = source


def _control_toggled() -> None:
    """The control toggle or its kind changed: the Scenario box names the cluster analysed."""
    if st.session_state.get("stall_control"):
        kind = st.session_state.get("stall_control_kind") or next(iter(CONTROLS))
        st.session_state["stall_scenario"] = CONTROLS[kind]
    else:
        st.session_state["stall_scenario"] = st.session_state.get(LAST_KEY, SCENARIOS[0])


def _scenario_label(source: str) -> str:
    kind = next((k for k, v in CONTROLS.items() if v == source), None)
    return f"{source} (control)" if kind else source


def _explorer() -> tuple[str, str]:
    """The stall explorer; returns the name and YAML of the scenario it analysed."""
    c1, c2, c3, c4 = st.columns([3, 2, 1, 3])
    sources = SCENARIOS + list(CONTROLS.values()) + [CURRENT]
    # Each widget's value is set here, from the address or a control, not also as its default.
    st.session_state["stall_scenario"] = url_value(UrlChoice("scenario", SCENARIOS[0], sources),
                                                   "stall_scenario")
    source = c1.selectbox("Scenario", sources, key="stall_scenario", on_change=_scenario_chosen,
                          format_func=_scenario_label,
                          help="Heterogeneous presets, the homogeneous controls (the same jobs on "
                               "identical A100-80GB GPUs: one node, or two), or the scenario of "
                               "Cluster & workload.")
    options = list(dict.fromkeys([STALLING, *NO_FIT_CHECK_VARIANTS, *policy_options()]))
    st.session_state["stall_policy"] = url_value(UrlChoice("policy", STALLING, options), "stall_policy")
    analysed = c2.selectbox("Policy to analyse", options, format_func=policy_label, key="stall_policy",
                            help="Any policy: a stall for one that checks no fit, blocking for one "
                                 "that does. "
                                 + policy_help(st.session_state.get("stall_policy", STALLING)))
    st.session_state["stall_seed"] = url_value(UrlChoice("seed", 0, high=10_000), "stall_seed")
    seed = int(c3.number_input("Workload seed", min_value=0, max_value=10_000, step=1, key="stall_seed"))
    control = c4.toggle("Control: a homogeneous cluster", key="stall_control",
                        on_change=_control_toggled,
                        help="The same job mix on identical A100-80GB GPUs: one node, or two.")
    if control:
        kind = c4.radio("Control", list(CONTROLS), horizontal=True, key="stall_control_kind",
                        format_func=lambda k: f"{k} (`{CONTROLS[k]}`)", label_visibility="collapsed",
                        on_change=_control_toggled)
        name, text = CONTROLS[kind], preset_yaml(CONTROLS[kind])
    elif source == CURRENT:
        scenario = current_scenario()
        name, text = scenario.name, scenario.to_yaml()
    else:
        name, text = source, preset_yaml(source)

    baseline = REFERENCE_POLICY if analysed != REFERENCE_POLICY else STALLING
    policies = list(dict.fromkeys([analysed, *CONTRAST, baseline]))
    if AGENT_POLICY in policy_options():
        ready = background_ready(text, [AGENT_POLICY], [seed])
        for control in CONTROLS.values():  # queued after this run: ready when a control is turned on
            background_runs().submit(preset_yaml(control), AGENT_POLICY, seed)
        if ready:
            policies.append(AGENT_POLICY)
    try:
        with st.spinner(f"Running {len(policies)} policies on `{name}`…"):
            runs = {p: cached_run(text, p, seed) for p in policies}
            report, _ = cached_stall(text, analysed, seed)
            figure = cached_stall_figure(text, tuple(policies), seed, analysed, baseline)
    except GpuschedError as exc:
        st.error(str(exc), icon=":material/error:")
        return name, text

    base = runs[baseline]
    cols = [*st.columns(3), *st.columns(3)[:2]]  # five cards, in two rows that fit at 1,280 px
    metric_card(cols[0], "stall_min", report.stall_min)
    metric_card(cols[1], "blocked_min", report.blocked_min)
    cols[2].metric(metric_title("misroutes"), format_metric("misroutes", len(report.misroutes)),
                   help=f"{metric_help('misroutes')} By cause: "
                        + ", ".join(f"{c} {n:,}" for c, n in report.causes.items()) + ".")
    metric_card(cols[3], "idle_gpu_min_stalled", report.idle_gpu_min)
    metric_card(cols[4], "avg_wait_min", report.avg_wait_min,
                metric_delta("avg_wait_min", report.avg_wait_min - base.metrics["avg_wait_min"],
                             against=policy_label(baseline), decimals=0))

    with st.container(key="stall-explanation", border=True):
        st.markdown(stall_explanation(report, baseline=base))
        if report.has_stall and st.button(
                f"Watch it minute by minute in Replay, from the first stall "
                f"(minute {report.intervals['start_min'].iloc[0]:,.0f})",
                key="stall_to_replay", icon=":material/play_circle:", type="primary",
                help=f"Replay opens on this run ({policy_label(analysed)}, `{name}`, seed {seed}) at its "
                     "first stall, with every stall and misroute marked; `" + name + "` becomes the "
                     "scenario of every page."):
            open_replay_at(text, analysed, seed, float(report.intervals["start_min"].iloc[0]))
    with st.container(key="stall-chart" if report.has_stall else "no-stall-chart"):
        show_chart(figure, key="stall_fig")

    if control:
        _controls_measured(seed, analysed, baseline)
        findings = (cached_conditions_findings(None, analysed)
                    if analysed in NO_FIT_CHECK_VARIANTS and baseline == REFERENCE_POLICY else [])
        finding = next((f for f in findings if f.family == name), None)
        st.markdown(control_note(report, base, finding))

    st.markdown("##### Same jobs, every policy")
    same_jobs = comparison_from_results(name, {(p, seed): r for p, r in runs.items()})
    show_results(results_sections(same_jobs), key="stall_results")
    if len(report.misroutes):
        with st.expander(f"All {len(report.misroutes):,} misroutes (job, the GPU it was sent to, why)"):
            st.dataframe(report.misroutes.drop(columns="gpu"), width="stretch", hide_index=True,
                         column_config={
                             "time_min": st.column_config.NumberColumn("time (min)", format="%.1f"),
                             "gpu_label": "GPU", "gpu_vram_gb": "GPU VRAM (GB)",
                             "job_vram_gb": "job VRAM per GPU (GB)", "job_gpus": "job GPUs"})
    return name, text


def _controls_measured(seed: int, analysed: str, baseline: str) -> None:
    """What each homogeneous control measured on this seed, side by side (against ``baseline``)."""
    reports, baselines = [], []
    for control in CONTROLS.values():
        text = preset_yaml(control)
        reports.append(cached_stall(text, analysed, seed)[0])
        baselines.append(cached_run(text, baseline, seed))
    st.markdown("##### What the controls measured (this seed)")
    st.dataframe(control_table(reports, baselines), width="stretch", hide_index=True,
                 column_config={"measure": st.column_config.Column("measure", width="large")})


def _where_it_happens(name: str, text: str) -> None:
    """The conditions map, and a button that adds the scenario analysed above (``name``, its
    YAML ``text``) as one more family, unless the map already holds that very cluster."""
    st.subheader("Where it happens")
    st.caption("Cluster families × offered load (the compute the jobs ask for, as a fraction of the "
               "cluster's) × policies × seeds, every policy on the same jobs "
               "(`assets/sweeps/stall-conditions.yaml`). Add the scenario above as one more family.")
    family = st.session_state.get(FAMILY_KEY)
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    variant = c1.radio("Least-Loaded variant of the summary", NO_FIT_CHECK_VARIANTS, horizontal=True,
                       format_func=policy_label, key="stall_map_variant")
    on_map = shipped_family(name, text)
    added = family is not None and family[0] == text
    if c2.button(f"Add `{name}` as a family", key="stall_add_family", icon=":material/add_circle:",
                 width="stretch", disabled=on_map or added,
                 help=(f"`{name}` is already a family of the map." if on_map else
                       f"`{name}` is already added." if added else
                       "Runs the map's loads, policies and seeds on this cluster (takes seconds).")):
        try:
            rows = run_family(parse_scenario(text))
        except GpuschedError as exc:
            st.error(f"`{name}` could not be added: {exc}", icon=":material/error:")
        else:
            rows["scenario"] = f"{name} (yours)"
            st.session_state[FAMILY_KEY] = (text, rows)
            st.rerun()  # draw the button as added
    key, extra = family if family is not None else (None, None)
    try:
        findings = cached_conditions_findings(key, variant, _extra=extra)
        heatmap, causes = cached_conditions_figures(key, _extra=extra)
    except GpuschedError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    with st.container(key="conditions-summary", border=True):
        st.markdown("\n".join(f"- {line}" for line in conditions_summary(findings, variant=variant)))
    show_chart(heatmap, key="conditions_heatmap")
    show_chart(causes, key="conditions_causes")
    st.dataframe(findings_table(findings), width="stretch", hide_index=True)


def main() -> None:
    _apply_demo()
    page_header("Least-Loaded stalls",
                "Queue length, stall and blocked intervals, misroutes and idle GPUs on one time axis "
                "for any policy, and a map of where the stall happens.")
    name, text = _explorer()
    _where_it_happens(name, text)


main()
