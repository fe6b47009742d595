"""What the scheduler is told (``declared_run_time``), the history estimator, the orders of urgency,
deadlines, weights, prices and ``cheapest_fit``: small cases worked by hand, and the property that
no estimate reads the future."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.estimator import DeclaredRuntime
from gpusched.core.history_estimator import HistoryEstimator
from gpusched.core.jobs import Job
from gpusched.core.prices import (
    PRICE_TABLE_USD_PER_GPU_HOUR,
    gang_prices_usd_per_hour,
    gpu_prices,
    price_of,
    run_costs_usd,
)
from gpusched.core.simulator import HOLD, Simulator
from gpusched.core.speed_model import TableSpeeds
from gpusched.errors import ScenarioError
from gpusched.experiment.runner import run_policy
from gpusched.policies import get_policy
from gpusched.policies.cheapest import CheapestFit
from gpusched.policies.orders import ORDERS
from gpusched.policies.registry import reads_run_times
from gpusched.workload.presets import load_scenario


def _job(i: int, arrival: float, duration: float, *, model: str | None = None, gpus: int = 1,
         type: str = "training", deadline: float | None = None, weight: float = 1.0) -> Job:
    return Job(i, type, arrival, duration, gpus, 4.0, 1.0, model=model, deadline_min=deadline,
               weight=weight)


def _one_gpu(model: str = "T4-16GB", count: int = 1) -> Cluster:
    return Cluster([NodeGroup(model, 16.0, 1, count)])


# ---------------------------------------------------------------------------- the history estimator
def test_history_falls_back_from_model_and_gpus_to_model_to_type_to_all_to_the_prior():
    jobs = [_job(0, 0.0, 10.0, model="a"), _job(1, 0.0, 40.0, model="a", gpus=2),
            _job(2, 0.0, 90.0, model="b", type="batch"),
            # arrive once the three above have completed
            _job(3, 500.0, 1.0, model="a"), _job(4, 500.0, 1.0, model="a", gpus=4),
            _job(5, 500.0, 1.0, model="c", type="batch", gpus=2),
            _job(6, 500.0, 1.0, model="d", type="inference")]
    est = HistoryEstimator(jobs, prior_min=33.0)
    for i in range(3):
        est.fix_at_arrival(i, jobs[i])
    assert est.declared_min[:3].tolist() == [33.0, 33.0, 33.0] and est.basis[:3].tolist() == [0, 0, 0]
    for i in range(3):
        est.observe_completion(i, jobs[i], jobs[i].duration_min)
    for i in range(3, 7):
        est.fix_at_arrival(i, jobs[i])
    got = est.declared_min[3:].tolist()
    assert got[0] == pytest.approx(10.0)                       # (model a, 1 GPU)
    assert got[1] == pytest.approx(math.sqrt(10.0 * 40.0))     # model a: geometric mean of 10, 40
    assert got[2] == pytest.approx(90.0)                       # type batch
    assert got[3] == pytest.approx((10.0 * 40.0 * 90.0) ** (1 / 3))  # every completed job
    assert est.level[3:].tolist() == [0, 1, 3, 4] and est.basis[3:].tolist() == [1, 2, 1, 3]


def test_history_uses_the_prior_when_no_group_has_enough_jobs_and_refuses_bad_keys():
    jobs = [_job(0, 0.0, 10.0, model="a"), _job(1, 100.0, 1.0, model="a")]
    est = HistoryEstimator(jobs, keys=[("model",)], prior_min=7.0, min_samples=2)
    est.fix_at_arrival(0, jobs[0])
    est.observe_completion(0, jobs[0], 10.0)
    est.fix_at_arrival(1, jobs[1])
    assert est.declared_min.tolist() == [7.0, 7.0] and est.level.tolist() == [1, 1]
    with pytest.raises(ValueError, match="'user'"):
        HistoryEstimator(jobs, keys=[("user",)])


def test_history_with_recent_keeps_each_groups_latest_completions_only():
    # model a completes 10, 40 then 90 minutes of work; with recent: 2 the next job of model a is
    # told the geometric mean of the latest two (40, 90), where every completion gives (10, 40, 90);
    # model b's one completion is its window, and recent below min_samples is refused
    works = [10.0, 40.0, 90.0]
    jobs = [_job(i, 0.0, w, model="a") for i, w in enumerate(works)] + [_job(3, 0.0, 5.0, model="b"),
                                                                        _job(4, 500.0, 1.0, model="a"),
                                                                        _job(5, 500.0, 1.0, model="b")]
    told = {}
    for recent in (None, 2):
        est = HistoryEstimator(jobs, keys=[("model",)], recent=recent)
        for i in range(4):
            est.fix_at_arrival(i, jobs[i])
            est.observe_completion(i, jobs[i], jobs[i].duration_min)
        twin = est.copy(6)  # a fork keeps the windows and learns on its own
        twin.observe_completion(4, jobs[4], 1000.0)
        for i in (4, 5):
            est.fix_at_arrival(i, jobs[i])
        told[recent] = est.declared_min[4:].tolist(), est.basis[4:].tolist()
    assert told[None][0] == pytest.approx([(10.0 * 40.0 * 90.0) ** (1 / 3), 5.0])
    assert told[2][0] == pytest.approx([math.sqrt(40.0 * 90.0), 5.0])
    assert told[None][1] == [3, 1] and told[2][1] == [2, 1]
    with pytest.raises(ValueError, match="recent must be at least min_samples"):
        HistoryEstimator(jobs, min_samples=3, recent=2)


def test_in_a_run_an_estimate_comes_from_the_jobs_completed_before_the_arrival():
    jobs = [_job(0, 0.0, 10.0, model="a"), _job(1, 5.0, 1.0, model="a"), _job(2, 10.0, 1.0, model="a"),
            _job(3, 11.0, 1.0, model="a")]
    sim = Simulator(_one_gpu(count=4), jobs, estimator=lambda js: HistoryEstimator(js, prior_min=50.0))
    result = sim.run(get_policy("first_fit"))
    # job 1 arrives at 5, before any completion: the prior. Job 2 arrives at 10, with job 0's
    # completion at 10 handled first (job 1 ran 5..6); job 3 at 11, once job 2 (10..11) is done.
    expected = [50.0, 50.0, math.sqrt(10.0 * 1.0), 10 ** (1 / 3)]
    assert result.jobs["predicted_min"].tolist() == pytest.approx(expected)
    assert result.jobs["declared_min"].isna().all()  # the scheduler was told nothing
    assert result.jobs["prediction_basis"].tolist() == [0, 0, 2, 3]
    assert result.jobs["true_duration_min"].tolist() == [10.0, 1.0, 1.0, 1.0]


def test_a_bound_placement_sees_each_estimate_from_its_arrival_on():
    jobs = [_job(0, 0.0, 10.0, model="a"), _job(1, 20.0, 3.0, model="a")]
    sim = Simulator(_one_gpu(), jobs, estimator=HistoryEstimator)
    seen: list[float] = []

    class Spy:
        name = "spy"

        def select(self, state, job):
            seen.append(job.declared_min)
            return 0

    sim.run(Spy())
    assert seen == pytest.approx([60.0, 10.0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(1.0, 200.0), st.sampled_from(["a", "b", None]), st.sampled_from([1, 2])),
                min_size=4, max_size=14),
       st.integers(1, 12), st.randoms(use_true_random=False), st.floats(0.01, 100.0))
def test_permuting_the_jobs_that_arrive_later_never_changes_an_estimate(rows, cut, rnd, stretch):
    """The jobs arriving after a time keep their arrival times but trade their durations, models and
    GPUs: no estimate of a job that arrived by then changes. Nor does it when their durations are
    then stretched (a permutation keeps every statistic of the whole list; a stretch does not)."""
    cut = min(cut, len(rows) - 1)
    arrivals = [10.0 * i for i in range(len(rows))]

    def estimates(order):
        jobs = [_job(i, arrivals[i], d, model=m, gpus=g) for i, (d, m, g) in enumerate(order)]
        sim = Simulator(Cluster([NodeGroup("T4-16GB", 16.0, 2, 2)]), jobs, estimator=HistoryEstimator)
        return sim.run(get_policy("first_fit")).jobs["predicted_min"].to_numpy()

    later = list(rows[cut:])
    rnd.shuffle(later)
    before, after = estimates(rows), estimates(rows[:cut] + later)
    assert np.array_equal(before[:cut], after[:cut])
    stretched = estimates(rows[:cut] + [(d * stretch, m, g) for d, m, g in later])
    assert np.array_equal(before[:cut], stretched[:cut])


# ---------------------------------------------------------------------------- the orders
def _queued(jobs: list[Job], window: int = 8) -> Simulator:
    """A simulator whose one GPU runs job 0 while the others wait (a decision at their arrival)."""
    sim = Simulator(_one_gpu(), jobs, window=window)
    sim.step(0)  # job 0 starts; the clock moves to the next arrival
    return sim


def test_qssf_ranks_by_gpus_times_declared_run_time():
    cluster = Cluster([NodeGroup("T4-16GB", 16.0, 4, 1)])
    jobs = [_job(0, 0.0, 100.0, gpus=4), _job(1, 1.0, 10.0, gpus=4), _job(2, 1.0, 30.0, gpus=1),
            _job(3, 1.0, 12.0, gpus=2)]
    sim = Simulator(cluster, jobs, window=8, estimator=partial(DeclaredRuntime, estimates={3: 5.0}))
    sim.step((0, 1, 2, 3))
    view = sim.view
    # service: 40 GPU-min, 30, 2 x 5 (declared) = 10
    assert ORDERS["qssf"].ranked(view, view.window_indices()) == [2, 1, 0]
    assert ORDERS["sjf"].ranked(view, view.window_indices()) == [2, 0, 1]


def test_edf_and_least_slack_on_a_small_queue():
    jobs = [_job(0, 0.0, 100.0), _job(1, 10.0, 50.0, deadline=200.0),  # due 210, slack 210-10-50=150
            _job(2, 10.0, 5.0, deadline=180.0),                          # due 190, slack 175
            _job(3, 10.0, 1.0)]                                          # no deadline: last
    sim = _queued(jobs)
    view = sim.view
    assert view.time_min == 10.0
    assert ORDERS["edf"].ranked(view, view.window_indices()) == [1, 0, 2]
    assert ORDERS["least_slack"].ranked(view, view.window_indices()) == [0, 1, 2]


def test_which_policies_read_run_times():
    told = ("las+first_fit", "edf+first_fit", "fcfs", "first_fit")
    assert [reads_run_times(n) for n in told] == [False] * 4
    assert all(reads_run_times(n) for n in ("sjf+first_fit", "qssf", "least_slack+best_fit", "las+eft",
                                            "fcfs+cheapest_fit", "easy+first_fit"))


# ---------------------------------------------------------------------------- cheapest_fit
def _two_models() -> Cluster:
    return Cluster([NodeGroup("V100-16GB", 16.0, 1, 1), NodeGroup("T4-16GB", 16.0, 1, 1)])


SPEEDS = {"V100-16GB": {"training": 4.0}, "T4-16GB": {"training": 1.0}}


def _cheapest(job: Job) -> tuple[int, ...]:
    from gpusched.core.speed import GpuSpeeds

    cluster = _two_models()
    sim = Simulator(cluster, [job], speed_model=TableSpeeds(cluster, GpuSpeeds(cluster, SPEEDS)))
    policy = CheapestFit()
    policy.bind(sim.view)
    return policy.select(sim.run_state.state, sim.view.jobs[0])


def test_cheapest_fit_takes_the_cheap_gpu_when_it_meets_the_deadline():
    # 100 min on the T4 (0.35 USD/h: 0.58 USD) or 25 min on the V100 (2.48 USD/h: 1.03 USD)
    assert _cheapest(_job(0, 0.0, 100.0, deadline=120.0)) == (1,)
    assert _cheapest(_job(0, 0.0, 100.0)) == (1,)  # no deadline: the cheapest


def test_cheapest_fit_pays_for_the_fast_gpu_when_only_it_meets_the_deadline_else_takes_the_fastest():
    assert _cheapest(_job(0, 0.0, 100.0, deadline=50.0)) == (0,)   # only the V100 ends by 50
    assert _cheapest(_job(0, 0.0, 100.0, deadline=10.0)) == (0,)   # none does: the fastest
    cluster = _two_models()
    full = Simulator(cluster, [_job(0, 0.0, 10.0), _job(1, 0.0, 10.0), _job(2, 0.0, 10.0)])
    full.step(0)
    full.step(1)
    policy = CheapestFit()
    policy.bind(full.view)
    assert policy.select(full.run_state.state, full.view.jobs[2]) == HOLD


# ---------------------------------------------------------------------------- the metrics
def test_deadline_weight_and_cost_metrics_by_hand():
    cluster = Cluster([NodeGroup("T4-16GB", 16.0, 1, 1)])
    jobs = [_job(0, 0.0, 60.0, deadline=100.0, weight=1.0),   # ends 60: met
            _job(1, 0.0, 60.0, deadline=90.0, weight=5.0),    # waits 60, ends 120: 30 late
            _job(2, 0.0, 30.0, weight=2.0),                    # no deadline, ends 150
            _job(3, 0.0, 10.0, deadline=100.0)]                # ends 160: 60 late
    result = Simulator(cluster, jobs).run(get_policy("first_fit"))
    m = result.metrics
    assert m["slo_attainment"] == pytest.approx(1 / 3)
    assert m["deadline_miss_min"] == pytest.approx((30.0 + 60.0) / 2)
    assert m["weighted_jct_min"] == pytest.approx((1 * 60 + 5 * 120 + 2 * 150 + 1 * 160) / 9)
    assert m["cost_usd"] == pytest.approx(160.0 / 60.0 * 0.35)
    assert result.jobs["cost_usd"].tolist() == pytest.approx([0.35, 0.35, 0.175, 0.35 / 6])
    assert result.jobs["deadline_met"].tolist() == [True, False, True, False]
    assert m["cost_per_met_job_usd"] == pytest.approx(m["cost_usd"] / 2)
    assert m["prediction_error_log"] == 0.0


def test_without_deadlines_every_finished_job_is_on_time():
    result = Simulator(_one_gpu(), [_job(0, 0.0, 5.0)]).run(get_policy("first_fit"))
    assert result.metrics["slo_attainment"] == 1.0 and result.metrics["deadline_miss_min"] == 0.0


def test_the_shipped_prices_match_models_by_family_and_memory():
    assert price_of("V100-32GB") == PRICE_TABLE_USD_PER_GPU_HOUR["V100"] == 2.48
    assert price_of("t4") == 0.35
    assert math.isnan(price_of("A100-80GB"))
    assert price_of("A100-40GB") == 2.939
    assert gpu_prices(["K80", "L4-24GB"]).tolist()[0] == 0.45


def test_a_scenario_table_prices_each_model_exactly():
    """``{V100: 1.0, V100-32GB: 5.0}`` once charged a V100-32GB the V100's price (the first row
    that fitted); each model now takes its own row, and a model no row names has no price."""
    table = {"V100": 1.0, "V100-32GB": 5.0}
    assert gpu_prices(["V100", "V100-32GB", "V100-16GB"], table).tolist()[:2] == [1.0, 5.0]
    assert math.isnan(gpu_prices(["V100-16GB"], table)[0])
    assert math.isnan(price_of("V100-32GB", {"V100": 1.0}))


# ---------------------------------------------------------------------------- the scenario key
def test_exact_is_the_default_and_lognormal_is_the_older_key():
    base = load_scenario("fleet-16gpu")
    same = base.with_overrides(**{"workload.declared_run_time": "exact"})
    assert run_policy(base, "sjf+eft", seed=3000).metrics == run_policy(same, "sjf+eft", seed=3000).metrics
    old = base.with_overrides(**{"workload.runtime_estimate_error": 1.0})
    new = base.with_overrides(**{"workload.declared_run_time": {"lognormal": 1.0}})
    assert old.declared_note() and "lognormal: 1" in old.declared_note()
    a, b = run_policy(old, "sjf+eft", seed=3000), run_policy(new, "sjf+eft", seed=3000)
    assert a.metrics == b.metrics and a.metrics["prediction_error_log"] > 0.5


def test_none_refuses_the_orders_that_read_run_times_in_one_line():
    scenario = load_scenario("fleet-16gpu").with_overrides(**{"workload.declared_run_time": "none"})
    with pytest.raises(ScenarioError) as err:
        run_policy(scenario, "qssf+first_fit", seed=3000, n_jobs=20)
    assert "\n" not in str(err.value) and "declared_run_time: none" in str(err.value)
    result = run_policy(scenario, "las+first_fit", seed=3000, n_jobs=20)
    assert result.jobs[["declared_min", "predicted_min"]].isna().all().all()
    assert result.metrics["jobs_completed"] == 20


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 15), max_size=12), max_size=30), st.integers(0, 2**32 - 1))
def test_gang_prices_are_each_gangs_own_sum_bit_for_bit(gangs, seed):
    """The one-array-per-size sum of the gangs' prices equals each gang's own numpy sum, bit for
    bit (gangs of 8 GPUs and more are summed pairwise by numpy), and 0 for a job without GPUs."""
    paid = np.random.default_rng(seed).random(16) * 4.0
    job_gpus = [tuple(g) for g in gangs]
    got = gang_prices_usd_per_hour(job_gpus, paid)
    want = np.array([paid[list(g)].sum() if g else 0.0 for g in job_gpus], dtype=float)
    assert got.shape == (len(job_gpus),)
    assert got.tobytes() == want.tobytes()


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.lists(st.integers(0, 15), min_size=1, max_size=9)),
                max_size=60), st.integers(0, 2**32 - 1))
def test_run_costs_add_each_jobs_stopped_runs_in_order_bit_for_bit(stopped, seed):
    """Each job's cost is its current run's plus every stopped run's, added in the order the runs
    ended, as a loop over the stop records adds them (one job's runs repeat its index)."""
    rng = np.random.default_rng(seed)
    paid = rng.random(16) * 4.0
    job_gpus = [tuple(rng.integers(0, 16, int(rng.integers(0, 4))).tolist()) for _ in range(6)]
    held = rng.random(6) * 100.0
    stops = []
    for idx, gpus in stopped:
        start = float(rng.random() * 1e4)
        stops.append((start + float(rng.random() * 500), idx, "migration", start, tuple(gpus), 0.0, 0.0))
    want = held * gang_prices_usd_per_hour(job_gpus, paid) / 60.0
    for time_min, idx, _, start_min, gpus, *_ in stops:
        want[idx] += (time_min - start_min) * float(paid[list(gpus)].sum()) / 60.0
    assert run_costs_usd(job_gpus, held, stops, paid).tobytes() == want.tobytes()
