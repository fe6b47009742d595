"""What every page shares: the chosen scenario in session state, cached runs and figures, and
the page header. Results are cached on (scenario YAML, policy, seed)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from gpusched import Comparison, Result, Scenario, compare, load_scenario, preset_names, run_policy
from gpusched.dashboard.background import BackgroundRuns
from gpusched.dashboard.cards import cards_for, jobs_have_deadlines
from gpusched.dashboard.deltas import MetricDelta
from gpusched.dashboard.headline import (
    BEST_BY,
    LIVE_SEEDS,
    Headline,
    best_heuristic,
    best_of_means,
    headline,
    headline_heuristics,
    shipped_for,
)
from gpusched.dashboard.policies import dashboard_policies
from gpusched.dashboard.url_state import UrlChoice
from gpusched.dashboard.words import failure_line, has_failures, scenario_line
from gpusched.dashboard.workload import workload_panels
from gpusched.errors import GpuschedError
from gpusched.experiment.lost_work import lost_work
from gpusched.experiment.runner import comparison_from_results
from gpusched.experiment.scorecard import scorecard
from gpusched.experiment.stall import (
    FAMILY,
    FamilyFinding,
    IdleSteps,
    StallReport,
    analyse_stall,
    conditions_findings,
    idle_steps,
)
from gpusched.figures import (
    BAR_METRICS,
    arrivals_figure,
    conditions_heatmap_figure,
    duration_figure,
    gantt_figure,
    gpus_figure,
    has_disruptions,
    metric_bars_figure,
    misroute_causes_figure,
    model_speed_figure,
    replay_figure,
    runtime_by_model_figure,
    side_by_side_figure,
    stall_figure,
    util_over_time_figure,
    vram_figure,
    wait_cdf_figure,
)
from gpusched.figures.compare import FAIRNESS_BAR_METRICS, FOREST_METRICS, disruption_metrics, forest_figure
from gpusched.figures.frozen import freeze, is_animated
from gpusched.figures.headline import headline_sentence, seed_range
from gpusched.figures.lost_work import lost_work_story
from gpusched.figures.replay import INTERRUPTED_ANIMATION_SCRIPT
from gpusched.figures.theme import in_theme
from gpusched.figures.workload import compute_figure, job_models_figure, runtime_by_gpu_figure
from gpusched.paths import STALL_CONDITIONS_RESULTS_DIR, STALL_CONDITIONS_SPEC
from gpusched.policies import is_slow, policy_label
from gpusched.sweep.analysis import load_sweep_results
from gpusched.sweep.runner import simulate_grid_rows
from gpusched.sweep.spec import load_sweep
from gpusched.words.metric_names import METRIC_NAMES, format_metric, metric_help, metric_title
from gpusched.workload.scenario_yaml import scenario_from_yaml

DEFAULT_SCENARIO = "phase1-8gpu"
"""The scenario every page starts on."""

SCENARIO_KEY = "scenario_yaml"
"""Session-state key of the current scenario (its YAML text)."""

PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}


def current_scenario() -> Scenario:
    """The scenario chosen on the Cluster & workload page (at first the preset the address names,
    ``?scenario=NAME``, else the default preset; the default again, with an inline error, if the
    session holds one that is not valid). The address then names it when it is a preset."""
    if SCENARIO_KEY not in st.session_state:
        name = url_value(UrlChoice("scenario", DEFAULT_SCENARIO, preset_names()), SCENARIO_KEY)
        st.session_state[SCENARIO_KEY] = preset_yaml(name)
    try:
        scenario = parse_scenario(st.session_state[SCENARIO_KEY])
    except GpuschedError as exc:
        st.error(f"The scenario of this session is not valid ({exc}); every page runs on "
                 f"`{DEFAULT_SCENARIO}` again.", icon=":material/error:")
        st.session_state[SCENARIO_KEY] = preset_yaml(DEFAULT_SCENARIO)
        scenario = parse_scenario(st.session_state[SCENARIO_KEY])
    name = preset_of(st.session_state[SCENARIO_KEY])
    if name is None:
        st.query_params.pop("scenario", None)  # an edited scenario has no name to share
    else:
        st.query_params["scenario"] = name
    return scenario


def url_value(choice: UrlChoice, key: str):
    """The value the widget keyed ``key`` shows, written into the page's address as
    ``?PARAM=VALUE``: the widget's own once it has one, at first the address's (checked as any input
    is: a value the widget does not offer shows a one-line message here and gives way to the
    default). Pass it as the widget's ``index``, ``default`` or ``value``.

    :param choice: the parameter's name, default and accepted values
        (:class:`~gpusched.dashboard.url_state.UrlChoice`).
    """
    if key in st.session_state and choice.accepts(st.session_state[key]):
        value = st.session_state[key]
    else:
        value, error = choice.decode(st.query_params.get(choice.param))
        if error:
            st.warning(error, icon=":material/link_off:")
    st.query_params[choice.param] = choice.encode(value)
    return value


@st.cache_data(show_spinner=False, max_entries=64)
def preset_of(scenario_yaml: str) -> str | None:
    """The shipped preset whose YAML is ``scenario_yaml``, unchanged, or ``None``."""
    return next((n for n in preset_names() if preset_yaml(n) == scenario_yaml), None)


def set_scenario(scenario: Scenario) -> None:
    """Make ``scenario`` the one every page uses."""
    st.session_state[SCENARIO_KEY] = scenario.to_yaml()


@st.cache_data(show_spinner=False, max_entries=64)
def parse_scenario(text: str) -> Scenario:
    """A validated scenario from YAML (cached: every page parses the current one)."""
    return scenario_from_yaml(text, source="current scenario")


@st.cache_data(show_spinner=False)
def preset_yaml(name: str) -> str:
    """A shipped preset's YAML."""
    return load_scenario(name).to_yaml()


