"""Reference outputs of Gavel's own simulator for the Gavel cross-check.

Gavel (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
Workloads", OSDI 2020; MIT licence) ships a round-based simulator. This script drives it on job
lists drawn by Gavel's own generator and writes, beside itself (or under ``--out``):

- ``jobs/<job list>.csv``: ``id,arrival_min,model,gpus,duration_min``, gpusched's job-list format.
  ``duration_min`` is the job's run time on one V100 in minutes: Gavel's (integer) total steps
  divided by its V100 throughput at that scale factor, divided by 60.
- ``jct/<run>.csv``: ``id,jct_s``, Gavel's completion time of each job in seconds (finish minus
  arrival), read from ``Scheduler._job_completion_times``.
- ``references.json``: for every run, the Gavel commit, the exact ``Scheduler`` and ``simulate``
  arguments, the cluster, policy, round settings, seed, job count, Gavel's mean JCT and the wall
  time of its ``simulate`` call.

It does not fetch or build Gavel. Give it the path of a Gavel checkout at ``GAVEL_COMMIT`` whose
rpc stubs are built as Gavel's own README says, and run it with a Python that has Gavel's
simulation dependencies (``requirements-gavel.txt`` beside this file)::

    python benchmarks/gavel/run_gavel.py GAVEL_CHECKOUT                 # every run
    python benchmarks/gavel/run_gavel.py GAVEL_CHECKOUT --runs 't1-*'   # some runs (glob)
    python benchmarks/gavel/run_gavel.py GAVEL_CHECKOUT --list          # names only

Runs execute one after another in this process; each run's results are merged into
``references.json`` as soon as it ends, so a long batch can be split.

How jobs are drawn (seed ``s``, mean inter-arrival ``lam_s``): exactly as Gavel's
``Scheduler.simulate`` draws them when it generates jobs itself. ``utils.generate_job`` is called with
``rng = random.Random(s + 2)`` (single-GPU jobs, no priorities, no SLOs), inter-arrival times are
``-ln(1 - U) / (1 / lam_s)`` with ``U`` from ``random.Random(s + 3)``, and the first job arrives at 0.
The jobs then go through Gavel's trace format and its reader ``utils.parse_trace``, as its trace
driver ``scripts/drivers/simulate_scheduler_with_trace.py`` does, which truncates total steps to an
integer.

Policy ``fifo_fixed`` is Gavel's ``fifo`` (``FIFOPolicy(mode='base', seed=s)``) with one line added
at run time: in base mode Gavel draws a random index into the GPU types with room but never reads
the type at that index, so a job takes the last type left in the loop that built the candidates
(V100 first). The patched method sets ``worker_type`` from the drawn index. Gavel's files are not
modified.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import fnmatch
import hashlib
import inspect
import io
import json
import logging
import math
import os
import platform
import random
import re
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
import types
from dataclasses import asdict, dataclass
from pathlib import Path

GAVEL_REPOSITORY = "stanford-futuredata/gavel"
GAVEL_COMMIT = "c4fa40097339e9608ab71fd64c8bdea96a5e4a4c"
TRACE_DRIVER = "scripts/drivers/simulate_scheduler_with_trace.py"
THROUGHPUTS_FILE = "simulation_throughputs.json"
THROUGHPUTS_SHA256 = "17111f7295f03265fd9e5118d7eba31e3dd9d6e50a2e215c13ad3d3f91f74381"
"""sha256 of ``scheduler/simulation_throughputs.json`` at ``GAVEL_COMMIT``."""
SECONDS_PER_MINUTE = 60.0


@dataclass(frozen=True)
class JobListSpec:
    """A job list drawn by Gavel's generator."""

    name: str
    """File stem under ``jobs/``."""
    num_jobs: int
    """Number of jobs."""
    lam_s: float
    """Mean inter-arrival time in seconds (Gavel's ``lam``)."""
    seed: int
    """Gavel seed ``s``: jobs from ``random.Random(s + 2)``, inter-arrivals from ``random.Random(s + 3)``."""


