"""Job models: a speed table names job models as well as job types, resolved per job (the job's
model, then its type, then 1.0), and the simulator and the speed-aware placements use it."""

from __future__ import annotations

import pytest

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.jobs import Job
from gpusched.core.simulator import Simulator
from gpusched.core.speed import GpuSpeeds
from gpusched.core.speed_model import TableSpeeds
from gpusched.policies.registry import get_policy

CLUSTER = Cluster([NodeGroup("A", 80.0, 1), NodeGroup("B", 80.0, 1)])
TABLE = {"A": {"training": 0.5, "models": {"ResNet": 2.0, "Gang": {2: 3.0}}},
         "B": {"training": 0.8}}


def job(i: int = 0, model: str | None = None, type_: str = "training", gpus: int = 1,
        duration: float = 60.0) -> Job:
    return Job(id=i, type=type_, arrival_min=0.0, duration_min=duration, gpus=gpus, vram_gb=1.0,
               compute=1.0, model=model)


@pytest.mark.parametrize(("model", "type_", "expected"), [
    ("ResNet", "training", (2.0, 0.8)),   # the model on A; B does not name it: the type
    (None, "training", (0.5, 0.8)),       # no model: the type
    ("Unknown", "training", (0.5, 0.8)),  # a model no row names: the type
    ("ResNet", "inference", (2.0, 1.0)),  # the model on A; neither on B: 1.0
    (None, "batch", (1.0, 1.0)),          # neither: 1.0
])
def test_a_jobs_speed_is_its_models_then_its_types_then_one(model, type_, expected):
    speeds = GpuSpeeds(CLUSTER, TABLE)
    j = job(model=model, type_=type_)
    assert tuple(speeds.row_of_job(j)) == expected
    assert speeds.of_job(j, (0,)) == expected[0]
    assert speeds.of_job(j, (0, 1)) == min(expected)
    assert speeds.of_job(j, ()) == 1.0


def test_a_per_gang_size_entry_applies_at_its_size_only():
    speeds = GpuSpeeds(CLUSTER, TABLE)
    assert speeds.speed_for("A", "Gang", "training", 2) == 3.0
    assert speeds.speed_for("A", "Gang", "training", 1) == 0.5  # not measured on 1 GPU: the type
    assert speeds.speed_for("A", "Gang", "inference", 4) == 1.0


def test_the_type_rows_stay_as_they_were():
    speeds = GpuSpeeds(CLUSTER, TABLE)
    assert tuple(speeds.row("training")) == (0.5, 0.8)
    assert speeds.of("training", (0, 1)) == 0.5


def test_rows_are_read_only_and_cached():
    speeds = GpuSpeeds(CLUSTER, TABLE)
    row = speeds.row_of_job(job(model="ResNet"))
    assert row is speeds.row_of_job(job(i=7, model="ResNet", duration=5.0))
    with pytest.raises(ValueError):
        row[0] = 9.0


def test_the_simulator_runs_a_job_at_its_models_speed():
    sim = Simulator(CLUSTER, [job(model="ResNet", duration=60.0)],
                    speed_model=TableSpeeds(CLUSTER, GpuSpeeds(CLUSTER, TABLE)))
    result = sim.run(get_policy("first_fit"))
    row = result.jobs.iloc[0]
    assert row["run_min"] == pytest.approx(30.0)  # 60 / 2.0 on A (GPU 0)
    assert row["ideal_run_min"] == pytest.approx(30.0)


def test_fastest_fit_and_eft_follow_the_model():
    # By type, B (0.8) is faster than A (0.5); by model, A (2.0) is.
    for name in ("fastest_fit", "fcfs+eft"):
        sim = Simulator(CLUSTER, [job(model="ResNet")],
                        speed_model=TableSpeeds(CLUSTER, GpuSpeeds(CLUSTER, TABLE)))
        result = sim.run(get_policy(name))
        assert list(result.jobs.iloc[0]["gpu_ids"]) == [0], name
        sim = Simulator(CLUSTER, [job()], speed_model=TableSpeeds(CLUSTER, GpuSpeeds(CLUSTER, TABLE)))
        assert list(sim.run(get_policy(name)).jobs.iloc[0]["gpu_ids"]) == [1], name


def test_the_decisions_table_and_the_heatmap_show_the_model():
    from gpusched.experiment.decisions import decision_table
    from gpusched.figures.workload import model_speed_figure, model_speed_rows

    jobs = [job(0, model="ResNet"), job(1), job(2, model="Gang", gpus=2)]
    cluster = Cluster([NodeGroup("A", 80.0, 2), NodeGroup("B", 80.0, 2)])
    speeds = GpuSpeeds(cluster, TABLE)
    result = Simulator(cluster, jobs, speed_model=TableSpeeds(cluster, speeds)).run(get_policy("first_fit"))
    table = decision_table(result)
    assert dict(zip(table["job"], table["model"], strict=True)) == {0: "ResNet", 1: "", 2: "Gang"}
    labels, gpu_models, z = model_speed_rows(jobs, cluster, speeds)
    assert gpu_models == ["A", "B"]
    assert dict(zip(labels, z, strict=True)) == {
        "Gang · 2 GPUs": [3.0, 0.8], "ResNet": [2.0, 0.8], "training (type)": [0.5, 0.8]}
    fig = model_speed_figure(jobs, cluster, speeds)
    assert list(fig.data[0].y) == labels and [list(r) for r in fig.data[0].z] == z
