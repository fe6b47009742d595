"""The linear programs the round policies share, solved by HiGHS (scipy's build, called directly
by :mod:`~gpusched.policies.rounds.highs` with linprog's options and model).

**Variables.** One per (job, GPU type) entry a job may use (its ``mask``; the others are fixed at
0 and left out, which keeps the programs small), plus the policy's scalars (``t``, ``z``, ``u``).

**Base constraints** (Gavel, ``scheduler/policies/policy.py``, ``get_base_constraints``):
``x >= 0``; each job's row ``sum_j x[i, j] <= 1``; each type's capacity
``sum_i scale_factor[i] * x[i, j] <= capacity[j]``.

**Classes.** Interchangeable jobs are solved as one row counted as many times
(:func:`job_classes`), which keeps the programs of Gavel-like workloads small.

**Two stages.** Max-min and min-max programs have many optima: only the worst job's value is
fixed. Gavel's interior-point solver (ECOS) returns a point inside the optimal face. HiGHS returns a
vertex, which can leave capacity idle, so each fairness policy here solves a second program: keep
every job's value at least the optimum found (within :data:`STAGE_TWO_SLACK`) and maximise the sum
of the jobs' values, so the spare capacity goes where it adds most (:func:`maximise_values`).

**Matrices.** The fairness and ratio programs write their constraint matrices as
(row, column, value) triplets with numpy (:func:`with_job_rows`) and hand HiGHS the compressed-column form
(:class:`~gpusched.policies.rounds.highs.Csc`); the other programs build scipy.sparse matrices,
converted the way linprog converts them. Either way HiGHS gets the matrix linprog would give it,
entry for entry (explicit zeros included), so the answers are linprog's bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from gpusched.core.rounds.problem import RoundProblem, RoundSolveError
from gpusched.policies.rounds import highs

STAGE_TWO_SLACK = 1e-6
"""Relative slack on the first stage's optimum kept by the second stage (solver round-off)."""


@dataclass(frozen=True)
class Entries:
    """The (job, type) entries that are variables: ``rows[e]``, ``cols[e]`` for entry ``e``."""

    rows: np.ndarray
    cols: np.ndarray
    n: int
    k: int

    @classmethod
    def of(cls, mask: np.ndarray) -> Entries:
        rows, cols = np.nonzero(mask)
        return cls(rows=rows, cols=cols, n=mask.shape[0], k=mask.shape[1])

    def __len__(self) -> int:
        return len(self.rows)

    def per_job(self, coef: np.ndarray, extra: int = 0) -> sparse.csr_matrix:
        """``(n, len + extra)``: row ``i`` holds ``coef[i, j]`` at each of job ``i``'s entries."""
        return sparse.csr_matrix((coef[self.rows, self.cols], (self.rows, np.arange(len(self)))),
                                 shape=(self.n, len(self) + extra))

    def unflatten(self, x: np.ndarray) -> np.ndarray:
        """The ``(n, k)`` allocation from the entries' values (clipped to 0-1, as Gavel clips)."""
        share = np.zeros((self.n, self.k))
        share[self.rows, self.cols] = np.clip(x[: len(self)], 0.0, 1.0)
        return share


def base_constraints(problem: RoundProblem, entries: Entries, extra: int = 0,
                     multiplicity: np.ndarray | None = None) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Rows ``sum_j x <= 1`` then capacities ``sum_i m_i s_i x <= c``, as ``(A_ub, b_ub)`` (``m_i``
    the jobs a row stands for, :func:`job_classes`; 1 by default)."""
    ones = np.ones((entries.n, entries.k))
    rows = entries.per_job(ones, extra)
    scale = problem.scale_factor[entries.rows].astype(float)
    if multiplicity is not None:
        scale = scale * np.asarray(multiplicity, dtype=float)[entries.rows]
    cols = sparse.csr_matrix((scale, (entries.cols, np.arange(len(entries)))),
                             shape=(entries.k, len(entries) + extra))
    return (sparse.vstack([rows, cols], format="csr"),
            np.concatenate([np.ones(entries.n), problem.capacity.astype(float)]))


def solve(c: np.ndarray, a_ub: sparse.csr_matrix, b_ub: np.ndarray, bounds, policy: str, what: str
          ) -> np.ndarray:
    """Minimise ``c @ x`` subject to ``a_ub @ x <= b_ub`` and ``bounds`` (linprog's: one
    ``(low, high)`` pair per variable, ``None`` for no bound) with HiGHS; a failure is a
    :class:`RoundSolveError` naming the policy, the program and the solver's status."""
    lb, ub = _bounds(bounds, len(c))
    return solve_csc(c, highs.Csc.of_sparse(a_ub), b_ub, lb, ub, policy, what)


