"""Shockwave's readings of Gavel's round policies, each against Gavel's on a hand-built case where
the two must differ (``uw-mad-dash/shockwave``, ``scheduler/policies/allox.py`` and
``scheduler/policies/finish_time_fairness.py``, ``scheduler/policies/isolated.py``, built as its
``scheduler/utils.py`` builds them).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.core.rounds import Allocation, RoundProblem, RoundProblemError
from gpusched.policies.rounds import get_round_policy


def one_gpu(remaining, age_s, job_ids, scale_factor=None, capacity=1) -> RoundProblem:
    n = len(remaining)
    return RoundProblem(throughput=np.ones((n, 1)),
                        scale_factor=np.ones(n) if scale_factor is None else scale_factor,
                        capacity=[capacity], remaining=remaining, age_s=age_s, job_ids=job_ids)


def test_shockwave_allox_matches_again_a_job_it_gave_nothing() -> None:
    """Two single-GPU jobs on one GPU: the shorter, older one (job 7) is matched and job 8 gets nothing.
    Once job 7 has left, Gavel's AlloX keeps job 8 at nothing (a job seen before keeps what it
    got); Shockwave's keeps only an allocation that sums to 1, so job 8 is matched again."""
    first = one_gpu([5.0, 10.0], [5.0, 1.0], [7, 8])  # job 7 first: 2 * 5 + 5 + 10 + 1 < 5 + 5 + 2 * 10 + 1
    later = one_gpu([10.0], [6.0], [8])
    for name, expected in (("allox", 0.0), ("allox_shockwave", 1.0)):
        policy = get_round_policy(name)
        np.testing.assert_allclose(policy(first).share, [[1.0], [0.0]])
        assert policy(later).share[0, 0] == expected, name


def test_shockwave_allox_keeps_a_gangs_earlier_share_and_may_oversubscribe() -> None:
    """A 2-GPU gang (job 1) matched at the first call keeps its 1/2 at the next call even when the
    matching gives the one free GPU to an older single-GPU job: Shockwave's file copies the earlier
    allocation before it writes the new matches. The sum then asks for more GPUs than there are,
    which only a policy that says it oversubscribes may return."""
    policy = get_round_policy("allox_shockwave")
    assert policy.oversubscribes and not get_round_policy("allox").oversubscribes
    first = one_gpu([10.0, 10.0], [5.0, 1.0], [1, 2], scale_factor=[2, 1], capacity=2)
    np.testing.assert_allclose(policy(first).share, [[0.5], [1.0]])
    # job 3 is older than job 1 (by age): with one GPU free, Shockwave's alpha of 0.2 matches only
    # the oldest job, job 3; job 1 is not matched and keeps its earlier 1/2
    later = one_gpu([10.0, 10.0, 1.0], [6.0, 2.0, 9.0], [1, 2, 3], scale_factor=[2, 1, 1], capacity=2)
    share = policy(later).share
    np.testing.assert_allclose(share, [[0.5], [1.0], [1.0]])
    with pytest.raises(RoundProblemError, match="over its 2"):
        Allocation(share=share).check(later)
    Allocation(share=share).check(later, capacity=False)  # the row sums still hold


def test_shockwave_allox_matches_only_the_oldest_fifth_or_as_many_as_free_gpus() -> None:
    """Five new single-GPU jobs on one GPU, the oldest the longest. Gavel's ``allox`` (alpha 1)
    matches all five and gives the GPU to the shortest (AlloX's least total completion time);
    Shockwave's (alpha 0.2) matches only ``max(int(0.2 * 5), 1) = 1`` job, the oldest."""
    problem = one_gpu([50.0, 40.0, 30.0, 20.0, 10.0], [5.0, 4.0, 3.0, 2.0, 1.0], [0, 1, 2, 3, 4])
    np.testing.assert_allclose(get_round_policy("allox")(problem).share[:, 0], [0, 0, 0, 0, 1])
    np.testing.assert_allclose(get_round_policy("allox_shockwave")(problem).share[:, 0], [1, 0, 0, 0, 0])