@st.cache_data(show_spinner=False, max_entries=256)
def cached_run(scenario_yaml: str, policy: str, seed: int) -> Result:
    """One run, cached on (scenario YAML, policy, seed); slow policies run on the background
    worker (this waits for them: check :func:`background_ready` first to avoid blocking)."""
    if is_slow(policy):
        return background_runs().submit(scenario_yaml, policy, seed).result()
    return run_policy(parse_scenario(scenario_yaml), policy, seed=seed)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_compare(scenario_yaml: str, policies: tuple[str, ...], seeds: tuple[int, ...]) -> Comparison:
    """Every policy on the same jobs for every seed, cached (slow policies from the background
    worker, waiting for them: check :func:`background_ready` first to avoid blocking)."""
    fast = [p for p in policies if not is_slow(p)]
    slow = [p for p in policies if is_slow(p)]
    base = compare(parse_scenario(scenario_yaml), fast, list(seeds)) if fast else None
    parts = [base.results] if base is not None else []
    parts += [background_runs().results(scenario_yaml, p, seeds) for p in slow]
    return comparison_from_results(parse_scenario(scenario_yaml).name, *parts, order=policies)


INLINE_SEARCH_MAX_JOBS = 300
"""Most jobs a scenario may have for the search for its best heuristic to run on the page's own
thread (the 30 pairs on 3 seeds of a 250-job preset take about 1.2 s on an idle 2-core machine;
600 jobs, about 5 s): above it, the search runs on the background worker, with progress."""


@st.cache_data(show_spinner=False, max_entries=64)
def scenario_jobs(scenario_yaml: str) -> int:
    """How many jobs the scenario's workload has (on its own seed)."""
    scenario = parse_scenario(scenario_yaml)
    return len(scenario.jobs(cluster=scenario.build_cluster()))


def best_heuristic_now(scenario_yaml: str) -> tuple[str, tuple[int, ...], bool] | None:
    """The best heuristic on the scenario by time to result, the seeds it was measured on, and
    whether it comes from the shipped results: on a shipped preset, the shipped results' best;
    otherwise every ``ORDER+PLACEMENT`` pair run live on :data:`LIVE_SEEDS`, here on a scenario of
    at most :data:`INLINE_SEARCH_MAX_JOBS` jobs, else on the background worker: then ``None`` until
    every pair is measured, with a progress line that reruns the page once they are.

    :raises GpuschedError: when a run of the search failed.
    """
    shipped = shipped_for(scenario_yaml)
    if shipped is not None:
        return shipped.best, shipped.seeds, True
    pairs = headline_heuristics()
    if scenario_jobs(scenario_yaml) <= INLINE_SEARCH_MAX_JOBS:
        return best_heuristic(cached_compare(scenario_yaml, pairs, LIVE_SEEDS)), LIVE_SEEDS, False
    bg = background_runs()
    futures = {p: bg.submit_mean(scenario_yaml, p, LIVE_SEEDS, BEST_BY) for p in pairs}
    if all(f.done() for f in futures.values()):
        return best_of_means({p: f.result() for p, f in futures.items()}), LIVE_SEEDS, False

    @st.fragment(run_every=1.0)
    def poll() -> None:
        done = sum(f.done() for f in futures.values())
        if done == len(futures):
            st.rerun(scope="app")
        st.progress(done / len(futures),
                    text=f"Finding the best of the {len(pairs)} queue-aware heuristics on this "
                         f"scenario ({seed_range(LIVE_SEEDS)} each): {done} of {len(pairs)} measured "
                         "in the background; it joins the policy list when it is known.")

    poll()
    return None


