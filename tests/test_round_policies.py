"""The round policies (gpusched.policies.rounds) on hand-built problems whose optima are worked out
by hand, the agnostic twins' even split, priority weights, and bad or degenerate input."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gpusched.core.rounds import Allocation, RoundProblem, RoundProblemError
from gpusched.errors import GpuschedError, UnknownPolicyError
from gpusched.policies.rounds import ROUND_POLICIES, get_round_policy, round_policy_names
from gpusched.policies.rounds.lp import job_classes

TOL = 1e-5


def run(name: str, problem: RoundProblem, seed: int = 0) -> Allocation:
    allocation = get_round_policy(name, seed)(problem)
    allocation.check(problem)
    return allocation


def test_registry_has_gavels_names() -> None:
    assert set(round_policy_names()) == {
        "fifo_perf", "max_min_fairness", "max_min_fairness_perf", "max_min_fairness_packed",
        "finish_time_fairness", "finish_time_fairness_perf", "min_total_duration",
        "min_total_duration_perf", "max_sum_throughput_perf",
        "max_sum_throughput_normalized_by_cost_perf", "gandiva", "allox",
        "allox_shockwave", "finish_time_fairness_shockwave", "min_total_duration_shockwave",
        "max_sum_throughput_shockwave"}
    with pytest.raises(UnknownPolicyError, match="unknown round policy 'lottery'"):
        get_round_policy("lottery")


def test_max_min_perf_two_jobs_two_types() -> None:
    # Job A runs 3x faster on type 0 than on type 1; job B runs equally on both; one GPU each.
    # Equal shares (0.5/0.5) give A 0.5*3 + 0.5*1 = 2 and B 1: those are the normalisers.
    # With both rows full, B's value is always (b0 + b1)/1 = 1, and A's is (3 a0 + a1)/2 =
    # (1 + 2 a0)/2 >= 1 once a0 >= 1/2. So t* = 1 and the second stage (largest sum) gives A all of
    # type 0: X = [[1, 0], [0, 1]], A's normalised value 1.5, B's 1.
    problem = RoundProblem(throughput=[[3.0, 1.0], [1.0, 1.0]], scale_factor=[1, 1], capacity=[1, 1])
    share = run("max_min_fairness_perf", problem).share
    np.testing.assert_allclose(share, [[1, 0], [0, 1]], atol=TOL)


def test_max_min_perf_beats_its_agnostic_twin_on_the_least_normalised_share() -> None:
    # A prefers type 0 (4 vs 1), B type 1 (1 vs 2). Agnostic: 0.5/0.5 each, A gets 2.5, B 1.5.
    # Perf: A all of type 0 (4/2.5 = 1.6), B all of type 1 (2/1.5 = 1.33): both better off.
    problem = RoundProblem(throughput=[[4.0, 1.0], [1.0, 2.0]], scale_factor=[1, 1], capacity=[1, 1])
    agnostic = run("max_min_fairness", problem).share
    perf = run("max_min_fairness_perf", problem).share
    np.testing.assert_allclose(agnostic, [[0.5, 0.5], [0.5, 0.5]], atol=TOL)
    np.testing.assert_allclose(perf, [[1, 0], [0, 1]], atol=TOL)


def test_agnostic_twins_split_evenly_in_proportion_to_gpu_counts() -> None:
    # 8 single-GPU jobs on 2 + 1 + 1 GPUs: each gets 4/8 = 0.5 of the time, split 2:1:1 over the
    # types whatever their speeds (Gavel's ECOS returns this centre; jobs rotate over the types).
    rng = np.random.default_rng(3)
    problem = RoundProblem(throughput=rng.uniform(0.2, 1.0, (8, 3)), scale_factor=np.ones(8),
                           capacity=[2, 1, 1], remaining=rng.uniform(10, 100, 8),
                           age_s=rng.uniform(0, 50, 8), reference_type=0)
    for name in ("max_min_fairness", "finish_time_fairness", "min_total_duration"):
        share = run(name, problem).share
        totals = share.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(share, totals * np.array([[0.5, 0.25, 0.25]]), atol=TOL, err_msg=name)
        np.testing.assert_allclose((share * [1, 1, 1]).sum(axis=0), [2, 1, 1], atol=1e-4, err_msg=name)
    np.testing.assert_allclose(run("max_min_fairness", problem).share.sum(axis=1), 0.5, atol=TOL)


def test_agnostic_split_when_a_gang_fits_only_some_types() -> None:
    # Job 0 needs 2 GPUs and only type 0 has 2; jobs 1-2 need 1. The even split is still feasible
    # and job 0 runs on type 0 only.
    problem = RoundProblem(throughput=np.ones((3, 2)), scale_factor=[2, 1, 1], capacity=[2, 1])
    share = run("max_min_fairness", problem).share
    assert share[0, 1] == 0.0
    # Values 2 r0, r1, r2 (s r / w). Jobs 1-2 cannot pass 1, so t <= 1; they need 2 GPU-units, type 1
    # gives 1 and type 0 the 2 - 2 r0 left after job 0: t = 1 exactly when r0 = 1/2, and then every
    # GPU is busy (2 * 0.5 + 1 + 1 = 3).
    np.testing.assert_allclose(share.sum(axis=1), [0.5, 1.0, 1.0], atol=1e-4)


def test_priority_weights_as_gavel_applies_them() -> None:
    # One GPU, two equal jobs, weights 1 and 3. Agnostic max-min equalises s r / w: r = 1/4, 3/4.
    problem = RoundProblem(throughput=[[1.0], [1.0]], scale_factor=[1, 1], capacity=[1], weight=[1, 3])
    np.testing.assert_allclose(run("max_min_fairness", problem).share[:, 0], [0.25, 0.75], atol=TOL)
    # Gavel's _perf divides by the weight and by the equal-share throughput, which already carries
    # the weight (0.25 and 0.75): values x_A / 0.25 and x_B / (3 * 0.75) equal -> x_B = 9 x_A,
    # so the weight counts twice: x = 0.1, 0.9.
    np.testing.assert_allclose(run("max_min_fairness_perf", problem).share[:, 0], [0.1, 0.9], atol=TOL)


def test_finish_time_fairness_perf_known_optimum() -> None:
    # A runs 3x faster on type 0, B 3x faster on type 1; 100 work units each; A has waited 50 s.
    # Equal shares give each 2 units/s: D_A = 50 + 100/2 = 100 s, D_B = 0 + 50 = 50 s.
    # On its fast type alone, A would end at (50 + 100/3)/100 = 0.8333 and B at (100/3)/50 = 0.6667:
    # A cannot do better (3 is its best), so rho* = 5/6, and B keeps all of type 1.
    problem = RoundProblem(throughput=[[3.0, 1.0], [1.0, 3.0]], scale_factor=[1, 1], capacity=[1, 1],
                           remaining=[100, 100], age_s=[50, 0])
    share = run("finish_time_fairness_perf", problem).share
    np.testing.assert_allclose(share, [[1, 0], [0, 1]], atol=1e-4)
    rate = (np.array([[3.0, 1.0], [1.0, 3.0]]) * share).sum(axis=1)
    rho = (np.array([50, 0]) + 100 / rate) / np.array([100, 50])
    assert rho.max() == pytest.approx(5 / 6, rel=1e-3)


def test_finish_time_fairness_weights_are_unused_as_in_gavel() -> None:
    base = dict(throughput=[[3.0, 1.0], [1.0, 3.0]], scale_factor=[1, 1], capacity=[1, 1],
                remaining=[100, 300], age_s=[10, 0])
    plain = run("finish_time_fairness_perf", RoundProblem(**base)).share
    weighted = run("finish_time_fairness_perf", RoundProblem(**base, weight=[1, 5])).share
    np.testing.assert_allclose(plain, weighted, atol=1e-6)


def test_min_total_duration_perf_and_agnostic() -> None:
    # rem 10, 20, 30 units; throughputs (3,1), (1,1), (2,2); one GPU per type.
    # Job 1 makes at most 1 unit/s anywhere: makespan >= 20 s; job 0 then needs 0.5 units/s and
    # job 2 1.5 units/s, which fit (job 1 on type 1, jobs 0 and 2 sharing type 0, a0 >= 1/6,
    # c0 >= 3/4). So the optimal makespan is 20 s.
    problem = RoundProblem(throughput=[[3.0, 1.0], [1.0, 1.0], [2.0, 2.0]], scale_factor=[1, 1, 1],
                           capacity=[1, 1], remaining=[10, 20, 30], reference_type=0)
    share = run("min_total_duration_perf", problem).share
    rate = (problem.throughput * share).sum(axis=1)
    assert (problem.remaining / rate).max() == pytest.approx(20.0, rel=1e-4)
    # The second stage fills the cluster: both GPUs busy all the time.
    np.testing.assert_allclose(share.sum(axis=0), [1, 1], atol=1e-6)
    # Agnostic: every type at the V100 rate (3, 1, 2), pooled 2 GPUs. z = 1/20 again (job 1 at
    # r = 1); r0 >= 1/6, r2 >= 3/4, and the second stage fills the 2 GPUs (r0 + r2 = 1); each job's
    # time is split evenly over the two types.
    agnostic = run("min_total_duration", problem).share
    total = agnostic.sum(axis=1)
    assert total[1] == pytest.approx(1.0, rel=1e-5) and total.sum() == pytest.approx(2.0, rel=1e-5)
    assert total[0] >= 1 / 6 - 1e-6 and total[2] >= 0.75 - 1e-6
    np.testing.assert_allclose(agnostic[:, 0], agnostic[:, 1], atol=1e-9)


def test_max_sum_throughput_and_slos() -> None:
    problem = RoundProblem(throughput=[[3.0, 1.0], [1.0, 1.0], [2.0, 2.0]], scale_factor=[1, 1, 1],
                           capacity=[1, 1], remaining=[10, 20, 30])
    # Type 0 to job 0 (3), type 1 to job 2 (2): total 5; any other pairing gives less.
    np.testing.assert_allclose(run("max_sum_throughput_perf", problem).share,
                               [[1, 0], [0, 0], [0, 1]], atol=TOL)
    # Prices 3 and 1: per price, job 2 on type 1 (2) and job 0 on type 0 (1) still win, but job 1's
    # deadline (20 units in 25 s: 0.8 units/s) forces it onto 0.8 of a GPU.
    cost = dict(cost=[3.0, 1.0], deadline_s=[np.inf, 25.0, np.inf])
    slo = run("max_sum_throughput_normalized_by_cost_perf",
              RoundProblem(**{**problem.__dict__, **cost}))
    assert (problem.throughput[1] * slo.share[1]).sum() >= 0.8 - 1e-6
    assert slo.note == ""
    # An impossible deadline (20 units in 1 s) is dropped, and the note says so.
    dropped = run("max_sum_throughput_normalized_by_cost_perf",
                  RoundProblem(**{**problem.__dict__, "deadline_s": [np.inf, 1.0, np.inf]}))
    assert "SLOs dropped" in dropped.note


def test_fifo_perf_takes_jobs_in_arrival_order_on_their_fastest_free_type() -> None:
    problem = RoundProblem(throughput=[[3.0, 1.0], [1.0, 1.0], [2.0, 2.0]], scale_factor=[1, 1, 1],
                           capacity=[1, 1], job_ids=[7, 8, 9])
    np.testing.assert_allclose(run("fifo_perf", problem).share, [[1, 0], [0, 1], [0, 0]])
    # A 2-GPU job first in line fits nowhere: nobody overtakes it.
    blocked = RoundProblem(throughput=np.ones((2, 2)), scale_factor=[2, 1], capacity=[1, 1])
    assert run("fifo_perf", blocked).share.sum() == 0.0
    assert get_round_policy("fifo_perf").fifo


def test_max_min_fairness_packed_shares_a_gpu() -> None:
    # One GPU, three jobs of speed 1 alone; jobs 0 and 1 run at 0.8 each when sharing it.
    # Values (normalised by the alone speed 1): 0.8 y for jobs 0 and 1, x2 for job 2, y + x2 <= 1.
    # Max-min: 0.8 y = 1 - y -> y = 5/9, t = 4/9.
    problem = RoundProblem(throughput=[[1.0], [1.0], [1.0]], scale_factor=[1, 1, 1], capacity=[1],
                           pair_jobs=[[0, 1]], pair_throughput=[[[0.8, 0.8]]])
    allocation = run("max_min_fairness_packed", problem)
    np.testing.assert_allclose(allocation.pair_share, [[5 / 9]], atol=1e-5)
    np.testing.assert_allclose(allocation.share[:, 0], [0, 0, 4 / 9], atol=1e-5)
    # Without pairs it is max-min over three jobs: 1/3 each.
    alone = RoundProblem(throughput=[[1.0], [1.0], [1.0]], scale_factor=[1, 1, 1], capacity=[1])
    np.testing.assert_allclose(run("max_min_fairness_packed", alone).share[:, 0], 1 / 3, atol=1e-5)


def test_gandiva_equal_slices_and_seeded_pairs() -> None:
    # Jobs fit (2 GPUs of each type, 2 jobs): each gets capacity / n = 1 of each type, scaled to a
    # row of 1: 0.5 and 0.5.
    fits = RoundProblem(throughput=np.ones((2, 2)), scale_factor=[1, 1], capacity=[2, 2])
    np.testing.assert_allclose(run("gandiva", fits).share, 0.5)
    # Overloaded with every pair listed: the pairs drawn depend on the seed only.
    n = 6
    pairs = np.array([(a, b) for a in range(n) for b in range(a + 1, n)])
    crowded = RoundProblem(throughput=np.ones((n, 1)), scale_factor=np.ones(n), capacity=[2],
                           pair_jobs=pairs, pair_throughput=np.full((len(pairs), 1, 2), 0.7))
    first = run("gandiva", crowded, seed=5)
    again = run("gandiva", crowded, seed=5)
    np.testing.assert_array_equal(first.pair_share, again.pair_share)
    assert first.pair_share.sum() > 0


def test_allox_remembers_jobs_and_gives_a_gang_one_over_its_gpus() -> None:
    policy = get_round_policy("allox")
    problem = RoundProblem(throughput=[[2.0, 1.0], [1.0, 1.0], [1.0, 2.0]], scale_factor=[1, 1, 1],
                           capacity=[1, 1], remaining=[10, 10, 10], age_s=[3, 2, 1])
    first = policy(problem)
    first.check(problem)
    assert first.share.sum() == 2.0  # two GPUs, one job each
    # Job 0 (fastest on type 0) takes type 0, job 2 (fastest on type 1) takes type 1.
    np.testing.assert_allclose(first.share, [[1, 0], [0, 0], [0, 1]])
    np.testing.assert_allclose(policy(problem).share, first.share)  # remembered
    # Shockwave's fork: a 2-GPU job gets 1/2 on its type and is matched again at the next call
    # (its allocation does not sum to 1), taking no GPU off the free ones.
    gangs = get_round_policy("allox")
    gang = RoundProblem(throughput=np.ones((2, 1)), scale_factor=[2, 1], capacity=[2],
                        remaining=[10, 10], age_s=[2, 1])
    np.testing.assert_allclose(gangs(gang).share, [[0.5], [1.0]])
    later = RoundProblem(throughput=np.ones((2, 1)), scale_factor=[2, 1], capacity=[2],
                         remaining=[10, 10], age_s=[3, 2])
    # job 1 keeps its GPU (remembered), job 0 is matched again to the one GPU left
    np.testing.assert_allclose(gangs(later).share, [[0.5], [1.0]])


@pytest.mark.parametrize("name", sorted(ROUND_POLICIES))
def test_every_policy_returns_a_feasible_timed_allocation(name: str) -> None:
    rng = np.random.default_rng(11)
    n = 12
    pairs = np.array([(a, a + 1) for a in range(0, n - 1, 2)])
    problem = RoundProblem(throughput=rng.uniform(0.1, 2.0, (n, 3)), scale_factor=np.ones(n),
                           capacity=[2, 3, 1], weight=rng.choice([1.0, 2.0], n),
                           remaining=rng.uniform(10, 1000, n), age_s=rng.uniform(0, 300, n),
                           deadline_s=np.where(rng.random(n) < 0.3, 1e5, np.inf), cost=[2.5, 1.5, 0.5],
                           pair_jobs=pairs, pair_throughput=rng.uniform(0.3, 1.0, (len(pairs), 3, 2)),
                           reference_type=0)
    allocation = run(name, problem)
    assert allocation.solve_s > 0
    assert allocation.share.shape == (n, 3)


DEGENERATE = {
    "no jobs": dict(throughput=np.zeros((0, 2)), scale_factor=[], capacity=[1, 1]),
    "no GPUs": dict(throughput=np.ones((2, 2)), scale_factor=[1, 1], capacity=[0, 0]),
    "no throughput": dict(throughput=np.zeros((2, 2)), scale_factor=[1, 1], capacity=[1, 1]),
    "gang too big": dict(throughput=np.ones((2, 2)), scale_factor=[1, 8], capacity=[2, 2]),
    "no work left": dict(throughput=np.ones((2, 2)), scale_factor=[1, 1], capacity=[1, 1],
                         remaining=[0, 0]),
}


@pytest.mark.parametrize("case", sorted(DEGENERATE))
@pytest.mark.parametrize("name", sorted(ROUND_POLICIES))
def test_degenerate_problems_give_an_allocation_or_a_one_line_error(name: str, case: str) -> None:
    problem = RoundProblem(**DEGENERATE[case])
    try:
        allocation = run(name, problem)
    except GpuschedError as error:  # a refusal is a one-line sentence, never a traceback
        assert "\n" not in str(error) and name in str(error)
        return
    assert np.isfinite(allocation.share).all()


@pytest.mark.parametrize(("fields", "message"), [
    (dict(throughput=[[np.nan, 1.0]]), r"throughput\[0, 0\] must be finite"),
    (dict(throughput=[[-1.0, 1.0]]), r"throughput\[0, 0\] must be >= 0"),
    (dict(capacity=[1, -2]), r"capacity\[1\] must be >= 0"),
    (dict(capacity=[1.5, 1]), r"capacity\[0\] must be a whole number"),
    (dict(capacity=[1]), r"capacity must have shape \(2,\)"),
    (dict(scale_factor=[0]), r"scale_factor\[0\] must be >= 1"),
    (dict(weight=[0.0]), r"weight\[0\] must be > 0"),
    (dict(remaining=[np.inf]), r"remaining\[0\] must be finite"),
    (dict(capacity=[10**9, 1]), "over the limit of 10,000"),
    (dict(capacity=[6000, 6000]), "capacity sums to 12,000 GPUs, over the limit of 10,000"),
    (dict(scale_factor=[1e300]), r"scale_factor\[0\] is over the limit of 10,000"),
    (dict(remaining=[1e300]), r"remaining\[0\] is over the limit of 1e\+15"),
    (dict(job_ids=[1e30]), r"job_ids\[0\] is over the limit"),
    (dict(throughput="fast"), "throughput must be"),
    (dict(reference_type=5), "reference_type must be a GPU type index 0-1"),
    (dict(pair_jobs=[[0, 0]], pair_throughput=np.ones((1, 2, 2))), "pair_jobs must name two different"),
    (dict(throughput=[[-np.inf, 1.0]]), r"throughput\[0, 0\] must be finite"),
    (dict(deadline_s=[np.nan]), r"deadline_s\[0\] must be finite"),
    (dict(deadline_s=[-np.inf]), r"deadline_s\[0\] must be > 0"),
    (dict(throughput=[[1.0, 1.0], [1.0, 1.0]], scale_factor=[1, 1], job_ids=[4, 4]),
     "job_ids must be distinct"),
])
def test_bad_problems_are_refused_in_one_line(fields: dict, message: str) -> None:
    base = dict(throughput=[[1.0, 1.0]], scale_factor=[1], capacity=[1, 1])
    with pytest.raises(RoundProblemError, match=message) as caught:
        RoundProblem(**{**base, **fields})
    assert "\n" not in str(caught.value)


def test_an_allocation_over_capacity_is_refused() -> None:
    problem = RoundProblem(throughput=np.ones((2, 1)), scale_factor=[1, 1], capacity=[1])
    with pytest.raises(RoundProblemError, match="used 2 GPUs on average, over its 1"):
        Allocation(share=np.ones((2, 1))).check(problem)
    with pytest.raises(RoundProblemError, match="sum to 2, over 1"):
        Allocation(share=np.array([[1.0, 1.0], [0, 0]])).check(
            RoundProblem(throughput=np.ones((2, 2)), scale_factor=[1, 1], capacity=[2, 2]))


def test_each_round_policy_is_registered_with_its_own_label_and_run_time_trait():
    from gpusched.policies import policy_label, reads_run_times
    from gpusched.policies.rounds.registry import ROUND_POLICIES

    labels = [policy_label(name) for name in ROUND_POLICIES]
    assert len(set(labels)) == len(labels)  # no two share a label
    for name, cls in ROUND_POLICIES.items():
        assert policy_label(name) == cls.label and cls.label and cls.label != name
        assert reads_run_times(name) == cls.run_times
    # the programs that read the work a job has left, and those that do not
    assert reads_run_times("finish_time_fairness_perf") and reads_run_times("allox")
    assert not reads_run_times("max_min_fairness_perf") and not reads_run_times("gandiva")


def test_a_problem_with_no_deadline_keeps_its_infinite_deadlines() -> None:
    problem = RoundProblem(throughput=[[1.0, 1.0]], scale_factor=[1], capacity=[1, 1],
                           deadline_s=[np.inf])
    assert np.isinf(problem.deadline_s).all()


def test_a_subset_is_the_checked_problem_of_its_rows() -> None:
    rng = np.random.default_rng(3)
    n, k = 9, 3
    problem = RoundProblem(
        throughput=rng.random((n, k)), scale_factor=rng.integers(1, 3, n), capacity=[4, 2, 3],
        weight=rng.random(n) + 0.5, remaining=rng.random(n) * 100, age_s=rng.random(n),
        service_s=rng.random((n, k)), deadline_s=np.where(rng.random(n) > 0.5, np.inf, 50.0),
        cost=[3.0, 2.0, 1.0], type_names=("a", "b", "c"), job_ids=rng.permutation(40)[:n],
        reference_type=1, reported_remaining=rng.random(n), steps_per_unit=rng.random(n) + 1)
    rows = np.array([7, 2, 5])
    part = problem.subset(rows)
    checked = RoundProblem(
        throughput=problem.throughput[rows], scale_factor=problem.scale_factor[rows],
        capacity=problem.capacity, weight=problem.weight[rows], remaining=problem.remaining[rows],
        age_s=problem.age_s[rows], service_s=problem.service_s[rows],
        deadline_s=problem.deadline_s[rows], cost=problem.cost, type_names=problem.type_names,
        job_ids=problem.job_ids[rows], reference_type=problem.reference_type)
    for field in dataclasses.fields(RoundProblem):
        got, want = getattr(part, field.name), getattr(checked, field.name)
        if isinstance(want, np.ndarray):
            assert got.dtype == want.dtype and np.array_equal(got, want), field.name
        else:
            assert got == want, field.name


def test_job_classes_are_numpys_unique_rows() -> None:
    rng = np.random.default_rng(5)
    for _ in range(300):
        n, k = int(rng.integers(1, 30)), int(rng.integers(1, 4))
        value = rng.choice([0.0, -0.0, 1.0, 2.5], size=(n, k))
        size, mask, counted = rng.integers(1, 3, n), rng.random((n, k)) > 0.5, rng.random(n) > 0.3
        table = np.column_stack([np.asarray(c, dtype=float).reshape(n, -1)
                                 for c in (value, size, mask, counted)])
        _, first, inverse, counts = np.unique(table, axis=0, return_index=True, return_inverse=True,
                                              return_counts=True)
        got = job_classes(value, size, mask, counted)
        for mine, numpys in zip(got, (first, inverse.reshape(-1), counts), strict=True):
            assert np.array_equal(mine, numpys)
