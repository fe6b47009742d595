"""Every run's fairness (gpusched.core.run_fairness): ρ, Jain's index and GPU-type changes, against
a run worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.jobs import Job
from gpusched.core.simulator import Simulator
from gpusched.policies import get_policy


def test_two_jobs_on_one_gpu_by_hand():
    # A and B arrive at 0 and need 10 min each on the one GPU; FIFO runs A over [0, 10), B over
    # [10, 20). N: A saw 2 jobs throughout; B saw 2 over [0, 10) and 1 over [10, 20), so 1.5.
    # rho_A = 10 / (10 * 2) = 0.5; rho_B = 20 / (10 * 1.5) = 4/3. Jain over (1, 0.5): 0.9.
    jobs = [Job(id=i, type="batch", arrival_min=0.0, duration_min=10.0, gpus=1, vram_gb=1.0, compute=1.0)
            for i in range(2)]
    result = Simulator(Cluster([NodeGroup("A100-80GB", 80, 1, 1)]), jobs).run(get_policy("first_fit"))
    table = result.jobs.sort_values("id")
    np.testing.assert_allclose(table["rho"].to_numpy(), [0.5, 4.0 / 3.0])
    assert list(table["type_changes"]) == [0, 0]
    m = result.metrics
    assert m["rho_mean"] == pytest.approx((0.5 + 4.0 / 3.0) / 2)
    assert m["rho_max"] == pytest.approx(4.0 / 3.0)
    assert m["rho_over_1_share"] == pytest.approx(0.5)
    assert m["jain_index"] == pytest.approx(0.9)
    assert m["type_changes_per_job"] == 0.0


def test_a_job_moved_to_another_gpu_model_changes_type():
    from gpusched.core.actions import Batch, Migrate
    from gpusched.core.view import SchedulerView

    class MoveOnce:
        """Start job 0 on GPU 0 (V100), then move it to GPU 1 (K80) once it may move."""

        def bind(self, view: SchedulerView) -> None:
            self.moved = False
            view.request_event_decisions()

        def decide(self, view: SchedulerView):
            if view.queue:
                view.request_wakeup(view.time_min + 11.0)  # past the preemption guard of 10 min
                return 0, 0
            if not self.moved and view.preemptible(0):
                self.moved = True
                return 0, Batch(move=(Migrate(0, (1,)),))
            view.request_wakeup(view.time_min + 1.0)
            return 0, -1

    cluster = Cluster([NodeGroup("V100", 16, 1, 1), NodeGroup("K80", 16, 1, 1)])
    job = Job(id=0, type="training", arrival_min=0.0, duration_min=30.0, gpus=1, vram_gb=1.0, compute=1.0)
    result = Simulator(cluster, [job]).run(MoveOnce())
    assert result.jobs["migrations"].iloc[0] == 1
    assert result.jobs["type_changes"].iloc[0] == 1
    assert result.metrics["type_changes_per_job"] == 1.0
