"""Gavel's round loop replayed over gpusched's round functions, outside the simulator: a check of
the round policies and placement against Gavel's own per-job results, before the round mechanism
is built into the simulator.

The loop restates Gavel's trace simulation (``stanford-futuredata/gavel`` at c4fa400,
``scheduler/scheduler.py``, ``simulate``, ``_done_callback``, ``_update_priorities``): every round
the jobs placed by :func:`gpusched.core.rounds.assign_round` run ``floor(throughput × round)``
steps (at most what is left) and the round ends when the last of them ends; a job's time on its
type counts from the previous round's end (as Gavel counts it, an idle gap included); arrivals join
at the next round boundary; the allocation is recomputed, and the time received reset, when jobs
arrived or finished and the reset interval has passed (:func:`gpusched.core.rounds.needs_reallocation`,
with Gavel's forced reset once every job has arrived and nothing runs). A job's JCT is the end of
its last round minus its arrival. Job conversion: a trace line's model and scale factor select its
throughputs (steps/s) in Gavel's measured table; its total steps are its work.

Not Gavel's: the agnostic policies' type order is shuffled with numpy's Generator (Gavel uses
Python's ``random``), and the solvers differ (HiGHS here, ECOS there).

Usage: ``python benchmarks/gavel_rounds_preview.py LP_DIR [--policies ...] [--seed 0]``, where
``LP_DIR`` is the folder of Gavel's runs (``traces/`` and one folder per run, see its README).
"""

from __future__ import annotations

import argparse
import csv
import re
import time
from pathlib import Path

import numpy as np

from gpusched.core.gavel_speeds import throughputs
from gpusched.core.rounds import (
    RoundProblem,
    assign_round,
    needs_reallocation,
    reset_time_received,
    round_priorities,
    shuffled_type_order,
)
from gpusched.policies.rounds import get_round_policy

TYPES = ("V100", "P100", "K80")
"""Gavel's worker-type order (``v100, p100, k80``)."""


def read_trace(path: Path) -> dict[str, np.ndarray]:
    """A Gavel trace: one job a line, tab-separated (model, command, working directory, steps
    argument, needs data, total steps, scale factor, priority weight, SLO, arrival s)."""
    models, steps, scale, weight, arrival = [], [], [], [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        models.append(fields[0])
        steps.append(int(fields[5]))
        scale.append(int(fields[6]))
        weight.append(float(fields[7]))
        arrival.append(float(fields[9]))
    table = throughputs()
    thr = np.array([[table[t][(m, s)] for t in TYPES] for m, s in zip(models, scale, strict=True)])
    return dict(throughput=thr, steps=np.array(steps, dtype=float), scale=np.array(scale),
                weight=np.array(weight), arrival=np.array(arrival))


def simulate(jobs: dict[str, np.ndarray], policy_name: str, round_s: float, reset_s: float,
             capacity: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, float]]:
    """Per-job JCT (s) and run statistics of one policy on one trace."""
    policy = get_round_policy(policy_name, seed)
    rng = np.random.default_rng(seed)
    n = len(jobs["steps"])
    thr, total = jobs["throughput"], jobs["steps"]
    done = np.zeros(n)
    jct = np.full(n, np.nan)
    active: list[int] = []
    time_s = np.zeros((n, 3))  # seconds received per type since the last reset (Gavel's job time)
    type_time = np.zeros(3)
    deficit = np.zeros((n, 3))
    share = np.zeros((n, 3))
    in_alloc = np.zeros(n, dtype=bool)
    prev_type = np.full(n, -1)
    prev_gpus: list[tuple[int, ...]] = [()] * n
    changes = np.zeros(n, dtype=int)
    last_type = np.full(n, -1)
    next_job, now = 0, float(jobs["arrival"][0])
    last_reset, round_start, round_end = 0.0, 0.0, None  # Gavel's initial values
    changed = False
    running: list[tuple[int, int, float, float]] = []  # job, type, steps, finish
    solve_s, solves, rounds = 0.0, 0, 0
    while True:
        if next_job >= n:
            if not active and not running:
                break
            if not running:
                last_reset = 0.0  # Gavel forces a reset when every job has arrived and none runs
        if running:
            end = max(f for *_, f in running)
            if round_end is not None:
                round_start = round_end
            round_end, now = end, end
            for i, j, steps, finish in running:
                done[i] += steps
                time_s[i, j] += finish - round_start
                type_time[j] += finish - round_start
                if total[i] - done[i] <= 0:
                    jct[i] = finish - jobs["arrival"][i]
                    active.remove(i)
                    changed = True
            running = []
        elif next_job < n:
            now = float(jobs["arrival"][next_job])
        while next_job < n and jobs["arrival"][next_job] <= now:
            active.append(next_job)
            time_s[next_job] = round_s / 2.0
            changed = True
            next_job += 1
        if not active:
            continue
        rows = np.array(active)
        if needs_reallocation(now, None if last_reset == 0.0 else last_reset, reset_s, changed):
            fresh, type_time, new_deficit = reset_time_received(time_s[rows], share[rows], now - last_reset,
                                                                deficit[rows], round_s)
            time_s[rows], deficit[rows] = fresh, new_deficit
            last_reset = now
            problem = RoundProblem(
                throughput=thr[rows], scale_factor=jobs["scale"][rows], capacity=capacity,
                weight=jobs["weight"][rows], remaining=total[rows] - done[rows],
                age_s=now - jobs["arrival"][rows], type_names=TYPES, job_ids=rows, reference_type=0)
            allocation = policy(problem)
            solve_s += allocation.solve_s
            solves += 1
            share[:] = 0.0
            in_alloc[:] = False
            share[rows] = allocation.share
            in_alloc[rows] = True
            changed = False
        order = shuffled_type_order(range(3), rng) if policy.agnostic else [0, 1, 2]
        priority = round_priorities(share[rows], time_s[rows], type_time, thr[rows])
        placed = assign_round(share[rows], priority, jobs["scale"][rows], capacity, thr[rows], order,
                              deficit=deficit[rows], previous_type=prev_type[rows],
                              previous_gpus=[prev_gpus[i] for i in rows], fifo=policy.fifo,
                              allocated=in_alloc[rows])
        prev_type[:] = -1
        for r, i in enumerate(rows):
            j = int(placed.gpu_type[r])
            prev_gpus[i] = placed.gpus[r]
            if j < 0:
                continue
            prev_type[i] = j
            if last_type[i] >= 0 and last_type[i] != j:
                changes[i] += 1
            last_type[i] = j
            steps = min(float(int(thr[i, j] * round_s)), total[i] - done[i])
            running.append((i, j, steps, now + steps / thr[i, j]))
        rounds += 1
    stats = dict(rounds=rounds, solves=solves, solve_s=solve_s, type_changes=int(changes.sum()))
    return jct, stats


