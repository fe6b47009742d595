"""Milliseconds per round-policy solve at 100, 1,000 and 10,000 active jobs on 3 GPU types.

Target: one ``max_min_fairness_perf`` solve at 1,000 active jobs x 3 types <= 50 ms (Gavel's users
found its CVXPY compile time the bottleneck at 1,024 jobs).

Two job mixes, both drawn with a seeded numpy Generator:
- ``gavel``: jobs drawn uniformly from Gavel's measured single-GPU job types (26 models; the
  throughputs of ``assets/gavel/simulation_throughputs.json``, steps/s on K80, P100, V100), as in
  Gavel's single-GPU runs. Jobs of one model are interchangeable in max-min programs and solved as
  one class; in finish-time fairness their ages and remaining work differ, so they are not.
- ``unique``: every job its own random throughputs (0.1-1 per type): no two jobs alike, the worst
  case for the class reduction.
The cluster has ``max(4, jobs // 8)`` GPUs of each type (about 2.7 jobs per GPU); remaining work is
uniform in 10^4-10^6 steps and ages in 0-10^5 s.

Prints the median (and best) over ``--repeat`` solves and writes the medians to
``docs/images/round-solve.svg`` (log-log, one line per policy and mix). The ``unique`` mix stops at
3,000 jobs by default: HiGHS's time on it grows faster than linearly (one 10,000-job
``max_min_fairness_perf`` solve took 129 s on the project's shared machine).

Usage: ``python benchmarks/bench_round_solve.py [--seed 0] [--repeat 5] [--sizes 100 1000 10000]
[--unique-sizes 100 1000 3000]``.
"""

from __future__ import annotations

import os

# One core: pin the process and keep numerical libraries single-threaded (set before numpy loads).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402

import numpy as np  # noqa: E402

from gpusched.core.gavel_speeds import GAVEL_GPU_MODELS, job_models, throughputs  # noqa: E402
from gpusched.core.rounds import RoundProblem  # noqa: E402
from gpusched.paths import REPO_ROOT  # noqa: E402
from gpusched.policies.rounds import get_round_policy  # noqa: E402

POLICIES = ("max_min_fairness_perf", "finish_time_fairness_perf")
TARGET_MS = {("max_min_fairness_perf", 1000): 50.0}
TYPES = ("V100", "P100", "K80")
SVG = REPO_ROOT / "docs" / "images" / "round-solve.svg"


def problem(n: int, mix: str, rng: np.random.Generator) -> RoundProblem:
    """``n`` active jobs on 3 types (module docstring)."""
    if mix == "gavel":
        measured = throughputs()
        table = np.array([[measured[t][(m, 1)] for t in TYPES] for m in job_models()])
        throughput = table[rng.integers(0, len(table), n)]
    else:
        throughput = rng.uniform(0.1, 1.0, (n, 3))
    gpus = max(4, n // 8)
    return RoundProblem(throughput=throughput, scale_factor=np.ones(n), capacity=[gpus] * 3,
                        remaining=rng.uniform(1e4, 1e6, n), age_s=rng.uniform(0, 1e5, n),
                        type_names=TYPES, reference_type=0)


def svg(results: dict[tuple[str, str], dict[int, float]], path) -> None:
    """A small log-log line plot of median solve time (ms) against active jobs."""
    width, height, left, right, top, bottom = 560, 340, 70, 200, 20, 50
    sizes = sorted({n for series in results.values() for n in series})
    times = [t for series in results.values() for t in series.values()]
    x_lo, x_hi = math.log10(min(sizes)), math.log10(max(sizes))
    y_lo, y_hi = math.floor(math.log10(min(times))), math.ceil(math.log10(max(times)))
    y_hi = max(y_hi, y_lo + 1)

    def px(n: float) -> float:
        return left + (math.log10(n) - x_lo) / max(x_hi - x_lo, 1e-9) * (width - left - right)

    def py(ms: float) -> float:
        return top + (y_hi - math.log10(ms)) / (y_hi - y_lo) * (height - top - bottom)

    colours = {policy: colour for policy, colour in zip(POLICIES, ["#1f77b4", "#d62728"], strict=True)}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>']
    for e in range(y_lo, y_hi + 1):
        y = py(10**e)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{10**e:g}</text>')
    for n in sizes:
        x = px(n)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{height - bottom}" stroke="#eee"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle">{n:,}</text>')
    target = TARGET_MS[("max_min_fairness_perf", 1000)]
    parts.append(f'<circle cx="{px(1000):.1f}" cy="{py(target):.1f}" r="4" fill="none" stroke="black"/>')
    parts.append(f'<text x="{px(1000) + 6:.1f}" y="{py(target) - 6:.1f}">target {target:g} ms</text>')
    for c, ((policy, mix), series) in enumerate(sorted(results.items())):
        colour = colours[policy]  # one colour per policy; the unique mix dashed
        points = " ".join(f"{px(n):.1f},{py(t):.1f}" for n, t in sorted(series.items()))
        dash = "" if mix == "gavel" else ' stroke-dasharray="5,3"'
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        y = top + 14 + 16 * c
        parts.append(f'<line x1="{width - right + 10}" x2="{width - right + 30}" y1="{y - 4}" y2="{y - 4}" '
                     f'stroke="{colour}" stroke-width="2"{dash}/>')
        parts.append(f'<text x="{width - right + 34}" y="{y}">{policy} ({mix})</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 10}" text-anchor="middle">'
                 "active jobs (3 GPU types)</text>")
    parts.append(f'<text x="14" y="{(top + height - bottom) / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {(top + height - bottom) / 2})">median solve (ms)</text>')
    parts.append("</svg>")
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5, help="solves per size (1 from 3,000 jobs)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000],
                        help="active jobs, gavel mix")
    parser.add_argument("--unique-sizes", type=int, nargs="+", default=[100, 1000, 3000],
                        help="active jobs, unique mix")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    assert set(TYPES) == set(GAVEL_GPU_MODELS)
    results: dict[tuple[str, str], dict[int, float]] = {}
    print(f"{'policy':<28}{'mix':<8}{'jobs':>7}{'median ms':>11}{'best ms':>10}{'programs':>10}")
    for policy in POLICIES:
        for mix in ("gavel", "unique"):
            for n in (args.sizes if mix == "gavel" else args.unique_sizes):
                rng = np.random.default_rng(args.seed)
                case = problem(n, mix, rng)
                get_round_policy(policy)(problem(min(n, 50), mix, rng))  # warm the imports
                times, programs = [], 0
                for _ in range(args.repeat if n < 3000 else 1):
                    allocation = get_round_policy(policy)(case)
                    times.append(allocation.solve_s * 1000)
                    programs = allocation.programs
                median = statistics.median(times)
                results.setdefault((policy, mix), {})[n] = median
                target = TARGET_MS.get((policy, n))
                met = "met" if target is not None and median <= target else "MISSED"
                verdict = "" if target is None or mix != "gavel" else f"  (target <= {target:g} ms: {met})"
                print(f"{policy:<28}{mix:<8}{n:>7,}{median:>11.1f}{min(times):>10.1f}{programs:>10}{verdict}")
    if not args.no_plot:
        svg(results, SVG)
        print(f"wrote {SVG.relative_to(REPO_ROOT)}")


if __name__ == "__main__":
    main()
