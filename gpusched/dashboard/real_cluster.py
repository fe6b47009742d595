"""gpusched against a real cluster, as the dashboard and the README show it: Shockwave's 120-job
trace on 32 V100 GPUs at TACC (Zheng et al., NSDI '23; ``uw-mad-dash/shockwave``), its own
simulator, and gpusched's ``shockwave-tacc-32gpu`` preset, read from the shipped
``benchmarks/results/real-cluster.json`` (:data:`gpusched.paths.REAL_CLUSTER_RESULTS`, written by
``benchmarks/real_cluster.py``, which also renders ``docs/results/real-cluster.md``).

Pure functions of that file's content: frames for the Real traces page's section
(:func:`real_cluster_frame`, :func:`real_cluster_jobs`, :func:`real_cluster_table`) and the figures the
README's finding quotes (:func:`real_cluster_summary`). Nothing here runs a simulation.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from gpusched.experiment.real_cluster import WITHIN
from gpusched.paths import REAL_CLUSTER_RESULTS, REPO_ROOT

REAL_CLUSTER_SOURCE = REAL_CLUSTER_RESULTS.relative_to(REPO_ROOT).as_posix()
"""The shipped comparison's file, as the page names it."""

REAL = "real cluster"
SHOCKWAVE_SIM = "Shockwave's simulator"
OURS = "gpusched"
SOURCES: tuple[str, ...] = (REAL, SHOCKWAVE_SIM, OURS)
"""The three sides of the comparison, in the order they are shown."""


@functools.cache
def shipped_real_cluster(path: Path = REAL_CLUSTER_RESULTS) -> dict | None:
    """The shipped comparison (the JSON of ``benchmarks/real_cluster.py``), or ``None`` when the
    file is absent (read once per process)."""
    if not Path(path).is_file():
        return None
    return json.loads(Path(path).read_text(encoding="utf-8"))


def real_cluster_frame(data: dict) -> pd.DataFrame:
    """One row per (policy with shared results, side): ``policy``, ``source`` (one of
    :data:`SOURCES`), ``avg_jct_min`` and ``makespan_min`` (min), ``jct_error_pct`` and
    ``makespan_error_pct`` (signed % against the real cluster; 0 for the real cluster itself),
    ``within_pct`` (% of jobs within :data:`~gpusched.experiment.real_cluster.WITHIN` of their
    measured JCT; NaN for the real cluster) and ``rho_mean`` (mean finish-time fairness)."""
    rows = []
    for p in data["shared"]:
        real, sim, ours = data["references"][p]["real"], data["references"][p]["shockwave_sim"], \
            data["runs"][p]
        for source, r in ((REAL, real), (SHOCKWAVE_SIM, sim), (OURS, ours)):
            rows.append({"policy": p, "source": source, "avg_jct_min": r["avg_jct_s"] / 60.0,
                         "makespan_min": r["makespan_s"] / 60.0,
                         "jct_error_pct": r.get("jct_error_pct", 0.0),
                         "makespan_error_pct": r.get("makespan_error_pct", 0.0),
                         "within_pct": r.get("within_pct", np.nan), "rho_mean": r["rho_mean"]})
    return pd.DataFrame(rows)


def real_cluster_jobs(data: dict) -> pd.DataFrame:
    """One row per (policy with shared results, job): ``policy``, ``job`` (0-based line of the
    trace), ``real_jct_min`` and ``ours_jct_min`` (min), and ``within`` (ours within
    :data:`~gpusched.experiment.real_cluster.WITHIN` of the real JCT)."""
    frames = []
    for p in data["shared"]:
        real = np.asarray(data["references"][p]["real"]["jct_s"], dtype=float) / 60.0
        ours = np.asarray(data["runs"][p]["jct_s"], dtype=float) / 60.0
        frames.append(pd.DataFrame({"policy": p, "job": np.arange(len(real)), "real_jct_min": real,
                                    "ours_jct_min": ours,
                                    "within": np.abs(ours - real) <= WITHIN * real}))
    return pd.concat(frames, ignore_index=True)


def _with_error(value: float, error_pct: float) -> str:
    """``163.0 (+1.7 %)``: a value with its signed error (a true minus), or the value alone for
    the reference (NaN error)."""
    if np.isnan(error_pct):
        return f"{value:,.1f}"
    return f"{value:,.1f} ({error_pct:+.1f} %)".replace("-", "\u2212")


