"""The decisions of one run, in the order they were made: every start (which job, from which
window slot, on which GPUs), every deliberate hold (the head job fitted, the policy waited), and
with failures or preemption every preemption, every stop by a node failure and every resumption.

It reads the run's jobs table and hold record only, so it describes any policy alike: a
heuristic, the agent, or the agent with rollouts.
"""

from __future__ import annotations

import pandas as pd

from gpusched.core.result import Result

DECISION_COLUMNS: tuple[str, ...] = (
    "time_min", "decision", "job", "type", "model", "slot", "gpus", "speed", "best_speed", "wait_min",
    "out_of_order", "lost_min")
"""One row per decision: time (minutes), ``start``, ``hold``, ``preempt``, ``migrate`` (the job
left its GPUs for a faster gang; its ``resume`` there follows at the same time), ``failure`` (a
node failure stopped the job) or ``resume``, the job's arrival number (its id: jobs are numbered in
arrival order), its type and job model (empty without one), the window slot it was chosen from
(0 = the oldest waiting job), the GPUs it got (labels, e.g. ``A100-80GB #0``), the speed of that
gang for the job and the best speed any gang of the cluster could give it (relative to the
reference GPU; 1.0 without a speed table; empty for a hold), the minutes it had waited, whether it
started ahead of an earlier arrival that still waited, and for a stop the progress it lost
(minutes at the reference speed; 0 for a preemption or a migration). A stop or a resumption has
slot -1, and the GPUs of the run it ends or begins."""