def solve_csc(c: np.ndarray, matrix: highs.Csc, b_ub: np.ndarray, lb: np.ndarray, ub: np.ndarray,
              policy: str, what: str, b_eq: np.ndarray | None = None) -> np.ndarray:
    """Minimise ``c @ x`` subject to ``lb <= x <= ub`` and the rows of ``matrix``: the first
    ``len(b_ub)`` are ``<= b_ub``, the next ``len(b_eq)`` are ``== b_eq``. Inputs are checked as
    linprog checks them (a ``ValueError``); a failure to solve is a :class:`RoundSolveError`
    naming the policy, the program and the solver's status, as linprog's status was named."""
    c = np.asarray(c, dtype=float)
    b_ub = np.asarray(b_ub, dtype=float)
    b_eq = np.zeros(0) if b_eq is None else np.asarray(b_eq, dtype=float)
    if len(c) == 0:
        raise ValueError(f"{what}: no variables")
    if matrix.shape != (len(b_ub) + len(b_eq), len(c)):
        raise ValueError(f"{what}: a {matrix.shape} matrix for {len(b_ub)} + {len(b_eq)} rows "
                         f"and {len(c)} variables")
    for name, values in (("c", c), ("A", matrix.data), ("b_ub", b_ub), ("b_eq", b_eq)):
        if not np.isfinite(values).all():
            raise ValueError(f"{what}: {name} must not contain values inf, nan, or None")
    lhs = np.concatenate([np.full(len(b_ub), -np.inf), b_eq])
    rhs = np.concatenate([b_ub, b_eq])
    status, x = highs.solve(c, matrix, lhs, rhs, lb, ub)
    if status != 0 or x is None:
        message = highs.STATUS_MESSAGES.get(status, f"status {status}")
        raise RoundSolveError(f"round policy {policy}: {what} not solved by HiGHS ({message})")
    return x


def _bounds(bounds, n: int) -> tuple[np.ndarray, np.ndarray]:
    """linprog's bounds (one ``(low, high)`` pair per variable, or one pair for all; ``None`` is
    no bound) as ``(lb, ub)`` arrays with ``±inf``."""
    pairs = np.atleast_2d(np.array(bounds, dtype=float))
    if pairs.shape == (1, 2):
        pairs = np.repeat(pairs, n, axis=0)
    if pairs.shape != (n, 2):
        raise ValueError(f"bounds of shape {pairs.shape} for {n} variables")
    lb = np.where(np.isnan(pairs[:, 0]), -np.inf, pairs[:, 0])
    ub = np.where(np.isnan(pairs[:, 1]), np.inf, pairs[:, 1])
    return lb, ub


