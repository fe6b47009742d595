"""HiGHS called directly (gpusched.policies.rounds.highs) against ``scipy.optimize.linprog``: the
same options, the same matrix, the same answer bit for bit and the same failures, on seeded random
programs; and the round programs' numpy-built matrices against their scipy.sparse construction.

The private module ``scipy.optimize._highspy._core`` is pinned by requirements.txt's scipy; these
tests are what fails first if a new scipy changes it."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy
import scipy.optimize._highspy._core as highs_core
from scipy import sparse
from scipy.optimize import linprog

from gpusched.core.rounds.problem import RoundProblem, RoundSolveError
from gpusched.policies.rounds import finish_time_fairness, highs, lp

STATUS = {1: "iteration limit reached", 2: "infeasible", 3: "unbounded", 4: "numerical difficulties"}
"""The names the policies gave linprog's status codes."""


def bits(values: np.ndarray) -> np.ndarray:
    """The float64 values' bit patterns (tells -0.0 from 0.0)."""
    return np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)


def same_csc(ours: highs.Csc, theirs: sparse.csc_array) -> bool:
    return (ours.shape == theirs.shape and np.array_equal(ours.indptr, theirs.indptr)
            and np.array_equal(ours.indices, theirs.indices)
            and np.array_equal(bits(ours.data), bits(theirs.data)))


def linprogs_matrix(a_ub, a_eq=None) -> sparse.csc_array:
    """The matrix linprog hands HiGHS (scipy 1.17.1's ``_clean_inputs`` then ``_linprog_highs``)."""
    blocks = [sparse.coo_array(a_ub, dtype=float, copy=True)]
    if a_eq is not None:
        blocks.append(sparse.coo_array(a_eq, dtype=float, copy=True))
    else:
        blocks.append(sparse.coo_array((0, a_ub.shape[1]), dtype=float))
    return sparse.csc_array(sparse.vstack(blocks))


def random_matrix(rng: np.random.Generator, m: int, n: int) -> sparse.csr_matrix:
    """A sparse ``(m, n)`` matrix with some explicit zeros and negative zeros among its entries."""
    dense = np.where(rng.random((m, n)) < 0.5, np.round(rng.normal(size=(m, n)), 2), 0.0)
    stored = rng.random((m, n)) < 0.1  # explicit zeros
    rows, cols = np.nonzero((dense != 0) | stored)
    data = dense[rows, cols] * np.where(rng.random(len(rows)) < 0.5, -1.0, 1.0)
    return sparse.csr_matrix((data, (rows, cols)), shape=(m, n))


def test_the_pinned_scipy_is_the_one_checked() -> None:
    # The direct call reads a private module of this scipy; a new scipy must be checked again.
    assert scipy.__version__ == "1.17.1"
    assert (highs_core.HIGHS_VERSION_MAJOR, highs_core.HIGHS_VERSION_MINOR) >= (1, 0)


def test_options_are_the_ones_linprog_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    passed = []

    class Recording(highs_core._Highs):
        def passOptions(self, options):  # noqa: N802 (HiGHS's name)
            passed.append(options)
            return super().passOptions(options)

    monkeypatch.setattr(highs_core, "_Highs", Recording)
    linprog([-1.0, -1.0], A_ub=[[1.0, 2.0], [3.0, 1.0]], b_ub=[4.0, 5.0], method="highs")
    assert len(passed) == 1
    names = [name for name in dir(passed[0]) if not name.startswith("_")]
    assert len(names) > 50
    ours = highs.options()
    differ = {name: (getattr(ours, name), getattr(passed[0], name)) for name in names
              if getattr(ours, name) != getattr(passed[0], name)}
    assert differ == {}
    assert ours.presolve == "on" and not ours.output_flag  # not merely HiGHS's defaults


def test_csc_of_sparse_is_linprogs_matrix() -> None:
    rng = np.random.default_rng(11)
    for _ in range(200):
        m, p, n = (int(v) for v in rng.integers(0, 8, 3))
        n = max(n, 1)
        a_ub, a_eq = random_matrix(rng, m, n), random_matrix(rng, p, n)
        assert same_csc(highs.Csc.of_sparse(a_ub, a_eq), linprogs_matrix(a_ub, a_eq))
        assert same_csc(highs.Csc.of_sparse(a_ub), linprogs_matrix(a_ub))
        np.testing.assert_array_equal(highs.Csc.of_sparse(a_ub).dense(), a_ub.toarray())


