"""The ``gavel-108gpu`` presets: Gavel's 36:36:36 cluster, its generator and measured speeds, and
offered loads chosen by the criteria of ``benchmarks/gavel_load.py`` on its tuning seeds."""

from __future__ import annotations

import json
import sys
from collections import Counter

import pytest

from gpusched.paths import BENCHMARK_RESULTS_DIR, REPO_ROOT
from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario, preset_names

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import gavel_load  # noqa: E402

LOAD_PRESETS = {"light": "gavel-108gpu-light", "medium": "gavel-108gpu", "heavy": "gavel-108gpu-heavy"}
ALL = (*LOAD_PRESETS.values(), "gavel-108gpu-servers")
TUNING = json.loads((BENCHMARK_RESULTS_DIR / "gavel-load-tuning.json").read_text(encoding="utf-8"))


def _gpus_by_model(name: str) -> Counter:
    cluster = load_scenario(name).build_cluster()
    return Counter(cluster.gpu_model)


@pytest.mark.parametrize("name", ALL)
def test_the_presets_are_gavels_cluster_and_workload(name):
    scenario = load_scenario(name)
    assert name in preset_names()
    assert _gpus_by_model(name) == {"V100": 36, "P100": 36, "K80": 36}
    assert scenario.speed == "gavel" and scenario.cluster.gang_placement == "spread"
    assert scenario.workload.generator == "gavel" and scenario.workload.multi_gpu is True
    per_node = {n.gpus_per_node for n in scenario.cluster.nodes}
    assert per_node == ({4} if name.endswith("-servers") else {1})


def test_the_load_presets_differ_only_in_load_and_the_servers_one_only_in_servers():
    dumps = {n: load_scenario(n).model_dump(mode="json", exclude_none=True) for n in ALL}
    base = dumps["gavel-108gpu"]
    for name, d in dumps.items():
        assert {k for k in d if d[k] != base[k]} <= {"name", "description", "workload", "cluster"}
        w, bw = dict(d["workload"]), dict(base["workload"])
        if name == "gavel-108gpu-servers":
            assert w == bw and d["cluster"] != base["cluster"]
        else:
            w.pop("load"), bw.pop("load")
            assert w == bw and d["cluster"] == base["cluster"]


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("policy", ["fcfs+first_fit", "fcfs+fastest_move"])
def test_a_small_run_of_each_preset_completes_every_job(name, policy):
    scenario = load_scenario(name).with_overrides(**{"workload.jobs": 80})
    result = make_simulator(scenario, 0).run(get_policy(policy))
    assert result.metrics["jobs_completed"] == 80 and result.metrics["jobs_unfinished"] == 0
    assert result.jobs["gpus"].max() > 1  # Gavel's multi-GPU gangs


def test_the_servers_preset_spreads_fewer_gangs_than_it_could():
    """On 4-GPU servers a gang of 2 or 4 fits on one server, so consolidation matters there."""
    scenario = load_scenario("gavel-108gpu-servers").with_overrides(**{"workload.jobs": 200})
    jobs = make_simulator(scenario, 0).run(get_policy("fcfs+first_fit")).jobs
    assert jobs["gpus"].isin([2, 4]).any()


def test_the_presets_loads_are_the_ones_the_tuning_seeds_chose():
    chosen = TUNING["chosen"]
    assert {k: load_scenario(v).workload.load for k, v in LOAD_PRESETS.items()} == chosen
    assert TUNING["tuning_seeds"] == list(gavel_load.TUNING_SEEDS)
    assert [r["load"] for r in TUNING["rows"]] == list(gavel_load.LOADS)
    assert gavel_load.choose(gavel_load.mark(TUNING["rows"])) == chosen


def test_the_measured_figures_meet_the_stated_criteria():
    rows = {r["load"]: r for r in TUNING["rows"]}
    chosen = TUNING["chosen"]
    first = TUNING["rows"][0]
    light, heavy = rows[chosen["light"]], rows[chosen["heavy"]]
    assert light["gap"] <= first["gap"] + gavel_load.LIGHT_GAP_POINTS
    assert light["gap"] == pytest.approx(light["ff_jct_min"] / light["fm_jct_min"] - 1)
    assert heavy["all_completed"] and heavy["final_queue"] == 0
    assert heavy["second_half_wait_min"] <= heavy["first_half_wait_min"] + gavel_load.DRAIN_SLACK_MIN
    above = [r for r in TUNING["rows"] if r["load"] > chosen["heavy"]]
    assert above and not any(r["drains"] for r in above)  # heavy is the highest that drains
    assert any(r["load"] > chosen["light"] and r["gap"] > first["gap"] + gavel_load.LIGHT_GAP_POINTS
               for r in TUNING["rows"])
    assert chosen["light"] < chosen["medium"] < chosen["heavy"]


@pytest.mark.slow
def test_the_heavy_row_is_what_the_simulator_gives_on_the_tuning_seeds():
    heavy = TUNING["chosen"]["heavy"]
    row = next(r for r in TUNING["rows"] if r["load"] == heavy)
    assert {**gavel_load.measure(heavy), "light": row["light"]} == pytest.approx(row)
