"""Time to result: the ideal run time, slowdown, bounded slowdown, speed loss and the ``jct``
reward term, each computed by hand on a small run."""

from __future__ import annotations

import pytest

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.jobs import Job
from gpusched.core.reward import RewardSpec
from gpusched.core.simulator import Simulator
from gpusched.core.speed import GpuSpeeds
from gpusched.core.speed_model import TableSpeeds
from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

SPEEDS = {"A100-80GB": {"training": 1.0}, "T4-16GB": {"training": 0.2}}


def training(job_id: int, arrival: float, duration: float, vram: float = 10.0) -> Job:
    return Job(id=job_id, type="training", arrival_min=arrival, duration_min=duration, gpus=1,
               vram_gb=vram, compute=1.0)


def run(policy: str, jobs: list[Job], reward: RewardSpec | None = None):
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("T4-16GB", 16, 1)])
    sim = Simulator(cluster, jobs, window=4,
                    speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, SPEEDS)), reward=reward)
    return sim.run(get_policy(policy))


def test_metrics_by_hand_when_a_job_runs_five_times_slower():
    """Fastest-Fit: the 20-minute job takes the A100 (0-20), the 90-minute one the T4 at minute 1
    (runs 450 minutes, ends at 451). Ideal runs: 20 and 90 minutes."""
    result = run("sjf+fastest_fit", [training(0, 0.0, 20.0), training(1, 1.0, 90.0)])
    jobs, m = result.jobs.set_index("id"), result.metrics
    assert jobs["ideal_run_min"].tolist() == [20.0, 90.0]
    assert jobs["run_min"].tolist() == pytest.approx([20.0, 450.0])
    assert m["avg_wait_min"] == 0.0
    assert m["avg_jct_min"] == pytest.approx((20 + 450) / 2)
    assert m["avg_slowdown"] == pytest.approx((20 / 20 + 450 / 90) / 2)  # 3.0
    assert m["avg_bsld"] == pytest.approx((1.0 + 450 / 90) / 2)
    assert m["speed_loss_min"] == pytest.approx((0 + 360) / 2)


def test_speed_loss_is_zero_when_every_job_gets_its_fastest_gpu():
    """EFT waits 19 minutes for the A100: JCTs 20 and 109, no speed loss."""
    m = run("sjf+eft", [training(0, 0.0, 20.0), training(1, 1.0, 90.0)]).metrics
    assert m["speed_loss_min"] == 0.0
    assert m["avg_jct_min"] == pytest.approx((20 + 109) / 2)
    assert m["avg_slowdown"] == pytest.approx((20 / 20 + 109 / 90) / 2)
    assert m["avg_bsld"] == pytest.approx((1.0 + 109 / 90) / 2)


def test_bounded_slowdown_floors_the_ideal_run_at_ten_minutes_and_the_ratio_at_one():
    """A 4-minute job on the T4 runs 20 minutes: slowdown 20 / 4 = 5, bounded 20 / 10 = 2."""
    jobs = [training(0, 0.0, 100.0), training(1, 0.0, 4.0)]
    result = run("fcfs+first_fit", jobs)
    short = result.jobs.set_index("id").loc[1]
    assert short["gpu_ids"] == [1] and short["run_min"] == pytest.approx(20.0)
    m = result.metrics
    assert m["avg_slowdown"] == pytest.approx((1.0 + 5.0) / 2)
    assert m["avg_bsld"] == pytest.approx((1.0 + 2.0) / 2)


def test_the_ideal_run_uses_the_best_gpu_that_could_ever_hold_the_job():
    """A 40 GB job cannot fit a 16 GB T4, however fast the table says the T4 is: its ideal run is
    on the A100."""
    cluster = Cluster([NodeGroup("A100-80GB", 80, 1), NodeGroup("T4-16GB", 16, 1)])
    speeds = GpuSpeeds(cluster, {"A100-80GB": {"training": 1.0}, "T4-16GB": {"training": 2.0}})
    sim = Simulator(cluster, [training(0, 0.0, 60.0, vram=40.0), training(1, 0.0, 60.0)],
                    speed_model=TableSpeeds(cluster, speeds))
    jobs = sim.run(get_policy("first_fit")).jobs.set_index("id")
    assert jobs["ideal_run_min"].tolist() == [60.0, 30.0]
    assert (jobs["run_min"] >= jobs["ideal_run_min"] - 1e-9).all()


def test_the_jct_reward_term_integrates_to_the_sum_of_jcts():
    """Little's law: with ``jct`` alone, the run's reward is minus the sum of JCTs in hours."""
    reward = RewardSpec(completion=0, wait=0, util_band=0, imbalance=0, jct=1.0)
    result = run("sjf+fastest_fit", [training(0, 0.0, 20.0), training(1, 1.0, 90.0),
                                     training(2, 5.0, 30.0)], reward)
    jct = result.jobs["end_min"] - result.jobs["arrival_min"]
    assert result.metrics["total_reward"] == pytest.approx(-jct.sum() / 60.0)


def test_the_jct_term_weighs_zero_by_default():
    assert RewardSpec().jct == 0.0


def test_without_speeds_the_ideal_run_is_the_duration_and_nothing_is_lost():
    scenario = load_scenario("phase1-8gpu")
    result = make_simulator(scenario, 0).run(get_policy("least_loaded_fit"))
    jobs = result.jobs
    assert (jobs["ideal_run_min"] == jobs["duration_min"]).all()
    assert result.metrics["speed_loss_min"] == 0.0
    started = jobs["start_min"].notna()
    assert (jobs.loc[started, "run_min"] == jobs.loc[started, "ideal_run_min"]).all()


def test_on_the_fleet_speed_loss_is_never_negative_and_slowdown_is_at_least_one():
    result = make_simulator(load_scenario("fleet-16gpu"), 3).run(get_policy("sjf+best_fit"))
    jobs = result.jobs
    assert (jobs["run_min"] >= jobs["ideal_run_min"] - 1e-9).all()
    assert result.metrics["avg_slowdown"] >= 1.0
    assert result.metrics["speed_loss_min"] > 0  # Best-Fit ignores speed
