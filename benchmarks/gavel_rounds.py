"""Gavel's shared round-based runs through gpusched's simulator, side by side with Gavel's own
per-job results; renders ``docs/results/gavel-rounds.md``.

Each run folder of Gavel's runs (``LP_DIR/TRACE__V-P-K__rROUND_resetRESET``, see its README) names
its job list, its cluster (V100, P100 and K80 GPUs, one GPU a worker) and its round settings; the
same jobs run through :class:`gpusched.core.simulator.Simulator` in rounds
(:mod:`gpusched.core.rounds.mechanism`) under each round policy, on a cluster of one node per GPU
type in Gavel's worker-type order (V100, P100, K80), with Gavel's measured speeds
(``speed: gavel``).

**Job conversion** (a Gavel trace line, tab-separated: model, command, working directory, steps
argument, needs data, total steps, scale factor, priority weight, SLO, arrival s): its model and
scale factor select its throughputs (steps/s) in Gavel's measured table; its V100 duration is its
total steps ÷ its V100 throughput (``duration_min``, the work at speed 1.0); it needs ``scale
factor`` GPUs and weighs its priority weight; it arrives at ``arrival s ÷ 60`` minutes.

Not Gavel's: the agnostic policies' type order is shuffled with numpy's Generator (Gavel uses
Python's ``random``); the solvers differ (HiGHS here, ECOS there); a job's steps are not rounded
down to whole steps per round.

Usage: ``python benchmarks/gavel_rounds.py LP_DIR [--policies ...] [--seed 0] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.gavel_speeds import throughputs
from gpusched.core.jobs import Job
from gpusched.core.rounds.mechanism import RoundSpec
from gpusched.core.simulator import Simulator
from gpusched.core.speed_model import TableSpeeds
from gpusched.policies import get_policy
from gpusched.policies.rounds.registry import agnostic_twins
from gpusched.workload.scenario_yaml import scenario_from_dict

TYPES = ("V100", "P100", "K80")
"""Gavel's worker-type order (``v100, p100, k80``)."""

POLICIES = ("fifo_perf", "max_min_fairness_perf", "max_min_fairness", "finish_time_fairness_perf",
            "finish_time_fairness", "min_total_duration_perf", "min_total_duration",
            "max_sum_throughput_perf", "gandiva", "allox")
"""The policies of Gavel's shared runs."""


RUN_DIR = re.compile(r"(.+)__(\d+)-(\d+)-(\d+)__r(\d+)_reset(\d+)")


def read_jobs(path: Path) -> list[Job]:
    """The jobs of a Gavel trace (see the module docstring)."""
    table = throughputs()
    jobs = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        fields = line.split("\t")
        model, steps, scale = fields[0], int(fields[5]), int(fields[6])
        v100 = table["V100"][(model, scale)]
        jobs.append(Job(id=i, type="training", arrival_min=float(fields[9]) / 60.0,
                        duration_min=steps / v100 / 60.0, gpus=scale, vram_gb=0.0, compute=1.0,
                        model=model, weight=float(fields[7])))
    return jobs


def cluster_and_speeds(v100: int, p100: int, k80: int):
    """One node per GPU type, in Gavel's order, with Gavel's measured speeds."""
    counts = dict(zip(TYPES, (v100, p100, k80), strict=True))
    nodes = [{"gpu_model": t, "vram_gb": 16, "gpus_per_node": counts[t], "count": 1}
             for t in TYPES if counts[t]]
    scenario = scenario_from_dict({"name": "gavel-rounds", "cluster": {"nodes": nodes},
                                   "workload": {"jobs": 1, "arrival_rate_per_hour": 1}, "speed": "gavel"})
    cluster = Cluster([NodeGroup(**n) for n in nodes])
    return cluster, scenario.gpu_speeds(cluster)


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


def gavel_wall_s(run_dir: Path) -> dict[str, float]:
    """Gavel's wall seconds per policy (``summary.tsv``)."""
    path = run_dir / "summary.tsv"
    if not path.exists():
        return {}
    rows = csv.DictReader(path.open(encoding="utf-8"), delimiter="\t")
    return {r["policy"]: float(r["wall_s"]) for r in rows}


def run_one(jobs: list[Job], cluster: Cluster, speeds, policy: str, spec: RoundSpec, seed: int):
    """Per-job JCT (s, by job id), wall seconds and the run's metrics of one policy."""
    start = time.perf_counter()
    sim = Simulator(cluster, jobs, speed_model=TableSpeeds(cluster, speeds), rounds=spec, round_seed=seed)
    result = sim.run(get_policy(policy, seed))
    wall = time.perf_counter() - start
    table = result.jobs.sort_values("id")
    return (table["end_min"] - table["arrival_min"]).to_numpy() * 60.0, wall, result.metrics


@dataclass(frozen=True)
class Row:
    """One policy's line of a run's table: averages in s, the share of jobs within 10 % of Gavel's
    JCT, Gavel's and our wall seconds, and the run's metrics."""

    policy: str
    gavel_s: float
    ours_s: float
    within: float
    gavel_wall_s: float
    wall_s: float
    metrics: dict


