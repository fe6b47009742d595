"""What Replay's first open costs in Python, step by step, on one preset: the run, its stall
analysis, the animated replay and the Gantt chart built and frozen, and their JSON as
``st.plotly_chart`` writes it (CPU seconds, function calls under ``cProfile``, JSON kilobytes).

CPU seconds vary by about ±30 % on a loaded machine; the function calls, the JSON size and its
digest do not, so they are the figures to compare between two versions (the same digest: the
browser gets the same figures byte for byte). Plotly's validators are warmed up first (a page
server has done that before its first Replay). The machine's load is printed beside.

Run: ``python benchmarks/bench_replay_figures.py [--preset gavel-108gpu-heavy] [--policy least_loaded]
[--seed 0]``.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import os
import pstats
import time
from collections.abc import Callable
from typing import Any

import plotly.io as pio

from gpusched import load_scenario, run_policy
from gpusched.experiment.stall import analyse_stall, idle_steps
from gpusched.figures import gantt_figure, replay_figure
from gpusched.figures.frozen import freeze


def measured(step: Callable[[], Any]) -> tuple[Any, float, int]:
    """``step()``'s value, its CPU seconds and its function calls (``cProfile``)."""
    profile = cProfile.Profile()
    started = time.process_time()
    profile.enable()
    value = step()
    profile.disable()
    return value, time.process_time() - started, pstats.Stats(profile).total_calls


def timed_cpu(step: Callable[[], Any]) -> float:
    """``step()``'s CPU seconds, without a profiler."""
    started = time.process_time()
    step()
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="gavel-108gpu-heavy")
    parser.add_argument("--policy", default="least_loaded")
    parser.add_argument("--seed", type=int, default=0, help="workload seed (Replay opens on 0)")
    args = parser.parse_args()
    scenario = load_scenario(args.preset)
    load = os.getloadavg()[0]
    result, run_s, run_calls = measured(lambda: run_policy(scenario, args.policy, seed=args.seed))
    report, stall_s, stall_calls = measured(lambda: (analyse_stall(result), idle_steps(result))[0])
    replay_figure(result, max_frames=10, stall=report)  # warm Plotly's validators up
    gantt_figure(result)

    def figures() -> list[str]:
        replay = freeze(replay_figure(result, stall=report))
        gantt = freeze(gantt_figure(result))
        return [pio.to_json(f.to_dict(), validate=False) for f in (replay, gantt)]

    _, fig_cpu_s, _ = measured(figures)  # once more without the profiler's overhead, CPU only
    fig_cpu_s = min(fig_cpu_s, timed_cpu(figures))
    specs, fig_s, fig_calls = measured(figures)
    print(f"{args.policy} on {args.preset}, seed {args.seed} (load {load:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after, {os.cpu_count()} cores)")
    print(f"{'step (under cProfile)':<44} {'CPU s':>7} {'calls':>11}")
    steps = (("run", run_s, run_calls), ("stall analysis and idle GPUs", stall_s, stall_calls),
             ("replay and Gantt built, frozen, as JSON", fig_s, fig_calls))
    for name, seconds, calls in steps:
        print(f"{name:<44} {seconds:7.2f} {calls:11,}")
    print(f"replay and Gantt built, frozen, as JSON: {fig_cpu_s:.2f} CPU s without the profiler (best of 2)")
    for name, spec in zip(("replay", "Gantt"), specs, strict=True):
        digest = hashlib.sha256(spec.encode()).hexdigest()[:16]
        print(f"JSON sent: {name} {len(spec) / 1e3:,.0f} kB, sha256 {digest}")


if __name__ == "__main__":
    main()
