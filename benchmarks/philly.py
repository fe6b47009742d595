"""The Philly replay (``philly-replay``) under every order+placement pair and every round policy,
told run times exactly, from history and not at all, paired seed by seed; and the target: how much
of the gain ``qssf`` told exact run times has over FIFO does ``qssf`` with ``history`` recover.

Parts (each writes its JSON into ``benchmarks/results/``; ``python benchmarks/render_results.py``
renders ``docs/results/philly.md`` from them, as it renders every results page):

- ``--part pairs``: every pair the registry lists (``ORDER+PLACEMENT``,
  the four families of :mod:`gpusched.policies.registry`: :func:`pair_names`) under ``exact``,
  ``history`` and ``none``
  (:func:`gpusched.experiment.knowledge.knowledge_comparison`; a pair that reads run times is
  refused under ``none``) on :data:`PAIR_SEEDS` -> ``philly-pairs.json``;
- ``--part rounds``: every round policy (:func:`~gpusched.policies.registry.is_round_policy`) the
  same way on :data:`ROUND_SEEDS` (a round policy's run costs some 50 times a pair's: the part
  runs seed by seed, rewriting its file after each, and resumes where it stopped; a policy that reads
  no run time is run once a seed, :func:`rounds_one_seed`) -> ``philly-rounds.json``;
- ``--full PATH``: the whole trace (82,247 jobs, the file at PATH, never shipped) in real time on a
  homogeneous cluster of :data:`FULL_SERVERS` 8-GPU servers (about the size of the Philly cluster,
  some 2,490 GPUs in Jeon et al.; gangs spread over servers) under :data:`FULL_PAIR` and
  :data:`FULL_ROUND`, each in its own process: CPU seconds and peak resident memory ->
  ``philly-full.json``. Reported, not tuned.

The evaluation seeds (1000 and up) never sized the preset (``benchmarks/philly_load.py`` used
900-904).

Usage: ``nice -n 10 python benchmarks/philly.py --part pairs`` (about 4 CPU minutes),
``--part rounds`` (about 2 CPU minutes a seed), ``--full PATH/philly.csv`` (minutes; a run is
stopped at :data:`FULL_LIMIT_CPU_S`), then ``python benchmarks/render_results.py``.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time

import pandas as pd

from gpusched.experiment.knowledge import KnowledgeTable, knowledge_comparison, refused
from gpusched.paths import PHILLY_FULL_RESULTS, PHILLY_PAIRS_RESULTS, PHILLY_ROUNDS_RESULTS
from gpusched.policies.registry import (
    is_round_policy,
    moving_policy_names,
    policy_names,
    preemptive_policy_names,
    queue_policy_names,
    urgency_policy_names,
)
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import told

PRESET = "philly-replay"
"""The replay."""
SETTINGS = (("exact", "exact"), ("history", "history"), ("none", "none"))
"""What the scheduler is told (label, ``workload.declared_run_time``)."""
PAIR_SEEDS = tuple(range(1000, 1010))
"""Evaluation seeds of the pairs (each draws a 14-day window)."""
ROUND_SEEDS = PAIR_SEEDS
"""Evaluation seeds of the round policies: the pairs' seeds, so that a round policy pairs with FIFO
and with the best pair seed by seed."""
METRICS = ("avg_jct_min", "avg_wait_min", "jobs_completed", "prediction_error_log")
"""What each run keeps."""
SETTING_METRIC = "prediction_error_log"
"""The metric that measures the setting rather than the run: left empty where a run under ``none``
stands for another setting."""
FULL_SERVERS = 312
"""8-GPU servers of the whole-trace run (2,496 GPUs)."""
FULL_PAIR = "fcfs+first_fit"
FULL_ROUND = "max_min_fairness"
FULL_LIMIT_CPU_S = {FULL_PAIR: 120, FULL_ROUND: 300}
"""CPU seconds after which a whole-trace run is stopped (``RLIMIT_CPU``; reported as not finished):
four times the pair's target, the round policy's target."""
OUT = {"pairs": PHILLY_PAIRS_RESULTS, "rounds": PHILLY_ROUNDS_RESULTS, "full": PHILLY_FULL_RESULTS}


def pair_names() -> list[str]:
    """Every order+placement pair the registry lists: the queue-aware, urgency, preemptive and
    moving families."""
    return [*queue_policy_names(), *urgency_policy_names(), *preemptive_policy_names(),
            *moving_policy_names()]


def round_names() -> list[str]:
    """Every round policy of the registry."""
    return [p for p in policy_names() if is_round_policy(p)]


def run_part(part: str) -> None:
    """Run one part and write its JSON (the table, the seeds and the CPU seconds)."""
    if part == "rounds":
        run_rounds(ROUND_SEEDS)
        return
    cpu = time.process_time()
    table = knowledge_comparison(load_scenario(PRESET), pair_names(), PAIR_SEEDS, SETTINGS,
                                 metrics=METRICS,
                                 progress=lambda d, t: print(f"\r{d}/{t}", end="", file=sys.stderr))
    out = {"table": table.to_json(), "cpu_s": time.process_time() - cpu}
    OUT[part].write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"\n{part}: {out['cpu_s']:.0f} CPU s -> {OUT[part]}")


def blind_round_names() -> list[str]:
    """The round policies that read no run time (accepted told nothing): the setting changes only
    ``workload.declared_run_time``, so their runs are the same under every setting."""
    none = told(load_scenario(PRESET), "none")
    return [p for p in round_names() if not refused(none, p)]


def rounds_one_seed(seed: int) -> KnowledgeTable:
    """Every round policy under every setting of :data:`SETTINGS` on one seed; a policy of
    :func:`blind_round_names` is run once, under ``none``, and its row stands for every setting
    (:data:`SETTING_METRIC` left empty)."""
    scenario, blind = load_scenario(PRESET), blind_round_names()
    readers = [p for p in round_names() if p not in blind]
    read = knowledge_comparison(scenario, readers, [seed], SETTINGS, metrics=METRICS)
    once = knowledge_comparison(scenario, blind, [seed], (("none", "none"),), metrics=METRICS)
    copies = [once.runs.assign(setting=label, **({} if label == "none" else {SETTING_METRIC: math.nan}))
              for label, _ in SETTINGS]
    return _merged([read.runs, *copies], [seed])


def _merged(parts: list[pd.DataFrame], seeds: list[int]) -> KnowledgeTable:
    """One table of the round policies from runs (rows in setting, policy, seed order)."""
    runs = pd.concat(parts, ignore_index=True)
    order = {label: i for i, (label, _) in enumerate(SETTINGS)}
    rank = {p: i for i, p in enumerate(round_names())}
    runs = runs.sort_values(["setting", "policy", "seed"],
                            key=lambda c: c.map(order) if c.name == "setting"
                            else c.map(rank) if c.name == "policy" else c).reset_index(drop=True)
    return KnowledgeTable(load_scenario(PRESET).name, sorted(seeds), [label for label, _ in SETTINGS],
                          round_names(), runs)


def run_rounds(seeds: tuple[int, ...]) -> None:
    """Run the round policies seed by seed (:func:`rounds_one_seed`), rewriting
    ``philly-rounds.json`` after each seed so that a stopped run resumes where it stopped (a seed
    the file holds is not run again); ``cpu_s`` sums the seeds' CPU seconds."""
    done: dict = {"table": None, "cpu_s": 0.0, "cpu_s_per_seed": {}}
    if OUT["rounds"].is_file():
        old = json.loads(OUT["rounds"].read_text(encoding="utf-8"))
        if "cpu_s_per_seed" in old:
            done = old
    have = KnowledgeTable.from_json(done["table"]) if done["table"] else None
    for seed in (s for s in seeds if have is None or s not in have.seeds):
        cpu = time.process_time()
        table = rounds_one_seed(seed)
        spent = time.process_time() - cpu
        have = table if have is None else _merged([have.runs, table.runs], [*have.seeds, seed])
        done["cpu_s_per_seed"][str(seed)] = spent
        done = {"table": have.to_json(), "cpu_s": sum(done["cpu_s_per_seed"].values()),
                "cpu_s_per_seed": done["cpu_s_per_seed"], "run_once": blind_round_names()}
        OUT["rounds"].write_text(json.dumps(done, indent=1) + "\n", encoding="utf-8")
        print(f"rounds: seed {seed}: {spent:.0f} CPU s -> {OUT['rounds']}", flush=True)


