"""The urgency benchmarks' cores on tiny cases (``benchmarks/urgency_window.py``,
``benchmarks/urgency_table.py``), and the page ``benchmarks/render_results.py`` renders from their
shipped results, read back against the runs independently."""

from __future__ import annotations

import json
import re
import sys

import pandas as pd
import pytest

from gpusched.experiment.knowledge import KnowledgeTable
from gpusched.experiment.paired import paired_difference
from gpusched.paths import REPO_ROOT, URGENCY_RESULTS, URGENCY_WINDOW_RESULTS
from gpusched.workload.scenario_yaml import scenario_from_dict

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import render_results  # noqa: E402
import urgency_table  # noqa: E402
import urgency_window  # noqa: E402

PAGE = REPO_ROOT / "docs" / "results" / "urgency.md"
TINY = {"name": "tiny-urgency",
        "cluster": {"nodes": [{"gpu_model": "A100-80GB", "vram_gb": 80, "gpus_per_node": 2, "count": 1},
                              {"gpu_model": "T4-16GB", "vram_gb": 16, "gpus_per_node": 1, "count": 2}]},
        "workload": {"jobs": 30, "load": 0.9, "seed": 0},
        "queue": {"window": 4}}


def _window_data(runs: list[dict], policies: list[str], windows: list[int]) -> dict:
    return {"scenario": "tiny", "setting": "history", "preset_window": windows[0], "policies": policies,
            "windows": windows, "seeds": sorted({r["seed"] for r in runs}), "runs": runs, "wall_s": 1.0}


def test_the_window_summary_picks_the_best_pair_at_its_best_window():
    runs = [{"policy": p, "window": w, "seed": s, "avg_jct_min": jct + s, "p99_wait_min": 0.0,
             "max_queue": 3, "wall_s": 0.1}
            for p, w, jct in [("a", 16, 100.0), ("a", 32, 90.0), ("b", 16, 95.0), ("b", 32, 95.0)]
            for s in range(3)]
    s = urgency_window.window_summary(_window_data(runs, ["a", "b"], [16, 32]))
    assert (s.best, s.window, s.jct_min) == ("a", 32, pytest.approx(91.0))
    assert s.best_window == {"a": 32, "b": 16}  # b ties: the smallest window
    assert s.against_preset.mean == pytest.approx(-10.0) and s.against_preset.a_lower == 3


def test_the_window_measurement_runs_each_pair_at_each_window():
    scenario = scenario_from_dict(TINY, source="tiny")
    runs = urgency_window.measure(scenario, ["las+first_fit", "qssf+first_fit"], [2, 8], [0, 1])
    assert len(runs) == 8 and {r["window"] for r in runs} == {2, 8}
    assert all(0 <= r["max_queue"] <= TINY["workload"]["jobs"] and r["avg_jct_min"] > 0 for r in runs)
    s = urgency_window.window_summary(_window_data(runs, ["las+first_fit", "qssf+first_fit"], [2, 8]))
    means = pd.DataFrame(runs).groupby(["policy", "window"])["avg_jct_min"].mean()
    assert s.jct_min == pytest.approx(means.min())


@pytest.fixture(scope="module")
def tiny_tables() -> dict:
    plain = scenario_from_dict(TINY, source="tiny")
    gavel = scenario_from_dict({
        "name": "tiny-gavel",
        "cluster": {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 1, "count": 2}
                              for m in ("V100", "P100", "K80")]},
        "workload": {"generator": "gavel", "jobs": 30, "load": 0.6, "seed": 0, "deadlines": True,
                     "weights": True},
        "queue": {"window": 4}, "speed": "gavel"}, source="tiny-gavel")
    return urgency_table.measure({"plain": plain, "deadlines": gavel},
                                 ["las+first_fit", "sjf+first_fit"], [0, 1])


def test_the_table_benchmark_writes_one_knowledge_table_per_preset(tiny_tables):
    data = json.loads(json.dumps(tiny_tables, allow_nan=False))
    assert list(data["tables"]) == ["plain", "deadlines"]
    assert data["presets"]["deadlines"]["deadlines"] and not data["presets"]["plain"]["deadlines"]
    for d in data["tables"].values():
        t = KnowledgeTable.from_json(d)
        assert t.seeds == [0, 1] and t.policies == ["las+first_fit", "sjf+first_fit"]
        assert set(t.runs.columns) >= set(urgency_table.METRICS)
        assert t.is_refused("none", "sjf+first_fit") and not t.is_refused("history", "sjf+first_fit")
    slo = KnowledgeTable.from_json(data["tables"]["deadlines"]).runs["slo_attainment"].dropna()
    assert ((slo >= 0) & (slo <= 1)).all() and (slo < 1).any()


