"""Replay: one run as an animation, and its per-GPU Gantt chart."""

import streamlit as st
from shared import (
    CARDS_PER_ROW,
    REPLAY_START_KEY,
    background_ready,
    beside_time_to_result,
    cached_cards,
    cached_gantt,
    cached_replay,
    cached_run,
    cached_stall,
    current_scenario,
    is_slow,
    lost_work_of_run,
    metric_card,
    metric_cards,
    page_header,
    policy_options,
    scenario_badge,
    show_chart,
    url_value,
)

from gpusched.dashboard.cards import jobs_have_deadlines
from gpusched.dashboard.headline import headline_heuristics
from gpusched.dashboard.policies import agents_early, policy_help, with_queue_pairs
from gpusched.dashboard.url_state import UrlChoice
from gpusched.errors import GpuschedError
from gpusched.experiment.decisions import decision_table, informative
from gpusched.experiment.scorecard import TAIL_WAIT_METRIC
from gpusched.figures.compare import MOVE_BAR_METRICS
from gpusched.figures.replay import GANTT_BARS_AT_ONCE, gantt_bars, gantt_on_request
from gpusched.limits import MAX_SEED
from gpusched.policies import policy_label
from gpusched.words.metric_names import metric_help, metric_label


def _start_minute(text: str, policy: str, seed: int) -> float | None:
    """The minute Replay opens at: the one another page asked for on this very run, else the
    start."""
    asked = st.session_state.get(REPLAY_START_KEY)
    if asked and tuple(asked[:3]) == (text, policy, seed):
        return asked[3]
    return None


def main() -> None:
    page_header("Replay",
                "Watch one policy run minute by minute: per-GPU use, the queue with its stalls and "
                "misroutes marked, and every job on its GPU.")
    scenario = current_scenario()
    scenario_badge(scenario)
    options = agents_early(with_queue_pairs(policy_options(), headline_heuristics()))
    c1, c2, c3, _ = st.columns([2, 1, 2, 1], vertical_alignment="bottom")
    # Each widget's value is set here, from the address or another page, not also as its default.
    chosen = st.session_state["replay_policy"] = url_value(UrlChoice("policy", "least_loaded", options),
                                                           "replay_policy")
    policy = c1.selectbox("Policy", options, format_func=policy_label, key="replay_policy",
                          help=policy_help(chosen))
    st.session_state["replay_seed"] = url_value(UrlChoice("seed", scenario.workload.seed, high=MAX_SEED),
                                                "replay_seed")
    seed = int(c2.number_input("Workload seed", min_value=0, max_value=MAX_SEED, step=1, key="replay_seed"))
    text = scenario.to_yaml()
    if is_slow(policy) and not background_ready(text, [policy], [seed]):
        return
    try:
        with st.spinner(f"Simulating {policy_label(policy)} and building the animation…"):
            result = cached_run(text, policy, seed)
            report, _ = cached_stall(text, policy, seed)
            start = _start_minute(text, policy, seed)
            replay = cached_replay(text, policy, seed, start)
    except GpuschedError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    if len(report.intervals):
        first = float(report.intervals["start_min"].iloc[0])
        if c3.button(f"Go to the first stall (minute {first:,.0f})", key="replay_first_stall",
                     icon=":material/skip_next:", width="stretch", disabled=start == first,
                     help="The slider jumps to the first time the policy held a job that could have run."):
            st.session_state[REPLAY_START_KEY] = (text, policy, seed, first)
            st.rerun()

    m = result.metrics
    first_cards = [*beside_time_to_result(("avg_jct_min", "avg_wait_min", TAIL_WAIT_METRIC),
                                          cached_cards(text, jobs_have_deadlines(result.jobs))),
                   "jobs_completed"]
    for start_card in range(0, len(first_cards), CARDS_PER_ROW):
        for col, key in zip(st.columns(CARDS_PER_ROW), first_cards[start_card:start_card + CARDS_PER_ROW],
                            strict=False):
            if key == "jobs_completed":
                col.metric(metric_label("jobs_completed"),
                           f"{m['jobs_completed']:,.0f} / {m['jobs_submitted']:,.0f}",
                           help=f"{metric_help('jobs_completed')} Out of the jobs submitted.")
            else:
                metric_card(col, key, m[key])
    more = ["avg_util", "stall_min", "makespan_min", "avg_bsld"]
    if scenario.window > 1:
        more.append("backfilled_jobs")
    if result.jobs["priority"].nunique() > 1:  # with equal priorities it repeats the average wait
        more.append("weighted_wait_min")
    metric_cards(more, m)
    if m["node_failures"] or m["preemptions"]:
        metric_cards(["goodput", "lost_gpu_hours", "restore_gpu_hours", "node_failures",
                      "jobs_interrupted", "preemptions"], m)
        with st.container(key="replay-lost-work", border=True):
            st.markdown("\n".join(f"- {line}" for line in lost_work_of_run(result, scenario)))
    if m["migrations"]:
        metric_cards(MOVE_BAR_METRICS, m)
    st.caption("Press ▶ Play or drag the slider; the dotted line marks the minute shown and reads it, "
               "with the jobs queued and the jobs running. Bars: grey under 60 %, green 60–80 % "
               "(target), orange over 80 % (hot). "
               "Below, red bands are stalls (the first job in the queue held although it fitted "
               "elsewhere) and the ticks above the lines are misroutes (a job sent to a GPU where it "
               "did not fit), one row per cause; misroutes too close together to tell apart share a "
               "tick, which counts them.")
    show_chart(replay, key="replay_fig")
    st.fragment(_gantt)(text, policy, seed, gantt_bars(result))
    _decisions(result, policy)