def test_shockwave_finish_time_fairness_counts_isolated_time_not_age() -> None:
    """Two jobs of 1,000 s of work on one GPU, each at 0.5 on its equal share. Between two
    computations job 11 did 200 s of work and job 10 none; both are 500 s old. Gavel's ``D_i``
    counts the age (500 + 2,000 and 500 + 1,600): equal ratios at a half each. Shockwave's counts
    the isolated time so far (0 and 200 / 0.5 = 400 s, so D = 2,000 for both), and the ratios
    ``(500 + 1,000 / T_10) / 2,000`` and ``(500 + 800 / T_11) / 2,000`` are equal at
    ``T_10 = 1,000 / 1,800 = 5/9``: the job that waited gets more."""
    start = one_gpu([1000.0, 1000.0], [0.0, 0.0], [10, 11])
    later = one_gpu([1000.0, 800.0], [500.0, 500.0], [10, 11])
    gavel = get_round_policy("finish_time_fairness_perf")
    shockwave = get_round_policy("finish_time_fairness_shockwave")
    np.testing.assert_allclose(gavel(start).share, [[0.5], [0.5]], atol=1e-6)
    np.testing.assert_allclose(shockwave(start).share, [[0.5], [0.5]], atol=1e-6)
    np.testing.assert_allclose(gavel(later).share, [[0.5], [0.5]], atol=1e-4)
    np.testing.assert_allclose(shockwave(later).share, [[5 / 9], [4 / 9]], atol=1e-4)


def test_shockwaves_isolated_share_splits_the_gpus_evenly_over_the_jobs() -> None:
    """A single-GPU job and a 4-GPU gang on four GPUs of one type. Shockwave's isolated share gives
    each job ``4 / (2 * its GPUs)`` of the time, at most 1: 1 and 1/2, and leaves the fourth GPU
    to no one; Gavel's max-min share gives the gang the three GPUs the single job does not use, 3/4."""
    from gpusched.policies.rounds.finish_time_fairness import split_throughput
    from gpusched.policies.rounds.max_min_fairness import isolated_throughput

    problem = RoundProblem(throughput=np.ones((2, 1)), scale_factor=[1, 4], capacity=[4])
    np.testing.assert_allclose(split_throughput(problem), [1.0, 0.5])
    np.testing.assert_allclose(isolated_throughput(problem, "test")[0], [1.0, 0.75], atol=1e-6)


def test_shockwave_finish_time_fairness_spreads_what_is_left_evenly() -> None:
    """Three single-GPU jobs of 1,000 s of work on two GPUs, at their first computation (isolated
    time so far 0, so ``D = 1,000 / (2/3) = 1,500`` s each); job 3 is 2,000 s old. At its full
    share it reaches ``rho = (2,000 + 1,000) / 1,500 = 2``, which jobs 1 and 2 keep with a third of
    a GPU each. The GPU they share has a third left: Shockwave's min-max program, solved by an
    interior-point solver, leaves slack to both; here it is spread evenly (a half each), where a
    second program that maximises a sum would hand it to one of them."""
    share = get_round_policy("finish_time_fairness_shockwave")(
        one_gpu([1000.0, 1000.0, 1000.0], [0.0, 0.0, 2000.0], [1, 2, 3], capacity=2)).share
    np.testing.assert_allclose(share, [[0.5], [0.5], [1.0]], atol=1e-6)


def test_shockwave_finish_time_fairness_holds_a_full_job_while_the_others_rise() -> None:
    """Four single-GPU jobs on three GPUs (isolated share 3/4, ``D = 1,333`` s each). Job 3, 2,000 s
    old, sets ``rho = 3,000 / 1,333 = 2.25`` at its full share; jobs 1 and 4 need a third of a GPU,
    job 2 (1,900 s old) ``1,000 / (3,000 - 1,900) = 0.91``. Raising the three alike would take job
    2 past its full share, so it is held at 1 and the last GPU goes to jobs 1 and 4, a half each."""


    share = get_round_policy("finish_time_fairness_shockwave")(
        one_gpu([1000.0] * 4, [0.0, 1900.0, 2000.0, 0.0], [1, 2, 3, 4], capacity=3)).share
    np.testing.assert_allclose(share, [[0.5], [1.0], [1.0], [0.5]], atol=1e-6)


def test_shockwave_allox_reads_the_steps_left_a_job_reports() -> None:
    """Ten new single-GPU jobs on one GPU: Shockwave's alpha of 0.2 matches the two oldest (jobs 0
    and 1), and the shorter runs first. By their work left job 0 is shorter (100 s against 200 s);
    by what they report at their current batch sizes (``reported_remaining``: job 0 is in a phase
    that makes its epochs left look like 400 s) job 1 is, and Shockwave's file reads the report."""
    remaining = [100.0, 200.0] + [1000.0] * 8
    ages = [1000.0, 900.0] + [float(i) for i in range(8)]
    plain = one_gpu(remaining, ages, list(range(10)))
    reported = RoundProblem(throughput=np.ones((10, 1)), scale_factor=np.ones(10), capacity=[1],
                            remaining=remaining, age_s=ages, job_ids=list(range(10)),
                            reported_remaining=[400.0, 200.0] + [1000.0] * 8)
    assert get_round_policy("allox_shockwave")(plain).share[:2, 0].tolist() == [1.0, 0.0]
    assert get_round_policy("allox_shockwave")(reported).share[:2, 0].tolist() == [0.0, 1.0]
    assert get_round_policy("allox")(reported).share[:2, 0].tolist() == [1.0, 0.0]  # Gavel's: work left


