"""Where the stall happens: the conditions map's findings, its generated sentences, and its shipped
results (current, and as docs/results/stall-conditions.md and docs/scenarios.md report them)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from gpusched.experiment.stall import (
    NO_FIT_CHECK_VARIANTS,
    conditions_findings,
    misroute_cause_shares,
    wait_ratio_grid,
)
from gpusched.figures import (
    conditions_heatmap_figure,
    conditions_summary,
    misroute_causes_figure,
    stall_blurb,
)
from gpusched.paths import REPO_ROOT, STALL_CONDITIONS_RESULTS_DIR, STALL_CONDITIONS_SPEC
from gpusched.sweep.analysis import load_sweep_results
from gpusched.sweep.runner import execute_run, simulate_grid_rows
from gpusched.sweep.spec import load_sweep
from gpusched.workload.presets import load_scenario

POLICIES = ["first_fit", *NO_FIT_CHECK_VARIANTS]


def _table(family: str, waits: dict[str, list[float]], stall: dict[str, float],
           causes: dict[str, tuple[int, int, int]], idle: dict[str, float]) -> pd.DataFrame:
    """A results table of one family, two loads x len(waits[p]) // 2 seeds."""
    rows = []
    for policy, values in waits.items():
        for i, wait in enumerate(values):
            cap, occ, gang = causes.get(policy, (0, 0, 0))
            rows.append({"scenario": family, "workload.load": 0.2 + 0.2 * (i % 2), "policy": policy,
                         "seed": i // 2, "avg_wait_min": wait, "stall_min": stall.get(policy, 0.0),
                         "misroutes": cap + occ + gang, "misroutes_capacity": cap,
                         "misroutes_occupied": occ, "misroutes_gang": gang,
                         "idle_gpu_min_queued": idle.get(policy, 0.0),
                         "idle_gpu_min_stalled": 0.0 if policy == "first_fit" else idle.get(policy, 0.0) / 2,
                         "idle_gpu_min_blocked": idle.get(policy, 0.0) / (1 if policy == "first_fit" else 2),
                         "jobs_unfinished": 0, "error": ""})
    return pd.DataFrame(rows)


def _family(name: str, ll_extra: float, ff_idle: float) -> pd.DataFrame:
    ff = [10.0, 12.0, 9.0, 11.0, 10.5, 13.0]
    waits = {"first_fit": ff, **{v: [w + ll_extra + 0.1 * k for k, w in enumerate(ff)]
                                 for v in NO_FIT_CHECK_VARIANTS}}
    stall = {v: 50.0 if ll_extra > 0 else 0.0 for v in NO_FIT_CHECK_VARIANTS}
    causes = {v: (30, 2, 5) for v in NO_FIT_CHECK_VARIANTS}
    idle = {"first_fit": ff_idle, **{v: 100.0 for v in NO_FIT_CHECK_VARIANTS}}
    return _table(name, waits, stall, causes, idle)


def test_findings_follow_the_numbers():
    results = pd.concat([_family("slow", 40.0, 20.0), _family("calm", 0.0, 150.0)], ignore_index=True)
    slow, calm = conditions_findings(results)
    assert (slow.family, calm.family) == ("slow", "calm")
    assert slow.stalls and slow.wait_diff.low > 0 and slow.dominant_cause == "capacity"
    assert not calm.stalls
    assert calm.ff_blocks_as_badly and not slow.ff_blocks_as_badly
    assert slow.causes == {"capacity": 180, "occupied": 12, "gang": 30}
    text = " ".join(conditions_summary([slow, calm]))
    assert "Least-Loaded stalls on `slow`" in text
    assert "does not wait measurably longer than First-Fit on `calm`" in text
    assert "**capacity** misroutes" in text


def test_the_sentences_change_when_the_numbers_change():
    before = conditions_summary(conditions_findings(_family("x", 40.0, 20.0)))
    after = conditions_summary(conditions_findings(_family("x", 0.0, 20.0)))
    assert before != after
    assert any("stalls on `x`" in s for s in before)
    assert not any("stalls on `x`" in s for s in after)
    assert "5 of" not in stall_blurb(conditions_findings(_family("x", 0.0, 20.0)))


def test_ratio_grid_and_cause_shares_cover_every_family_and_load():
    results = pd.concat([_family("a", 40.0, 20.0), _family("b", 0.0, 150.0)], ignore_index=True)
    grid = wait_ratio_grid(results, "least_loaded")
    assert list(grid.index) == ["a", "b"] and list(grid.columns) == [0.2, 0.4]
    assert (grid.loc["a"] > 1).all()
    shares = misroute_cause_shares(results)
    totals = shares.groupby(["scenario", "policy"])["share"].sum()
    assert np.allclose(totals, 1.0)
    heatmap = conditions_heatmap_figure(results)
    assert len(heatmap.data) == len(NO_FIT_CHECK_VARIANTS)
    assert len(misroute_causes_figure(results).data) == 3 * len(NO_FIT_CHECK_VARIANTS)


