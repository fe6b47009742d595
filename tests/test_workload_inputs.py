"""The workload inputs that once gave wrong numbers with exit code 0, each checked against the number
it must give now: a horizon before a job list's first arrival, a job model spelt like a job type, a
``gpu_spec`` Gavel cannot run, a subnormal ``spread_speed`` and a price table whose first fitting
row priced another model."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.jobs import Job
from gpusched.core.prices import check_price_table, gpu_prices
from gpusched.core.simulator import Simulator
from gpusched.core.speed import GpuSpeeds
from gpusched.errors import GpuschedError, ScenarioError
from gpusched.limits import MIN_SPREAD_SPEED
from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.openb import TraceError
from gpusched.workload.scenario_yaml import scenario_from_yaml

GAVEL_NODES = [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 8, "count": 1}
               for m in ("K80", "P100", "V100")]


def _scenario(tmp_path: Path, csv: str, **top) -> object:
    (tmp_path / "jobs.csv").write_text(csv, encoding="utf-8")
    data = {"name": "w", "cluster": {"nodes": top.pop("nodes", GAVEL_NODES)},
            "workload": {"jobs": 50, "trace": {"jobs": str(tmp_path / "jobs.csv")}}, **top}
    return scenario_from_yaml(yaml.safe_dump(data), source="w.yaml")


def _run(scenario, policy: str = "first_fit"):
    return make_simulator(scenario).run(get_policy(policy))


HEADER = "id,arrival_min,model,gpus,duration_min\n"


# ---------------------------------------------------------------------------- the horizon
def test_a_horizon_before_the_first_arrival_is_refused_naming_the_arrival(tmp_path):
    scenario = _scenario(tmp_path, HEADER + "0,100,,1,30\n1,105,,1,30\n", horizon_min=50)
    with pytest.raises(ScenarioError, match=r"horizon_min: must be later than the first job's arrival "
                                            r"\(got 50, .* minute 100\)"):
        make_simulator(scenario)


def test_a_horizon_after_the_first_arrival_keeps_every_metric_finite_and_non_negative(tmp_path):
    scenario = _scenario(tmp_path, HEADER + "0,100,,1,30\n1,200,,1,30\n", horizon_min=110)
    result = _run(scenario)
    assert result.end_reason == "horizon"
    for key in ("makespan_min", "cost_usd", "avg_wait_min", "gpu_hours"):
        assert math.isfinite(result.metrics[key]) and result.metrics[key] >= 0, key
    assert result.metrics["makespan_min"] == pytest.approx(10.0)


def test_the_simulator_itself_refuses_a_horizon_before_its_first_arrival():
    cluster = Cluster([NodeGroup("A", 16.0, 1)])
    job = Job(id=0, type="training", arrival_min=100.0, duration_min=30.0, gpus=1, vram_gb=1.0, compute=1.0)
    with pytest.raises(ValueError, match="before the first arrival"):
        Simulator(cluster, [job], horizon_min=50.0)


# ---------------------------------------------------------------------------- one speed lookup
def test_a_job_model_spelt_like_a_job_type_never_takes_that_types_speed(tmp_path):
    """A trace job of model ``inference`` on a table whose K80 row gives inference jobs 0.5: the
    job is not an inference job, so it runs at 1.0 (60 minutes, not 120)."""
    nodes = [{"gpu_model": "K80", "vram_gb": 16, "gpus_per_node": 1, "count": 1}]
    scenario = _scenario(tmp_path, HEADER + "0,0,inference,1,60\n", nodes=nodes,
                         speed={"K80": {"inference": 0.5}})
    assert _run(scenario).metrics["avg_jct_min"] == pytest.approx(60.0)
    typed = _scenario(tmp_path, "id,arrival_min,model,gpus,duration_min,type\n0,0,,1,60,inference\n",
                      nodes=nodes, speed={"K80": {"inference": 0.5}})
    assert _run(typed).metrics["avg_jct_min"] == pytest.approx(120.0)


def test_models_and_types_are_looked_up_apart():
    cluster = Cluster([NodeGroup("A", 16.0, 1)])
    speeds = GpuSpeeds(cluster, {"A": {"training": 0.5, "models": {"ResNet": 2.0}}})
    resnet = Job(id=0, type="training", arrival_min=0.0, duration_min=1.0, gpus=1, vram_gb=0.0,
                 compute=1.0, model="ResNet")
    named_like_a_type = Job(id=1, type="trace", arrival_min=0.0, duration_min=1.0, gpus=1, vram_gb=0.0,
                            compute=1.0, model="training")
    assert speeds.row_of_job(resnet).tolist() == [2.0]
    assert speeds.row_of_job(named_like_a_type).tolist() == [1.0]  # neither its model nor its type


# ---------------------------------------------------------------------------- gpu_spec under gavel
def test_a_gpu_spec_gavel_cannot_run_is_refused_naming_its_line(tmp_path):
    csv = HEADER[:-1] + ",gpu_spec\n0,0,CycleGAN,1,30,\n1,0,ResNet-50 (batch size 128),2,30,K80\n"
    scenario = _scenario(tmp_path, csv, speed="gavel")
    with pytest.raises(TraceError, match=r"line 3, column 'gpu_spec': 'K80' names none of the GPU "
                                         r"models Gavel can run .* \(P100, V100\)"):
        make_simulator(scenario)


def test_a_gpu_spec_with_a_runnable_model_is_kept_to_the_runnable_ones(tmp_path):
    csv = HEADER[:-1] + ",gpu_spec\n0,0,ResNet-50 (batch size 128),2,30,K80|V100\n"
    result = _run(_scenario(tmp_path, csv, speed="gavel"))
    assert result.jobs["gpu_spec"].tolist() == ["V100"]
    assert result.metrics["jobs_completed"] == 1


# ---------------------------------------------------------------------------- spread_speed
def _spread(spread_speed: float) -> str:
    return yaml.safe_dump({
        "name": "sp",
        "cluster": {"nodes": [{"gpu_model": "A", "vram_gb": 16, "gpus_per_node": 1, "count": 4}],
                    "gang_placement": "spread", "spread_speed": spread_speed},
        "workload": {"jobs": 6, "arrival_rate_per_hour": 1, "mix": {"training": 1.0}, "seed": 0}})


def test_a_subnormal_spread_speed_is_refused_with_the_limit():
    with pytest.raises(ScenarioError, match=rf"cluster.spread_speed: must be >= {MIN_SPREAD_SPEED:g} "
                                            r"\(got 5e-324\)"):
        scenario_from_yaml(_spread(5e-324), source="sp.yaml")


def test_the_smallest_spread_speed_keeps_every_metric_finite():
    cluster = Cluster([NodeGroup("A", 16.0, 1, 4)],
                      gang=scenario_from_yaml(_spread(MIN_SPREAD_SPEED), source="sp.yaml")._gang())
    jobs = [Job(id=i, type="training", arrival_min=0.0, duration_min=1e9, gpus=4, vram_gb=1.0, compute=1.0)
            for i in range(2)]
    result = Simulator(cluster, jobs).run(get_policy("first_fit"))
    assert all(math.isfinite(v) for v in result.metrics.values()), result.metrics
    assert result.metrics["makespan_min"] == pytest.approx(2 * 1e9 / MIN_SPREAD_SPEED)


# ---------------------------------------------------------------------------- prices
def test_each_gpu_model_pays_its_own_price_not_the_first_row_that_fits():
    """``{V100: 1.0, V100-32GB: 5.0}`` once charged a V100-32GB 1.0; an hour on it costs 5.0."""
    models = ["V100", "V100-32GB"]
    table = check_price_table({"V100": 1.0, "V100-32GB": 5.0}, models)
    cluster = Cluster([NodeGroup("V100", 16.0, 1), NodeGroup("V100-32GB", 32.0, 1)])
    job = Job(id=0, type="training", arrival_min=0.0, duration_min=60.0, gpus=1, vram_gb=1.0, compute=1.0,
              gpu_spec=("V100-32GB",))
    result = Simulator(cluster, [job], prices=table).run(get_policy("first_fit"))
    assert result.metrics["cost_usd"] == pytest.approx(5.0)
    assert gpu_prices(cluster.gpu_model, table).tolist() == [1.0, 5.0]


@pytest.mark.parametrize(("table", "needle"), [
    ({"v100": 1.0}, "which the cluster names 'V100'"),
    ({"V100": 1.0, "v100": 2.0}, "which the cluster names 'V100'"),
    ({"V100-16GB": 1.0}, "which the cluster lacks"),
])
def test_a_price_key_must_name_a_gpu_model_of_the_cluster_exactly(table, needle):
    with pytest.raises(ValueError, match=needle):
        check_price_table(table, ["V100", "V100-32GB"])


def test_a_partial_price_table_names_the_unpriced_models(tmp_path):
    nodes = [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 1, "count": 1} for m in ("V100", "K80")]
    scenario = _scenario(tmp_path, HEADER + "0,0,,1,60\n", nodes=nodes, prices={"V100": 2.0})
    assert scenario.prices_note() == ("note: prices names no price for K80: their GPUs cost nothing in "
                                      "cost_usd and cheapest_fit")
    full = _scenario(tmp_path, HEADER + "0,0,,1,60\n", nodes=nodes, prices={"V100": 2.0, "K80": 0.5})
    assert full.prices_note() is None


def test_a_trace_clusters_price_keys_are_checked_once_it_is_built():
    data = {"name": "tr", "cluster": {"trace": {"nodes": "openb_node_list_gpu_node", "sample_nodes": 4}},
            "workload": {"jobs": 5, "seed": 0, "trace": {"pods": "openb_pod_list_default",
                                                         "time_compression": 600}},
            "prices": {"H100": 3.0}}
    scenario = scenario_from_yaml(yaml.safe_dump(data), source="tr.yaml")
    with pytest.raises(GpuschedError, match=r"prices: names the GPU model 'H100', which the cluster lacks"):
        make_simulator(scenario)


# ---------------------------------------------------------------------------- the CSV reader
def test_a_bad_row_is_named_by_its_line_in_the_file(tmp_path):
    """Blank lines, Windows line ends and a quoted cell over two lines all count: the bad cell is
    on line 6 of the file, whatever its row number."""
    path = tmp_path / "jobs.csv"
    path.write_bytes(b'\r\nid,arrival_min,model,gpus,duration_min\r\n0,0,"two\r\nlines",1,30\r\n\r\n'
                     b"1,0,,1,x\r\n")
    from gpusched.workload.job_list import read_job_list

    with pytest.raises(TraceError, match=r"line 6, column 'duration_min': must be a number \(got 'x'\)"):
        read_job_list(path)


@pytest.mark.parametrize(("csv", "needle"), [
    (HEADER + "0,0,,1,30,9\n", r"line 2: 6 cells, but the header names 5 columns"),
    ("id,arrival_min,model,gpus,duration_min,id\n0,0,,1,30,1\n", r"column 'id' is named twice"),
    (HEADER + "0,0,,1\n", r"line 2, column 'duration_min': .*no cell: the row has 4 of the header's 5"),
])
def test_a_row_that_does_not_match_its_header_is_refused_saying_how(tmp_path, csv, needle):
    path = tmp_path / "jobs.csv"
    path.write_text(csv, encoding="utf-8")
    from gpusched.workload.job_list import read_job_list

    with pytest.raises(TraceError, match=needle):
        read_job_list(path)
