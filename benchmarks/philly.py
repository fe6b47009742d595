"""The Philly replay (``philly-replay``) under every order+placement pair and every round policy,
told run times exactly, from history and not at all, paired seed by seed; and the target: how much
of the gain ``qssf`` told exact run times has over FIFO does ``qssf`` with ``history`` recover.

Parts (each writes its JSON into ``benchmarks/results/``; ``--render`` writes
``docs/results/philly.md`` from them):

- ``--part pairs``: every pair the registry lists (``ORDER+PLACEMENT``,
  the four families of :mod:`gpusched.policies.registry`: :func:`pair_names`) under ``exact``,
  ``history`` and ``none``
  (:func:`gpusched.experiment.knowledge.knowledge_comparison`; a pair that reads run times is
  refused under ``none``) on :data:`PAIR_SEEDS` -> ``philly-pairs.json``;
- ``--part rounds``: every round policy (:func:`~gpusched.policies.registry.is_round_policy`) the
  same way on :func:`round_seeds` (fewer: a round policy's run costs some 50 times a pair's) ->
  ``philly-rounds.json``;
- ``--full PATH``: the whole trace (82,247 jobs, the file at PATH, never shipped) in real time on a
  homogeneous cluster of :data:`FULL_SERVERS` 8-GPU servers (about the size of the Philly cluster,
  some 2,490 GPUs in Jeon et al.; gangs spread over servers) under :data:`FULL_PAIR` and
  :data:`FULL_ROUND`, each in its own process: CPU seconds and peak resident memory ->
  ``philly-full.json``. Reported, not tuned.

The evaluation seeds (1000 and up) never sized the preset (``benchmarks/philly_load.py`` used
900-904). The recovered share is ``(FIFO - qssf history) / (FIFO - qssf exact)`` of the mean JCT
over the seeds, FIFO being ``fcfs`` with the same placement; its 95 % interval is a percentile
bootstrap over the seeds (:data:`BOOTSTRAP_DRAWS` resamples of the seeds, a seeded numpy
Generator). Alibaba's PAI simulator reports 99 % for its duration estimator (FIFO 7,918 s, oracle
SJF 5,989 s, SJF with the estimator 6,002 s).

Usage: ``nice -n 10 python benchmarks/philly.py --part pairs`` (about 2 CPU minutes),
``--part rounds`` (about 4, after ``pairs``), ``--full PATH/philly.csv`` (minutes; a run is stopped at
:data:`FULL_LIMIT_CPU_S`), ``--render``.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time

import numpy as np

from gpusched.experiment.knowledge import KnowledgeTable, knowledge_comparison
from gpusched.experiment.paired import paired_difference
from gpusched.paths import BENCHMARK_RESULTS_DIR, REPO_ROOT
from gpusched.policies.registry import (
    is_round_policy,
    moving_policy_names,
    policy_names,
    preemptive_policy_names,
    queue_policy_names,
    urgency_policy_names,
)
from gpusched.workload.presets import load_scenario

PRESET = "philly-replay"
"""The replay."""
SETTINGS = (("exact", "exact"), ("history", "history"), ("none", "none"))
"""What the scheduler is told (label, ``workload.declared_run_time``)."""
PAIR_SEEDS = tuple(range(1000, 1010))
"""Evaluation seeds of the pairs (each draws a 14-day window)."""
def round_seeds() -> tuple[int, ...]:
    """The evaluation seed of the round policies: one (a round policy runs some 50 times longer
    than a pair here, and the benchmark's CPU budget is about ten minutes), the pairs' seed on which
    FIFO (``fcfs+first_fit`` told exactly) waits longest on average, so that the policies meet a
    queue; it is read from ``philly-pairs.json`` (run ``--part pairs`` first)."""
    table = KnowledgeTable.from_json(json.loads(OUT["pairs"].read_text(encoding="utf-8"))["table"])
    return (int(table.values("exact", "fcfs+first_fit", "avg_wait_min").idxmax()),)
METRICS = ("avg_jct_min", "avg_wait_min", "jobs_completed", "prediction_error_log")
"""What each run keeps."""
PLACEMENTS_FOR_TARGET = ("first_fit", "best_fit", "least_loaded_fit")
"""The placements the target is computed for (``first_fit`` is the headline)."""
BOOTSTRAP_DRAWS = 10_000
"""Resamples of the seeds for the recovered share's interval."""
BOOTSTRAP_SEED = 0
"""The Generator seed of the bootstrap."""
FULL_SERVERS = 312
"""8-GPU servers of the whole-trace run (2,496 GPUs)."""
FULL_PAIR = "fcfs+first_fit"
FULL_ROUND = "max_min_fairness"
FULL_LIMIT_CPU_S = {FULL_PAIR: 120, FULL_ROUND: 300}
"""CPU seconds after which a whole-trace run is stopped (``RLIMIT_CPU``; reported as not finished):
four times the pair's target, the round policy's target."""
OUT = {"pairs": BENCHMARK_RESULTS_DIR / "philly-pairs.json",
       "rounds": BENCHMARK_RESULTS_DIR / "philly-rounds.json",
       "full": BENCHMARK_RESULTS_DIR / "philly-full.json"}
DOC = REPO_ROOT / "docs" / "results" / "philly.md"


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
    policies, seeds = (pair_names(), PAIR_SEEDS) if part == "pairs" else (round_names(), round_seeds())
    cpu = time.process_time()
    table = knowledge_comparison(load_scenario(PRESET), policies, seeds, SETTINGS, metrics=METRICS,
                                 progress=lambda d, t: print(f"\r{d}/{t}", end="", file=sys.stderr))
    out = {"table": table.to_json(), "cpu_s": time.process_time() - cpu}
    OUT[part].write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"\n{part}: {out['cpu_s']:.0f} CPU s -> {OUT[part]}")