@pytest.mark.parametrize(("steps_per_unit", "expected"), [
    (1.0, 2 / 3),                        # no change of batch size: 500 steps fell, 1,000 s isolated
    (0.5, (np.sqrt(209.0) - 13.0) / 2),  # batch size doubled: 750 steps fell, 1,500 s isolated
])
def test_shockwave_finish_time_fairness_sums_the_fall_of_the_steps_left(steps_per_unit, expected) -> None:
    """Two jobs of 1,000 work units (1 step each) on one GPU, at 0.5 each on their equal share (0.5
    steps/s). Then both are 500 s old; job 10 has done nothing, job 11 reports 500 units left. At
    1 step per unit its steps left fell by 500 (1,000 s of isolated time, D = 1,000 + 500 / 0.5 =
    2,000): the ratios ``0.25 + 0.5 / T_10`` and ``0.25 + 0.25 / T_11`` meet at ``T_10 = 2/3``. Had its
    batch size doubled (0.5 steps per unit), its 250 steps left are a fall of 750 steps, 1,500 s of
    isolated time (D = 2,500), as Shockwave's file sums it: ``0.2 + 0.2 / T_11`` meets job 10's at
    ``T_10 = (sqrt(209) - 13) / 2``, about 0.728: the job that waited gets more."""
    policy = get_round_policy("finish_time_fairness_shockwave")
    policy(one_gpu([1000.0, 1000.0], [0.0, 0.0], [10, 11]))
    later = RoundProblem(throughput=np.ones((2, 1)), scale_factor=np.ones(2), capacity=[1],
                         remaining=[1000.0, 500.0], age_s=[500.0, 500.0], job_ids=[10, 11],
                         steps_per_unit=[1.0, steps_per_unit])
    np.testing.assert_allclose(policy(later).share[:, 0], [expected, 1 - expected], atol=1e-3)


def test_a_reported_work_left_is_checked_like_the_work_left() -> None:
    with pytest.raises(RoundProblemError, match=r"reported_remaining\[1\] must be finite"):
        RoundProblem(throughput=np.ones((2, 1)), scale_factor=np.ones(2), capacity=[1],
                     reported_remaining=[1.0, np.nan])
    with pytest.raises(RoundProblemError, match=r"steps_per_unit\[0\] must be > 0"):
        RoundProblem(throughput=np.ones((2, 1)), scale_factor=np.ones(2), capacity=[1],
                     steps_per_unit=[0.0, 1.0])


def test_one_type_filling_is_the_program_by_program_filling(monkeypatch: pytest.MonkeyPatch) -> None:
    """On one GPU type the filling's programs before the last have known optima
    (``finish_time_fairness._last_fill``), so only the last is solved: on random one-type problems
    the allocation is the program-by-program filling's bit for bit, with one program where the
    filling solves several (and the same failures)."""
    from gpusched.core.rounds.problem import RoundSolveError
    from gpusched.policies.rounds import finish_time_fairness as ftf
    from gpusched.policies.rounds import lp

    rng = np.random.default_rng(17)
    shortcut = several = failed = 0
    known_optima = ftf._last_fill
    for _ in range(300):
        n = int(rng.integers(1, 40))
        throughput = np.where(rng.random((n, 1)) < 0.9, rng.uniform(0.2, 2.0, (n, 1)), 0.0)
        scale = rng.choice([1, 2, 4, 8], n)
        need = np.where(rng.random(n) < 0.8, rng.uniform(0.0, 1.0, n), 0.0) * throughput[:, 0]
        unit = np.where(rng.random(n) < 0.9, rng.uniform(0.1, 1.5, n), 0.0)
        # GPUs for the needs and, most of the time, some to spare (sometimes too few: a failure)
        needed = float((scale * np.divide(need, throughput[:, 0], out=np.zeros(n), where=need > 0)).sum())
        problem = RoundProblem(throughput=throughput, scale_factor=scale,
                               capacity=[max(1, int(np.ceil(needed * rng.uniform(0.95, 1.6))))])
        entries = lp.Entries.of(problem.runnable & (problem.capacity[None, :] > 0))
        if not len(entries):
            continue
        results = []
        for last_fill in (known_optima, lambda *a: None):  # with the known optima, then without
            monkeypatch.setattr(ftf, "_last_fill", last_fill)
            try:
                results.append(ftf.spread_shares(problem, entries, need, unit, "p"))
            except RoundSolveError as error:
                results.append(str(error))
        ours, theirs = results
        if isinstance(theirs, str):
            assert ours == theirs
            failed += 1
            continue
        assert np.array_equal(ours[0].view(np.uint64), theirs[0].view(np.uint64))
        shortcut += ours[1] == 1
        several += ours[1] == 1 and theirs[1] > 1
    assert shortcut > 200 and several > 50 and failed  # known optima stood in for many programs