def base_triplets(problem: RoundProblem, entries: Entries, multiplicity: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`base_constraints` as (row, column, value) triplets over the entries' columns, and
    ``b_ub``: entry ``e`` has 1 in job row ``rows[e]`` and ``m_i s_i`` in capacity row
    ``n + cols[e]``."""
    m = len(entries)
    scale = problem.scale_factor[entries.rows].astype(float)
    if multiplicity is not None:
        scale = scale * np.asarray(multiplicity, dtype=float)[entries.rows]
    rows = np.concatenate([entries.rows, entries.n + entries.cols])
    cols = np.concatenate([np.arange(m), np.arange(m)])
    data = np.concatenate([np.ones(m), scale])
    return rows, cols, data, np.concatenate([np.ones(entries.n), problem.capacity.astype(float)])


def with_job_rows(problem: RoundProblem, entries: Entries, jobs: np.ndarray, entry_value: np.ndarray,
                  *, keep_zeros: bool = False, last: np.ndarray | None = None,
                  multiplicity: np.ndarray | None = None) -> tuple[highs.Csc, np.ndarray]:
    """The base rows, then one row per job of ``jobs`` (in job order) holding ``entry_value[e]`` at
    each of its entries and, with ``last``, ``last[i]`` in one more column after the entries (the
    program's scalar; left out where 0). Returns the matrix and the base rows' ``b_ub`` (the caller
    appends the job rows' bounds). Every fairness and ratio program here is built by it.

    :param jobs: ``(n,)`` bool, the jobs that get a row.
    :param entry_value: ``(len(entries),)`` each entry's coefficient in its job's row.
    :param keep_zeros: keep an entry whose coefficient is 0 as an explicit zero (as a matrix built
        from a dense block does); otherwise it is left out (as a product of sparse matrices does).
        HiGHS must see the matrix linprog was given, entry for entry.
    :param last: ``(n,)`` each job row's coefficient of the scalar, or ``None``: no scalar column.
    :param multiplicity: ``(n,)`` the jobs each row stands for (:func:`job_classes`).
    """
    m, top = len(entries), entries.n + entries.k
    rows, cols, data, b_base = base_triplets(problem, entries, multiplicity)
    rank = np.cumsum(jobs) - 1  # each job's row, after the base rows
    at = jobs[entries.rows]
    if not keep_zeros:
        at &= entry_value != 0
    row_parts = [rows, top + rank[entries.rows[at]]]
    col_parts = [cols, np.flatnonzero(at)]
    data_parts = [data, entry_value[at]]
    if last is not None:
        has = jobs & (last != 0)
        row_parts.append(top + rank[has])
        col_parts.append(np.full(int(has.sum()), m))
        data_parts.append(last[has])
    matrix = highs.Csc.of_triplets(np.concatenate(row_parts), np.concatenate(col_parts),
                                   np.concatenate(data_parts),
                                   (top + int(jobs.sum()), m + (last is not None)))
    return matrix, b_base


def max_min(problem: RoundProblem, entries: Entries, value: np.ndarray, policy: str,
            counted: np.ndarray | None = None, multiplicity: np.ndarray | None = None
            ) -> tuple[np.ndarray, float]:
    """Maximise ``t`` subject to the base constraints and ``sum_j value[i, j] x[i, j] >= t`` for
    each counted job. Returns the entries' values and ``t``.

    :param value: ``(n, k)`` each entry's contribution to its job's value.
    :param counted: ``(n,)`` bool, the jobs in the minimum (default: those with an entry).
    :param multiplicity: ``(n,)`` the jobs each row stands for (:func:`job_classes`).
    """
    c, matrix, b_ub = max_min_program(problem, entries, value, counted, multiplicity)
    x = solve_csc(c, matrix, b_ub, np.zeros(len(c)), np.full(len(c), np.inf), policy,
                  "max-min program")
    return x[: len(entries)], float(x[-1])


def max_min_program(problem: RoundProblem, entries: Entries, value: np.ndarray,
                    counted: np.ndarray | None = None, multiplicity: np.ndarray | None = None
                    ) -> tuple[np.ndarray, highs.Csc, np.ndarray]:
    """:func:`max_min`'s program as ``(c, A_ub, b_ub)`` over the entries then ``t`` (all ``>= 0``):
    the base rows, then one row ``t - sum_j value[i, j] x[i, j] <= 0`` per counted job."""
    counted = _counted(entries, counted)
    matrix, b_base = with_job_rows(problem, entries, counted, -value[entries.rows, entries.cols],
                                   keep_zeros=True, last=np.ones(entries.n), multiplicity=multiplicity)
    c = np.zeros(len(entries) + 1)
    c[-1] = -1.0
    return c, matrix, np.concatenate([b_base, np.zeros(int(counted.sum()))])


def maximise_values(problem: RoundProblem, entries: Entries, value: np.ndarray, floor: np.ndarray,
                    policy: str, counted: np.ndarray | None = None,
                    gain: np.ndarray | None = None, multiplicity: np.ndarray | None = None
                    ) -> np.ndarray:
    """The second stage: maximise ``sum_i gain-weighted value`` subject to the base constraints and
    ``value_i >= floor_i (1 - STAGE_TWO_SLACK)`` for each counted job (rows are scaled by their
    floor so that the slack is relative).

    :param value: ``(n, k)`` each entry's contribution to its job's value.
    :param floor: ``(n,)`` each job's least value (from the first stage).
    :param gain: ``(n, k)`` the objective's coefficients (default ``value``).
    :param multiplicity: ``(n,)`` the jobs each row stands for (:func:`job_classes`).
    """
    c, matrix, b_ub = second_stage_program(problem, entries, value, floor, counted, gain, multiplicity)
    return solve_csc(c, matrix, b_ub, np.zeros(len(c)), np.full(len(c), np.inf), policy,
                     "second-stage program")


def second_stage_program(problem: RoundProblem, entries: Entries, value: np.ndarray,
                         floor: np.ndarray, counted: np.ndarray | None = None,
                         gain: np.ndarray | None = None, multiplicity: np.ndarray | None = None
                         ) -> tuple[np.ndarray, highs.Csc, np.ndarray]:
    """:func:`maximise_values`'s program as ``(c, A_ub, b_ub)`` over the entries (all ``>= 0``):
    the base rows, then ``-sum_j value[i, j] x[i, j] / floor_i <= -(1 - STAGE_TWO_SLACK)`` per
    counted job with a positive floor."""
    counted = _counted(entries, counted) & (floor > 0)
    # value / floor per entry of a counted job; a zero is left out (linprog was given a product of
    # sparse matrices, which keeps no zeros, and HiGHS must see the same matrix)
    scaled = (1.0 / np.where(counted, floor, 1.0))[entries.rows] * value[entries.rows, entries.cols]
    matrix, b_base = with_job_rows(problem, entries, counted, -scaled, multiplicity=multiplicity)
    b_ub = np.concatenate([b_base, np.full(int(counted.sum()), -(1.0 - STAGE_TWO_SLACK))])
    gain = value if gain is None else gain
    c = -gain[entries.rows, entries.cols]
    if multiplicity is not None:
        c = c * np.asarray(multiplicity, dtype=float)[entries.rows]
    return c, matrix, b_ub


def job_classes(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Jobs that are interchangeable in a program: equal in every column given (each ``(n,)`` or
    ``(n, k)``). Returns each class's first job, each job's class and each class's size.

    A max-min or sum program over identical jobs has an optimum that gives them identical rows
    (average any optimum over the class: every constraint and the minimum still hold, the sum is
    unchanged), so solving one row per class, its capacity use counted ``size`` times, is exact.
    Gavel's workloads draw jobs from 26 models and 4 gang sizes, so a thousand jobs make a few
    dozen classes.
    """
    table = np.column_stack([np.asarray(c, dtype=float).reshape(len(c), -1) for c in columns])
    # np.unique(table, axis=0, return_index=True, ...) without its structured view: the rows in
    # lexicographic order (a stable sort, so each class's first job comes first), a class
    # starting wherever a row differs from the one before
    order = np.lexsort(table.T[::-1])
    ordered = table[order]
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    begin = np.flatnonzero(starts)
    return order[begin], inverse, np.diff(np.append(begin, len(order)))


def _counted(entries: Entries, counted: np.ndarray | None) -> np.ndarray:
    has_entry = np.bincount(entries.rows, minlength=entries.n) > 0
    return has_entry if counted is None else (np.asarray(counted, dtype=bool) & has_entry)


def linprog_eq(c: np.ndarray, a_ub: sparse.csr_matrix, b_ub: np.ndarray, a_eq: sparse.csr_matrix,
               b_eq: np.ndarray, bounds, policy: str, what: str) -> np.ndarray:
    """:func:`solve` with equality constraints ``a_eq @ x == b_eq`` as well."""
    lb, ub = _bounds(bounds, len(c))
    return solve_csc(c, highs.Csc.of_sparse(a_ub, a_eq), b_ub, lb, ub, policy, what, b_eq=b_eq)


def fair_max_min(problem: RoundProblem, value: np.ndarray, mask: np.ndarray, policy: str,
                 counted: np.ndarray | None = None, second_stage: bool = True
                 ) -> tuple[np.ndarray, float, int]:
    """The two-stage max-min program (maximise the least ``sum_j value x`` over the counted jobs,
    then the sum of values with every counted job kept at that least value) over the entries
    ``mask``, solved per class of interchangeable jobs. Returns the ``(n, k)`` allocation, the least
    value ``t`` and the programs solved."""
    mask = np.asarray(mask, dtype=bool) & (problem.capacity[None, :] > 0)
    value = np.where(mask, value, 0.0)
    counted = mask.any(axis=1) if counted is None else (np.asarray(counted, dtype=bool) & mask.any(axis=1))
    first, inverse, counts = job_classes(value, problem.scale_factor, mask, counted)
    small = problem.subset(first)
    entries = Entries.of(mask[first])
    if len(entries) == 0 or not counted.any():
        return np.zeros((problem.n_jobs, problem.n_types)), 0.0, 0
    x, t = max_min(small, entries, value[first], policy, counted=counted[first], multiplicity=counts)
    if not second_stage:
        return entries.unflatten(x)[inverse], t, 1
    x = maximise_values(small, entries, value[first], np.full(len(first), t), policy,
                        counted=counted[first], multiplicity=counts)
    return entries.unflatten(x)[inverse], t, 2