def recovered(fifo: np.ndarray, exact: np.ndarray, hist: np.ndarray) -> dict:
    """The share of ``qssf`` exact's mean gain over FIFO that ``qssf`` history keeps, with a
    percentile bootstrap 95 % interval over the seeds (NaN where a resample has no gain)."""
    gain, kept = fifo - exact, fifo - hist
    share = float(kept.mean() / gain.mean()) if gain.mean() > 0 else math.nan
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    idx = rng.integers(0, len(fifo), size=(BOOTSTRAP_DRAWS, len(fifo)))
    g, k = gain[idx].mean(axis=1), kept[idx].mean(axis=1)
    draws = np.where(g > 0, k / np.where(g > 0, g, 1.0), np.nan)
    low, high = np.nanpercentile(draws, [2.5, 97.5]) if np.isfinite(draws).any() else (math.nan,) * 2
    return {"share": share, "low": float(low), "high": float(high),
            "no_gain_draws": int(np.isnan(draws).sum())}


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


def _seed_range(seeds: list[int]) -> str:
    return str(seeds[0]) if len(seeds) == 1 else f"{seeds[0]}–{seeds[-1]}"


def _fmt(x: float, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    return f"{x:+,.1f}" if signed else f"{x:,.1f}"


def _cost_rows(table: KnowledgeTable) -> list[str]:
    cost = table.cost_of_not_knowing("avg_jct_min")
    lines = ["| policy | exact | history | history − exact [95 %] | none | none − exact [95 %] |",
             "|---|---|---|---|---|---|"]
    for policy in table.policies:
        exact = table.values("exact", policy, "avg_jct_min").mean()
        cells = [f"`{policy}`", _fmt(exact)]
        for setting in ("history", "none"):
            row = cost[(cost["policy"] == policy) & (cost["setting"] == setting)].iloc[0]
            if table.is_refused(setting, policy):
                cells += ["refused", "—"]
            else:
                cells += [_fmt(row["mean"]),
                          f"{_fmt(row['diff'], True)} [{_fmt(row['low'], True)}, {_fmt(row['high'], True)}]"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown() -> str:
    """The text of ``docs/results/philly.md``, from the parts' JSON files."""
    pairs = json.loads(OUT["pairs"].read_text(encoding="utf-8"))
    ptable = KnowledgeTable.from_json(pairs["table"])
    scenario = load_scenario(PRESET)
    seeds = ptable.seeds
    lines = ["# The Philly replay: what the scheduler knows", "",
             "Rendered by `python benchmarks/philly.py --render` from `benchmarks/results/philly-*.json` "
             "(written by `nice -n 10 python benchmarks/philly.py --part pairs`, `--part rounds` and "
             "`--full PATH/philly.csv`). Do not edit by hand.", "",
             f"**Preset** `{PRESET}`: {scenario.description}", "",
             f"**Seeds**: pairs {_seed_range(seeds)} ({len(seeds)} windows), round policies "
             + ("not run" if not OUT["rounds"].is_file() else
                _seed_range(json.loads(OUT["rounds"].read_text(encoding="utf-8"))["table"]["seeds"]))
             + "; each seed draws another 14-day window, and none sized the preset (900–904 did). "
             f"CPU: pairs {pairs['cpu_s']:.0f} s"
             + ("" if not OUT["rounds"].is_file() else
                f", round policies {json.loads(OUT['rounds'].read_text(encoding='utf-8'))['cpu_s']:.0f} s")
             + ". Mean JCT in minutes; differences are paired seed by seed (mean, 95 % Student-t interval).",
             "", "## The target: what `qssf` with history recovers", "",
             "Share of the gain `qssf` told exact run times has over FIFO (`fcfs`, same placement) that "
             "`qssf` with `history` keeps: (FIFO − qssf history) / (FIFO − qssf exact), of the mean JCT "
             f"over the seeds; interval: percentile bootstrap over the seeds ({BOOTSTRAP_DRAWS:,} resamples, "
             f"Generator seed {BOOTSTRAP_SEED}). Target ≥ 90 %; Alibaba's PAI simulator reports 99 %.", "",
             "| placement | FIFO | qssf exact | qssf history | gain exact [95 %] | gain history [95 %] "
             "| recovered [95 %] |", "|---|---|---|---|---|---|---|"]
    target = {}
    for place in PLACEMENTS_FOR_TARGET:
        fifo = ptable.values("exact", f"fcfs+{place}", "avg_jct_min").to_numpy()
        qe = ptable.values("exact", f"qssf+{place}", "avg_jct_min").to_numpy()
        qh = ptable.values("history", f"qssf+{place}", "avg_jct_min").to_numpy()
        ge, gh = paired_difference(fifo, qe), paired_difference(fifo, qh)
        r = recovered(fifo, qe, qh)
        target[place] = r
        lines.append(f"| `{place}` | {_fmt(fifo.mean())} | {_fmt(qe.mean())} | {_fmt(qh.mean())} | "
                     f"{_fmt(ge.mean, True)} [{_fmt(ge.low, True)}, {_fmt(ge.high, True)}] | "
                     f"{_fmt(gh.mean, True)} [{_fmt(gh.low, True)}, {_fmt(gh.high, True)}] | "
                     f"{100 * r['share']:.0f} % [{100 * r['low']:.0f}, {100 * r['high']:.0f}] |")
    head = target["first_fit"]
    lines += ["", f"With `first_fit`, `qssf` with history recovers **{100 * head['share']:.0f} %** "
              f"(95 % interval {100 * head['low']:.0f}–{100 * head['high']:.0f} %) of the exact gain: "
              + ("the target (≥ 90 %) is met." if head["share"] >= 0.9 else
                 "below the 90 % target, and the interval excludes it." if head["high"] < 0.9 else
                 "below the 90 % target.")
              + (f" {head['no_gain_draws']} of the bootstrap's resamples held no gain and are left out."
                 if head["no_gain_draws"] else ""), ""]
    lines += ["## Every order+placement pair", "",
              "Mean JCT (min) told exactly, from history and not at all; a pair that reads run times is "
              "refused under `none`. The cluster's servers are identical, so the placements that only "
              "choose among free GPUs give the same runs.", "", *_cost_rows(ptable), ""]
    if OUT["rounds"].is_file():
        rounds = json.loads(OUT["rounds"].read_text(encoding="utf-8"))
        rtable = KnowledgeTable.from_json(rounds["table"])
        lines += ["## Round policies", "",
                  f"Seed {_seed_range(rtable.seeds)}, the pairs' seed on which FIFO waits longest (one, "
                  "for the CPU budget: the differences have no interval), the default rounds. A policy "
                  "that does not read run times gives the same result under every setting. On "
                  + ", ".join(f"seed {s} FIFO's (`fcfs+first_fit`) mean wait is "
                              f"{ptable.values('exact', 'fcfs+first_fit', 'avg_wait_min')[s]:,.1f} min"
                              for s in rtable.seeds if s in ptable.seeds)
                  + ".", "", *_cost_rows(rtable), ""]
    if OUT["full"].is_file():
        full = json.loads(OUT["full"].read_text(encoding="utf-8"))
        lines += ["## The whole trace: speed", "",
                  f"All 82,247 jobs in real time on {full['servers']} servers of 8 GPUs (gangs spread "
                  "over servers), one process per run; targets: a pair ≤ 30 s, a round policy ≤ 5 min. "
                  "Reported, not tuned.", "",
                  "| policy | jobs | CPU s | peak memory (MiB) | mean JCT (min) |",
                  "|---|---|---|---|---|"]
        for row in full["runs"]:
            if "stopped_after_cpu_s" in row:
                lines.append(f"| `{row['policy']}` | — | not finished in {row['stopped_after_cpu_s']} CPU s "
                             "(stopped) | — | — |")
            else:
                lines.append(f"| `{row['policy']}` | {row['jobs']:,} | {row['cpu_s']:.1f} | "
                             f"{row['peak_mib']:,.0f} | {_fmt(row['avg_jct_min'])} |")
        lines.append("")
    return "\n".join(lines)


def render() -> None:
    """Write ``docs/results/philly.md`` (:func:`markdown`)."""
    DOC.write_text(markdown(), encoding="utf-8")
    print(f"-> {DOC}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("pairs", "rounds"))
    parser.add_argument("--full", metavar="PATH", help="the full processed philly.csv")
    parser.add_argument("--time-one", nargs=2, metavar=("POLICY", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument("--render", action="store_true")
    args = parser.parse_args()
    if args.time_one:
        print(json.dumps(_time_one(*args.time_one)))
    if args.part:
        run_part(args.part)
    if args.full:
        run_full(args.full)
    if args.render:
        render()


if __name__ == "__main__":
    main()