def _gantt(text: str, policy: str, seed: int, bars: int) -> None:
    """The run's Gantt chart; one of more than :data:`GANTT_BARS_AT_ONCE` bars when asked (a
    fragment: the toggle redraws this chart alone)."""
    if gantt_on_request(bars) and not st.toggle(
            f"Draw every job on its GPU over time ({bars:,} runs)", key="replay_gantt",
            help=f"A Gantt chart of more than {GANTT_BARS_AT_ONCE:,} runs takes the browser a few "
                 "seconds to draw, so it is drawn when asked."):
        return
    with st.spinner("Drawing every job on its GPU…"):
        show_chart(cached_gantt(text, policy, seed), key="gantt_fig")


def _decisions(result, policy: str) -> None:
    """Every start and deliberate hold of the run, with the out-of-order starts marked."""
    table = decision_table(result)
    starts = table[table["decision"] == "start"]
    st.markdown("##### Decisions")
    counts = table["decision"].value_counts()
    stops = ""
    if counts.get("preempt", 0) or counts.get("failure", 0) or counts.get("migrate", 0):
        stops = (f" It preempted {counts.get('preempt', 0):,} times and moved running jobs to "
                 f"other GPUs {counts.get('migrate', 0):,} times; node failures stopped "
                 f"{counts.get('failure', 0):,} runs; jobs resumed {counts.get('resume', 0):,} times "
                 "(slot −1: a stop or a resumption, not a choice from the window).")
    st.caption(f"{policy_label(policy)} made {len(starts):,} starts, "
               f"{int(starts['out_of_order'].sum()):,} of them out of order (ahead of an earlier "
               f"arrival that still waited), and held {int((table['decision'] == 'hold').sum()):,} "
               "times while the oldest job fitted. Slot 0 is the oldest waiting job; the job "
               f"number is its arrival order.{stops}")
    if st.toggle("Only out-of-order starts, holds, stops and resumptions", key="decisions_unusual"):
        table = table[table["out_of_order"] | (table["decision"] != "start")]
    shown = informative(table)
    st.dataframe(
        shown, hide_index=True, width="stretch", height=300,
        # Fixed widths but for the two text columns, which size to their content: a table of
        # thousands of rows measures every column it sizes that way.
        column_config={
            "time_min": st.column_config.NumberColumn("Time (min)", format="%.1f", width=72),
            "decision": st.column_config.Column("Decision", width=68),
            "job": st.column_config.NumberColumn("Job (arrival #)", width=98),
            "type": st.column_config.Column("Type", width=72),
            "model": st.column_config.TextColumn("Job model", help="The job's model."),
            "slot": st.column_config.NumberColumn("Window slot", width=84),
            "gpus": st.column_config.Column("GPUs",
                                            help="The GPUs it got: each model named once, consecutive "
                                                 "GPUs as a range."),
            "speed": st.column_config.NumberColumn("Speed", format="%.2f", width=65,
                                                   help="The speed of the GPUs it got, for its job type "
                                                        "(relative to an A100-80GB)."),
            "best_speed": st.column_config.NumberColumn("Best speed", format="%.2f", width=85,
                                                        help="The fastest speed any GPUs of this "
                                                             "cluster that could hold the job offer it."),
            "wait_min": st.column_config.NumberColumn("Waited (min)", format="%.1f", width=90),
            "out_of_order": st.column_config.CheckboxColumn("Out of order", width=88),
            "lost_min": st.column_config.NumberColumn("Work lost (min)", format="%.1f", width=115,
                                                      help="For a stop by a node failure: the progress "
                                                           "since the job's last checkpoint, thrown away "
                                                           "(minutes at the reference speed)."),
        })


main()
