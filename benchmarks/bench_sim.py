"""Simulator speed: decisions per second and wall time for First-Fit and Best-Fit on a FIFO queue,
for EASY backfilling over Best-Fit on a queue window of 16, for EASY with earliest finish
time (``easy+eft``) on a window of 16 with the shipped GPU speeds at an offered load of 0.3
(targets: 8 GPUs x 250 jobs in
100 ms; 1,024 GPUs x 100,000 jobs in 20 s and 1 GB), for EASY over Best-Fit with node failures at
the rate Kokolis et al. measured (6.5 per 1,000 node-days; training jobs checkpoint hourly, a
5-minute restore), and for the preemptive ``srtf+best_fit`` on a window of 16 with the same
checkpoints (targets: 1,024 GPUs x 100,000 jobs in 20 s each), and for Fastest-Fit with gangs
across servers (``gang_placement: spread``) on K80, P100 and V100 servers of 4 GPUs with Gavel's
measured speeds and Gavel's generator of multi-GPU jobs (target: 1,024 GPUs x 100,000 jobs in 20 s
and 1 GB).

Cases: 8 GPUs x 250 jobs, 64 GPUs x 10,000 jobs, 1,024 GPUs x 100,000 jobs. Prints the peak
resident memory of the largest cases. Run: ``python benchmarks/bench_sim.py [--quick]``
(``--cpu``: only the CPU time of the three largest cases of the simulator split's comparison).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from gpusched.policies import get_policy
from gpusched.workload.build import simulator_for
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario_yaml import scenario_from_dict

MIX = {"training": 0.2, "inference": 0.6, "batch": 0.2}


SPEED_LOAD = 0.3
"""Offered load of the cases with GPU speeds (fleet-16gpu's): phase1-8gpu's arrival rate would
overload a cluster whose T4s run training at a fifth of the reference speed."""

FAILURES = {"node_failures_per_1000_node_days": 6.5}
"""The measured rate of Kokolis et al. (HPCA 2025), with the default log-normal repairs."""

CHECKPOINT = {"interval_min": 60, "types": ["training"], "restore_min": 5}


def scaled_scenario(n_gpus: int, n_jobs: int, speeds: bool = False, failures: bool = False):
    """phase1-8gpu's node mix repeated to ``n_gpus`` GPUs, with the arrival rate scaled so the
    load per GPU matches phase1-8gpu (with ``speeds``, the shipped speed table and an offered load
    of :data:`SPEED_LOAD`; with ``failures``, node failures at the measured rate and hourly
    checkpoints)."""
    base = load_scenario("phase1-8gpu")
    copies = max(1, n_gpus // base.n_gpus)
    nodes = [dict(n.model_dump(exclude_none=True), count=n.count * copies)
             for n in base.cluster.nodes]
    rate = base.workload.arrival_rate_per_hour * copies
    arrivals = {"load": SPEED_LOAD} if speeds else {"arrival_rate_per_hour": rate}
    return scenario_from_dict({"name": f"bench-{n_gpus}", "cluster": {"nodes": nodes},
                               "workload": {"jobs": n_jobs, **arrivals, "mix": MIX, "seed": 0},
                               **({"speed": "default"} if speeds else {}),
                               **({"failures": FAILURES, "checkpoint": CHECKPOINT} if failures else {})})


SPREAD_LOAD = 0.5
"""Offered load of the spread case (Gavel's generator; a week-long job in five keeps a heavier
load's queue growing for the whole run)."""


def spread_scenario(n_gpus: int, n_jobs: int):
    """K80, P100 and V100 servers of 4 GPUs (a third each, V100 first for the rest), Gavel's
    measured speeds, Gavel's generator with multi-GPU jobs at :data:`SPREAD_LOAD`, and gangs that
    may span servers of one GPU model (at least two servers of each model: the generator's 8-GPU
    gangs need eight GPUs of one model)."""
    servers = max(6, n_gpus // 4)
    counts = [servers // 3 + (1 if i < servers % 3 else 0) for i in range(3)]
    nodes = [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 4, "count": c}
             for m, c in zip(("V100", "P100", "K80"), counts, strict=True)]
    return scenario_from_dict({"name": f"bench-spread-{n_gpus}",
                               "cluster": {"nodes": nodes, "gang_placement": "spread"},
                               "workload": {"jobs": n_jobs, "load": SPREAD_LOAD, "generator": "gavel",
                                            "multi_gpu": True, "seed": 0},
                               "speed": "gavel"})


def bench_spread(n_gpus: int, n_jobs: int, policy: str, repeats: int):
    """:func:`bench` for the spread case (:func:`spread_scenario`); also the share of gangs that
    spanned servers."""
    cluster, decisions, best, result = _timed(spread_scenario(n_gpus, n_jobs), policy, repeats, 1)
    spans = sum(len({int(cluster.gpu_node[g]) for g in gpus}) > 1 for gpus in result.jobs["gpu_ids"])
    return cluster.n_gpus, decisions, best, result.metrics, spans


SPREAD_POLICY = "fastest_fit"
"""The policy of the spread case."""


CASES: tuple[tuple[str, int, bool, bool], ...] = (
    ("first_fit", 1, False, False), ("best_fit", 1, False, False), ("easy+best_fit", 16, False, False),
    ("easy+eft", 16, True, False), ("easy+best_fit", 16, False, True), ("srtf+best_fit", 16, False, True))
"""(policy, queue window, with the shipped speed table, with failures and checkpoints) of every
case."""


def bench(n_gpus: int, n_jobs: int, policy: str, repeats: int, window: int = 1, speeds: bool = False,
          failures: bool = False):
    """Best wall time (s) over ``repeats`` runs: building the simulator, running, and packaging
    the result (metrics, jobs table, timeline)."""
    cluster, decisions, best, result = _timed(scaled_scenario(n_gpus, n_jobs, speeds, failures), policy,
                                              repeats, window)
    return cluster.n_gpus, decisions, best, result.metrics


def _timed(scenario, policy: str, repeats: int, window: int):  # noqa: ANN001, ANN202
    """(cluster, decisions, best wall time in s over ``repeats`` runs, last result) of the scenario's
    jobs under ``policy``: building the simulator, running, and packaging the result."""
    cluster = scenario.build_cluster()
    jobs = scenario.jobs(cluster=cluster)
    table = scenario.gpu_speeds(cluster)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        sim = simulator_for(scenario, cluster, jobs, table, window=window)
        result = sim.run(get_policy(policy))
        best = min(best, time.perf_counter() - t0)
    return cluster, sim.run_state.decisions, best, result


def cpu_seconds(n_gpus: int, n_jobs: int, policy: str, window: int = 1, speeds: bool = False,
                failures: bool = False) -> float:
    """CPU time (``time.process_time``, s) of building the simulator, one run and packaging the
    result, for :func:`bench`'s case: on a shared machine it moves less than wall time."""
    scenario = scaled_scenario(n_gpus, n_jobs, speeds, failures)
    cluster = scenario.build_cluster()
    jobs = scenario.jobs(cluster=cluster)
    table = scenario.gpu_speeds(cluster)
    start = time.process_time()
    simulator_for(scenario, cluster, jobs, table, window=window).run(get_policy(policy))
    return time.process_time() - start


CPU_CASES = (("first_fit", 1, False), ("best_fit", 1, False), ("easy+eft", 16, True))
"""(policy, window, with the speed table) of the cases ``--cpu`` times."""


PRESET_CASE = ("gavel-108gpu-heavy", "fcfs+fastest_move")
"""The shipped preset of the field's benchmark at its heavy load, with the placement that moves
running jobs up to faster GPUs (the analogue of Gavel's ``fifo_perf``)."""


def bench_preset(name: str, policy: str, repeats: int):
    """:func:`bench` for a shipped preset on its own seed and window."""
    scenario = load_scenario(name)
    cluster, decisions, best, result = _timed(scenario, policy, repeats, scenario.window)
    return cluster.n_gpus, len(result.jobs), decisions, best, result.metrics


def peak_rss_mib(n_gpus: int, n_jobs: int, policy: str, window: int = 1,
                 speeds: bool = False, failures: bool = False) -> tuple[float, float]:
    """Peak resident memory (MiB) of a fresh process after its imports, and after it built and
    ran one case (the interpreter and imported libraries included; ``window`` 0: the spread case)."""
    call = (f"bench_sim.bench_spread({n_gpus}, {n_jobs}, '{policy}', 1)" if window == 0 else
            f"bench_sim.bench({n_gpus}, {n_jobs}, '{policy}', 1, {window}, {speeds}, {failures})")
    code = ("import resource, sys; sys.path.insert(0, 'benchmarks'); import bench_sim; "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); "
            f"{call}; "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after = (int(x) / 1024 for x in out.stdout.split()[-2:])
    return before, after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="skip the 100,000-job case")
    parser.add_argument("--cpu", action="store_true",
                        help="only print the CPU time of the 1,024-GPU first_fit, best_fit and "
                             "easy+eft cases")
    args = parser.parse_args()
    if args.cpu:
        for policy, window, speeds in CPU_CASES:
            seconds = cpu_seconds(1024, 100_000, policy, window, speeds)
            print(f"1024 GPUs x 100000 jobs, {policy}: {seconds:.2f} s CPU")
        return
    # Measure memory first: a child process inherits its parent's RSS high-water mark.
    memory = {} if args.quick else {(p, w, s, f): peak_rss_mib(1024, 100_000, p, w, s, f)
                                    for p, w, s, f in (("first_fit", 1, False, False),
                                                       ("easy+best_fit", 16, False, False),
                                                       ("easy+eft", 16, True, False),
                                                       ("srtf+best_fit", 16, False, True),
                                                       (SPREAD_POLICY, 0, True, False))}
    cases = [(8, 250, 5), (64, 10_000, 1)] + ([] if args.quick else [(1024, 100_000, 1)])
    print(f"{'case':>22} {'policy':>14} {'window':>6} {'speeds':>6} {'fails':>5} {'decisions':>10} "
          f"{'wall s':>8} {'dec/s':>9} {'us/job':>7} {'avg wait':>9} {'failures':>8} {'preempt':>7}")
    for n_gpus, n_jobs, repeats in cases:
        for policy, window, speeds, failures in CASES:
            gpus, decisions, wall, m = bench(n_gpus, n_jobs, policy, repeats, window, speeds, failures)
            print(f"{gpus:>6} GPUs x {n_jobs:>7} jobs {policy:>14} {window:>6} "
                  f"{'yes' if speeds else 'no':>6} {'yes' if failures else 'no':>5} {decisions:>10} "
                  f"{wall:>8.3f} {decisions / wall:>9.0f} {wall / n_jobs * 1e6:>7.1f} "
                  f"{m['avg_wait_min']:>9.1f} {m['node_failures']:>8} {m['preemptions']:>7}")
        gpus, decisions, wall, m, spans = bench_spread(n_gpus, n_jobs, SPREAD_POLICY, repeats)
        print(f"{gpus:>6} GPUs x {n_jobs:>7} jobs {SPREAD_POLICY:>14} {1:>6} {'gavel':>6} {'no':>5} "
              f"{decisions:>10} {wall:>8.3f} {decisions / wall:>9.0f} {wall / n_jobs * 1e6:>7.1f} "
              f"{m['avg_wait_min']:>9.1f}   spread gangs across servers: {spans}")
    name, policy = PRESET_CASE
    gpus, n_jobs, decisions, wall, m = bench_preset(name, policy, 1 if args.quick else 3)
    print(f"{name}: {gpus} GPUs x {n_jobs} jobs, {policy}: {decisions} decisions in {wall:.3f} s, "
          f"{m['migrations']} migrations, mean JCT {m['avg_jct_min']:.1f} min")
    for (policy, window, speeds, failures), (base, peak) in memory.items():
        if window == 0:
            print(f"peak RSS, 1024 GPUs x 100000 jobs, {policy}, spread gangs, Gavel's speeds: "
                  f"{peak:.0f} MiB for the whole process ({base:.0f} MiB after imports, "
                  f"{peak - base:.0f} MiB for the run)")
            continue
        print(f"peak RSS, 1024 GPUs x 100000 jobs, {policy}, window {window}, speeds {speeds}, "
              f"failures {failures}: "
              f"{peak:.0f} MiB for the whole process ({base:.0f} MiB after imports, "
              f"{peak - base:.0f} MiB for the run)")


if __name__ == "__main__":
    main()
