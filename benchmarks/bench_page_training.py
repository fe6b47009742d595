"""Wall time of the Agent page's smallest training run (the form's defaults at its least
timesteps, 1,000 PPO steps), started as the page starts it: a child process
(:class:`~gpusched.agent.training_job.TrainingJob`) polled until it ends. Target: within
:data:`SMALLEST_RUN_TARGET_S` on a 2-core machine. Prints the seconds, each stage the run reported
and the machine's load beside them (the wall clock follows the load).

Usage: ``python benchmarks/bench_page_training.py [--repeat 1]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

SMALLEST_RUN_TARGET_S = 60.0
"""The smallest run from the Agent page should end within this on a 2-core machine (seconds)."""

POLL_S = 0.2


def smallest_page_config(folder: Path):
    """The :class:`~gpusched.agent.config.TrainConfig` of the page's smallest run (the form's
    defaults, 1,000 timesteps), writing its logs and model under ``folder``."""
    from gpusched.agent.training_job import page_config

    return page_config(name="small", scenario="phase1-8gpu", kind="window", timesteps=1_000, n_envs=2,
                       seed=0, learning_rate=1e-4, n_steps=512, ent_coef=0.003, hidden=64,
                       windows=(1, 16), speed_sigma=0.2, expert_rounds=0,
                       log_dir=folder / "runs", out=folder / "models" / "small.zip")


def timed_run(folder: Path) -> tuple[float, Any, list[str]]:
    """Seconds from start to end of one smallest run, its last
    :class:`~gpusched.agent.training_job.TrainingSnapshot` and the stages it reported."""
    from gpusched.agent.training_job import TrainingJob

    job = TrainingJob(smallest_page_config(folder))
    start = time.monotonic()
    job.start()
    stages: list[str] = []
    while not (snap := job.snapshot()).finished:
        if snap.stage and (not stages or stages[-1] != snap.stage):
            stages.append(snap.stage)
        time.sleep(POLL_S)
    return time.monotonic() - start, snap, stages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs, one after another")
    args = parser.parse_args()
    for k in range(max(args.repeat, 1)):
        load = os.getloadavg()[0]
        with tempfile.TemporaryDirectory() as tmp:
            seconds, snap, stages = timed_run(Path(tmp))
        print(f"run {k + 1}: {seconds:.1f} s ({snap.status}; target {SMALLEST_RUN_TARGET_S:.0f} s), "
              f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after on {os.cpu_count()} CPUs")
        print("  stages: " + " -> ".join(stages))


if __name__ == "__main__":
    main()
