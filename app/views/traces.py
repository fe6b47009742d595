"""Real traces: the FGD paper's allocation experiment on Alibaba's openb GPU cluster, ours against the
published results, and where the free GPU shares end up; and gpusched against a real cluster
(Shockwave's 32 V100s), from the shipped comparison."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
from shared import page_header, recompute_button, show_chart, url_value
from streamlit.runtime.scriptrunner import add_script_run_ctx

from gpusched.dashboard.real_cluster import (
    REAL_CLUSTER_SOURCE,
    real_cluster_frame,
    real_cluster_jobs,
    real_cluster_summary,
    real_cluster_table,
    shipped_real_cluster,
)
from gpusched.dashboard.traces import TRACES_SOURCE, allocation_mismatches, shipped_allocation
from gpusched.dashboard.url_state import UrlChoice
from gpusched.errors import GpuschedError
from gpusched.fgd.allocation import DEFAULT_TUNE, AllocationRun, run_allocation
from gpusched.fgd.experiment import (
    BUNDLED_POD_LISTS,
    NODE_LIST,
    TraceData,
    estimate_line,
    load_trace,
    measured_seconds,
    pod_list_label,
    run_grid_polled,
    upload_key,
)
from gpusched.fgd.report import comparison_table, curves_frame, gpu_state_table, published_curves
from gpusched.fgd.scoring import POLICY_NAMES
from gpusched.figures.headline import seed_range
from gpusched.figures.real_cluster import real_cluster_bars, real_cluster_scatter
from gpusched.figures.traces import allocation_curves_figure, gpu_heatmap_figure
from gpusched.limits import MAX_TRACE_BYTES
from gpusched.policies import policy_label
from gpusched.words.glossary import glossary_line
from gpusched.words.metric_names import metric_help

UPLOAD = "upload"
DEFAULT_TRACE = "openb_pod_list_default"
DEFAULT_POLICIES = ("fgd_best_fit", "fgd")
PUBLISHED_SEEDS = tuple(range(42, 52))
DEFAULT_SEEDS = (42,)
# The allocation chart opens on arrived loads from here (% of capacity), where the policies part.
ZOOM_FROM_PCT = 70.0
# Session-state key of the request whose results are shown: (trace key, policies, seeds, tune).
REQUEST_KEY = "traces_request"
# Session-state key of the seconds per run measured so far, by policy.
MEASURED_KEY = "traces_measured_s"
# Session-state key of the request whose shipped runs the visitor asked to recompute live.
LIVE_KEY = "traces_live"

Request = tuple[str, tuple[str, ...], tuple[int, ...], float]


@st.cache_resource(show_spinner=False, max_entries=8)
def cached_trace(key: str, _upload: bytes | None = None) -> TraceData:
    """The node list, a pod list and its typical pods, read once (an upload's key holds its digest)."""
    return load_trace(key, _upload)


@st.cache_data(show_spinner=False, max_entries=256)
def cached_allocation(key: str, policy: str, seed: int, tune: float, _upload: bytes | None = None,
                      _progress=None) -> AllocationRun:
    """One run of the allocation experiment, cached on (trace, policy, seed, tune)."""
    trace = cached_trace(key, _upload)
    return run_allocation(trace.nodes, trace.pods, policy, seed, tune=tune, typical=trace.typical,
                          progress=_progress)


@st.cache_resource(show_spinner=False, max_entries=32)
def cached_curves_figure(key: str, policies: tuple[str, ...], seeds: tuple[int, ...], tune: float,
                         metric: str, _runs: list[AllocationRun]) -> go.Figure:
    """Allocation or fragmentation curves of a request, published curves dashed (at tune 1.3 only).
    Figures are shared resources: unpickling one would re-validate all its data on every rerun."""
    published = published_curves(key, policies, metric.removesuffix("_pct")) if tune == DEFAULT_TUNE \
        else None
    return allocation_curves_figure(curves_frame(_runs, key), published, metric=metric,
                                    x_from_pct=ZOOM_FROM_PCT if metric == "alloc_pct" else None)


@st.cache_resource(show_spinner=False, max_entries=32)
def cached_heatmap(key: str, policy: str, seed: int, tune: float, _run: AllocationRun,
                   _trace: TraceData) -> go.Figure:
    """The GPU heatmap at the end of one run."""
    return gpu_heatmap_figure(_run, _trace.nodes)


def _trace_label(key: str) -> str:
    return "upload a pod list (CSV)…" if key == UPLOAD else pod_list_label(key)


def _controls() -> tuple[Request | None, bytes | None]:
    """The widgets; returns the request they describe (``None`` if incomplete) and any upload."""
    c1, c2, c3, c4 = st.columns([3.5, 3, 2, 1.5])
    traces = [*BUNDLED_POD_LISTS, UPLOAD]
    choice = c1.selectbox("Trace (pod list)", traces, format_func=_trace_label, key="traces_trace",
                          index=traces.index(url_value(
                              UrlChoice("trace", DEFAULT_TRACE, list(BUNDLED_POD_LISTS)), "traces_trace")),
                          help=f"Pods scheduled onto the openb cluster (`{NODE_LIST}`: 1,213 nodes, "
                               "6,212 GPUs).")
    policies = c2.multiselect("Policies", POLICY_NAMES, format_func=policy_label, key="traces_policies",
                              default=url_value(UrlChoice("policy", list(DEFAULT_POLICIES), POLICY_NAMES,
                                                          many=True), "traces_policies"))
    seeds = c3.multiselect("Seeds", PUBLISHED_SEEDS, key="traces_seeds",
                           default=url_value(UrlChoice("seed", list(DEFAULT_SEEDS), PUBLISHED_SEEDS,
                                                       many=True), "traces_seeds"),
                           help="Each seed shuffles and tunes the pods differently. The published "
                                f"means are over seeds 42-51. {glossary_line('seed')}")
    tune = c4.number_input("Requests up to (× capacity)", min_value=1.0, max_value=2.0,
                           value=DEFAULT_TUNE, step=0.1, format="%.2f", key="traces_tune",
                           help="Pods arrive until their GPU request reaches this multiple of the "
                                "cluster's GPU capacity (the paper uses 1.3).")
    upload = None
    key = choice
    if choice == UPLOAD:
        file = st.file_uploader("Pod list CSV with the openb columns name, cpu_milli, memory_mib, "
                                "num_gpu, gpu_milli (optional gpu_spec)", type=["csv"],
                                key="traces_upload", max_upload_size=MAX_TRACE_BYTES // (1024 * 1024))
        if file is None:
            return None, None
        upload = file.getvalue()
        key = upload_key(file.name, upload)
        try:
            cached_trace(key, upload)
        except GpuschedError as err:
            st.error(str(err))
            return None, None
    if not policies or not seeds:
        return None, upload
    order = {p: i for i, p in enumerate(POLICY_NAMES)}
    return (key, tuple(sorted(policies, key=order.get)), tuple(sorted(seeds)), round(float(tune), 2)), upload


def _shipped(request: Request) -> list[AllocationRun] | None:
    """The shipped runs of a request when every one of its runs is shipped, else ``None``."""
    key, policies, seeds, tune = request
    runs = [shipped_allocation(key, p, s, tune) for p in policies for s in seeds]
    return None if any(r is None for r in runs) else runs


def _run(request: Request, upload: bytes | None) -> tuple[TraceData, list[AllocationRun]]:
    """Run (or fetch from the cache) every run of a request, with a progress bar."""
    key, policies, seeds, tune = request
    trace = cached_trace(key, upload)
    bar = st.progress(0.0, text=f"Running on {trace.label}…")
    runs = run_grid_polled(
        policies, seeds,
        lambda p, s, step: cached_allocation(key, p, s, tune, _upload=upload, _progress=step),
        progress=lambda frac, text: bar.progress(min(frac, 1.0), text=text),
        prepare_thread=add_script_run_ctx, label=policy_label,
    )
    bar.empty()
    return trace, runs


def _shipped_note(request: Request, shipped: list[AllocationRun], upload: bytes | None) -> None:
    """Where the shown runs come from, and Recompute live: the same runs here, checked against them."""
    if recompute_button(f"These are the shipped runs, {seed_range(request[2])}", TRACES_SOURCE,
                        "benchmarks/traces_shipped.py", "traces_recompute"):
        st.session_state[LIVE_KEY] = request
    if st.session_state.get(LIVE_KEY) != request:
        return
    try:
        _, live = _run(request, upload)
    except GpuschedError as err:
        st.error(f"The live runs could not finish: {err}", icon=":material/error:")
        return
    wrong = allocation_mismatches(shipped, live)
    st.session_state[MEASURED_KEY] = {**st.session_state.get(MEASURED_KEY, {}), **measured_seconds(live)}
    if not wrong:
        st.success(f"Recomputed live: the {len(live)} run(s) give exactly the shipped numbers.",
                   icon=":material/check_circle:")
    else:
        policy, seed, what = wrong[0]
        st.warning(f"Recomputed live: {len(wrong)} result(s) differ from the shipped runs, e.g. "
                   f"{policy_label(policy)} on seed {seed} ({what}).", icon=":material/warning:")


def _results(request: Request, trace: TraceData, runs: list[AllocationRun]) -> None:
    key, policies, seeds, tune = request
    published = trace.published_workload if tune == DEFAULT_TUNE else None
    st.subheader("Allocation against arrived workload")
    st.caption(f"{trace.label} · {len(seeds)} seed(s) · pods arrive until their GPU requests reach "
               f"{tune:g}× the cluster's GPUs. Pods arrive one by one and stay; "
               "a pod that fits nowhere is dropped. Solid: ours (mean over seeds); dashed: the FGD "
               "artifact's published mean over seeds 42-51. The allocation chart opens on "
               f"{ZOOM_FROM_PCT:.0f}-130 % arrived, where the policies part; its autoscale button "
               "shows the whole run.")
    if published is None:
        st.caption("No published curves: they exist for the bundled traces at 1.3× capacity only.")
    tab_alloc, tab_frag = st.tabs(["Allocation ratio", "Fragmentation"])
    with tab_alloc:
        show_chart(cached_curves_figure(key, policies, seeds, tune, "alloc_pct", runs), key="traces_alloc")
    with tab_frag:
        show_chart(cached_curves_figure(key, policies, seeds, tune, "frag_pct", runs), key="traces_frag")

    st.subheader("Ours against published")
    table = comparison_table(runs, published)
    help_at = {c: (st.column_config.NumberColumn(format="%.2f", help=f"{metric_help('alloc_pct')} "
                                                 f"{metric_help('arrived_pct')} (the number after @)")
                   if table[c].dtype.kind == "f" else st.column_config.Column(help=metric_help("alloc_pct")))
               for c in table.columns if "@" in c}
    help_at["failed pods"] = st.column_config.Column(help=metric_help("failed_pods"))
    # one table per point of the curve, so the columns fit the page however many policies run;
    # the seeds are in the caption above and the seconds per run in the estimate beside Run
    shown = table.assign(policy=table["policy"].map(policy_label))
    for at_pct, extra in (("100", []), ("130", ["failed pods"])):
        st.markdown(f"At {at_pct} % of capacity arrived")
        columns = ["policy", *(c for c in table.columns if c.endswith(f"@{at_pct} (%)")
                               or c.endswith(f"@{at_pct} (points)")), *extra]
        st.dataframe(shown[columns], hide_index=True, width="stretch",
                     column_config=help_at)
    st.caption("Allocation ratio (% of the cluster's GPUs) once the arrived GPU request reaches 100 % "
               "and 130 % of capacity. Our shuffle uses numpy's generator, not the artifact's Go one, "
               "so single seeds differ; 10-seed means agree within about ±1 point.")

    st.subheader("GPUs at the end of the run")
    labels = {f"{policy_label(r.policy)} · seed {r.seed}": r for r in runs}
    chosen = st.selectbox("Run", list(labels), key="traces_heatmap_run")
    run = labels[chosen] if chosen in labels else runs[0]
    st.caption("Free share of every GPU once the last pod has arrived. Dark blue: fully allocated; "
               "red to yellow: partly allocated (the fragments); grey: idle.")
    show_chart(cached_heatmap(key, run.policy, run.seed, tune, run, trace), key="traces_heatmap")
    state = gpu_state_table(run.final_rem, trace.nodes)
    st.dataframe(state, hide_index=True, width="stretch", column_config=_two_decimals(state))


def _two_decimals(table) -> dict:
    """Every fractional column of ``table`` shown with two decimals (``93.00`` beside ``95.34``)."""
    return {c: st.column_config.NumberColumn(format="%.2f") for c in table.columns
            if table[c].dtype.kind == "f"}


@st.cache_resource(show_spinner=False, max_entries=1)
def cached_real_cluster_figures() -> tuple[go.Figure, go.Figure] | None:
    """The comparison's bar chart and per-job scatter, drawn once from the shipped file."""
    data = shipped_real_cluster()
    if data is None:
        return None
    return real_cluster_bars(real_cluster_frame(data)), real_cluster_scatter(real_cluster_jobs(data))


def _real_cluster() -> None:
    """gpusched, Shockwave's simulator and the real cluster side by side (shipped, nothing runs)."""
    st.subheader("Against a real cluster: Shockwave's 32 V100s")
    data, figures = shipped_real_cluster(), cached_real_cluster_figures()
    if data is None or figures is None:
        st.info(f"No shipped comparison ({REAL_CLUSTER_SOURCE}): run `python benchmarks/real_cluster.py`.")
        return
    s = real_cluster_summary(data)
    st.markdown(
        f"Every other figure here compares one simulator with another. The Shockwave paper (2023) ran "
        f"a {s.jobs}-job training trace on a **real cluster of 32 V100 GPUs** at the Texas Advanced "
        "Computing Center (8 servers of 4), "
        "handing out GPUs in 2-minute rounds, under several scheduling policies, and ran the same trace "
        "again in its own simulator. gpusched replays that trace on the `shockwave-tacc-32gpu` scenario, "
        "jobs that change their batch size included. A simulator is only worth trusting as far as it "
        "predicts the real cluster: the closer a bar is to the grey one, the better.")
    show_chart(figures[0], key="traces_real_cluster_bars")
    st.caption(f"Average job completion time and makespan for the {len(s.policies)} policies whose "
               "real-cluster results Shockwave shared. Labels: each simulator's error against the real "
               f"cluster. gpusched charges one calibrated cost, {s.restore_s:g} s when a job resumes on "
               "other GPUs (its process restarts and reloads); nothing is fitted per policy or per job."
               + ("" if s.sim_costs is None else
                  " Told the cost Shockwave's simulator charges instead "
                  f"({s.sim_costs.resume_s:g} s to a job back after a round off, nothing to a move), "
                  "gpusched's average JCT is within "
                  f"{s.sim_costs.worst_pct:.1f} % of that simulator's."))
    show_chart(figures[1], key="traces_real_cluster_jobs")
    st.caption("Each point is one job: its completion time in gpusched against the one measured on the "
               "real cluster. On the diagonal they agree; in the shaded band they are within 10 %.")
    table = real_cluster_table(real_cluster_frame(data))
    shown = table.assign(policy=table["policy"].map(policy_label))
    st.dataframe(shown, hide_index=True, width="stretch", column_config={
        c: st.column_config.NumberColumn(format="%.0f") for c in table.columns if table[c].dtype.kind == "f"})
    st.caption("In brackets: the error against the real cluster. Jobs within 10 %: the share of jobs whose "
               f"completion time is within 10 % of the one measured. From the shipped {REAL_CLUSTER_SOURCE} "
               "(`python benchmarks/real_cluster.py`); the "
               "whole comparison, every other round policy and the calibration: "
               "docs/results/real-cluster.md.")


def main() -> None:
    page_header("Real traces",
                "The FGD paper's allocation experiment on Alibaba's openb GPU cluster: how much of the "
                "cluster each policy fills as pods arrive, against the published results; and gpusched "
                "against a real cluster.")
    _allocation_experiment()
    _real_cluster()


def _allocation_experiment() -> None:
    """The openb allocation experiment: controls, shipped or live runs, and their results."""
    wanted, upload = _controls()
    # A link's settings show at once when their runs are shipped; others wait for Run.
    opening = wanted if wanted is not None and _shipped(wanted) is not None else \
        (DEFAULT_TRACE, DEFAULT_POLICIES, DEFAULT_SEEDS, DEFAULT_TUNE)
    shown: Request = st.session_state.get(REQUEST_KEY, opening)
    c1, c2 = st.columns([1, 5], vertical_alignment="center")
    clicked = c1.button("Run", type="primary", key="traces_run", disabled=wanted is None,
                        icon=":material/play_arrow:")
    if wanted is None:
        c2.caption("Choose at least one policy and one seed (and a file, for an upload).")
    elif _shipped(wanted) is not None:
        c2.caption(f"Shipped runs ({seed_range(wanted[2])}): shown at once, without running.")
    else:
        c2.caption(estimate_line(wanted[1], len(wanted[2]), st.session_state.get(MEASURED_KEY)))
    if clicked and wanted is not None:
        shown = wanted
    elif wanted is not None and wanted != shown:
        st.info("The results below are for the previous settings; press **Run** to update them.")
    # The current upload belongs to the shown results only if it is the file they were run on.
    same_file = wanted is not None and wanted[0] == shown[0]
    shipped = _shipped(shown)
    try:
        if shipped is not None:
            trace, runs = cached_trace(shown[0]), shipped
        else:
            trace, runs = _run(shown, upload if same_file else None)
    except GpuschedError as err:
        st.error(str(err))
        return
    st.session_state[REQUEST_KEY] = shown
    if shipped is None:
        st.session_state[MEASURED_KEY] = {**st.session_state.get(MEASURED_KEY, {}),
                                          **measured_seconds(runs)}
    else:
        _shipped_note(shown, shipped, upload if same_file else None)
    _results(shown, trace, runs)


main()