@dataclass(frozen=True)
class RunSpec:
    """One run of Gavel's simulator."""

    name: str
    """File stem under ``jct/`` and key in ``references.json``."""
    tier: str
    """Cross-check tier: ``1``, ``2``, ``3`` or ``wall``."""
    job_list: JobListSpec
    """The jobs."""
    cluster: tuple[int, int, int]
    """GPUs of each type: (V100, P100, K80), one GPU per server."""
    policy: str
    """``fifo_perf`` (Gavel's policy of that name) or ``fifo_fixed`` (Gavel's ``fifo``, GPU type fixed)."""
    time_per_iteration_s: int
    """Gavel's round length in seconds (``Scheduler(time_per_iteration=...)``)."""
    reset_s: int
    """``Scheduler(minimum_time_between_allocation_resets=...)`` in seconds."""
    seed: int
    """``Scheduler(seed=...)`` and, for ``fifo_fixed``, ``FIFOPolicy(seed=...)``."""
    trace_driver: bool = False
    """Also time Gavel's own trace driver on the same jobs and check that it prints the same JCTs."""


DRIVER_ROUNDS = (360, 1920)
"""The round settings Gavel's trace driver hard-codes: 360 s rounds, 1,920 s between allocation resets."""
FINE_ROUNDS = (60, 0)
"""60 s rounds and no wait between allocation resets."""


def _rounds_tag(rounds: tuple[int, int]) -> str:
    return f"r{rounds[0]}w{rounds[1]}"


def _cluster_tag(cluster: tuple[int, int, int]) -> str:
    return "-".join(str(n) for n in cluster)


def _both_rounds(tier: str, jobs: JobListSpec, cluster: tuple[int, int, int], policy: str) -> list[RunSpec]:
    """The runs of one job list at the trace driver's round settings and at ``FINE_ROUNDS``."""
    return [
        RunSpec(f"{jobs.name}-{_rounds_tag(r)}", tier, jobs, cluster, policy, *r, seed=jobs.seed)
        for r in (DRIVER_ROUNDS, FINE_ROUNDS)
    ]


def run_specs() -> list[RunSpec]:
    """Every reference run, in the order they are written.

    Offered load, as GPU-seconds of capacity per arriving job (``lam_s`` x GPUs): 60,000 s on the
    V100-only cluster, 96,000 s on the mixed ones (97,200 s for the wall-time run), against a mean
    V100 duration of about 60,000 s in Gavel's distribution. Queues form on the V100-only cluster,
    and jobs compete for the faster GPUs on the mixed ones.
    """
    specs: list[RunSpec] = []
    for n in (100, 300):
        specs += _both_rounds("1", JobListSpec(f"t1-v100-{n}-s0", n, 5000.0, 0), (12, 0, 0), "fifo_perf")
    for cluster, lam_s in (((4, 4, 4), 8000.0), ((8, 8, 8), 4000.0)):
        for seed in (0, 1, 2):
            jobs = JobListSpec(f"t2-{_cluster_tag(cluster)}-300-s{seed}", 300, lam_s, seed)
            specs += _both_rounds("2", jobs, cluster, "fifo_perf")
    for seed in range(10):
        specs += _both_rounds(
            "3", JobListSpec(f"t3-4-4-4-100-s{seed}", 100, 8000.0, seed), (4, 4, 4), "fifo_fixed"
        )
    jobs = JobListSpec("wall-36-36-36-3000-s0", 3000, 900.0, 0)
    specs.append(
        RunSpec(f"{jobs.name}-{_rounds_tag(DRIVER_ROUNDS)}", "wall", jobs, (36, 36, 36), "fifo_perf",
                *DRIVER_ROUNDS, seed=0, trace_driver=True)
    )  # fmt: skip
    return specs


# --------------------------------------------------------------------------- Gavel, imported by path


