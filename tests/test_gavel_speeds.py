"""``speed: gavel``: Gavel's shipped throughputs, turned into speeds relative to the V100."""

from __future__ import annotations

import pytest

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.gavel_speeds import (
    GAVEL_THROUGHPUTS_SHA256,
    distributed_models,
    file_sha256,
    gavel_speed_rows,
    gavel_speed_table,
    job_models,
    measured_scales,
    runnable_gpu_models,
)
from gpusched.core.jobs import Job
from gpusched.core.simulator import Simulator
from gpusched.core.speed import GpuSpeeds
from gpusched.core.speed_model import TableSpeeds
from gpusched.errors import ScenarioError
from gpusched.paths import GAVEL_THROUGHPUTS
from gpusched.policies.registry import get_policy
from gpusched.workload.scenario_yaml import scenario_from_dict

GAVEL_CLUSTER = {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 4, "count": 1}
                           for m in ("K80", "P100", "V100")]}


def test_the_shipped_file_is_gavels_unchanged_with_its_licence_and_citation():
    assert file_sha256() == GAVEL_THROUGHPUTS_SHA256
    folder = GAVEL_THROUGHPUTS.parent
    assert "MIT License" in (folder / "LICENSE").read_text(encoding="utf-8")
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "OSDI 2020" in readme and "c4fa40097339e9608ab71fd64c8bdea96a5e4a4c" in readme
    assert GAVEL_THROUGHPUTS_SHA256 in readme


def test_three_speeds_computed_by_hand_from_the_json():
    table = gavel_speed_table()
    # Throughputs (steps/s) read off the file by hand: K80, P100, V100.
    # Recommendation at batch 1024 on 1 GPU: 20.04995255198869, 30.74443726150114, 13.2825697082565
    assert table["P100"]["Recommendation (batch size 1024)"][1] == pytest.approx(
        30.74443726150114 / 13.2825697082565)  # 2.315: the P100 is its fastest GPU
    # CycleGAN on 1 GPU: 0.5047705689725351, 2.4026681703106223, 4.426088263367452
    assert table["K80"]["CycleGAN"][1] == pytest.approx(0.5047705689725351 / 4.426088263367452)
    # ResNet-18 at batch 64 on 4 GPUs: 21.625568416059814, 74.99057006200313, 95.58814453205626
    assert table["K80"]["ResNet-18 (batch size 64)"][4] == pytest.approx(
        21.625568416059814 / 95.58814453205626)
    assert all(v == 1.0 for row in table["V100"].values() for v in row.values())


def test_the_table_has_gavels_models_and_scales():
    assert len(job_models()) == 26
    assert len(distributed_models()) == 19
    assert all(measured_scales()[m] == (1, 2, 4, 8) for m in distributed_models())
    assert measured_scales()["A3C"] == (1,)
    # 0.0 in the file: does not fit, left out of the table and of the runnable models
    assert 2 not in gavel_speed_table()["K80"]["ResNet-50 (batch size 128)"]
    assert runnable_gpu_models("ResNet-50 (batch size 128)", 2) == ("P100", "V100")
    assert runnable_gpu_models("ResNet-50 (batch size 128)", 1) == ("K80", "P100", "V100")


def test_a_gang_uses_the_throughput_at_its_scale_factor():
    cluster = Cluster([NodeGroup("K80", 12.0, 4), NodeGroup("V100", 16.0, 4)])
    speeds = GpuSpeeds(cluster, gavel_speed_rows())
    one = Job(0, "training", 0.0, 60.0, 1, 0.0, 1.0, model="ResNet-18 (batch size 64)")
    four = Job(1, "training", 0.0, 60.0, 4, 0.0, 1.0, model="ResNet-18 (batch size 64)")
    table = gavel_speed_table()["K80"]["ResNet-18 (batch size 64)"]
    assert speeds.of_job(one, (0,)) == pytest.approx(table[1])
    assert speeds.of_job(four, (0, 1, 2, 3)) == pytest.approx(table[4])
    assert table[1] != pytest.approx(table[4])
    sim = Simulator(cluster, [four], speed_model=TableSpeeds(cluster, speeds))
    row = sim.run(get_policy("first_fit")).jobs.iloc[0]
    assert row["run_min"] == pytest.approx(60.0 / table[4])  # first_fit puts it on the K80 node
    assert row["ideal_run_min"] == pytest.approx(60.0)       # on the V100 node, at speed 1.0


def _scenario(**changes):
    data = {"name": "g", "cluster": GAVEL_CLUSTER, "speed": "gavel",
            "workload": {"jobs": 50, "arrival_rate_per_hour": 2, "generator": "gavel"}}
    data.update(changes)
    return scenario_from_dict(data, source="g.yaml")


def test_other_gpu_models_get_one_line_listing_the_three():
    nodes = {"nodes": [{"gpu_model": "A100-80GB", "vram_gb": 80, "gpus_per_node": 1}]}
    with pytest.raises(ScenarioError) as err:
        _scenario(cluster=nodes)
    message = str(err.value)
    assert "\n" not in message and "'g.yaml', speed" in message
    assert "K80, P100, V100" in message and "'A100-80GB'" in message


def test_a_job_that_does_not_fit_a_gpu_type_is_kept_off_it():
    scenario = _scenario(workload={"jobs": 400, "arrival_rate_per_hour": 2, "generator": "gavel",
                                   "multi_gpu": True, "seed": 3})
    cluster = Cluster([NodeGroup("K80", 12.0, 8), NodeGroup("P100", 16.0, 8),
                       NodeGroup("V100", 16.0, 8)])
    jobs = scenario.jobs(cluster=cluster)
    kept_off = [j for j in jobs if j.model == "ResNet-50 (batch size 128)" and j.gpus > 1]
    assert kept_off and all(j.gpu_spec == ("P100", "V100") for j in kept_off)
    assert all(j.gpu_spec is None for j in jobs if j not in kept_off)
