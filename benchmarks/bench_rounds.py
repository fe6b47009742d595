"""Speed of a run in rounds: CPU seconds and Python calls per round of the shared 300-job Gavel run
(4 V100, 4 P100, 4 K80, 360 s rounds, at least 1,920 s between allocation resets; target: 1 s per
policy), of the ``shockwave-tacc-32gpu`` preset (Shockwave's 120 jobs on 32 V100s, 120 s rounds,
every round policy; target: 1 s per policy), and the ``gavel-108gpu-heavy`` preset in rounds under
``max_min_fairness_perf`` (2,000 jobs on 108 GPUs; targets: 60 s and 1 GB).

The call counts are cProfile's (every Python function call and every call into C, per round of
the run): unlike seconds they do not move with the machine's load, so they compare two versions
across sittings. Seconds are ``time.process_time`` of the whole run (building the simulator, every
round, packaging the result), the best of ``--repeat`` runs.

Usage::

    python benchmarks/bench_rounds.py LP_DIR [--policies ...] [--repeat 3] [--calls]
    python benchmarks/bench_rounds.py --shockwave [--policies ...] [--repeat 3] [--calls]
    python benchmarks/bench_rounds.py --heavy [--policy max_min_fairness_perf]

``LP_DIR`` is the folder of Gavel's shared runs (its ``traces/trace300_seed0.trace``; see
``gavel_rounds.py``). Each line ends with the run's average JCT (minutes, to 12 digits) and a
digest of every job's end time, so that two versions' runs can be checked to be the same.
``--heavy`` times the preset in a fresh process and prints its peak resident
memory (the interpreter and libraries included).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from gavel_rounds import cluster_and_speeds, read_jobs

from gpusched.core.rounds.mechanism import RoundSpec
from gpusched.core.simulator import Simulator
from gpusched.core.speed_model import TableSpeeds
from gpusched.policies import get_policy
from gpusched.policies.rounds import round_policy_names

POLICIES = ("fifo_perf", "max_min_fairness_perf", "max_min_fairness", "finish_time_fairness_perf",
            "finish_time_fairness", "min_total_duration_perf", "min_total_duration",
            "max_sum_throughput_perf", "gandiva", "allox")
"""The policies of Gavel's shared runs (``gavel_rounds.py``'s)."""

TRACE = "trace300_seed0"
SPEC = RoundSpec(length_min=6.0, reset_min=32.0)
"""360 s rounds, 1,920 s between resets (Gavel's defaults)."""
HEAVY = "gavel-108gpu-heavy"
SHOCKWAVE = "shockwave-tacc-32gpu"

Runner = Callable[[str, "cProfile.Profile | None"], tuple[float, object]]
"""``run(policy, profile)``: one run's CPU seconds and its result."""


def timed(build: Callable[[], Simulator], policy: str, profile: cProfile.Profile | None):
    """CPU seconds of building the simulator and running ``policy`` on it, and the result."""
    start = time.process_time()
    if profile is not None:
        profile.enable()
    result = build().run(get_policy(policy, 0))
    if profile is not None:
        profile.disable()
    return time.process_time() - start, result


def runner_300(lp_dir: Path) -> Runner:
    """Runs of the shared 300-job list (read once)."""
    jobs = read_jobs(lp_dir / "traces" / f"{TRACE}.trace")
    cluster, speeds = cluster_and_speeds(4, 4, 4)

    def build() -> Simulator:
        return Simulator(cluster, jobs, speed_model=TableSpeeds(cluster, speeds), rounds=SPEC, round_seed=0)

    return lambda policy, profile=None: timed(build, policy, profile)


def runner_shockwave() -> Runner:
    """Runs of the Shockwave preset (its seed, 0, seeds the policies too, as ``run_policy`` does)."""
    from gpusched.workload.build import make_simulator
    from gpusched.workload.presets import load_scenario

    scenario = load_scenario(SHOCKWAVE)
    return lambda policy, profile=None: timed(lambda: make_simulator(scenario, rounds=True), policy, profile)


def digest(result) -> str:
    """The first 12 hex digits of the sha256 of every job's end time (minutes, by job id)."""
    end = result.jobs.sort_values("id")["end_min"].to_numpy(dtype=np.float64)
    return hashlib.sha256(end.tobytes()).hexdigest()[:12]


def calls_per_round(run: Runner, policy: str, top: int) -> tuple[float, float, list[tuple[str, float]]]:
    """Rounds of the run, calls per round in all (Python functions and builtins), and gpusched's
    ``top`` functions by calls per round."""
    profile = cProfile.Profile()
    _, result = run(policy, profile)
    stats = pstats.Stats(profile)
    rounds = float(result.metrics["rounds"])
    ours = [(key, value[1]) for key, value in stats.stats.items() if "gpusched" in Path(key[0]).parts]
    rows = sorted(ours, key=lambda kv: -kv[1])
    named = [(f"{Path(f).parent.name}/{Path(f).name}:{name}", n / rounds) for (f, _, name), n in rows[:top]]
    return rounds, stats.total_calls / rounds, named


def heavy(policy: str) -> None:
    """The preset in rounds, in this process: CPU and wall seconds, peak memory, the result."""
    from gpusched.workload.build import make_simulator
    from gpusched.workload.presets import load_scenario

    scenario = load_scenario(HEAVY)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu, wall = time.process_time(), time.perf_counter()
    result = make_simulator(scenario, rounds=True).run(get_policy(policy, scenario.workload.seed))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    m = result.metrics
    print(f"{HEAVY} under {policy}: {cpu:.1f} s CPU, {wall:.1f} s wall, peak resident memory "
          f"{peak:.0f} MiB ({before:.0f} MiB after imports); {m['rounds']:,.0f} rounds, "
          f"{m['round_solves']:,.0f} allocations in {m['round_solve_total_s']:.1f} s "
          f"(median {m['round_solve_median_s'] * 1000:.1f} ms, p99 {m['round_solve_p99_s'] * 1000:.1f} ms), "
          f"{m['jobs_completed']:,.0f} jobs completed, average JCT {m['avg_jct_min']:,.1f} min")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lp_dir", type=Path, nargs="?", help="the folder of Gavel's shared runs")
    parser.add_argument("--policies", nargs="+", help="default: Gavel's shared ones (every round "
                        "policy with --shockwave)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per policy (the best is kept)")
    parser.add_argument("--calls", action="store_true", help="also count Python calls per round")
    parser.add_argument("--top", type=int, default=8, help="functions listed with --calls")
    parser.add_argument("--heavy", action="store_true", help=f"time {HEAVY} in rounds instead")
    parser.add_argument("--shockwave", action="store_true", help=f"time {SHOCKWAVE} instead of LP_DIR's run")
    parser.add_argument("--policy", default="max_min_fairness_perf", help="the policy of --heavy")
    parser.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.heavy:
        if args.in_process:
            heavy(args.policy)
            return
        # a fresh process, so that the peak memory is the run's alone
        subprocess.run([sys.executable, __file__, "--heavy", "--in-process", "--policy", args.policy],
                       check=True)
        return
    if args.shockwave:
        run, policies = runner_shockwave(), args.policies or round_policy_names()
    elif args.lp_dir is None:
        parser.error("LP_DIR is required (or --shockwave, or --heavy)")
    else:
        run, policies = runner_300(args.lp_dir), args.policies or list(POLICIES)
    for policy in policies:
        runs = [run(policy, None) for _ in range(max(args.repeat, 1))]
        best = min(seconds for seconds, _ in runs)
        result = runs[0][1]
        line = (f"{policy:<42} {best:6.2f} s CPU  avg JCT {result.metrics['avg_jct_min']:.12g} min, "
                f"ends {digest(result)}")
        if args.calls:
            rounds, per_round, top = calls_per_round(run, policy, args.top)
            line += f"  {rounds:,.0f} rounds, {per_round:,.0f} calls per round"
            print(line, flush=True)
            for name, n in top:
                print(f"    {n:8.1f}  {name}")
        else:
            print(line, flush=True)


if __name__ == "__main__":
    main()