def import_gavel(checkout: Path) -> dict[str, types.ModuleType]:
    """Import Gavel's simulator modules from ``checkout/scheduler``.

    :param checkout: a Gavel checkout at ``GAVEL_COMMIT`` with its rpc stubs built.
    :returns: the modules ``scheduler``, ``utils`` and ``fifo`` by name.
    """
    scheduler_dir = checkout / "scheduler"
    if not (scheduler_dir / "scheduler.py").is_file():
        raise SystemExit(f"{checkout}: not a Gavel checkout (no scheduler/scheduler.py)")
    if not (scheduler_dir / "runtime" / "rpc_stubs" / "common_pb2.py").is_file():
        raise SystemExit(f"{checkout}: Gavel's rpc stubs are not built (see Gavel's README)")
    digest = hashlib.sha256((scheduler_dir / THROUGHPUTS_FILE).read_bytes()).hexdigest()
    if digest != THROUGHPUTS_SHA256:
        raise SystemExit(f"{checkout}: scheduler/{THROUGHPUTS_FILE} is not the one at {GAVEL_COMMIT}")
    sys.path.insert(0, str(scheduler_dir))
    import scheduler as gavel_scheduler  # noqa: PLC0415 (Gavel's top-level module names)
    import utils as gavel_utils  # noqa: PLC0415
    from policies import fifo as gavel_fifo  # noqa: PLC0415

    return {"scheduler": gavel_scheduler, "utils": gavel_utils, "fifo": gavel_fifo}


def checkout_commit(checkout: Path) -> str | None:
    """The checkout's commit if it is a git work tree, else None (e.g. an exported archive)."""
    try:
        out = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip()


FIFO_PATCH_LINE = "worker_type = available_worker_types_with_scale_factor[worker_type_idx]"
"""The line added after the random draw in ``FIFOPolicy.get_allocation`` (``fifo_fixed``)."""
FIFO_PATCH = f"FIFOPolicy.get_allocation, after the draw of worker_type_idx: {FIFO_PATCH_LINE}"

_UNUSED_DRAW = re.compile(
    r"^(?P<indent>[ \t]*)worker_type_idx = self\._rng\.randrange\("
    r"\s*len\(available_worker_types_with_scale_factor\)\)\n",
    re.MULTILINE,
)


def fixed_fifo_get_allocation(fifo_module: types.ModuleType) -> types.FunctionType:
    """``FIFOPolicy.get_allocation`` with the random GPU type actually used.

    Reads the method's source from the imported module, adds
    ``worker_type = available_worker_types_with_scale_factor[worker_type_idx]`` after the random draw,
    and compiles it in the module's namespace. Fails unless the draw occurs exactly once.
    """
    source = textwrap.dedent(inspect.getsource(fifo_module.FIFOPolicy.get_allocation))
    matches = list(_UNUSED_DRAW.finditer(source))
    if len(matches) != 1:
        raise SystemExit(f"Gavel's FIFOPolicy.get_allocation: expected one random draw, found {len(matches)}")
    m = matches[0]
    fix = f"{m.group('indent')}{FIFO_PATCH_LINE}\n"
    patched = source[: m.end()] + fix + source[m.end() :]
    namespace: dict[str, object] = {}
    exec(
        compile(patched, "<FIFOPolicy.get_allocation, GPU type fixed>", "exec"), vars(fifo_module), namespace
    )
    return namespace["get_allocation"]  # type: ignore[return-value]


def make_policy(gavel: dict[str, types.ModuleType], policy: str, seed: int):
    """Gavel's policy object for ``policy`` (see ``RunSpec.policy``)."""
    if policy == "fifo_perf":
        return gavel["utils"].get_policy("fifo_perf", seed=seed)
    if policy == "fifo_fixed":
        obj = gavel["utils"].get_policy("fifo", seed=seed)
        obj.get_allocation = types.MethodType(fixed_fifo_get_allocation(gavel["fifo"]), obj)
        return obj
    raise ValueError(f"unknown policy {policy!r}")


# --------------------------------------------------------------------------- job lists