@st.cache_resource(show_spinner=False)
def cached_headline() -> Headline:
    """The headline, from the shipped results (read once per server)."""
    return headline()


def headline_markdown(h: Headline) -> str:
    """The headline in one sentence, worded as on Home, Compare and in the README."""
    return headline_sentence(h.scenario, h.seeds, h.best, policy_label(h.best), h.mean(h.best),
                             h.baseline, h.mean(h.baseline), h.best_vs_baseline)


# Figures are cached as shared resources: unpickling a figure re-validates every frame, which
# costs more than drawing it. Pages never change a cached figure.
@st.cache_resource(show_spinner=False, max_entries=32)
def cached_replay(scenario_yaml: str, policy: str, seed: int,
                  start_min: float | None = None) -> go.Figure:
    """The animated replay of one run (opening at ``start_min``, its stalls and misroutes marked)."""
    result = cached_run(scenario_yaml, policy, seed)
    report, _ = cached_stall(scenario_yaml, policy, seed)
    return replay_figure(result, start_min=start_min, stall=report)


@st.cache_resource(show_spinner=False, max_entries=16)
def cached_gantt(scenario_yaml: str, policy: str, seed: int) -> go.Figure:
    """The Gantt chart of one run. Frozen: each rerun then sends it without copying every bar again."""
    return freeze(gantt_figure(cached_run(scenario_yaml, policy, seed)))


@st.cache_resource(show_spinner=False, max_entries=16)
def cached_side_by_side(scenario_yaml: str, a: str, b: str, seed: int) -> go.Figure:
    """Two policies replayed on one clock."""
    return side_by_side_figure(cached_run(scenario_yaml, a, seed), cached_run(scenario_yaml, b, seed))


@st.cache_data(show_spinner=False, max_entries=32)
def cached_stall(scenario_yaml: str, policy: str, seed: int) -> tuple[StallReport, IdleSteps]:
    """The stall analysis of one run and its idle GPUs over time."""
    result = cached_run(scenario_yaml, policy, seed)
    return analyse_stall(result), idle_steps(result)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_cards(scenario_yaml: str, deadlines: bool) -> tuple[str, ...]:
    """The cards a scenario earns beside time to result (deadlines met when its jobs carry
    ``deadlines``, GPU cost when every GPU has a price): :func:`~gpusched.dashboard.cards.cards_for`."""
    return cards_for(parse_scenario(scenario_yaml), deadlines)


def beside_time_to_result(metrics: tuple[str, ...] | list[str], cards: tuple[str, ...]) -> tuple[str, ...]:
    """``metrics`` (time to result first) with ``cards`` right after time to result."""
    return (metrics[0], *cards, *metrics[1:])


@st.cache_resource(show_spinner=False, max_entries=16)
def cached_compare_figures(scenario_yaml: str, policies: tuple[str, ...], seeds: tuple[int, ...],
                           util_seed: int) -> tuple[go.Figure, go.Figure, go.Figure]:
    """Metric bars (with the scenario's cards beside time to result: :func:`cached_cards`),
    wait-time CDF and utilisation over time of a comparison."""
    comparison = cached_compare(scenario_yaml, policies, seeds)
    deadlines = any(jobs_have_deadlines(r.jobs) for r in comparison.results.values())
    bars = beside_time_to_result(BAR_METRICS, cached_cards(scenario_yaml, deadlines))
    return (metric_bars_figure(comparison, bars), wait_cdf_figure(comparison),
            util_over_time_figure(comparison, seed=util_seed))


@st.cache_resource(show_spinner=False, max_entries=16)
def cached_fairness_bars(scenario_yaml: str, policies: tuple[str, ...], seeds: tuple[int, ...]) -> go.Figure:
    """The fairness bars of a comparison (finish-time fairness, Jain's index, GPU-type changes)."""
    return metric_bars_figure(cached_compare(scenario_yaml, policies, seeds), FAIRNESS_BAR_METRICS)


