"""The one sweep plotting function: a policy study, and FGD curves with published overlays."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from gpusched.figures.sweep import sweep_figure, sweep_stats
from gpusched.policies import policy_label
from gpusched.sweep.analysis import alloc_curves, parameters, published_alloc_curves
from gpusched.words.metric_names import parameter_label


def _study() -> pd.DataFrame:
    rows = []
    for policy in ("first_fit", "least_loaded"):
        for rate in (4, 5, 6):
            for seed in range(3):
                rows.append({"run_id": f"{policy}{rate}{seed}", "kind": "simulate",
                             "scenario": "phase1-8gpu", "policy": policy, "seed": seed,
                             "workload.arrival_rate_per_hour": rate,
                             "avg_wait_min": rate * (3 if policy == "least_loaded" else 1) + seed,
                             "error": ""})
    rows.append({**rows[0], "run_id": "failed", "avg_wait_min": np.nan, "error": "boom"})
    return pd.DataFrame(rows)


def test_sweep_stats_mean_and_spread_over_seeds():
    stats = sweep_stats(_study(), "workload.arrival_rate_per_hour", "avg_wait_min")
    row = stats[(stats["policy"] == "least_loaded") & (stats["workload.arrival_rate_per_hour"] == 5)]
    assert row["mean"].item() == 16.0 and row["count"].item() == 3
    assert row["std"].item() == 1.0


def test_policy_study_figure_has_one_line_per_policy():
    table = _study()
    assert parameters(table) == ["scenario", "policy", "seed", "workload.arrival_rate_per_hour"]
    fig = sweep_figure(table, "workload.arrival_rate_per_hour", "avg_wait_min")
    spec = json.loads(fig.to_json())
    names = [t["name"] for t in spec["data"]]
    assert names == [policy_label("first_fit"), policy_label("least_loaded")]
    assert spec["layout"]["xaxis"]["title"]["text"] == parameter_label("workload.arrival_rate_per_hour")


def test_fgd_curves_with_published_overlay():
    row = {"run_id": "a", "kind": "allocation", "nodes": "openb_node_list_gpu_node",
           "pods": "openb_pod_list_default", "policy": "fgd", "seed": 42, "tune": 1.3, "error": ""}
    row.update({f"alloc_pct_{k}": float(min(k, 95)) for k in range(131)})
    table = pd.DataFrame([row])
    curves = alloc_curves(table)
    assert len(curves) == 131 and curves["alloc_pct"].max() == 95
    published = published_alloc_curves(table)
    assert set(published["policy"]) >= {"fgd", "fgd_best_fit"}
    fig = sweep_figure(curves, "arrived_pct", "alloc_pct",
                       published=published[published["policy"] == "fgd"])
    dashed = [t for t in fig.data if t.line.dash == "dash"]
    assert len(dashed) == 1 and "published" in dashed[0].name
    # The published FGD mean at 130 % (10 seeds) is 95.39.
    assert abs(dashed[0].y[-1] - 95.39) < 0.01