def run_settings(name: str) -> tuple[str, tuple[int, int, int], RoundSpec]:
    """The trace name, the V100:P100:K80 counts and the round settings a run folder's name states."""
    trace, v100, p100, k80, round_s, reset_s = RUN_DIR.match(name).groups()
    spec = RoundSpec(length_min=float(round_s) / 60.0, reset_min=float(reset_s) / 60.0)
    return trace, (int(v100), int(p100), int(k80)), spec


def measure(lp_dir: Path, run_name: str, policies, seed: int = 0, echo: bool = False) -> list[Row]:
    """Every policy of ``policies`` through gpusched on one run folder's jobs, beside Gavel's."""
    run_dir = lp_dir / run_name
    trace, counts, spec = run_settings(run_name)
    jobs = read_jobs(lp_dir / "traces" / f"{trace}.trace")
    cluster, speeds = cluster_and_speeds(*counts)
    walls = gavel_wall_s(run_dir)
    rows = []
    for name in policies:
        jct, wall, metrics = run_one(jobs, cluster, speeds, name, spec, seed)
        ref = gavel_reference(run_dir, name)
        gavel = float(np.nanmean(ref)) if ref is not None else float("nan")
        within = float(np.mean(np.abs(jct - ref) <= 0.1 * ref)) if ref is not None else float("nan")
        row = Row(name, gavel, float(np.mean(jct)), within, walls.get(name, float("nan")), wall, metrics)
        rows.append(row)
        if echo:
            print(f"{run_name} {name:<28} Gavel {gavel:>9,.0f} ours {row.ours_s:>9,.0f} "
                  f"{row.ours_s / gavel - 1:+7.1%} within 10% {within:5.0%} wall {wall:6.2f} s "
                  f"solves {metrics.get('round_solves', 0):.0f} "
                  f"solve p99 {metrics.get('round_solve_p99_s', 0) * 1000:.1f} ms", flush=True)
    return rows


def table_rows(rows: list[Row]) -> list[str]:
    """The markdown rows of one run's table (the header is :data:`TABLE_HEAD`)."""
    ours = {r.policy: r.ours_s for r in rows}
    theirs = {r.policy: r.gavel_s for r in rows}
    twins = dict(agnostic_twins([r.policy for r in rows]))
    lines = []
    for r in rows:
        twin = twins.get(r.policy)
        ratio_g = f"{theirs[r.policy] / theirs[twin]:.2f}" if twin in theirs else ""
        ratio_o = f"{ours[r.policy] / ours[twin]:.2f}" if twin in ours else ""
        lines.append(f"| `{r.policy}` | {r.gavel_s:,.0f} | {r.ours_s:,.0f} | {r.ours_s / r.gavel_s - 1:+.1%} "
                     f"| {r.within:.0%} | {ratio_g} | {ratio_o} | {r.gavel_wall_s:.1f} | {r.wall_s:.2f} |")
    return lines


TABLE_HEAD = ("| policy | Gavel avg JCT (s) | ours (s) | difference | jobs within 10 % "
              "| agnostic ÷ _perf, Gavel | ours | Gavel wall (s) | ours wall (s) |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
"""The header of each run's table."""


def run_block(run_name: str, n_jobs: int, seed: int, rows: list[Row]) -> list[str]:
    """One run's section of the page: its heading, its settings and its table."""
    _, (v100, p100, k80), spec = run_settings(run_name)
    round_s, reset_s = RUN_DIR.match(run_name).groups()[4:]
    return [f"\n## {run_name}\n", f"{n_jobs} jobs, {v100}:{p100}:{k80} V100:P100:K80, "
            f"{round_s} s rounds, at least {reset_s} s between allocation resets, seed {seed}.\n",
            *TABLE_HEAD, *table_rows(rows)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lp_dir", type=Path, help="the folder of Gavel's runs (traces/ and run folders)")
    parser.add_argument("--policies", nargs="+", default=list(POLICIES))
    parser.add_argument("--runs", nargs="*", default=None, help="run folder names (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the markdown table here")
    args = parser.parse_args()
    lines = []
    for run_dir in sorted(p for p in args.lp_dir.iterdir() if p.is_dir() and RUN_DIR.match(p.name)):
        if args.runs and run_dir.name not in args.runs:
            continue
        trace, _, _ = run_settings(run_dir.name)
        n_jobs = len(read_jobs(args.lp_dir / "traces" / f"{trace}.trace"))
        rows = measure(args.lp_dir, run_dir.name, args.policies, args.seed, echo=True)
        lines += run_block(run_dir.name, n_jobs, args.seed, rows)
    if args.out is not None:
        header = ("# Gavel's round-based policies: Gavel against gpusched\n\n"
                  "Rendered by `python benchmarks/gavel_rounds.py LP_DIR --out docs/results/gavel-rounds.md` "
                  "from Gavel's shared runs (its simulator at c4fa400, seed 0, ECOS) and gpusched's "
                  "simulator in rounds (HiGHS). Gavel's wall times are from its runs' summaries on a "
                  "shared 2-core machine; ours from this rendering.\n")
        one, five, fifteen = os.getloadavg()
        header += (f"\nOur wall times are a full run each (building the simulator, every round, packaging "
                   f"the result), measured while other work shared the machine: its 1-, 5- and 15-minute "
                   f"load averages were {one:.1f}, {five:.1f} and {fifteen:.1f} at the end of the rendering, "
                   f"on {os.cpu_count()} cores.\n")
        args.out.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