@st.cache_resource(show_spinner=False, max_entries=16)
def cached_failure_bars(scenario_yaml: str, policies: tuple[str, ...],
                        seeds: tuple[int, ...]) -> go.Figure | None:
    """The bars of failures, preemption and moves of a comparison, or ``None`` when it has none."""
    comparison = cached_compare(scenario_yaml, policies, seeds)
    return metric_bars_figure(comparison, disruption_metrics(comparison)) if has_disruptions(comparison) \
        else None


@st.cache_resource(show_spinner=False, max_entries=16)
def cached_scorecard(scenario_yaml: str, policies: tuple[str, ...], seeds: tuple[int, ...],
                     baseline: str) -> tuple[pd.DataFrame, go.Figure]:
    """Every policy against ``baseline``, paired over the seeds: the scorecard and its forest plot."""
    card = scorecard(cached_compare(scenario_yaml, policies, seeds), baseline, FOREST_METRICS)
    return card, forest_figure(card, FOREST_METRICS)


@st.cache_resource(show_spinner=False, max_entries=16)
def cached_stall_figure(scenario_yaml: str, policies: tuple[str, ...], seed: int,
                        stalling: str, baseline: str) -> go.Figure:
    """The stall explorer's figure: ``policies`` on one axis, ``stalling`` analysed, the idle GPUs
    of ``baseline`` dashed beside its own."""
    runs = [cached_run(scenario_yaml, p, seed) for p in policies]
    report, idle = cached_stall(scenario_yaml, stalling, seed)
    _, baseline_idle = cached_stall(scenario_yaml, baseline, seed)
    return stall_figure(runs, report, idle, baseline_idle, baseline)


@st.cache_data(show_spinner=False)
def cached_conditions() -> pd.DataFrame:
    """The shipped conditions map: the stall-conditions sweep's results table."""
    return load_sweep_results(STALL_CONDITIONS_RESULTS_DIR)


@st.cache_data(show_spinner=False, max_entries=8)
def cached_conditions_findings(extra_key: str | None, variant: str,
                               _extra: pd.DataFrame | None = None) -> list[FamilyFinding]:
    """Findings of the conditions map for one variant, with the user's family (``_extra``, keyed
    by ``extra_key``, the YAML it was run on) when given."""
    return conditions_findings(conditions_results(_extra), variant=variant)


@st.cache_resource(show_spinner=False, max_entries=8)
def cached_conditions_figures(extra_key: str | None,
                              _extra: pd.DataFrame | None = None) -> tuple[go.Figure, go.Figure]:
    """The conditions heatmap and the misroute-cause bars (with the user's family when given)."""
    results = conditions_results(_extra)
    return conditions_heatmap_figure(results), misroute_causes_figure(results)


def run_family(scenario: Scenario) -> pd.DataFrame:
    """The conditions grid run on one more cluster family, with a progress bar (takes seconds)."""
    grid = load_sweep(STALL_CONDITIONS_SPEC).simulate
    bar = st.progress(0.0, text=f"Running the conditions grid on `{scenario.name}`…")
    rows = simulate_grid_rows(grid, scenario, progress=lambda done, total: bar.progress(
        done / total, text=f"{done} of {total} runs on `{scenario.name}`"))
    bar.empty()
    return rows


def shipped_family(name: str, scenario_yaml: str) -> bool:
    """Whether the shipped conditions map already holds this cluster: a family of that name whose
    preset is this very YAML."""
    families = set(cached_conditions()[FAMILY])
    return name in families and name in preset_names() and preset_yaml(name) == scenario_yaml


def conditions_results(extra: pd.DataFrame | None = None) -> pd.DataFrame:
    """The shipped conditions results, with ``extra`` rows (another family) appended."""
    shipped = cached_conditions()
    return shipped if extra is None else pd.concat([shipped, extra], ignore_index=True)


