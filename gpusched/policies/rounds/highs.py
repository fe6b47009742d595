"""HiGHS called directly: the solver ``scipy.optimize.linprog(method="highs")`` runs, with the same
options and the same model, without linprog's Python-side work.

**Why.** The round policies solve many small programs: the shared 300-job Gavel run under
``max_min_fairness_perf`` solves 1,098. Profiled (cProfile), those programs cost 6.2 s of a 12.5 s
run through ``linprog``, of which HiGHS's own ``run`` was 0.43 s. The rest was Python around it:
building and stacking scipy.sparse matrices (about 1.6 s), linprog's input parsing and cleaning
(about 1 s), and scipy's ``_highs_wrapper``, which checks every option on every call (about 0.5 s)
and builds the bounds' marginals in a Python loop over the columns (about 0.5 s), results the
policies never read.

**The same model, the same answer.** ``linprog`` (scipy 1.17.1, ``optimize/_linprog_highs.py`` and
``optimize/_highspy/_highs_wrapper.py``) stacks ``A_ub`` over ``A_eq`` into one column-wise (CSC)
matrix with rows ``-inf <= A_ub x <= b_ub`` and ``b_eq <= A_eq x <= b_eq``, replaces infinite
bounds by HiGHS's infinity (``kHighsInf``), passes :func:`options` (presolve on, output and
console log off, no debug checks, dual simplex) and the model to a fresh ``_Highs``, runs it, and
reads ``col_value`` when the model status is optimal. Its ``_check_result`` then turns an optimal
answer that breaks a bound or a row by more than ``10 * sqrt(1e-9)`` into status 4. :func:`solve`
does each of these steps, so HiGHS sees the same model with the same options and returns the same
``x``; ``tests/test_round_highs.py`` checks that bit for bit on random programs, and that the
options equal the ones linprog passes.

**A private module.** ``scipy.optimize._highspy._core`` is scipy's own build of HiGHS, not a
public API. ``requirements.txt`` pins scipy (1.17.1), so the module cannot change under the
project, and the test above fails first if a new scipy changes it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy.optimize._highspy import _core

INF = _core.kHighsInf
"""HiGHS's infinity (what linprog puts for an infinite bound)."""

_COLWISE = int(_core.MatrixFormat.kColwise)
_MINIMISE = int(_core.ObjSense.kMinimize)

CHECK_TOLERANCE = float(np.sqrt(1e-9) * 10)
"""linprog's ``_check_result`` tolerance on an optimal answer's bounds and rows (its ``tol`` 1e-9)."""

STATUS_MESSAGES = {1: "iteration limit reached", 2: "infeasible", 3: "unbounded",
                   4: "numerical difficulties"}
"""linprog's status codes other than 0 (solved), as the round policies name them."""

_SCIPY_STATUS = {
    _core.HighsModelStatus.kOptimal: 0,
    _core.HighsModelStatus.kTimeLimit: 1,
    _core.HighsModelStatus.kIterationLimit: 1,
    _core.HighsModelStatus.kInfeasible: 2,
    _core.HighsModelStatus.kModelError: 2,
    _core.HighsModelStatus.kUnbounded: 3,
}
"""HiGHS's model status to linprog's code (``_highs_to_scipy_status_message``; any other is 4)."""