def gavel_trace_lines(gavel: dict[str, types.ModuleType], throughputs: dict, spec: JobListSpec) -> list[str]:
    """The job list in Gavel's trace format (``str(Job)``, a tab, the arrival time in seconds)."""
    job_rng = random.Random()
    job_rng.seed(spec.seed + 2)
    arrival_rng = random.Random()
    arrival_rng.seed(spec.seed + 3)
    lines = []
    arrival_s = 0.0
    for i in range(spec.num_jobs):
        if i > 0:
            # Gavel's Scheduler._sample_arrival_time_delta(1.0 / lam), to the last bit.
            arrival_s = -math.log(1.0 - arrival_rng.random()) / (1.0 / spec.lam_s) + arrival_s
        job = gavel["utils"].generate_job(
            throughputs=throughputs,
            reference_worker_type="v100",
            rng=job_rng,
            job_id=None,
            generate_multi_gpu_jobs=False,
            generate_multi_priority_jobs=False,
            SLO_rng=None,
        )
        lines.append(f"{job}\t{arrival_s:f}\n")
    return lines


def job_list_rows(jobs, arrival_times_s, throughputs: dict) -> list[dict[str, object]]:
    """Rows of gpusched's job-list CSV for Gavel's parsed jobs."""
    rows = []
    for i, (job, arrival_s) in enumerate(zip(jobs, arrival_times_s, strict=True)):
        v100_steps_per_s = throughputs["v100"][(job.job_type, job.scale_factor)]["null"]
        rows.append(
            {
                "id": i,
                "arrival_min": f"{arrival_s / SECONDS_PER_MINUTE:.6f}",
                "model": job.job_type,
                "gpus": job.scale_factor,
                "duration_min": f"{job.total_steps / v100_steps_per_s / SECONDS_PER_MINUTE:.6f}",
            }
        )
    return rows