@st.cache_resource(show_spinner=False, max_entries=16)
def cached_workload_figures(scenario_yaml: str) -> dict[str, go.Figure]:
    """The workload charts that apply to the scenario
    (:func:`~gpusched.dashboard.workload.workload_panels`), by panel name."""
    scenario = parse_scenario(scenario_yaml)
    cluster = scenario.build_cluster()
    jobs = scenario.jobs(cluster=cluster)
    draw = {
        "arrivals": lambda: arrivals_figure(jobs), "duration": lambda: duration_figure(jobs),
        "job_models": lambda: job_models_figure(jobs), "vram": lambda: vram_figure(jobs),
        "compute": lambda: compute_figure(jobs),
        "gpus": lambda: gpus_figure(jobs),
        "runtime_by_type": lambda: runtime_by_model_figure(jobs, cluster, scenario.speed_table()),
        "runtime_by_gpu": lambda: runtime_by_gpu_figure(jobs, cluster, scenario.gpu_speeds(cluster)),
        "model_speeds": lambda: model_speed_figure(jobs, cluster, scenario.gpu_speeds(cluster)),
    }
    return {p: draw[p]() for p in workload_panels(scenario, jobs)}


@st.cache_resource(show_spinner=False)
def background_runs() -> BackgroundRuns:
    """The server's one background worker for slow runs (the agent's)."""
    return BackgroundRuns(workers=1)


def background_ready(scenario_yaml: str, policies: list[str] | tuple[str, ...],
                     seeds: list[int] | tuple[int, ...]) -> bool:
    """Whether every slow policy's runs are done; otherwise shows a progress line that polls
    the background worker and reruns the page once they are in."""
    slow = [p for p in policies if is_slow(p)]
    bg = background_runs()
    if all(bg.ready(scenario_yaml, p, seeds) for p in slow):
        return True

    @st.fragment(run_every=1.0)
    def poll() -> None:
        done = sum(bg.submit(scenario_yaml, p, s).done() for p in slow for s in seeds)
        total = len(slow) * len(seeds)
        if done == total:
            st.rerun(scope="app")
        names = ", ".join(policy_label(p) for p in slow)
        st.progress(done / total, text=f"{names}: {done} of {total} run(s) done in the background "
                                       "(a neural network decides every placement); the results "
                                       "join this page when they are in.")

    poll()
    return False


@st.cache_data(show_spinner=False, ttl=60)
def available_policies() -> list[str]:
    """Heuristics, plus the agent when it is registered and shipped (re-checked every minute)."""
    return dashboard_policies()


AGENT_KEY = "agent_policy"
"""Session-state key of the agent model chosen on the Agent page (``ppo:PATH``)."""


def policy_options() -> list[str]:
    """The policies pages offer: heuristics, ``ppo`` when shipped, and the chosen agent model."""
    names = list(available_policies())
    chosen = st.session_state.get(AGENT_KEY)
    if chosen and chosen not in names:
        names.append(chosen)
    return names


def recompute_button(what: str, source: str, script: str, key: str, where: str = "") -> bool:
    """The line under shipped numbers: what they are, where they come from and that a test runs
    them again, beside a **Recompute live** button; returns whether it was pressed.

    :param what: the numbers shown (``"These numbers are the shipped results"``).
    :param source: the shipped file; ``script`` the benchmark that measured it.
    :param where: how the recompute runs (``", in the background"``).
    """
    live_col, note_col = st.columns([1, 3], vertical_alignment="center")
    note_col.caption(f"{what} (`{source}`, measured by `{script}`), shown without running anything; "
                     f"a test runs them again and checks they are the same. Recompute runs them "
                     f"here{where}.")
    return live_col.button("Recompute live", key=key, icon=":material/refresh:", width="stretch")


REPLAY_START_KEY = "replay_start"
"""Session-state key of the run Replay should open at a given minute: (scenario YAML, policy,
seed, minute)."""


def open_replay_at(scenario_yaml: str, policy: str, seed: int, minute: float | None) -> None:
    """Open Replay on this run (the scenario becomes the session's), at ``minute``."""
    st.session_state[SCENARIO_KEY] = scenario_yaml
    st.session_state["replay_policy"] = policy
    st.session_state["replay_seed"] = int(seed)
    st.session_state[REPLAY_START_KEY] = (scenario_yaml, policy, int(seed), minute)
    st.switch_page("views/replay.py")


def page_header(title: str, what: str) -> None:
    """The page title and its one-line summary."""
    st.title(title)
    st.caption(what)


def scenario_badge(scenario: Scenario) -> None:
    """One line naming the scenario a page runs on (and its failures, when nodes fail)."""
    st.markdown(f"Scenario **`{scenario.name}`** · {scenario_line(scenario)} — change it on "
                "*Cluster & workload*.")
    if has_failures(scenario):
        st.caption(failure_line(scenario))