def test_csc_of_triplets_sums_duplicates_and_keeps_zeros() -> None:
    csc = highs.Csc.of_triplets([1, 0, 1, 2, 1], [0, 0, 0, 1, 1], [2.0, 0.0, 3.0, -0.0, 1.5], (3, 3))
    np.testing.assert_array_equal(csc.indptr, [0, 2, 4, 4])
    np.testing.assert_array_equal(csc.indices, [0, 1, 1, 2])
    np.testing.assert_array_equal(bits(csc.data), bits([0.0, 5.0, 1.5, -0.0]))
    theirs = sparse.csc_array(sparse.coo_array(([2.0, 0.0, 3.0, -0.0, 1.5],
                                                ([1, 0, 1, 2, 1], [0, 0, 0, 1, 1])), shape=(3, 3)))
    assert same_csc(csc, theirs)


@pytest.mark.parametrize("with_equalities", [False, True])
def test_random_programs_match_linprog_bit_for_bit(with_equalities: bool) -> None:
    rng = np.random.default_rng(5 + with_equalities)
    seen = set()
    for _ in range(400):
        m, n = int(rng.integers(0, 10)), int(rng.integers(1, 10))
        p = int(rng.integers(1, 4)) if with_equalities else 0
        a_ub, a_eq = random_matrix(rng, m, n), random_matrix(rng, p, n)
        b_ub, b_eq = np.round(rng.normal(size=m), 2), np.round(rng.normal(size=p), 2)
        c = np.round(rng.normal(size=n), 2)
        low = np.where(rng.random(n) < 0.2, -np.inf, np.where(rng.random(n) < 0.2, -1.0, 0.0))
        high = np.where(rng.random(n) < 0.3, 1.0, np.inf)
        bounds = [(None if np.isinf(lo) else lo, None if np.isinf(hi) else hi)
                  for lo, hi in zip(low, high, strict=True)]
        theirs = linprog(c, A_ub=a_ub if m else None, b_ub=b_ub if m else None,
                         A_eq=a_eq if p else None, b_eq=b_eq if p else None, bounds=bounds,
                         method="highs")
        matrix = highs.Csc.of_sparse(a_ub, a_eq) if p else highs.Csc.of_sparse(a_ub)
        status, x = highs.solve(c, matrix, np.concatenate([np.full(m, -np.inf), b_eq]),
                                np.concatenate([b_ub, b_eq]), low, high)
        assert status == theirs.status
        seen.add(status)
        if status == 0:
            assert np.array_equal(bits(x), bits(theirs.x))
        else:
            assert x is None
        # the policies' entry point: the same answer, or the same error
        try:
            ours = (lp.linprog_eq(c, a_ub, b_ub, a_eq, b_eq, bounds, "p", "program") if p
                    else lp.solve(c, a_ub, b_ub, bounds, "p", "program"))
        except RoundSolveError as error:
            assert theirs.status != 0
            assert str(error) == f"round policy p: program not solved by HiGHS ({STATUS[theirs.status]})"
        else:
            assert theirs.status == 0 and np.array_equal(bits(ours), bits(theirs.x))
    assert {0, 2, 3} <= seen  # solved, infeasible and unbounded programs were all among them


