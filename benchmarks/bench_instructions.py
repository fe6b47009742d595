"""Instructions executed by the simulator and the environment: a figure that does not move with
the machine's load, for comparing two versions of the package on a shared machine.

Each case runs twice under valgrind's cachegrind (``--cache-sim=no``) in a fresh process with
``PYTHONHASHSEED=0`` and one BLAS thread: once doing the work and once stopping just before it
(same imports, same workload built); the figure is the difference, in millions of instructions.
CPU seconds on this machine move by up to 30 % between runs of the same code; these counts repeat
to a few thousand instructions.

Cases:

- ``env64``: ``bench_env``'s 64-GPU case, ``--steps`` uniformly random valid actions (resets
  included) of :class:`~gpusched.env.GPUSchedulerEnv`;
- ``first_fit``, ``best_fit``, ``easy+eft``: ``bench_sim``'s 64-GPU x 10,000-job cases (building
  the simulator and the run; with ``--no-result`` the packaging of the result is left out, so
  that the loop alone is counted).

``--tree PATH`` measures another checkout of the package (for example the commit before a change,
``git worktree add ../before COMMIT``); the driver below reads the workload through the names
either version has. Run: ``python benchmarks/bench_instructions.py [--case env64 ...] [--tree PATH]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ("env64", "first_fit", "best_fit", "easy+eft")
SIM_CASES = {"first_fit": (1, False), "best_fit": (1, False), "easy+eft": (16, True)}
"""Policy -> (window, with the speed table), as ``bench_sim.py --cpu`` runs them."""

DRIVER = r'''
import sys
import numpy as np
case, work, no_result = sys.argv[1], sys.argv[2] == "work", sys.argv[3] == "no-result"
try:
    from gpusched.workload.presets import load_scenario
except ImportError:  # before the scenario split
    from gpusched.workload.scenario import load_scenario
if case == "env64":
    from gpusched.env import GPUSchedulerEnv
    from gpusched.env.randomize import random_cluster
    from gpusched.workload.synthetic import generate_jobs
    steps = int(sys.argv[4])
    rng = np.random.default_rng(64)
    cluster = random_cluster(rng, 64, 64)
    base = load_scenario("phase1-8gpu")
    rate = base.workload.arrival_rate_per_hour * float(cluster.gpu_vram_gb.sum()) / 288.0
    jobs = generate_jobs(max(250, 30 * 64), rate, base.workload.mix, rng, cluster.max_vram_gb_for_gpus())
    env = GPUSchedulerEnv("phase1-8gpu", max_gpus=64)
    options = {"jobs": jobs, "cluster": cluster}
    uniforms = np.random.default_rng(0).random(1 << 16).tolist()
    env.reset(seed=0, options=options)
    for step in range(steps if work else 0):
        valid = env.action_masks().nonzero()[0]
        _, _, terminated, truncated, _ = env.step(int(valid[int(uniforms[step & 0xFFFF] * valid.size)]))
        if terminated or truncated:
            env.reset(options=options)
else:
    sys.path.insert(0, sys.argv[5])
    import bench_sim
    from gpusched.policies import get_policy
    window, speeds = int(sys.argv[6]), sys.argv[7] == "1"
    scenario = bench_sim.scaled_scenario(64, 10_000, speeds, False)
    cluster = scenario.build_cluster()
    jobs = scenario.jobs(cluster=cluster)
    table = scenario.gpu_speeds(cluster)
    policy = get_policy(case)
    if no_result:
        from gpusched.core.simulator import Simulator
        Simulator.result = lambda self, *args, **kwargs: None
    if work:
        try:
            from gpusched.workload.build import simulator_for
            sim = simulator_for(scenario, cluster, jobs, table, window=window)
        except ImportError:  # before the scenario split
            from gpusched.core.simulator import Simulator
            sim = Simulator(cluster, jobs, reward=scenario.reward, window=window, speeds=table,
                            **scenario.simulator_options())
        sim.run(policy)
'''


def instructions(tree: Path, args: list[str]) -> int:
    """Instructions (cachegrind's ``I refs``) of one fresh process running :data:`DRIVER`."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "PYTHONPATH": str(tree)}
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                              f"--cachegrind-out-file={tmp}/cg.out", sys.executable, "-c", DRIVER, *args],
                             env=env, cwd=tree, capture_output=True, text=True, check=True)
    match = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if match is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{out.stderr[-2000:]}")
    return int(match.group(1).replace(",", ""))


def case_args(case: str, tree: Path, steps: int, no_result: bool) -> list[str]:
    """The driver's arguments after ``work|idle`` for ``case``."""
    result = "no-result" if no_result else "result"
    if case == "env64":
        return [result, str(steps)]
    window, speeds = SIM_CASES[case]
    return [result, "-", str(tree / "benchmarks"), str(window), "1" if speeds else "0"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", action="append", choices=CASES, help="a case (repeatable; default: all)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--steps", type=int, default=3000, help="environment steps of env64 (default 3000)")
    parser.add_argument("--no-result", action="store_true", help="leave the result's packaging out")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("bench_instructions.py needs valgrind (Debian's package valgrind)")
    tree = args.tree.resolve()
    for case in args.case or CASES:
        rest = case_args(case, tree, args.steps, args.no_result)
        instructions(tree, [case, "idle", *rest])  # the first run may compile bytecode: not counted
        idle = instructions(tree, [case, "idle", *rest])
        work = instructions(tree, [case, "work", *rest])
        print(f"{case:10s} {tree.name}: {(work - idle) / 1e6:,.1f} M instructions "
              f"({work / 1e6:,.1f} M with the work, {idle / 1e6:,.1f} M without)", flush=True)


if __name__ == "__main__":
    main()