def _time_one(policy: str, path: str) -> dict:
    """Run ``policy`` on the whole trace in this process; CPU s and peak memory (MiB)."""
    from gpusched.experiment.runner import run_policy
    from gpusched.workload.scenario_yaml import scenario_from_dict

    scenario = scenario_from_dict({
        "name": "philly-full",
        "cluster": {"nodes": [{"gpu_model": "V100", "vram_gb": 16, "gpus_per_node": 8,
                               "count": FULL_SERVERS}], "gang_placement": "spread"},
        "workload": {"jobs": 100_000, "trace": {"philly": {"file": path}}},
        "queue": {"window": 16}})
    cpu = time.process_time()
    jobs = scenario.jobs()
    result = run_policy(scenario, policy, seed=0)
    return {"policy": policy, "jobs": len(jobs), "cpu_s": time.process_time() - cpu,
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "avg_jct_min": float(result.metrics["avg_jct_min"]),
            "jobs_unfinished": int(result.metrics["jobs_unfinished"])}


def run_full(path: str) -> None:
    """Time :data:`FULL_PAIR` and :data:`FULL_ROUND` on the whole trace, each in a fresh process."""
    rows = []
    for policy, limit in FULL_LIMIT_CPU_S.items():
        def cap(limit: int = limit) -> None:
            resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))

        done = subprocess.run([sys.executable, __file__, "--time-one", policy, path], preexec_fn=cap,
                              capture_output=True, text=True, check=False)
        if done.returncode == 0:
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        else:
            rows.append({"policy": policy, "stopped_after_cpu_s": limit, "returncode": done.returncode})
        print(rows[-1], flush=True)
    OUT["full"].write_text(json.dumps({"servers": FULL_SERVERS, "runs": rows}, indent=1) + "\n",
                           encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("pairs", "rounds"))
    parser.add_argument("--full", metavar="PATH", help="the full processed philly.csv")
    parser.add_argument("--time-one", nargs=2, metavar=("POLICY", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.time_one:
        print(json.dumps(_time_one(*args.time_one)))
    if args.part:
        run_part(args.part)
    if args.full:
        run_full(args.full)


if __name__ == "__main__":
    main()