def test_each_thread_reuses_its_own_solver_and_gets_the_same_answers() -> None:
    # One HiGHS instance per thread, reused program after program (highs._solver): programs solved
    # in two threads at once, interleaved, answer as they do one by one in this thread.
    rng = np.random.default_rng(31)
    programs = []
    for _ in range(60):
        m, n = int(rng.integers(1, 8)), int(rng.integers(1, 8))
        matrix = highs.Csc.of_sparse(random_matrix(rng, m, n))
        programs.append((np.round(rng.normal(size=n), 2), matrix, np.full(m, -np.inf),
                         np.round(rng.normal(size=m), 2), np.zeros(n), np.full(n, 2.0)))
    alone = [highs.solve(*program) for program in programs]
    assert {status for status, _ in alone} >= {0, 2}  # solved and infeasible ones, interleaved
    solvers, results = {}, {}

    def work(name: str) -> None:
        solvers[name] = highs._solver()
        results[name] = [highs.solve(*program) for program in programs * 3]

    threads = [threading.Thread(target=work, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert solvers["a"] is not solvers["b"] and highs._solver() not in (solvers["a"], solvers["b"])
    for name in ("a", "b"):
        for (status, x), (want, want_x) in zip(results[name], alone * 3, strict=True):
            assert status == want
            assert (x is None) == (want_x is None)
            if x is not None:
                assert np.array_equal(bits(x), bits(want_x))


def test_bad_input_is_refused_as_linprog_refuses_it() -> None:
    a_ub = sparse.csr_matrix(np.array([[1.0, 1.0]]))
    for c, b_ub in (([np.nan, 1.0], [1.0]), ([1.0, 1.0], [np.inf])):
        with pytest.raises(ValueError):
            linprog(c, A_ub=a_ub, b_ub=b_ub, method="highs")
        with pytest.raises(ValueError, match="must not contain values inf, nan, or None"):
            lp.solve(np.array(c), a_ub, np.array(b_ub), [(0, None)] * 2, "p", "program")
    with pytest.raises(ValueError):
        lp.solve(np.zeros(0), sparse.csr_matrix((1, 0)), np.ones(1), [], "p", "program")


# The round programs' matrices as the policies built them with scipy.sparse before (the reference
# the numpy construction must reproduce entry for entry).

def reference_base(problem: RoundProblem, entries: lp.Entries, extra: int, multiplicity):
    return lp.base_constraints(problem, entries, extra=extra, multiplicity=multiplicity)


def reference_max_min(problem, entries, value, counted, multiplicity):
    counted = lp._counted(entries, counted)
    a_base, b_base = reference_base(problem, entries, 1, multiplicity)
    per_job = entries.per_job(value, extra=1)[counted]
    t_col = sparse.csr_matrix(np.ones((per_job.shape[0], 1)))
    a_fair = sparse.hstack([-per_job[:, : len(entries)], t_col], format="csr")
    return (sparse.vstack([a_base, a_fair], format="csr"),
            np.concatenate([b_base, np.zeros(per_job.shape[0])]))


def reference_second_stage(problem, entries, value, floor, counted, multiplicity):
    counted = lp._counted(entries, counted) & (floor > 0)
    a_base, b_base = reference_base(problem, entries, 0, multiplicity)
    scaled = sparse.diags(1.0 / np.where(counted, floor, 1.0)) @ entries.per_job(value)
    return (sparse.vstack([a_base, -scaled[counted]], format="csr"),
            np.concatenate([b_base, np.full(int(counted.sum()), -(1.0 - lp.STAGE_TWO_SLACK))]))


def random_problem(rng: np.random.Generator) -> tuple[RoundProblem, np.ndarray, np.ndarray]:
    """A small problem, each entry's value (with some zeros) and the jobs counted."""
    n, k = int(rng.integers(1, 9)), int(rng.integers(1, 4))
    throughput = np.where(rng.random((n, k)) < 0.8, rng.uniform(0.1, 3.0, (n, k)), 0.0)
    problem = RoundProblem(throughput=throughput, scale_factor=rng.choice([1, 2, 4], n),
                           capacity=rng.integers(0, 5, k))
    value = np.where(rng.random((n, k)) < 0.15, 0.0, throughput / rng.uniform(0.5, 2.0, (n, 1)))
    return problem, value, rng.random(n) < 0.8


def test_round_programs_are_the_scipy_built_ones_and_solve_alike() -> None:
    rng = np.random.default_rng(23)
    solved = 0
    for _ in range(150):
        problem, value, counted = random_problem(rng)
        mask = (problem.throughput > 0) & (problem.capacity[None, :] > 0)
        entries = lp.Entries.of(mask)
        if len(entries) == 0:
            continue
        multiplicity = rng.integers(1, 4, problem.n_jobs) if rng.random() < 0.5 else None
        c, ours, b_ub = lp.max_min_program(problem, entries, value, counted, multiplicity)
        a_ub, b_ref = reference_max_min(problem, entries, value, counted, multiplicity)
        assert same_csc(ours, linprogs_matrix(a_ub)) and np.array_equal(b_ub, b_ref)
        theirs = linprog(c, A_ub=a_ub, b_ub=b_ref, bounds=[(0, None)] * len(c), method="highs")
        try:
            x, t = lp.max_min(problem, entries, value, "p", counted=counted, multiplicity=multiplicity)
        except RoundSolveError as error:  # no job counted: t is unbounded
            assert theirs.status == 3 and "(unbounded)" in str(error)
            continue
        assert theirs.status == 0
        assert np.array_equal(bits(x), bits(theirs.x[:-1])) and t == theirs.x[-1]
        floor = np.where(rng.random(problem.n_jobs) < 0.2, 0.0, t * rng.uniform(0.5, 1.0, problem.n_jobs))
        c, ours, b_ub = lp.second_stage_program(problem, entries, value, floor, counted,
                                                multiplicity=multiplicity)
        a_ub, b_ref = reference_second_stage(problem, entries, value, floor, counted, multiplicity)
        assert same_csc(ours, linprogs_matrix(a_ub)) and np.array_equal(b_ub, b_ref)
        theirs = linprog(c, A_ub=a_ub, b_ub=b_ref, bounds=[(0, None)] * len(c), method="highs")
        try:
            x = lp.maximise_values(problem, entries, value, floor, "p", counted=counted,
                                   multiplicity=multiplicity)
        except RoundSolveError as error:
            assert theirs.status != 0 and STATUS[theirs.status] in str(error)
        else:
            assert theirs.status == 0 and np.array_equal(bits(x), bits(theirs.x))
            solved += 1
    assert solved > 50


def test_base_triplets_are_the_base_constraints() -> None:
    rng = np.random.default_rng(29)
    for _ in range(50):
        problem, _, _ = random_problem(rng)
        entries = lp.Entries.of((problem.throughput > 0) & (problem.capacity[None, :] > 0))
        multiplicity = rng.integers(1, 4, problem.n_jobs) if rng.random() < 0.5 else None
        rows, cols, data, b_ub = lp.base_triplets(problem, entries, multiplicity)
        ours = highs.Csc.of_triplets(rows, cols, data, (problem.n_jobs + problem.n_types, len(entries)))
        a_ub, b_ref = lp.base_constraints(problem, entries, multiplicity=multiplicity)
        assert same_csc(ours, linprogs_matrix(a_ub)) and np.array_equal(b_ub, b_ref)


def test_finish_time_steps_are_the_scipy_built_programs() -> None:
    rng = np.random.default_rng(31)
    for _ in range(60):
        problem, _, _ = random_problem(rng)
        entries = lp.Entries.of((problem.throughput > 0) & (problem.capacity[None, :] > 0))
        steps = rng.random(problem.n_jobs) < 0.7
        coef = np.where(rng.random(int(steps.sum())) < 0.2, 0.0, rng.normal(size=int(steps.sum())))
        bound = -rng.uniform(0.1, 2.0, int(steps.sum()))
        ours, b_ub = finish_time_fairness.ratio_program(problem, entries, steps, coef, bound)
        a_base, b_base = lp.base_constraints(problem, entries, extra=1)
        theta = sparse.csr_matrix(-np.ones((int(steps.sum()), 1)))
        a_ratio = sparse.hstack([sparse.diags(coef) @ entries.per_job(problem.throughput)[steps], theta],
                                format="csr")
        assert same_csc(ours, linprogs_matrix(sparse.vstack([a_base, a_ratio], format="csr")))
        assert np.array_equal(b_ub, np.concatenate([b_base, bound]))


def test_job_rows_leave_out_zeros_unless_kept() -> None:
    """The one builder of the fairness and ratio rows: a zero coefficient (an entry's, or the
    scalar's) is left out unless kept, and the rows follow the jobs' order after the base rows."""
    rng = np.random.default_rng(37)
    for _ in range(60):
        problem, value, _ = random_problem(rng)
        entries = lp.Entries.of((problem.throughput > 0) & (problem.capacity[None, :] > 0))
        jobs = rng.random(problem.n_jobs) < 0.7
        coefficient = -value[entries.rows, entries.cols]
        last = np.where(rng.random(problem.n_jobs) < 0.3, 0.0, rng.uniform(0.5, 2.0, problem.n_jobs))
        a_base, b_base = lp.base_constraints(problem, entries, extra=1)
        dense = np.zeros((int(jobs.sum()), len(entries) + 1))
        rank = np.cumsum(jobs) - 1
        at = jobs[entries.rows]
        dense[rank[entries.rows[at]], np.flatnonzero(at)] = coefficient[at]
        dense[:, -1] = last[jobs]
        reference = sparse.vstack([a_base, sparse.csr_matrix(dense)], format="csr")
        ours, b_ub = lp.with_job_rows(problem, entries, jobs, coefficient, last=last)
        assert same_csc(ours, linprogs_matrix(reference)) and np.array_equal(b_ub, b_base)
        kept, _ = lp.with_job_rows(problem, entries, jobs, coefficient, keep_zeros=True, last=last)
        zeros = int((coefficient[at] == 0).sum())
        assert len(kept.data) == len(ours.data) + zeros
        assert np.array_equal(kept.dense(), ours.dense())