def test_shockwaves_makespan_search_settles_where_its_bisection_does() -> None:
    from gpusched.policies.rounds.min_total_duration import shockwave_makespan_s

    # Smallest makespan 1,000 s: from [100, 1e6] the midpoints 500,050 ... 2,052.9 and 1,076.46 are
    # feasible, 588.23, 832.35 and 954.41 are not, 1,015.435 is, 984.92 is not; then 1.05 * 984.92
    # exceeds 1,015.435 and the search stops at the last feasible one.
    assert shockwave_makespan_s(1000.0) == (954.40673828125 + 1076.46484375) / 2  # 1,015.4358
    # Beyond 1e6 the file searches ten times further: [1e6, 1e7]
    assert 2e6 <= shockwave_makespan_s(2e6) <= 1.05 * 2e6
    # Below 100 s the search stops near 100, above the smallest makespan
    assert 100 < shockwave_makespan_s(10.0) <= 105
    with pytest.raises(ValueError, match="no finite makespan"):
        shockwave_makespan_s(float("inf"))


def test_shockwaves_min_total_duration_spreads_what_its_makespan_leaves() -> None:
    """Two single-GPU jobs with 1,000 and 500 s of work on one GPU: the smallest makespan is
    1,500 s. Gavel's file gives each exactly what finishes it then (2/3 and 1/3, the GPU full).
    Shockwave's settles on a makespan a little above (its bisection), gives each
    ``remaining / T`` and spreads the rest of the GPU evenly over the two."""
    from gpusched.policies.rounds.min_total_duration import shockwave_makespan_s

    problem = one_gpu([1000.0, 500.0], [0.0, 0.0], [0, 1])
    gavel = get_round_policy("min_total_duration_perf")(problem).share[:, 0]
    np.testing.assert_allclose(gavel, [2 / 3, 1 / 3], rtol=1e-6)
    t = shockwave_makespan_s(1500.0)
    assert t > 1500.0
    extra = (1.0 - 1500.0 / t) / 2
    shockwave = get_round_policy("min_total_duration_shockwave")(problem).share[:, 0]
    np.testing.assert_allclose(shockwave, [1000.0 / t + extra, 500.0 / t + extra], rtol=1e-5)
    # a job that changes its batch size is read by what it reports: job 0 reporting 500 s left makes
    # the two alike, so they share the GPU evenly
    reported = RoundProblem(throughput=np.ones((2, 1)), scale_factor=np.ones(2), capacity=[1],
                            remaining=[1000.0, 500.0], age_s=[0.0, 0.0], job_ids=[0, 1],
                            reported_remaining=[500.0, 500.0])
    np.testing.assert_allclose(get_round_policy("min_total_duration_shockwave")(reported).share[:, 0],
                               [0.5, 0.5], rtol=1e-5)


def test_shockwaves_max_sum_throughput_weighs_jobs_by_their_steps() -> None:
    """One GPU, two single-GPU jobs: job 0 runs at 2 units of work per second in steps of 1 unit,
    job 1 at 1 unit per second in steps of a tenth of a unit (10 steps per unit). gpusched's reading
    of Gavel's file sums units and gives the GPU to job 0 (2 > 1); Shockwave's scheduler hands the
    file steps per second, 2 against 10, and job 1 gets it."""
    problem = RoundProblem(throughput=np.array([[2.0], [1.0]]), scale_factor=np.ones(2), capacity=[1],
                           remaining=[100.0, 100.0], age_s=[0.0, 0.0], job_ids=[0, 1],
                           steps_per_unit=[1.0, 10.0])
    np.testing.assert_allclose(get_round_policy("max_sum_throughput_perf")(problem).share[:, 0], [1, 0])
    np.testing.assert_allclose(get_round_policy("max_sum_throughput_shockwave")(problem).share[:, 0], [0, 1])