def test_the_page_shows_slo_attainment_only_where_jobs_have_deadlines(tiny_tables):
    page = render_results.urgency_markdown(None, tiny_tables)
    plain = page[page.index("### `plain`"):page.index("### `deadlines`")]
    slo = page[page.index("### `deadlines`"):]
    assert "SLO attainment" not in plain and "SLO attainment" in slo
    assert "weighted JCT" not in plain and "weighted JCT" in slo  # only the Gavel jobs carry weights
    assert plain.count("refused: it reads run times") == 1
    assert "## The queue window" not in page


def test_the_shipped_window_result_names_the_lowest_mean():
    data = json.loads(URGENCY_WINDOW_RESULTS.read_text(encoding="utf-8"))
    runs = pd.DataFrame(data["runs"])
    assert not set(data["seeds"]) & set(range(900, 905))
    means = runs.groupby(["policy", "window"])["avg_jct_min"].mean()
    (policy, window) = means.idxmin()
    tied = means[means == means.min()]
    window = min(w for p, w in tied.index if p == policy)
    page = PAGE.read_text(encoding="utf-8")
    assert (f"**The best pair not told run times is `{policy}`: {means.min():,.1f} min at window "
            f"{window}**") in page
    assert set(runs["window"]) == {16, 32, 64, 128}


def test_presets_run_apart_merge_into_one_file_in_the_presets_order(tiny_tables):
    plain = {**tiny_tables, "tables": {"plain": tiny_tables["tables"]["plain"]},
             "presets": {"plain": tiny_tables["presets"]["plain"]}}
    slo = {**tiny_tables, "tables": {"deadlines": tiny_tables["tables"]["deadlines"]},
           "presets": {"deadlines": tiny_tables["presets"]["deadlines"]}}
    both = urgency_table.merged([slo, plain])
    assert both["tables"] == {"deadlines": tiny_tables["tables"]["deadlines"],
                              "plain": tiny_tables["tables"]["plain"]}
    with pytest.raises(ValueError, match="different seeds or pairs"):
        urgency_table.merged([plain, {**slo, "seeds": [5]}])
    with pytest.raises(ValueError, match="'plain' is in two parts"):
        urgency_table.merged([plain, plain])

def test_the_shipped_tables_headline_is_each_settings_lowest_mean():
    data = json.loads(URGENCY_RESULTS.read_text(encoding="utf-8"))
    page = PAGE.read_text(encoding="utf-8")
    head = page[page.index("## The best pair of each setting"):page.index("## Every pair")]
    assert len(data["seeds"]) >= 10 and not set(data["seeds"]) & urgency_table.TUNING_SEEDS
    for name, d in data["tables"].items():
        runs = pd.DataFrame(d["runs"])
        row = re.search(rf"^\| `{re.escape(name)}` \|(.*)\|$", head, flags=re.MULTILINE).group(1)
        cells = [c.strip() for c in row.split("|")]
        for setting, cell in zip(d["settings"], cells, strict=True):
            means = runs[runs["setting"] == setting].groupby("policy")["avg_jct_min"].mean().dropna()
            assert cell == f"`{means.idxmin()}` {means.min():,.1f}"


def test_the_shipped_cost_of_not_knowing_rows_match_the_runs():
    data = json.loads(URGENCY_RESULTS.read_text(encoding="utf-8"))
    page = PAGE.read_text(encoding="utf-8")
    for name, d in data["tables"].items():
        runs = pd.DataFrame(d["runs"])
        section = page[page.index(f"### `{name}`"):]
        section = section[:section.index("\n### ")] if "\n### " in section else section
        for policy in d["policies"]:
            now = runs[(runs["setting"] == "history") & (runs["policy"] == policy)].set_index("seed")
            exact = runs[(runs["setting"] == "exact") & (runs["policy"] == policy)].set_index("seed")
            d_seed = (now["avg_jct_min"] - exact["avg_jct_min"]).to_numpy()
            diff = paired_difference(now["avg_jct_min"].to_numpy(), exact["avg_jct_min"].to_numpy())
            assert diff.mean == pytest.approx(d_seed.mean())
            row = re.search(rf"^\| history \| \**`{re.escape(policy)}`\** \|.*\|$", section,
                            flags=re.MULTILINE)
            assert row is not None, (name, policy)
            cells = [c.strip() for c in row.group(0).strip("|").split("|")]
            assert cells[2] == f"{now['avg_jct_min'].mean():,.1f}"
            assert cells[-1] == render_results._interval(diff.mean, diff.low, diff.high)


def test_each_table_is_named_as_the_file_lists_it(tiny_tables):
    assert {n: d["scenario"] for n, d in tiny_tables["tables"].items()} == {"plain": "plain",
                                                                           "deadlines": "deadlines"}