@st.cache_data(show_spinner=False, max_entries=32)
def cached_lost_work_story(scenario_yaml: str, policies: tuple[str, ...],
                           seeds: tuple[int, ...]) -> list[str]:
    """The story of the work node failures cost each policy on the same seeds (Markdown)."""
    saving = tuple(getattr(parse_scenario(scenario_yaml).checkpoint, "types", ()) or ())
    rows = lost_work(cached_compare(scenario_yaml, policies, seeds), saving)
    return lost_work_story(rows, saving)


def lost_work_of_run(result: Result, scenario: Scenario) -> list[str]:
    """The story of the work node failures cost one run (Markdown)."""
    saving = tuple(getattr(scenario.checkpoint, "types", ()) or ())
    one = comparison_from_results(scenario.name, {(result.policy, result.seed): result})
    return lost_work_story(lost_work(one, saving), saving)


def show_chart(fig: go.Figure, key: str | None = None) -> None:
    """Draw a Plotly figure across the page width in Streamlit's light or dark theme, its own
    near-black marks light on the dark one (:func:`~gpusched.figures.theme.in_theme`); an animated
    one with the script that keeps Pause and the slider from logging an error
    (:data:`INTERRUPTED_ANIMATION_SCRIPT`)."""
    fig = in_theme(fig, st.context.theme.type)
    if is_animated(fig):  # a frozen animation keeps its frames in its dict, not in fig.frames
        st.html(INTERRUPTED_ANIMATION_SCRIPT, unsafe_allow_javascript=True, width="content")
    st.plotly_chart(fig, width="stretch", theme="streamlit", config=PLOTLY_CONFIG, key=key)


def metric_card(col, key: str, value: float | int | None, delta: MetricDelta | None = None,
                label: str | None = None, help: str | None = None) -> None:
    """One metric as ``st.metric``: its title with unit, its value formatted as the names table
    says (a fraction in % ×100, thousands separators, fixed decimals) and its help text; a change
    (:func:`~gpusched.dashboard.deltas.metric_delta`) below it, with the sign, colour and arrow
    that say whether it is good news."""
    col.metric(label or metric_title(key), format_metric(key, value),
               None if delta is None else delta.text,
               delta_color="normal" if delta is None else delta.color,
               delta_arrow="auto" if delta is None else delta.arrow,
               help=help or metric_help(key), height="stretch")


def show_results(sections: dict[str, pd.DataFrame], key: str) -> None:
    """Results tables, one tab per section, each column with its metric's help text."""
    for tab, table in zip(st.tabs(list(sections), key=key), sections.values(), strict=True):
        tab.dataframe(table, width="stretch", column_config=metric_columns(table.columns))


CARDS_PER_ROW = 4
"""Metric cards per row: at 1280 px a fifth card would cut its title off."""


def metric_cards(keys, values, per_row: int = CARDS_PER_ROW) -> None:
    """One :func:`metric_card` per key of ``values`` (a metrics dict), ``per_row`` to a row."""
    keys = list(keys)
    for start in range(0, len(keys), per_row):
        for col, key in zip(st.columns(per_row), keys[start:start + per_row], strict=False):
            metric_card(col, key, values[key])


def metric_columns(columns, table: pd.DataFrame | None = None, width: int | None = None) -> dict:
    """``column_config`` for a table's columns that are metric titles or keys: each gets its help
    text from the names table, and, when ``table`` holds the column as numbers, the metric's
    decimals (a fraction shown in % as a percentage); ``width`` (pixels) fixes each metric
    column's width, so that a table of several fits its box."""
    by_title = {m.title: m for m in METRIC_NAMES.values()}
    config = {}
    for column in columns:
        name = by_title.get(column) or METRIC_NAMES.get(column)
        if name is None:
            continue
        if table is not None and column in table and pd.api.types.is_numeric_dtype(table[column]):
            config[column] = st.column_config.NumberColumn(
                name.title, help=name.help, format="percent" if name.percent else f"%.{name.decimals}f",
                width=width)
        else:
            config[column] = st.column_config.Column(name.title, help=name.help, width=width)
    return config


APP_NAME = "gpusched"
"""The name every browser-tab title ends with."""


def tab_title(page_title: str) -> str:
    """The browser-tab title of a page: ``"Compare · gpusched"``."""
    return f"{page_title} · {APP_NAME}"