@dataclass(frozen=True)
class Csc:
    """A sparse matrix in compressed-column form, as HiGHS takes it: column ``j``'s rows are
    ``indices[indptr[j]:indptr[j + 1]]`` (ascending) and its values the same slice of ``data``."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    shape: tuple[int, int]

    @classmethod
    def of_triplets(cls, rows: np.ndarray, cols: np.ndarray, data: np.ndarray,
                    shape: tuple[int, int]) -> Csc:
        """The matrix with ``data[e]`` at ``(rows[e], cols[e])``; duplicates are summed in the
        order given, and explicit zeros are kept (as scipy's COO to CSC conversion does)."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        data = np.asarray(data, dtype=float)
        order = np.lexsort((rows, cols))  # stable: by column, then row, then given order
        rows, cols, data = rows[order], cols[order], data[order]
        if len(rows) > 1:
            new = np.empty(len(rows), dtype=bool)
            new[0] = True
            new[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
            if not new.all():
                starts = np.flatnonzero(new)
                summed = data[starts].copy()
                for e in np.flatnonzero(~new):  # rare: left to right, as scipy sums
                    summed[np.searchsorted(starts, e, side="right") - 1] += data[e]
                rows, cols, data = rows[starts], cols[starts], summed
        indptr = np.zeros(shape[1] + 1, dtype=np.int64)
        np.cumsum(np.bincount(cols, minlength=shape[1]), out=indptr[1:])
        return cls(indptr=indptr, indices=rows, data=data, shape=(int(shape[0]), int(shape[1])))

    @classmethod
    def of_sparse(cls, *blocks) -> Csc:
        """The scipy sparse matrices ``blocks`` stacked top to bottom (linprog's ``vstack`` of
        ``A_ub`` and ``A_eq`` then ``csc_array``)."""
        rows, cols, data, offset = [], [], [], 0
        width = blocks[0].shape[1]
        for block in blocks:
            coo = block.tocoo()
            rows.append(np.asarray(coo.row, dtype=np.int64) + offset)
            cols.append(np.asarray(coo.col, dtype=np.int64))
            data.append(np.asarray(coo.data, dtype=float))
            offset += block.shape[0]
        return cls.of_triplets(np.concatenate(rows), np.concatenate(cols), np.concatenate(data),
                               (offset, width))

    def dense(self) -> np.ndarray:
        """The matrix as a dense array (for tests)."""
        out = np.zeros(self.shape)
        cols = np.repeat(np.arange(self.shape[1]), np.diff(self.indptr))
        np.add.at(out, (self.indices, cols), self.data)
        return out


@cache
def options() -> _core.HighsOptions:
    """The options linprog's HiGHS gets with its defaults (built once; HiGHS copies them)."""
    opts = _core.HighsOptions()
    opts.presolve = "on"
    opts.output_flag = False
    opts.log_to_console = False
    opts.highs_debug_level = int(_core.HighsDebugLevel.kHighsDebugLevelNone)
    opts.simplex_strategy = int(_core.simplex_constants.SimplexStrategy.kSimplexStrategyDual)
    return opts


def solve(c: np.ndarray, matrix: Csc, lhs: np.ndarray, rhs: np.ndarray, lb: np.ndarray,
          ub: np.ndarray) -> tuple[int, np.ndarray | None]:
    """Minimise ``c @ x`` subject to ``lhs <= matrix @ x <= rhs`` and ``lb <= x <= ub`` (infinite
    entries allowed). Returns linprog's status code (0 solved; 1 iteration limit, 2 infeasible,
    3 unbounded, 4 numerical difficulties) and ``x`` (``None`` unless solved)."""
    c = np.asarray(c, dtype=float)
    lhs = np.asarray(lhs, dtype=float)
    rhs = np.asarray(rhs, dtype=float)
    lb = np.asarray(lb, dtype=float)
    ub = np.asarray(ub, dtype=float)
    n_col, n_row = len(c), len(rhs)
    highs = _solver()
    if highs.passOptions(options()) == _core.HighsStatus.kError:
        return _status(highs.getModelStatus()), None
    # the model as linprog's HighsLp carries it, passed as arrays (HiGHS builds the same HighsLp
    # from them, without a Python-side object whose every field is converted on assignment); every
    # column continuous, as an LP's are
    passed = highs.passModel(n_col, n_row, len(matrix.data), _COLWISE, _MINIMISE, 0.0, c,
                             _finite(lb), _finite(ub), _finite(lhs), _finite(rhs),
                             np.asarray(matrix.indptr, dtype=np.int32),
                             np.asarray(matrix.indices, dtype=np.int32),
                             np.asarray(matrix.data, dtype=float), np.zeros(n_col, dtype=np.int32))
    if passed == _core.HighsStatus.kError:
        return _status(_core.HighsModelStatus.kModelError), None
    if highs.run() == _core.HighsStatus.kError:
        return _status(highs.getModelStatus()), None
    model_status = highs.getModelStatus()
    if model_status != _core.HighsModelStatus.kOptimal:
        return _status(model_status), None
    solution = highs.getSolution()
    x = np.array(solution.col_value)
    row = np.array(solution.row_value)
    fun = highs.getObjectiveValue()  # the info's objective_function_value, without copying the info
    return (0 if _valid(x, fun, rhs - row, lhs == rhs, lb, ub) else 4), x


_LOCAL = threading.local()


def _solver() -> _core._Highs:
    """This thread's HiGHS instance, made once and reused: making one costs about 70 µs, as much as
    a small program's Python work around it. Reusing it changes no answer: the options are passed
    and the model replaced on every call, and a new model clears the last one's basis and
    solution; ``tests/test_round_highs.py`` checks the answers against linprog's fresh instance bit
    for bit. One per thread, since the dashboard may run two scenarios at once."""
    highs = getattr(_LOCAL, "highs", None)
    if highs is None:
        highs = _LOCAL.highs = _core._Highs()
    return highs


def _finite(values: np.ndarray) -> np.ndarray:
    """``values`` with ``±inf`` replaced by ``±kHighsInf`` (linprog's ``_replace_inf``)."""
    infinite = np.isinf(values)
    if not infinite.any():
        return values
    out = values.copy()
    out[infinite] = np.sign(out[infinite]) * INF
    return out


def _status(model_status) -> int:
    return _SCIPY_STATUS.get(model_status, 4)


def _valid(x: np.ndarray, fun: float, slack: np.ndarray, equality: np.ndarray, lb: np.ndarray,
           ub: np.ndarray) -> bool:
    """linprog's ``_check_result`` on an optimal answer: no NaN, every bound and row kept within
    :data:`CHECK_TOLERANCE` (``slack`` is ``rhs - row value``; equality rows must be near 0)."""
    if np.isnan(x).any() or np.isnan(fun) or np.isnan(slack).any():
        return False
    tol = CHECK_TOLERANCE
    if not ((x >= lb - tol) & (x <= ub + tol)).all():
        return False
    return not ((slack[~equality] < -tol).any() or (np.abs(slack[equality]) > tol).any())
