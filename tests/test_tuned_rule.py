"""The tuned rule: its features read the view, and weights that reproduce a known order give that
order's run."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.agent.tune import TuneConfig, start_weights, tune
from gpusched.policies import get_policy
from gpusched.policies.tuned import TUNED_FEATURES, job_features, tuned_rule
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario


@pytest.mark.parametrize("placement", ["first_fit", "fastest_fit", "best_fit", "eft", "fastest_move"])
def test_all_weight_on_remaining_work_is_sjf(placement):
    scenario = load_scenario("fleet-16gpu")
    for seed in (1000, 1003):
        base = make_simulator(scenario, seed, 150).run(get_policy(f"sjf+{placement}", seed))
        rule = tuned_rule(start_weights(), placement, "t", seed)
        ours = make_simulator(scenario, seed, 150).run(rule)
        assert ours.metrics == base.metrics
        assert ours.jobs.equals(base.jobs)


def test_all_weight_on_gpus_ranks_by_gpus_and_differs_from_sjf():
    scenario = load_scenario("fleet-16gpu")
    w = np.zeros(len(TUNED_FEATURES))
    w[TUNED_FEATURES.index("gpus")] = -1.0  # the widest job first
    wide = make_simulator(scenario, 1000, 150).run(tuned_rule(w, "first_fit", "t"))
    sjf = make_simulator(scenario, 1000, 150).run(get_policy("sjf+first_fit"))
    assert wide.metrics["avg_jct_min"] != sjf.metrics["avg_jct_min"]


def test_features_read_the_view():
    sim = make_simulator(load_scenario("fleet-16gpu"), 1000, 60)
    view = sim.view
    while not sim.run_state.done and len(view.queue) < 3:
        sim.step(-1)  # hold until a queue builds up
    window = view.window_indices()
    f = job_features(view, window)
    assert f.shape == (len(window), len(TUNED_FEATURES))
    for r, i in enumerate(window):
        job = view.jobs[i]
        assert f[r, TUNED_FEATURES.index("wait")] == pytest.approx((view.time_min - job.arrival_min) / 60)
        assert f[r, TUNED_FEATURES.index("left_best")] == pytest.approx(view.left_best_min(i) / 60)
        assert f[r, TUNED_FEATURES.index("gpus")] == job.gpus
        assert 0.0 <= f[r, TUNED_FEATURES.index("speed_ratio")] <= 1.0


def test_a_weight_vector_of_the_wrong_size_or_not_finite_is_refused():
    with pytest.raises(ValueError):
        tuned_rule(np.zeros(3), "first_fit", "t")
    with pytest.raises(ValueError):
        tuned_rule(np.full(len(TUNED_FEATURES), np.nan), "first_fit", "t")


def test_the_search_never_returns_worse_than_its_start_and_is_seeded():
    config = TuneConfig(training_seeds=[20_000], n_jobs=60, iterations=1, population=3, elite=1, seed=4)
    w1, record = tune(config, log=lambda _: None)
    w2, _ = tune(config, log=lambda _: None)
    assert np.array_equal(w1, w2)
    assert record["best_score_min"] <= record["start_score_min"]