def write_csv(path: Path, fieldnames: list[str], rows: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fieldnames, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


# --------------------------------------------------------------------------- one run


def run_one(
    gavel: dict[str, types.ModuleType], checkout: Path, spec: RunSpec, out: Path
) -> dict[str, object]:
    """Run Gavel on ``spec``, write its job list and JCTs under ``out``, return its JSON record."""
    scheduler_dir = checkout / "scheduler"
    throughputs_file = scheduler_dir / THROUGHPUTS_FILE
    throughputs = gavel["utils"].read_all_throughputs_json_v2(str(throughputs_file))
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / f"{spec.job_list.name}.trace"
        trace.write_text("".join(gavel_trace_lines(gavel, throughputs, spec.job_list)))
        jobs, arrival_times_s = gavel["utils"].parse_trace(str(trace))
        write_csv(
            out / "jobs" / f"{spec.job_list.name}.csv",
            ["id", "arrival_min", "model", "gpus", "duration_min"],
            job_list_rows(jobs, arrival_times_s, throughputs),
        )

        # As the trace driver builds them from `-c V:P:K` and `--num_gpus_per_server 1:1:1`.
        cluster_spec = dict(zip(("v100", "p100", "k80"), spec.cluster, strict=True))
        num_gpus_per_server = {k: 1 for k in cluster_spec}
        scheduler_kwargs = {
            "throughputs_file": THROUGHPUTS_FILE,
            "simulate": True,
            "seed": spec.seed,
            "time_per_iteration": spec.time_per_iteration_s,
            "minimum_time_between_allocation_resets": spec.reset_s,
        }
        policy = make_policy(gavel, spec.policy, spec.seed)
        with contextlib.chdir(scheduler_dir):
            sched = gavel["scheduler"].Scheduler(policy, **scheduler_kwargs)
        # Gavel logs every job event at INFO; silence it so the wall time is the simulation's.
        sched._orig_logger.setLevel(logging.ERROR)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            sched.simulate(cluster_spec, arrival_times_s, jobs, num_gpus_per_server=num_gpus_per_server)
        wall_s, cpu_s = time.perf_counter() - wall0, time.process_time() - cpu0
        jct_by_id = {job_id[0]: t for job_id, t in sched._job_completion_times.items()}
        makespan_s = float(sched.get_current_timestamp())
        sched.shutdown()
        if sorted(jct_by_id) != list(range(len(jobs))) or any(t is None for t in jct_by_id.values()):
            raise SystemExit(f"{spec.name}: Gavel did not complete every job")
        jct_s = [float(jct_by_id[i]) for i in range(len(jobs))]
        jct_rows = [{"id": i, "jct_s": f"{t:.6f}"} for i, t in enumerate(jct_s)]
        write_csv(out / "jct" / f"{spec.name}.csv", ["id", "jct_s"], jct_rows)
        mean_jct_s = sum(jct_s) / len(jct_s)
        record_policy = "fifo" if spec.policy == "fifo_fixed" else spec.policy
        record: dict[str, object] = {
            "tier": spec.tier,
            "job_list": f"jobs/{spec.job_list.name}.csv",
            "jct": f"jct/{spec.name}.csv",
            "num_jobs": spec.job_list.num_jobs,
            "generator": {"seed": spec.job_list.seed, "lam_s": spec.job_list.lam_s},
            "cluster": {"v100": spec.cluster[0], "p100": spec.cluster[1], "k80": spec.cluster[2]},
            "gpus_per_server": 1,
            "policy": spec.policy,
            "gavel_policy": record_policy,
            "gavel_patch": FIFO_PATCH if spec.policy == "fifo_fixed" else None,
            "time_per_iteration_s": spec.time_per_iteration_s,
            "minimum_time_between_allocation_resets_s": spec.reset_s,
            "seed": spec.seed,
            "gavel_call": {
                "policy": f"utils.get_policy({record_policy!r}, seed={spec.seed})",
                "Scheduler": scheduler_kwargs,
                "simulate": {
                    "cluster_spec": cluster_spec,
                    "arrival_times, jobs": "utils.parse_trace(<job list in Gavel's trace format>)",
                    "num_gpus_per_server": num_gpus_per_server,
                },
            },
            "mean_jct_s": mean_jct_s,
            "makespan_s": makespan_s,
            "wall_time_s": round(wall_s, 2),
            "cpu_time_s": round(cpu_s, 2),
        }
        if spec.policy == "fifo_perf" and (spec.time_per_iteration_s, spec.reset_s) == DRIVER_ROUNDS:
            record["trace_driver_command"] = trace_driver_args(spec, "TRACE")
        if spec.trace_driver:
            record["trace_driver"] = time_trace_driver(scheduler_dir, spec, trace, jct_s)
    return record


def trace_driver_args(spec: RunSpec, trace: str) -> list[str]:
    """Gavel's trace-driver command line for ``spec`` (run in ``scheduler/``)."""
    return [
        "python", TRACE_DRIVER, "-t", trace, "-c", ":".join(str(n) for n in spec.cluster), "-p", spec.policy,
        "--seed", str(spec.seed),
    ]  # fmt: skip


_DRIVER_JCT = re.compile(r"^Job (\d+): ([0-9.]+)$", re.MULTILINE)
_DRIVER_MEAN = re.compile(r"^Average job completion time: ([0-9.]+) seconds", re.MULTILINE)


def time_trace_driver(
    scheduler_dir: Path, spec: RunSpec, trace: Path, jct_s: list[float]
) -> dict[str, object]:
    """Run Gavel's own trace driver on the same trace, as its README runs it, and time it.

    Its output (logs included) goes to a temporary file. Checks that the per-job JCTs it prints
    (three decimals) agree with ``jct_s``.
    """
    args = trace_driver_args(spec, str(trace))
    args[0] = sys.executable
    with tempfile.TemporaryFile("w+") as log:
        wall0, usage0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(args, cwd=scheduler_dir, stdout=log, stderr=subprocess.STDOUT, check=True)
        wall_s, usage = time.perf_counter() - wall0, resource.getrusage(resource.RUSAGE_CHILDREN)
        log.seek(0)
        text = log.read()
    printed = {int(i): float(t) for i, t in _DRIVER_JCT.findall(text)}
    mean = _DRIVER_MEAN.search(text)
    if sorted(printed) != list(range(len(jct_s))) or mean is None:
        raise SystemExit(f"{spec.name}: the trace driver did not print every job's JCT")
    worst = max(abs(printed[i] - t) for i, t in enumerate(jct_s))
    if worst > 1e-3:
        raise SystemExit(f"{spec.name}: the trace driver's JCTs differ from the API's by up to {worst} s")
    return {
        "command": trace_driver_args(spec, "TRACE"),
        "wall_time_s": round(wall_s, 2),
        "cpu_time_s": round(usage.ru_utime + usage.ru_stime - usage0.ru_utime - usage0.ru_stime, 2),
        "printed_mean_jct_s": float(mean.group(1)),
        "max_abs_jct_difference_s": worst,
        "output": "stdout and stderr (Gavel's INFO log included) to a file",
    }


# --------------------------------------------------------------------------- references.json


def gavel_packages() -> dict[str, str]:
    """Versions of Gavel's simulation dependencies in this interpreter."""
    from importlib import metadata  # noqa: PLC0415

    names = ["numpy", "scipy", "cvxpy", "ecos", "psutil", "grpcio", "grpcio-tools", "matrix_completion",
             "scikit-learn"]  # fmt: skip
    return {n: metadata.version(n) for n in names}


def single_gpu_throughputs(throughputs: dict) -> dict[str, dict[str, float]]:
    """Each job model's measured steps/s alone on one GPU of each type (Gavel's ``"null"`` entries)."""
    models = sorted({model for (model, scale) in throughputs["v100"] if scale == 1})
    return {m: {t: throughputs[t][(m, 1)]["null"] for t in ("v100", "p100", "k80")} for m in models}


def update_references(
    path: Path, checkout: Path, throughputs: dict, records: dict[str, dict[str, object]]
) -> None:
    """Merge ``records`` into ``path`` (runs keyed by name, in ``run_specs`` order)."""
    doc = json.loads(path.read_text()) if path.exists() else {}
    runs = doc.get("runs", {})
    runs.update(records)
    order = {s.name: k for k, s in enumerate(run_specs())}
    doc = {
        "gavel": {
            "repository": GAVEL_REPOSITORY,
            "commit": GAVEL_COMMIT,
            "checkout_commit": checkout_commit(checkout),
            "licence": "MIT",
            "citation": "D. Narayanan, K. Santhanam, F. Kazhamiaka, A. Phanishayee, M. Zaharia. "
            "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning Workloads. OSDI 2020.",
        },
        "environment": {
            "python": platform.python_version(),
            "packages": gavel_packages(),
            "cpu_count": os.cpu_count(),
        },
        "units": {"jct_s": "seconds", "arrival_min": "minutes", "duration_min": "minutes on one V100"},
        "single_gpu_steps_per_s": {
            "source": f"scheduler/{THROUGHPUTS_FILE} (sha256 {THROUGHPUTS_SHA256}), key (model, 1), 'null'",
            "models": single_gpu_throughputs(throughputs),
        },
        "runs": {k: runs[k] for k in sorted(runs, key=lambda k: order.get(k, len(order)))},
    }
    path.write_text(json.dumps(doc, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="Gavel checkout at GAVEL_COMMIT with its rpc stubs built")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent, help="output directory")
    parser.add_argument("--runs", nargs="*", default=["*"], help="run names or globs (default: every run)")
    parser.add_argument("--list", action="store_true", help="print the run names and exit")
    args = parser.parse_args(argv)
    specs = [s for s in run_specs() if any(fnmatch.fnmatchcase(s.name, g) for g in args.runs)]
    if args.list:
        for s in specs:
            print(s.name)
        return 0
    checkout = args.checkout.resolve()
    commit = checkout_commit(checkout)
    if commit is not None and commit != GAVEL_COMMIT:
        raise SystemExit(f"{checkout}: at commit {commit}, expected {GAVEL_COMMIT}")
    gavel = import_gavel(checkout)
    throughputs = gavel["utils"].read_all_throughputs_json_v2(str(checkout / "scheduler" / THROUGHPUTS_FILE))
    for spec in specs:
        record = run_one(gavel, checkout, spec, args.out)
        update_references(
            args.out / "references.json", checkout, throughputs, {spec.name: asdict_record(spec, record)}
        )
        print(
            f"{spec.name}: mean JCT {record['mean_jct_s']:.1f} s, wall {record['wall_time_s']} s",
            flush=True,
        )
    return 0


def asdict_record(spec: RunSpec, record: dict[str, object]) -> dict[str, object]:
    """The run's JSON record with its spec's job-list fields."""
    return {"name": spec.name, **record, "job_list_spec": asdict(spec.job_list)}


if __name__ == "__main__":
    sys.exit(main())
