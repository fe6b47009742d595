"""The decisions of one run, in the order they were made: every start (which job, from which
window slot, on which GPUs) and every deliberate hold (the head job fitted, the policy waited).

It reads the run's jobs table and hold record only, so it describes any policy alike: a
heuristic, the agent, or the agent with rollouts.
"""

from __future__ import annotations

import pandas as pd

from gpusched.core.result import Result

DECISION_COLUMNS: tuple[str, ...] = (
    "time_min", "decision", "job", "type", "slot", "gpus", "speed", "best_speed", "wait_min",
    "out_of_order")
"""One row per decision: time (minutes), ``start`` or ``hold``, the job's arrival number (its id:
jobs are numbered in arrival order), its type, the window slot it was chosen from (0 = the
oldest waiting job), the GPUs it got (labels, e.g. ``A100-80GB #0``), the speed of that gang for
the job and the best speed any gang of the cluster could give it (relative to the reference GPU;
1.0 without a speed table; empty for a hold), the minutes it had waited, and whether it started
ahead of an earlier arrival that still waited."""


def decision_table(result: Result) -> pd.DataFrame:
    """The run's starts and deliberate holds, in time order (starts before holds at equal times).

    :param result: one run.
    :return: columns :data:`DECISION_COLUMNS`.
    """
    jobs = result.jobs[result.jobs["start_slot"] >= 0]
    label = result.cluster.gpu_label
    starts = pd.DataFrame({
        "time_min": jobs["start_min"].to_numpy(float),
        "decision": "start",
        "job": jobs["id"].to_numpy(int),
        "type": jobs["type"].to_numpy(str),
        "slot": jobs["start_slot"].to_numpy(int),
        "gpus": [", ".join(label(int(g)) for g in ids) for ids in jobs["gpu_ids"]],
        # duration / run time is the gang's speed; duration / ideal run time the best one.
        "speed": (jobs["duration_min"] / jobs["run_min"]).to_numpy(float),
        "best_speed": (jobs["duration_min"] / jobs["ideal_run_min"]).to_numpy(float),
        "wait_min": jobs["wait_min"].to_numpy(float),
        "out_of_order": jobs["backfilled"].to_numpy(bool),
    })
    holds = result.timeline.holds
    holds = holds[holds["could_fit"].to_numpy(bool)]
    by_id = result.jobs.set_index("id")
    held = pd.DataFrame({
        "time_min": holds["time_min"].to_numpy(float),
        "decision": "hold",
        "job": holds["job"].to_numpy(int),
        "type": by_id.loc[holds["job"], "type"].to_numpy(str) if len(holds) else [],
        "slot": 0,
        "gpus": "",
        "speed": float("nan"),
        "best_speed": float("nan"),
        "wait_min": (holds["time_min"].to_numpy(float)
                     - by_id.loc[holds["job"], "arrival_min"].to_numpy(float)) if len(holds) else [],
        "out_of_order": False,
    })
    table = pd.concat([starts, held], ignore_index=True) if len(held) else starts
    order = table.assign(_hold=table["decision"] == "hold").sort_values(
        ["time_min", "_hold"], kind="stable").index
    return table.loc[order, list(DECISION_COLUMNS)].reset_index(drop=True)
