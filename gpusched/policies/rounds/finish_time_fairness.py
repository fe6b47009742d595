"""Finish-time fairness (Themis): ``finish_time_fairness`` and ``finish_time_fairness_perf``.

Source: Themis (Mahajan et al., "Themis: Fair and Efficient GPU Cluster Scheduling", NSDI 2020)
as Gavel casts it (Narayanan et al., OSDI 2020, §4.1); ``stanford-futuredata/gavel``,
``scheduler/policies/finish_time_fairness.py`` (``FinishTimeFairnessPolicy``,
``FinishTimeFairnessPolicyWithPerf``). Read, not copied.

**Program (``_perf``).** Variables ``x[i, j]`` (fraction of time) and ``rho`` (no unit). Job
``i`` has been in the system ``age_s[i]`` seconds and has ``remaining[i]`` work units left; under
``x`` its throughput is ``T_i = sum_j throughput[i, j] x[i, j]`` (work units/s), so it would finish
``age_s + remaining / T_i`` seconds after its arrival; on its equal share (the agnostic max-min
allocation, throughput ``isolated[i]``) it would take ``D_i = age_s + remaining / isolated``.
Minimise ``rho`` subject to the base constraints and, for each job,
``(age_s[i] + remaining[i] / T_i) / D_i <= rho``, i.e. ``T_i >= remaining[i] / (rho D_i - age_s[i])``.

Written in ``T_i``, each ratio is linear over linear, ``(age_s T_i + remaining) / (D_i T_i)``,
so the program is a generalised linear-fractional program, solved by the Dinkelbach-type method of
Crouzeix, Ferland and Schaible (J. Optim. Theory Appl. 47, 1985) in its normalised form: from
``x_0`` the equal share and ``rho_0`` the largest ratio it reaches (exactly 1 when ``D_i`` counts
the age), step ``k`` solves the
linear program "minimise ``theta`` subject to the base constraints and
``(remaining + (age_s - rho_k D_i) T_i) / (D_i T_i(x_k)) <= theta`` for each job", and
``rho_{k+1}`` is the largest ratio its answer reaches. ``rho`` never rises, and converges
superlinearly; the steps stop when it falls by less than :data:`RHO_TOLERANCE` (relative) or after
:data:`MAX_STEPS` programs. Gavel solves the same program in one go with ECOS and
``cvxpy.inv_pos``; it prints "not optimal" on some rounds and uses the answer anyway. A second
program keeps every job within the ``rho`` found and maximises the sum of ``T_i / isolated[i]``.

**Weights.** Gavel's file reads the priority weights and leaves them unused (its own "TODO");
they are unused here too.

**Shockwave's reading** (``finish_time_fairness_shockwave``, :class:`FinishTimeFairnessShockwave`):
``D_i`` counts the job's isolated time so far instead of its age.

**Program (agnostic).** The same with every throughput 1 (Gavel's twin): ``T_i`` is then the job's
total time share and ``remaining`` counts as seconds, on the pooled cluster, then split evenly over
the types (:mod:`~gpusched.policies.rounds.agnostic`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpusched.core.rounds.problem import Allocation, RoundProblem
from gpusched.policies.rounds import agnostic, highs, lp
from gpusched.policies.rounds.base import RoundPolicy
from gpusched.policies.rounds.max_min_fairness import isolated_throughput

RHO_TOLERANCE = 1e-4
"""Stop when ``rho`` falls by less than this fraction in a step."""

MAX_STEPS = 12
"""At most this many max-min programs in the search for ``rho``."""

MAX_FILLS = 16
"""At most this many programs in :func:`spread_shares`'s filling (each one after the first caps at
least one more job at its full share)."""


def finish_time_shares(problem: RoundProblem, isolated: np.ndarray, policy: str,
                       isolated_so_far_s: np.ndarray | None = None,
                       spread_unit: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """``(n, k)`` the finish-time fair allocation given each job's equal-share throughput, and the
    number of programs solved.

    :param isolated_so_far_s: ``(n,)`` the first term of ``D_i``, the seconds the job's progress
        so far would have taken on its equal share (Shockwave's reading); ``None``: its age
        (Gavel's).
    :param spread_unit: ``(n,)`` when given, what is left once every job has the throughput that
        keeps it within ``rho`` is spread evenly over the jobs (:func:`spread_shares`, one unit of
        time share being worth ``spread_unit[i]`` to job ``i``) instead of going where the sum of
        ``T_i / isolated[i]`` is largest (the second program).
    """
    counted = (problem.runnable & (problem.capacity[None, :] > 0)).any(axis=1) & (isolated > 0)
    if not counted.any():
        return np.zeros((problem.n_jobs, problem.n_types)), 0
    rem, age = problem.remaining, problem.age_s
    safe_iso = np.where(isolated > 0, isolated, 1.0)
    ideal = (age if isolated_so_far_s is None else isolated_so_far_s) + rem / safe_iso

    def need(rho: float) -> np.ndarray:
        slack = rho * ideal - age
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(slack > 0, rem / slack, np.inf)
        out[~counted | (rem <= 0)] = 0.0
        return out

    def achieved(share: np.ndarray) -> float:
        rate = (problem.throughput * share).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(rem > 0, (age + rem / rate) / ideal, 1.0)
        return float(ratio[counted].max())

    entries = lp.Entries.of(problem.runnable & (problem.capacity[None, :] > 0))
    steps = counted & (rem > 0)
    m = len(entries)
    lb = np.zeros(m + 1)
    lb[-1] = -np.inf  # theta is free
    rate = isolated.copy()  # T_i(x_0): the equal share
    with np.errstate(divide="ignore", invalid="ignore"):  # rho at x_0: 1 when D_i counts the age
        start = np.where(rem > 0, (age + rem / safe_iso) / ideal, 1.0)
    rho, programs = float(start[counted].max()), 0
    while programs < MAX_STEPS and steps.any():
        scale = ideal[steps] * rate[steps]  # D_i T_i(x_k)
        coef = (age[steps] - rho * ideal[steps]) / scale
        c = np.zeros(m + 1)
        c[-1] = 1.0
        matrix, b_ub = ratio_program(problem, entries, steps, coef, -rem[steps] / scale)
        x = lp.solve_csc(c, matrix, b_ub, lb, np.full(m + 1, np.inf), policy, "finish-time program")
        programs += 1
        candidate = entries.unflatten(x)
        reached = achieved(candidate)
        if reached < rho:  # the next step is normalised by this answer's throughputs
            rate = (problem.throughput * candidate).sum(axis=1)
        if reached >= rho * (1.0 - RHO_TOLERANCE):
            break
        rho = reached
    if spread_unit is not None:
        share, fills = spread_shares(problem, entries, need(rho), spread_unit, policy)
        return share, programs + fills
    floor = need(rho) / safe_iso
    value = problem.throughput / safe_iso[:, None]
    x = lp.maximise_values(problem, entries, value, floor, policy, counted=floor > 0)
    return entries.unflatten(x), programs + 1


def spread_shares(problem: RoundProblem, entries: lp.Entries, need: np.ndarray, unit: np.ndarray,
                  policy: str) -> tuple[np.ndarray, int]:
    """``(n, k)`` an allocation that gives each job at least the throughput ``need[i]`` and spreads
    the rest of the cluster evenly: each job's throughput is raised above its need by the same
    number ``lam`` of time-share units (``T_i >= need_i + lam * unit_i``), ``lam`` as large as the
    cluster allows, a job that reaches its full share on its fastest type being held there while
    the others rise further (progressive filling, at most :data:`MAX_FILLS` programs); and the
    number of programs solved (one on a single GPU type, where the optima of the programs before
    the last are known in closed form: :func:`_last_fill`; the allocation is the same bit for bit).

    Why: Shockwave's ``finish_time_fairness.py`` (``uw-mad-dash/shockwave``,
    ``FinishTimeFairnessPolicyWithPerf.get_allocation``) solves only the min-max program, with
    cvxpy and ECOS (its driver's ``--solver ECOS``), and takes the solver's point as it is. The
    optimal allocations form a large set (only the jobs at ``rho`` are pinned), and an interior-point
    solver such as ECOS stops inside it, where every job keeps some slack: on the
    ``shockwave-tacc-32gpu`` trace's programs, solved again with cvxpy and ECOS, every job got more
    than it needs, by a nearly equal time share among jobs of one gang size (a little less for
    larger gangs). A second program that maximises a sum of throughputs picks a vertex of that set
    instead; with Shockwave's even-split isolated throughputs each GPU-second is worth the same to
    every job there, so the choice is the solver's and gave the whole rest to a few jobs (the
    latest arrivals). Equal time share above the need is this module's reading of the interior
    point, not the solver's exact answer.
    """
    n, m = problem.n_jobs, len(entries)
    thr = problem.throughput[entries.rows, entries.cols]
    live = thr > 0
    counted = np.zeros(n, dtype=bool)
    counted[entries.rows[live]] = True
    counted &= unit > 0
    if not counted.any():
        return np.zeros((n, problem.n_types)), 0
    floor = np.where(counted, need, 0.0) * (1.0 - lp.STAGE_TWO_SLACK)
    usable = np.zeros((n, problem.n_types))
    usable[entries.rows, entries.cols] = problem.throughput[entries.rows, entries.cols]
    safe_unit = np.where(unit > 0, unit, 1.0)
    room = np.where(counted, np.maximum(usable.max(axis=1) - floor, 0.0) / safe_unit, 0.0)
    c = np.zeros(m + 1)
    c[-1] = -1.0

    def solve(level: np.ndarray) -> np.ndarray:
        """The filling's program with the jobs of ``level`` held there, the others rising."""
        rising = counted & np.isnan(level)
        matrix, b_base = lp.with_job_rows(problem, entries, counted, -thr,
                                          last=np.where(rising, unit, 0.0))
        held = np.where(np.isnan(level), 0.0, level) * unit
        b_ub = np.concatenate([b_base, -(floor + held)[counted]])
        return lp.solve_csc(c, matrix, b_ub, np.zeros(m + 1), np.full(m + 1, np.inf), policy,
                            "finish-time spread program")

    def reaches(level: np.ndarray, lam: float) -> np.ndarray:
        """The rising jobs a program whose optimum is ``lam`` holds at their full share."""
        return counted & np.isnan(level) & (room <= lam * (1.0 + 1e-9) + 1e-12)

    if problem.n_types == 1:  # the programs before the last one have known optima (see _last_fill)
        last = _last_fill(problem, counted, floor, unit, room, reaches)
        if last is not None:
            level, full = last
            x = solve(level)
            if np.array_equal(reaches(level, float(x[-1])), full):
                return entries.unflatten(x), 1
    level = np.full(n, np.nan)  # the extra share of a job held at its full share; nan while it rises
    programs, x = 0, None
    while programs < MAX_FILLS:
        rising = counted & np.isnan(level)
        if not rising.any():
            break
        x = solve(level)
        programs += 1
        full = reaches(level, float(x[-1]))
        if not full.any():
            break
        level[full] = room[full]
    return entries.unflatten(x), programs


FILL_MARGIN = 1e-6
"""How close (relative) a job's full share may come to a program's optimum for
:func:`_last_fill` to leave the question to the solver."""


def _last_fill(problem: RoundProblem, counted: np.ndarray, floor: np.ndarray, unit: np.ndarray,
               room: np.ndarray, reaches: Callable[[np.ndarray, float], np.ndarray]
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """On one GPU type, the levels in force at the last program :func:`spread_shares`'s filling
    solves (at most :data:`MAX_FILLS`) and the jobs that program holds at their full share;
    ``None`` where the filling's course is not certain without solving.

    On one type each program's optimum is known in closed form: job ``i`` needs the time share
    ``(floor_i + h_i) / throughput_i`` (``h_i`` its held level times its unit, or ``lam`` times its
    unit while it rises), at most 1, and the shares times the gang sizes fill the type's GPUs, so
    ``lam`` is the least of the rising jobs' full-share levels and the level at which the GPUs
    are full. Which jobs a program holds at their full share follows from ``lam``; only the last
    program's answer (the allocation) is needed from the solver, and its own ``lam`` is checked
    against the one computed here by the caller. A job whose full-share level lies within
    :data:`FILL_MARGIN` of ``lam`` (other than the jobs whose full share sets ``lam``), a program
    with no finite optimum or none at all, leaves the filling to the solver, program by
    program."""
    n = problem.n_jobs
    thr = problem.throughput[:, 0]
    safe_thr = np.where(thr > 0, thr, 1.0)
    gpus = problem.scale_factor.astype(float) / safe_thr
    capacity = float(problem.capacity[0])
    if (counted & (thr < floor)).any():  # a job's floor above its full share: no program is feasible
        return None
    level = np.full(n, np.nan)
    programs = 0
    while True:
        rising = counted & np.isnan(level)
        held = np.where(np.isnan(level), 0.0, level) * unit
        slope = float((gpus * unit)[rising].sum())
        lam = full_at = float(room[rising].min())
        if slope > 0:
            lam = min(lam, (capacity - float((gpus * (floor + held))[counted].sum())) / slope)
        if not (np.isfinite(lam) and lam >= 0):
            return None
        edge = lam * (1.0 + 1e-9) + 1e-12
        near = rising & (np.abs(room - edge) <= FILL_MARGIN * max(abs(lam), 1e-12))
        if (near & ~((room == lam) & (lam == full_at))).any():  # at lam's own full share: no doubt
            return None
        programs += 1
        full = reaches(level, lam)
        if not full.any() or programs == MAX_FILLS or not (rising & ~full).any():
            return level, full
        level = np.where(full, room, level)


def ratio_program(problem: RoundProblem, entries: lp.Entries, steps: np.ndarray, coef: np.ndarray,
                  bound: np.ndarray) -> tuple[highs.Csc, np.ndarray]:
    """A step's ``(A_ub, b_ub)`` over the entries then ``theta``: the base rows, then one row
    ``coef_i T_i(x) - theta <= bound_i`` per job in ``steps`` (``coef`` and ``bound`` given for
    those jobs, in order). An entry whose ``coef_i * throughput`` is 0 is left out: the scipy.sparse
    product this program was built with before left it out, and HiGHS must see the same matrix."""
    coef_by_job = np.zeros(entries.n)
    coef_by_job[steps] = coef
    product = coef_by_job[entries.rows] * problem.throughput[entries.rows, entries.cols]
    matrix, b_base = lp.with_job_rows(problem, entries, steps, product, last=np.full(entries.n, -1.0))
    return matrix, np.concatenate([b_base, bound])


class FinishTimeFairnessPerf(RoundPolicy):
    """Gavel's ``finish_time_fairness_perf`` (Themis's ρ, heterogeneity-aware)."""

    name = "finish_time_fairness_perf"
    label = "Finish-time fairness (Themis, per-type speeds)"
    run_times = True

    def solve(self, problem: RoundProblem) -> Allocation:
        isolated, programs = isolated_throughput(problem, self.name)
        share, more = finish_time_shares(problem, isolated, self.name)
        return Allocation(share=share, programs=programs + more)


class FinishTimeFairness(RoundPolicy):
    """Gavel's ``finish_time_fairness``: Themis's ρ with every type treated as equal."""

    name = "finish_time_fairness"
    label = "Finish-time fairness (Themis)"
    run_times = True
    agnostic = True

    def solve(self, problem: RoundProblem) -> Allocation:
        equal = RoundProblem(
            throughput=problem.fits.astype(float), scale_factor=problem.scale_factor,
            capacity=problem.capacity, weight=problem.weight, remaining=problem.remaining,
            age_s=problem.age_s, type_names=problem.type_names, job_ids=problem.job_ids)
        target = agnostic.pooled(equal, np.ones(problem.n_jobs)) if agnostic.can_pool(equal) else equal
        isolated, programs = isolated_throughput(target, self.name)
        share, more = finish_time_shares(target, isolated, self.name)
        return Allocation(share=agnostic.even_split(problem, share.sum(axis=1), self.name),
                          programs=programs + more + (0 if agnostic.can_pool(equal) else 1))


def split_share(problem: RoundProblem) -> np.ndarray:
    """``(n, k)`` Shockwave's *isolated* share (``uw-mad-dash/shockwave``,
    ``scheduler/policies/isolated.py``, ``IsolatedPolicy._get_allocation``; read, not copied): the
    GPUs of each type split evenly over the ``n`` jobs, ``x[i, j] = capacity[j] / (n *
    scale_factor[i])`` of the time, each row scaled down to sum to at most 1, with no
    redistribution of what a job cannot use."""
    n = problem.n_jobs
    x = problem.capacity[None, :] / (n * problem.scale_factor[:, None].astype(float))
    return x / np.maximum(x.sum(axis=1), 1.0)[:, None]


def split_throughput(problem: RoundProblem, split: np.ndarray | None = None) -> np.ndarray:
    """``(n,)`` each job's throughput on Shockwave's isolated share (``split``, default
    :func:`split_share`'s; Gavel's reading is the max-min fair share,
    :func:`~gpusched.policies.rounds.max_min_fairness.isolated_throughput`)."""
    return (problem.throughput * (split_share(problem) if split is None else split)).sum(axis=1)


class FinishTimeFairnessShockwave(RoundPolicy):
    """Shockwave's ``finish_time_fairness``: the finish-time fairness that drove Shockwave's real
    cluster (``uw-mad-dash/shockwave``, ``scheduler/policies/finish_time_fairness.py``,
    ``FinishTimeFairnessPolicyWithPerf.get_allocation``; read, not copied).

    The program is :class:`FinishTimeFairnessPerf`'s, with one difference in ``D_i``, the time the
    job would take on its equal share: Gavel's file counts its past as its age, Shockwave's as its
    *isolated time so far*, the sum over earlier computations of the work the job did since the
    previous one divided by the equal-share throughput it had then
    (``_cumulative_isolated_time``). A job that waited has an isolated time below its age, so its
    ``rho`` is higher and it is served sooner. The work done is read, as Shockwave reads it, from
    the fall of the steps left between two computations, over the isolated steps per second of the
    earlier one, with no floor. And the equal share is Shockwave's even split of the GPUs over the
    jobs (:func:`split_throughput`), not Gavel's max-min share.

    A job that changes its batch size reports its steps left at its current batch size
    (``RoundProblem.reported_remaining`` and ``steps_per_unit``): its remaining time is read as if
    its batch size stayed, and at a change its steps left jump (half as many at a doubled batch
    size), so the fall between two computations, and the isolated time so far summed from it,
    jump with them (up at a larger batch size, down at a smaller), as in Shockwave's file.

    Shockwave's file solves the min-max program alone and keeps its interior-point solver's answer,
    in which every job has some slack; the rest of the cluster, once each job has what keeps it
    within ``rho``, is therefore spread evenly over the jobs here (:func:`spread_shares`, one unit
    being a time share on the job's even split), where Gavel's readings keep their second program.

    Shockwave's heterogeneity-agnostic twin reads every type's throughput as the V100's; on its
    cluster of V100s only that is this program, so the name stands for both.
    """

    name = "finish_time_fairness_shockwave"
    label = "Finish-time fairness (Shockwave's Themis)"
    run_times = True

    def __init__(self) -> None:
        self._isolated_so_far: dict[int, float] = {}  # job id -> s
        self._last: dict[int, tuple[float, float]] = {}  # job id -> (steps left, isolated steps/s)

    def solve(self, problem: RoundProblem) -> Allocation:
        split = split_share(problem)
        isolated = split_throughput(problem, split)
        ids = [int(v) for v in problem.job_ids]
        steps_left = problem.reported_remaining * problem.steps_per_unit
        steps_per_s = isolated * problem.steps_per_unit
        so_far = np.zeros(problem.n_jobs)
        for i, job in enumerate(ids):
            total = self._isolated_so_far.get(job, 0.0)
            last = self._last.get(job)
            if last is not None and last[1] > 0:  # the fall of its steps left, as Shockwave's
                total += (last[0] - float(steps_left[i])) / last[1]
            self._isolated_so_far[job] = so_far[i] = total
        self._last = {job: (float(steps_left[i]), float(steps_per_s[i])) for i, job in enumerate(ids)}
        held = split.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            unit = np.where(held > 0, isolated / held, 0.0)  # throughput per unit of time share
        share, more = finish_time_shares(problem.as_reported(), isolated, self.name, so_far, spread_unit=unit)
        return Allocation(share=share, programs=more)