def decision_table(result: Result) -> pd.DataFrame:
    """The run's starts, deliberate holds, stops and resumptions, in time order (at equal times:
    stops, then starts and resumptions, then holds).

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
        "model": _models(jobs),
        "slot": jobs["start_slot"].to_numpy(int),
        "gpus": [gpu_list([label(int(g)) for g in ids]) for ids in jobs["gpu_ids"]],
        # duration / run time is the gang's speed; duration / ideal run time the best one.
        "speed": (jobs["duration_min"] / jobs["run_min"]).to_numpy(float),
        "best_speed": (jobs["duration_min"] / jobs["ideal_run_min"]).to_numpy(float),
        "wait_min": jobs["wait_min"].to_numpy(float),
        "out_of_order": jobs["backfilled"].to_numpy(bool),
        "lost_min": 0.0,
    })
    if "interruptions" in jobs and len(jobs):  # a job that stopped: its first run's GPUs
        moved = (jobs["interruptions"] + jobs["preemptions"]
                 + jobs.get("migrations", 0)).to_numpy() > 0
        if moved.any():
            stops = result.timeline.stops
            first = stops.sort_values("time_min", kind="stable").drop_duplicates("job").set_index("job")
            ids = jobs["id"].to_numpy(int)[moved]
            starts.loc[moved, "gpus"] = [gpu_list([label(int(g)) for g in first.loc[i, "gpus"]]) for i in ids]
            starts.loc[moved, "speed"] = float("nan")
    holds = result.timeline.holds
    holds = holds[holds["could_fit"].to_numpy(bool)]
    by_id = result.jobs.set_index("id")
    held = pd.DataFrame({
        "time_min": holds["time_min"].to_numpy(float),
        "decision": "hold",
        "job": holds["job"].to_numpy(int),
        "type": by_id.loc[holds["job"], "type"].to_numpy(str) if len(holds) else [],
        "model": _models(by_id.loc[holds["job"]]) if len(holds) else [],
        "slot": 0,
        "gpus": "",
        "speed": float("nan"),
        "best_speed": float("nan"),
        "wait_min": (holds["time_min"].to_numpy(float)
                     - by_id.loc[holds["job"], "arrival_min"].to_numpy(float)) if len(holds) else [],
        "out_of_order": False,
        "lost_min": 0.0,
    })
    parts = [starts, *([held] if len(held) else []), *_stops_and_resumes(result)]
    table = pd.concat(parts, ignore_index=True) if len(parts) > 1 else starts
    rank = table["decision"].map({"failure": 0, "preempt": 0, "migrate": 0, "start": 1, "resume": 1,
                                  "hold": 2})
    order = table.assign(_rank=rank).sort_values(["time_min", "_rank"], kind="stable").index
    return table.loc[order, list(DECISION_COLUMNS)].reset_index(drop=True)


def _stops_and_resumes(result: Result) -> list[pd.DataFrame]:
    """The preemptions, migrations, stops by a node failure and resumptions of the run."""
    tl = result.timeline
    if not len(tl.stops) and not len(tl.resumes):
        return []
    label = result.cluster.gpu_label
    by_id = result.jobs.set_index("id")
    out = []
    for frame, kinds in ((tl.stops, tl.stops["kind"].map({"preemption": "preempt", "failure": "failure",
                                                                 "migration": "migrate"})),
                         (tl.resumes, "resume")):
        if not len(frame):
            continue
        jobs = frame["job"].to_numpy(int)
        out.append(pd.DataFrame({
            "time_min": frame["time_min"].to_numpy(float),
            "decision": kinds,
            "job": jobs,
            "type": by_id.loc[jobs, "type"].to_numpy(str),
            "model": _models(by_id.loc[jobs]),
            "slot": -1,
            "gpus": [gpu_list([label(int(g)) for g in gpus]) for gpus in frame["gpus"]],
            "speed": float("nan"),
            "best_speed": (by_id.loc[jobs, "duration_min"]
                           / by_id.loc[jobs, "ideal_run_min"]).to_numpy(float),
            "wait_min": float("nan"),
            "out_of_order": False,
            "lost_min": frame["lost_min"].to_numpy(float) if "lost_min" in frame else 0.0,
        }))
    return out


def _models(jobs: pd.DataFrame) -> list[str]:
    """The job model of each row of a jobs table ("" for a job without one)."""
    if "model" not in jobs:
        return [""] * len(jobs)
    return ["" if m is None or m != m else str(m) for m in jobs["model"]]


def gpu_list(labels: list[str]) -> str:
    """GPU labels in short: each model named once per run of its GPUs, consecutive numbers as a
    range (``V100 #4–#7, #9, K80 #100``); labels not of the form ``MODEL #N`` as they are."""
    parts: list[str] = []
    model, run = None, []

    def flush() -> None:
        if not run:
            return
        spans, start = [], run[0]
        for a, b in zip(run, [*run[1:], None], strict=True):
            if b != a + 1:
                spans.append(f"#{start}" if start == a else f"#{start}–#{a}")
                start = b
        parts.append(f"{model} " + ", ".join(spans))

    for label in labels:
        name, sep, number = label.rpartition(" #")
        if not sep or not number.isdigit():
            flush()
            model, run = None, []
            parts.append(label)
            continue
        if name != model or (run and int(number) <= run[-1]):
            flush()
            model, run = name, []
        run.append(int(number))
    flush()
    return ", ".join(parts)


def informative(table: pd.DataFrame) -> pd.DataFrame:
    """The decision table without the columns that say nothing on this run: the window slot on a
    strict queue (always 0), the speeds when every GPU runs at 1.0, the work lost when no failure
    stopped a run, the job's model when no job names one (synthetic workloads)."""
    drop = []
    if "model" in table and not table["model"].fillna("").astype(str).str.strip().ne("").any():
        drop.append("model")
    if "slot" in table and (table["slot"].fillna(0) <= 0).all():
        drop.append("slot")
    if {"speed", "best_speed"} <= set(table) and \
            ((table["speed"].fillna(1.0) == 1.0) & (table["best_speed"].fillna(1.0) == 1.0)).all():
        drop += ["speed", "best_speed"]
    if "lost_min" in table and (table["lost_min"].fillna(0) == 0).all():
        drop.append("lost_min")
    return table.drop(columns=drop)
