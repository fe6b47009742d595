"""Replay: one run as an animation, and its per-GPU Gantt chart."""

import streamlit as st
from shared import (
    background_ready,
    cached_replay,
    cached_run,
    current_scenario,
    is_slow,
    metric_card,
    page_header,
    policy_options,
    scenario_badge,
    show_chart,
)

from gpusched.core.metric_names import metric_help, metric_label
from gpusched.errors import GpuschedError
from gpusched.experiment.decisions import decision_table
from gpusched.limits import MAX_SEED
from gpusched.policies import policy_label


def main() -> None:
    page_header("Replay",
                "Watch one policy run minute by minute: per-GPU VRAM and utilisation, the queue, "
                "and every job on its GPU.")
    scenario = current_scenario()
    scenario_badge(scenario)
    options = policy_options()
    c1, c2, _ = st.columns([2, 1, 3])
    policy = c1.selectbox("Policy", options, index=options.index("least_loaded"),
                          format_func=policy_label, key="replay_policy")
    seed = int(c2.number_input("Workload seed", min_value=0, max_value=MAX_SEED,
                               value=scenario.workload.seed, step=1, key="replay_seed"))
    text = scenario.to_yaml()
    if is_slow(policy) and not background_ready(text, [policy], [seed]):
        return
    try:
        with st.spinner(f"Simulating {policy_label(policy)} and building the animation…"):
            result = cached_run(text, policy, seed)
            replay, gantt = cached_replay(text, policy, seed)
    except GpuschedError as exc:
        st.error(str(exc), icon=":material/error:")
        return

    m = result.metrics
    cols = st.columns(6)
    for col, key in zip(cols, ("avg_wait_min", "p95_wait_min", "avg_util", "stall_min"), strict=False):
        metric_card(col, key, m[key])
    cols[4].metric(metric_label("jobs_completed"),
                   f"{m['jobs_completed']:,.0f} / {m['jobs_submitted']:,.0f}",
                   help=f"{metric_help('jobs_completed')} Out of the jobs submitted.")
    metric_card(cols[5], "makespan_min", m["makespan_min"])
    if scenario.window > 1:
        extra = st.columns(6)
        for col, key in zip(extra, ("backfilled_jobs", "avg_jct_min", "avg_bsld", "weighted_wait_min",
                                    "p99_wait_min"), strict=False):
            metric_card(col, key, m[key])
    if m["node_failures"] or m["preemptions"]:
        lost = st.columns(6)
        for col, key in zip(lost, ("goodput", "lost_gpu_hours", "restore_gpu_hours", "node_failures",
                                   "jobs_interrupted", "preemptions"), strict=True):
            metric_card(col, key, m[key])
    st.caption("Press ▶ Play or drag the slider. Bars: grey under 60 %, green 60–80 % (target), "
               "orange over 80 % (hot); VRAM bars are coloured by the share of the GPU's memory "
               "in use, against its capacity (light grey).")
    show_chart(replay, key="replay_fig")
    show_chart(gantt, key="gantt_fig")
    _decisions(result, policy)


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
    st.dataframe(
        table, hide_index=True, width="stretch", height=300,
        column_config={
            "time_min": st.column_config.NumberColumn("Time (min)", format="%.1f"),
            "decision": "Decision",
            "job": st.column_config.NumberColumn("Job (arrival #)"),
            "type": "Type",
            "model": st.column_config.TextColumn("Job model", help="The job's model (empty for none)."),
            "slot": st.column_config.NumberColumn("Window slot"),
            "gpus": "GPUs",
            "speed": st.column_config.NumberColumn("Speed", format="%.2f",
                                                   help="The speed of the GPUs it got, for its job type "
                                                        "(relative to an A100-80GB)."),
            "best_speed": st.column_config.NumberColumn("Best speed", format="%.2f",
                                                        help="The fastest speed any GPUs of this "
                                                             "cluster that could hold the job offer it."),
            "wait_min": st.column_config.NumberColumn("Waited (min)", format="%.1f"),
            "out_of_order": st.column_config.CheckboxColumn("Out of order"),
            "lost_min": st.column_config.NumberColumn("Work lost (min)", format="%.1f",
                                                      help="For a stop by a node failure: the progress "
                                                           "since the job's last checkpoint, thrown away "
                                                           "(minutes at the reference speed)."),
        })


main()
