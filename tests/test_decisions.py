"""The decision table of a run: every start and deliberate hold, read back from the run itself."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.jobs import Job
from gpusched.core.simulator import HOLD, Simulator
from gpusched.experiment.decisions import DECISION_COLUMNS, decision_table, gpu_list
from gpusched.experiment.runner import run_policy
from gpusched.workload.presets import load_scenario


def test_every_started_job_is_one_start_row_with_its_slot_and_gpus():
    result = run_policy(load_scenario("fleet-16gpu"), "sjf+best_fit", seed=3, n_jobs=120)
    table = decision_table(result)
    assert tuple(table.columns) == DECISION_COLUMNS
    starts = table[table["decision"] == "start"].set_index("job").sort_index()
    jobs = result.jobs[result.jobs["start_slot"] >= 0].set_index("id").sort_index()
    assert list(starts.index) == list(jobs.index)
    assert (starts["slot"] == jobs["start_slot"]).all()
    assert (starts["out_of_order"] == (jobs["start_slot"] > 0)).all()
    assert starts["out_of_order"].sum() == result.metrics["backfilled_jobs"]
    assert np.allclose(starts["wait_min"], jobs["wait_min"])
    first = jobs.iloc[0]
    assert starts.iloc[0]["gpus"] == gpu_list([result.cluster.gpu_label(g) for g in first["gpu_ids"]])
    assert table["time_min"].is_monotonic_increasing


class HoldOnce:
    """Holds the first decision although the head job fits, then places on GPU 0."""

    name = "hold_once"

    def __init__(self):
        self.held = False

    def select(self, state, job):
        if not self.held:
            self.held = True
            return HOLD
        return 0


def test_a_deliberate_hold_is_a_hold_row_of_the_head_job():
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1, 1)])
    jobs = [Job(id=0, type="batch", arrival_min=0.0, duration_min=10.0, gpus=1, vram_gb=8.0,
                compute=0.5, priority=1),
            Job(id=1, type="batch", arrival_min=5.0, duration_min=10.0, gpus=1, vram_gb=8.0,
                compute=0.5, priority=1)]
    result = Simulator(cluster, jobs).run(HoldOnce())
    table = decision_table(result)
    assert list(table["decision"]) == ["hold", "start", "start"]
    hold = table.iloc[0]
    assert hold["job"] == 0 and hold["time_min"] == 0.0 and hold["gpus"] == ""
    assert list(table["time_min"]) == pytest.approx([0.0, 5.0, 5.0])


def test_gpu_lists_name_each_model_once_and_join_consecutive_gpus():
    assert gpu_list(["V100 #4", "V100 #5", "V100 #6", "V100 #9", "K80 #100"]) == "V100 #4–#6, #9, K80 #100"
    assert gpu_list(["A100-80GB #0", "A100-80GB #1"]) == "A100-80GB #0–#1"
    assert gpu_list(["T4 #3"]) == "T4 #3" and gpu_list([]) == ""
    assert gpu_list(["odd", "V100 #2"]) == "odd, V100 #2"