def test_grid_rows_for_a_scenario_object_equal_the_sweeps_runs():
    grid = load_sweep(STALL_CONDITIONS_SPEC).simulate.model_copy(
        update={"seeds": [0], "overrides": {"workload.load": [0.3]},
                "policies": ["first_fit", "least_loaded"]})
    scenario = load_scenario("hetero-biglast-16gpu")
    rows = simulate_grid_rows(grid, scenario)
    assert len(rows) == 2 and (rows["error"] == "").all()
    for _, row in rows.iterrows():
        params = {"kind": "simulate", "scenario": "hetero-biglast-16gpu", "policy": row["policy"],
                  "seed": 0, "workload.load": 0.3}
        ran, _ = execute_run(params)
        assert ran["avg_wait_min"] == row["avg_wait_min"] and ran["misroutes"] == row["misroutes"]


def test_the_shipped_conditions_results_are_current():
    table = load_sweep_results(STALL_CONDITIONS_RESULTS_DIR)
    spec = load_sweep(STALL_CONDITIONS_SPEC)
    assert set(table["run_id"]) == {r["run_id"] for r in spec.runs()}
    assert len(table) >= 1000 and table["seed"].nunique() >= 5
    rng = np.random.default_rng(13)
    by_id = {r["run_id"]: r for r in spec.runs()}
    for i in rng.choice(len(table), 8, replace=False):
        row = table.iloc[int(i)]
        ran, _ = execute_run(by_id[row["run_id"]])
        for key in ("avg_wait_min", "stall_min", "misroutes_capacity", "idle_gpu_min_stalled"):
            assert ran[key] == pytest.approx(float(row[key]), rel=1e-12, abs=1e-9), (row["run_id"], key)


def _documented_stall_table() -> dict[str, dict[str, str]]:
    text = (REPO_ROOT / "docs" / "results" / "stall-conditions.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    out = {}
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[cells[0].strip("`")] = {"stalls": cells[1], "cause": cells[3], "variant": cells[4],
                                    "ff": cells[5]}
    return out


def test_the_docs_report_what_the_shipped_map_measured():
    from gpusched.policies import policy_label

    findings = conditions_findings(load_sweep_results(STALL_CONDITIONS_RESULTS_DIR))
    readme = _documented_stall_table()
    assert set(readme) == {f.family for f in findings}
    for f in findings:
        row = readme[f.family]
        assert row["stalls"].startswith("yes" if f.stalls else "no"), f.family
        assert re.search(rf"\b{f.dominant_cause}\b", row["cause"]), f.family
        assert row["variant"] == policy_label(f.worst_variant), f.family
        assert row["ff"].startswith("yes" if f.ff_blocks_as_badly else "no"), f.family


def test_the_docs_prose_on_variants_and_first_fit_holds_on_the_shipped_map():
    results = load_sweep_results(STALL_CONDITIONS_RESULTS_DIR)
    ll = {f.family: f for f in conditions_findings(results)}
    jobs = {f.family: f for f in conditions_findings(results, variant="least_loaded_jobs")}
    vram = {f.family: f for f in conditions_findings(results, variant="least_loaded_vram")}
    # By job count: the same families stall, for the same dominant causes.
    assert {k for k, f in jobs.items() if f.stalls} == {k for k, f in ll.items() if f.stalls}
    assert {k: f.dominant_cause for k, f in jobs.items()} == {k: f.dominant_cause for k, f in ll.items()}
    # By free VRAM: the same families stall; where capacity dominates for the compute form,
    # occupied misroutes dominate for this one, and it has fewer capacity misroutes.
    assert {k for k, f in vram.items() if f.stalls} == {k for k, f in ll.items() if f.stalls}
    for family, f in ll.items():
        if f.dominant_cause == "capacity":
            assert vram[family].dominant_cause == "occupied"
            assert vram[family].causes["capacity"] < f.causes["capacity"]
    # First-Fit blocks more with the big node first than with the same nodes last.
    assert ll["hetero-bigfirst-16gpu"].ff_blocked_min > ll["hetero-biglast-16gpu"].ff_blocked_min


def test_least_loaded_stalls_on_heterogeneous_clusters_nobody_designed():
    """The claim in docs/scenarios.md, on random clusters (``random_cluster`` draws, seeds 100-105, each with
    GPUs of at least two VRAM sizes): Least-Loaded waits longer than First-Fit (paired interval
    above 0), and on most of them capacity misroutes dominate."""
    from gpusched.env.randomize import random_cluster
    from gpusched.workload.scenario_yaml import scenario_from_dict

    grid = load_sweep(STALL_CONDITIONS_SPEC).simulate.model_copy(
        update={"policies": ["first_fit", "least_loaded"], "overrides": {"workload.load": [0.2, 0.4]}})
    base = load_scenario("phase1-8gpu").model_dump(mode="json", exclude_none=True)
    parts = []
    for seed in range(100, 106):
        cluster = random_cluster(np.random.default_rng(seed), 6, 24)
        if len(set(cluster.gpu_vram_gb.tolist())) < 2:
            continue
        nodes = [{"gpu_model": cluster.node_model[n], "vram_gb": float(cluster.node_vram_gb[n]),
                  "gpus_per_node": int(cluster.node_gpu_count[n])} for n in range(cluster.n_nodes)]
        scenario = scenario_from_dict({**base, "name": f"random-{seed}", "cluster": {"nodes": nodes}})
        parts.append(simulate_grid_rows(grid, scenario))
    findings = conditions_findings(pd.concat(parts, ignore_index=True))
    assert len(findings) >= 4
    assert all(f.stalls for f in findings), [(f.family, f.wait_diff) for f in findings]
    assert sum(f.dominant_cause == "capacity" for f in findings) > len(findings) / 2