def real_cluster_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The page's table: one row per policy and side (``policy``, ``side``), each simulator's
    average JCT and makespan with its error against the real cluster (``avg JCT (min)``,
    ``makespan (min)``, as text), and its share of jobs within 10 % of their measured JCT
    (``jobs within 10 % (%)``; empty for the real cluster, the reference)."""
    reference = frame["source"] == REAL
    jct_err = frame["jct_error_pct"].where(~reference)
    mk_err = frame["makespan_error_pct"].where(~reference)
    return pd.DataFrame({
        "policy": frame["policy"], "side": frame["source"],
        "avg JCT (min)": [_with_error(v, e) for v, e in zip(frame["avg_jct_min"], jct_err, strict=True)],
        "makespan (min)": [_with_error(v, e) for v, e in zip(frame["makespan_min"], mk_err, strict=True)],
        "jobs within 10 % (%)": frame["within_pct"].where(~reference),
    }).reset_index(drop=True)


class SimCosts(NamedTuple):
    """gpusched told the costs Shockwave's simulator charges, against that simulator."""

    resume_s: float
    """The restore it charges a job back after a round off (s); a move costs nothing."""
    worst_pct: float
    """gpusched's largest |error| of the average JCT against that simulator (%)."""
    policies: int
    """The policies compared."""


@dataclass(frozen=True)
class RealClusterSummary:
    """What the README's finding says, every figure from the shipped comparison.

    :param policies: the policies with shared results.
    :param restore_s: the one calibrated constant: the restore a job pays when it resumes on other
        GPUs (s).
    :param jobs: jobs in the trace.
    :param close: the policies whose average JCT gpusched gets within 10 % of the real cluster's.
    :param ours_mean_abs_pct: gpusched's mean |error| of the average JCT over ``policies`` (%).
    :param sim_mean_abs_pct: Shockwave's simulator's, over the same policies (%).
    :param short: ``(policy, gpusched's share, Shockwave's simulator's share)`` of jobs within 10 %
        of their measured JCT (%), for each policy where gpusched's share is the smaller.
    :param ours_worst_makespan_pct: gpusched's largest |error| of the makespan (%).
    :param sim_worst_makespan_pct: Shockwave's simulator's (%).
    :param sim_costs: gpusched told the costs Shockwave's simulator charges, against that
        simulator, or ``None`` when the comparison holds no such runs.
    """

    policies: tuple[str, ...]
    restore_s: float
    jobs: int
    close: tuple[str, ...]
    ours_mean_abs_pct: float
    sim_mean_abs_pct: float
    short: tuple[tuple[str, float, float], ...]
    ours_worst_makespan_pct: float
    sim_worst_makespan_pct: float
    sim_costs: SimCosts | None = None


def real_cluster_summary(data: dict) -> RealClusterSummary:
    """The figures of the README's finding from the shipped comparison ``data``."""
    frame = real_cluster_frame(data).set_index(["source", "policy"])
    ours, sim = frame.loc[OURS], frame.loc[SHOCKWAVE_SIM]
    policies = tuple(data["shared"])
    return RealClusterSummary(
        policies=policies, restore_s=float(data["restore_s"]),
        jobs=len(data["references"][policies[0]]["real"]["jct_s"]),
        close=tuple(p for p in policies if abs(ours.loc[p, "jct_error_pct"]) <= 100 * WITHIN),
        ours_mean_abs_pct=float(ours["jct_error_pct"].abs().mean()),
        sim_mean_abs_pct=float(sim["jct_error_pct"].abs().mean()),
        short=tuple((p, float(ours.loc[p, "within_pct"]), float(sim.loc[p, "within_pct"]))
                    for p in policies if ours.loc[p, "within_pct"] < sim.loc[p, "within_pct"]),
        ours_worst_makespan_pct=float(ours["makespan_error_pct"].abs().max()),
        sim_worst_makespan_pct=float(sim["makespan_error_pct"].abs().max()),
        sim_costs=_sim_costs(data),
    )


def _sim_costs(data: dict) -> SimCosts | None:
    """:attr:`RealClusterSummary.sim_costs` of ``data``."""
    costs = data.get("shockwave_costs")
    if not costs:
        return None
    errors = [abs(r["shockwave"]["sim_jct_error_pct"]) for r in costs["runs"].values()]
    return SimCosts(float(costs["resume_s"]), max(errors), len(errors))