def gavel_reference(run_dir: Path, policy: str) -> np.ndarray | None:
    """Gavel's per-job JCTs for ``policy`` (``POLICY.jct.tsv``: job id, JCT s), or ``None``."""
    path = run_dir / f"{policy}.jct.tsv"
    if not path.exists():
        return None
    rows = [r for r in csv.reader(path.open(encoding="utf-8"), delimiter="\t") if r and r[0].isdigit()]
    out = np.full(max(int(r[0]) for r in rows) + 1, np.nan)
    for r in rows:
        out[int(r[0])] = float(r[1])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lp_dir", type=Path, help="the folder of Gavel's runs (traces/ and run folders)")
    parser.add_argument("--policies", nargs="+", default=[
        "fifo_perf", "max_min_fairness_perf", "max_min_fairness", "finish_time_fairness_perf",
        "finish_time_fairness", "min_total_duration_perf", "min_total_duration",
        "max_sum_throughput_perf", "gandiva", "allox"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for run_dir in sorted(p for p in args.lp_dir.iterdir() if p.is_dir() and "__" in p.name):
        match = re.match(r"(.+)__(\d+)-(\d+)-(\d+)__r(\d+)_reset(\d+)", run_dir.name)
        if match is None:
            continue
        trace, v100, p100, k80, round_s, reset_s = match.groups()
        jobs = read_trace(args.lp_dir / "traces" / f"{trace}.trace")
        capacity = np.array([int(v100), int(p100), int(k80)])
        print(f"\n{run_dir.name}: {len(jobs['steps'])} jobs, {round_s} s rounds, reset {reset_s} s")
        print(f"{'policy':<28}{'Gavel JCT':>11}{'ours':>11}{'diff':>8}{'within 10%':>11}"
              f"{'changes':>9}{'solves':>8}{'solve s':>9}{'wall s':>8}")
        for name in args.policies:
            start = time.perf_counter()
            jct, stats = simulate(jobs, name, float(round_s), float(reset_s), capacity, args.seed)
            wall = time.perf_counter() - start
            ref = gavel_reference(run_dir, name)
            gavel = float(np.nanmean(ref)) if ref is not None else float("nan")
            within = float(np.mean(np.abs(jct - ref) <= 0.1 * ref)) if ref is not None else float("nan")
            print(f"{name:<28}{gavel:>11,.0f}{np.mean(jct):>11,.0f}{np.mean(jct) / gavel - 1:>+8.1%}"
                  f"{within:>11.0%}{stats['type_changes']:>9,}{stats['solves']:>8}"
                  f"{stats['solve_s']:>9.2f}{wall:>8.1f}")


if __name__ == "__main__":
    main()
