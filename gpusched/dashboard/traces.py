"""The Real traces page's shipped runs: the FGD allocation experiment on the default openb pod list,
every policy on the first published seed, read from ``benchmarks/results/traces.json``
(:data:`gpusched.paths.TRACES_RESULTS`).

The page shows them at once for the request it opens on (and any other request they cover), labelled
with their seed, and runs anything else live; ``benchmarks/traces_shipped.py`` measures them, and
``tests/test_shipped_traces.py`` runs them again and checks that every number is the same.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from gpusched.fgd.allocation import DEFAULT_TUNE, AllocationRun, run_allocation
from gpusched.fgd.experiment import load_trace
from gpusched.fgd.scoring import POLICY_NAMES
from gpusched.paths import REPO_ROOT, TRACES_RESULTS

SHIPPED_POD_LIST = "openb_pod_list_default"
"""The pod list of the shipped runs (the page's default)."""

SHIPPED_SEEDS: tuple[int, ...] = (42,)
"""The seeds of the shipped runs: the first of the published seeds 42-51."""

SHIPPED_TUNE = DEFAULT_TUNE
"""The shipped runs' arrived request (x the cluster's GPU capacity): the paper's 1.3."""

TRACES_SOURCE = TRACES_RESULTS.relative_to(REPO_ROOT).as_posix()
"""The shipped runs' file, as the page names it."""

COMPARED_FIELDS: tuple[str, ...] = ("alloc_pct", "frag_pct", "failed_pods", "unhostable_pods",
                                    "scheduled_pods", "final_rem")
"""What a live run must give again (everything but its wall time)."""

RunKey = tuple[str, str, int, float]
"""(pod list, policy, seed, tune) of one run."""


def measure(policies: Sequence[str] = POLICY_NAMES, seeds: Sequence[int] = SHIPPED_SEEDS,
            pod_list: str = SHIPPED_POD_LIST, tune: float = SHIPPED_TUNE,
            progress: Callable[[str], None] | None = None) -> dict:
    """Run every policy on every seed and return the shipped file's content (JSON-ready).

    :param policies: FGD policy names (:data:`gpusched.fgd.scoring.POLICY_NAMES`).
    :param seeds: seeds of the runs.
    :param pod_list: a bundled pod list.
    :param tune: arrived request as a multiple of the cluster's GPU capacity.
    :param progress: receives one line per finished run.
    """
    trace = load_trace(pod_list)
    runs = []
    for policy in policies:
        for seed in seeds:
            run = run_allocation(trace.nodes, trace.pods, policy, seed, tune=tune, typical=trace.typical)
            runs.append({**run.to_json(), "final_rem": run.final_rem.tolist()})
            if progress is not None:
                progress(f"{policy}, seed {seed}: {run.seconds:.1f} s")
    return {"pod_list": pod_list, "tune": tune, "runs": runs}


def _run_from_json(entry: dict) -> AllocationRun:
    fields = {k: v for k, v in entry.items() if k != "final_rem"}
    return AllocationRun(**fields, final_rem=np.asarray(entry["final_rem"], dtype=np.int64))


@functools.cache
def shipped_allocations(path: Path = TRACES_RESULTS) -> dict[RunKey, AllocationRun]:
    """Every shipped run, keyed (pod list, policy, seed, tune); empty when the file is absent
    (read once per process)."""
    if not Path(path).is_file():
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    key, tune = str(data["pod_list"]), round(float(data["tune"]), 2)
    return {(key, str(e["policy"]), int(e["seed"]), tune): _run_from_json(e) for e in data["runs"]}


def shipped_allocation(pod_list: str, policy: str, seed: int, tune: float,
                       path: Path = TRACES_RESULTS) -> AllocationRun | None:
    """The shipped run of (pod list, policy, seed, tune), or ``None`` when none was shipped."""
    return shipped_allocations(path).get((pod_list, policy, int(seed), round(float(tune), 2)))


def allocation_mismatches(shipped: Sequence[AllocationRun],
                          live: Sequence[AllocationRun]) -> list[tuple[str, int, str]]:
    """``(policy, seed, field)`` for every field of :data:`COMPARED_FIELDS` in which a live run
    differs from the shipped run of the same policy and seed (a live run with no shipped twin
    counts for every field). The runs are deterministic, so equal means identical."""
    by_key = {(r.policy, r.seed): r for r in shipped}
    out = []
    for run in live:
        twin = by_key.get((run.policy, run.seed))
        for name in COMPARED_FIELDS:
            same = twin is not None and np.array_equal(np.asarray(getattr(twin, name), dtype=float),
                                                       np.asarray(getattr(run, name), dtype=float),
                                                       equal_nan=True)
            if not same:
                out.append((run.policy, run.seed, name))
    return out
