"""A round policy as a scheduler of the simulator: at each round boundary it reads the view, asks
its round policy for an allocation when one is due, and answers with the round's batched action.

The split is Gavel's (``stanford-futuredata/gavel``, ``scheduler/scheduler.py``): the policy
computes an allocation from what it may know; the round mechanism
(:mod:`gpusched.core.rounds.mechanism`) places the round and runs it. The round problem
(:func:`round_problem`) is built from the view only:

- active jobs: the queued and the running ones, by arrival index;
- throughput of job ``i`` on GPU type ``j``: its speed there (reference-speed seconds per
  second, :mod:`gpusched.core.speed_model`), 0 where no GPU of the type could ever hold its gang;
  for a job whose speed changes as it runs, its current phase's speed
  (:mod:`gpusched.core.phase_mechanism`);
- remaining work: its declared run time less the work it has done, counted at each round's end
  (reference-speed seconds), never the true one; a job that keeps its GPUs from round to round is
  never stopped, and its work left still falls each round, as Gavel's ``_get_remaining_steps``
  (total steps less the steps run, updated at every round's end) falls; where nothing is declared
  (``declared_run_time: none``) it is unknown and given as 0, which only the policies that do not
  read it see: those that read it (``run_times``) are refused before the run;
- work left as a job that changes its batch size reports it (``reported_remaining``, with its
  current phase's ``steps_per_unit``): its epochs left at its current phase's work per epoch
  (:meth:`~gpusched.core.phase_mechanism.PhaseClock.as_reported`), read by Shockwave's readings
  of the policies only; the work left itself for every other job;
- weight, age and deadline: the job's ``weight``, its seconds since arrival, and the seconds
  left to its deadline (``inf`` for none);
- cost: the mean price of the type's GPUs per hour (1 where none is known).

For a policy that pairs jobs (``packs``, Gavel's ``max_min_fairness_packed``), the problem also lists
the candidate pairs (:func:`candidate_pairs`): every two active jobs of one GPU count whose models
Gavel measured together, each member's throughput in the pair being its throughput alone times
its measured factor (:func:`gpusched.core.gavel_speeds.colocation_factors`).

Between round boundaries the scheduler holds. A round whose policy finds no usable allocation
stops the run with one line naming the policy, the round's time and the solver's reason
(:class:`RoundFailedError`), never a traceback and never a silent fallback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from gpusched.core.actions import HOLD
from gpusched.core.cluster import ClusterState
from gpusched.core.gavel_speeds import colocation_factors
from gpusched.core.phase_mechanism import PhasedSpeeds
from gpusched.core.rounds import RoundProblem
from gpusched.core.rounds.mechanism import RoundsRun, plan_round
from gpusched.core.view import SchedulerView
from gpusched.errors import GpuschedError
from gpusched.policies.rounds.base import RoundPolicy


class RoundsOffError(GpuschedError):
    """A round policy ran on a simulator without rounds."""


class RoundFailedError(GpuschedError):
    """A round policy found no usable allocation in a round: the run stops, naming the policy, the
    round's time and the solver's reason (no fallback to the last allocation)."""


def throughput_rows(view: SchedulerView, rounds: RoundsRun, active: np.ndarray,
                    empty: ClusterState) -> np.ndarray:
    """``(m, k)`` the throughput of each job of ``active`` on each GPU type (see the module
    docstring): its current phase's speed on the type's first GPU, 0 where no GPU of the type could
    ever hold its gang (on ``empty``, the cluster with nothing placed)."""
    jobs = view.jobs
    k = len(rounds.types)
    first_of_type = np.array([int(np.flatnonzero(rounds.gpu_type == j)[0]) for j in range(k)])
    throughput = np.zeros((len(active), k))
    model = view.speed_model
    phases = view.phases
    for row, i in enumerate(active.tolist()):
        job = jobs[i]
        fits = empty.fit_mask(job)
        speeds = (None if model.uniform else model.row(job) if phases is None
                  else model.row_phase(job, int(phases.phase[i])))
        for j in range(k):
            if fits[rounds.gpu_type == j].any():
                throughput[row, j] = 1.0 if speeds is None else float(speeds[first_of_type[j]])
    return throughput


def candidate_pairs(view: SchedulerView, rounds: RoundsRun, active: np.ndarray, throughput: np.ndarray,
                    cache: dict | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs a packing policy may allocate (see the module docstring).

    :param throughput: ``(m, k)`` the active jobs' throughputs alone.
    :param cache: factors by ``(model a, model b, GPU count)``, kept across rounds.
    :returns: pair rows ``(p, 2)`` (rows of ``active``, ascending in each pair), each member's
        throughput in the pair ``(p, k, 2)`` and its speed factor ``(p, k, 2)``; no pair where a
        job's model is not named or jobs change speed as they run (phases).
    """
    k = len(rounds.types)
    empty = (np.zeros((0, 2), dtype=np.int64), np.zeros((0, k, 2)), np.zeros((0, k, 2)))
    if view.phases is not None:
        return empty
    cache = {} if cache is None else cache
    jobs = view.jobs
    found_rows, found = [], []
    listed = [(row, jobs[i].model, jobs[i].gpus) for row, i in enumerate(active.tolist())
              if jobs[i].model is not None]
    for x, (ra, model_a, size_a) in enumerate(listed):
        for rb, model_b, size_b in listed[x + 1:]:
            if size_a != size_b:
                continue
            key = (model_a, model_b, size_a)
            factor = cache.get(key)
            if factor is None:
                factor = cache[key] = np.array([colocation_factors(model_a, model_b, size_a, name)
                                                for name in rounds.types]).reshape(k, 2)
            if (factor[:, 0] * throughput[ra] > 0).any() and (factor[:, 1] * throughput[rb] > 0).any():
                found_rows.append((ra, rb))
                found.append(factor)
    if not found:
        return empty
    rows = np.array(found_rows, dtype=np.int64)
    factor = np.array(found)
    speed = np.stack([throughput[rows[:, 0]] * factor[:, :, 0], throughput[rows[:, 1]] * factor[:, :, 1]],
                     axis=2)
    both = (speed > 0).all(axis=2)
    return rows, np.where(both[:, :, None], speed, 0.0), np.where(both[:, :, None], factor, 0.0)


def job_columns(jobs) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per arrival index: GPUs, weight, arrival (min) and deadline's time (min, arrival plus the
    deadline; NaN for none), the jobs' fixed facts that :func:`round_problem` reads, as arrays."""
    gpus = np.array([job.gpus for job in jobs], dtype=np.int64)
    weight = np.array([job.weight for job in jobs], dtype=float)
    arrival = np.array([job.arrival_min for job in jobs], dtype=float)
    due = np.array([np.nan if job.deadline_min is None else job.arrival_min + job.deadline_min
                    for job in jobs], dtype=float)
    return gpus, weight, arrival, due


def type_costs(view: SchedulerView, rounds: RoundsRun) -> np.ndarray:
    """``(k,)`` the mean price of each GPU type's GPUs per hour (1 where none is known; the
    prices are the run's, fixed)."""
    prices = view.prices
    cost = np.ones(len(rounds.types))
    if prices is not None:
        for j in range(len(rounds.types)):
            typed = np.asarray(prices)[rounds.gpu_type[:view.cluster.n_gpus] == j]
            typed = typed[np.isfinite(typed)]
            if len(typed):
                cost[j] = max(float(typed.mean()), 1e-9)
    return cost


def round_problem(view: SchedulerView, rounds: RoundsRun, active: np.ndarray,
                  empty: ClusterState, throughput: np.ndarray | None = None,
                  pairs: tuple[np.ndarray, np.ndarray] | None = None,
                  columns: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None,
                  cost: np.ndarray | None = None) -> RoundProblem:
    """The round problem of the active jobs, read from the view (see the module docstring).

    :param empty: the cluster with nothing placed (which types could ever hold a gang).
    :param throughput: ``(m, k)`` the active jobs' :func:`throughput_rows`, when known already.
    :param pairs: ``(pair rows, pair throughputs)`` of :func:`candidate_pairs`, or ``None``.
    :param columns: the view's :func:`job_columns`, when known already.
    :param cost: the view's :func:`type_costs`, when known already.
    """
    jobs = view.jobs
    if throughput is None:
        throughput = throughput_rows(view, rounds, active, empty)
    gpus, weights, arrival, due = job_columns(jobs) if columns is None else columns
    now = view.time_min
    scale, weight = gpus[active], weights[active]
    due = due[active]
    dated = ~np.isnan(due)
    deadline = np.full(len(active), np.inf)
    deadline[dated] = np.maximum((due[dated] - now) * 60.0, 1e-9)
    work = rounds.work_min[active].sum(axis=1)
    left = np.asarray(view.declared_min, dtype=float)[active] - work
    known = np.isfinite(left)
    # unknown (not finite): 0, see the docstring
    remaining = np.where(known, np.maximum(left, 0.0) * 60.0, 0.0)
    clocks = view.speed_model.clocks if isinstance(view.speed_model, PhasedSpeeds) else None
    report_share = steps = None  # what a phased job reports ÷ its work left; its steps per unit
    if clocks:
        for row, i in enumerate(active.tolist()):
            clock = clocks.get(jobs[i].id)
            if clock is not None:
                if report_share is None:
                    report_share, steps = np.ones(len(active)), np.ones(len(active))
                report_share[row], steps[row] = clock.as_reported(float(work[row]))
    cost = type_costs(view, rounds) if cost is None else cost
    age = (now - arrival[active]) * 60.0
    return RoundProblem(throughput=throughput, scale_factor=scale,
                        capacity=rounds.capacity(np.asarray(view.gpu_down(), dtype=bool)),
                        weight=weight, remaining=remaining, age_s=np.maximum(age, 0.0),
                        service_s=None, deadline_s=deadline, cost=cost, type_names=rounds.types,
                        job_ids=active, reference_type=None,
                        pair_jobs=None if pairs is None else pairs[0],
                        pair_throughput=None if pairs is None else pairs[1],
                        reported_remaining=None if report_share is None else remaining * report_share,
                        steps_per_unit=steps)


class RoundScheduler:
    """A round policy run in rounds (see the module docstring).

    :param policy: the round policy (:mod:`gpusched.policies.rounds`).
    :param weights: per-job weight multipliers read from the view, ``weights(view, active)`` ->
        ``(m,)`` floats > 0, by which the round problem's weights are multiplied each time an
        allocation is computed (:mod:`gpusched.policies.rounds.weights`); only for a policy that
        honours weights (``policy.weighted``). ``None``: the jobs' own weights.
    :param name: the name reported in results (default the policy's).
    """

    def __init__(self, policy: RoundPolicy,
                 weights: Callable[[SchedulerView, np.ndarray], np.ndarray] | None = None,
                 name: str | None = None):
        if weights is not None and not policy.weighted:
            raise ValueError(f"round policy '{policy.name}' does not honour per-job weights")
        self.policy = policy
        self.weights = weights
        self.name = policy.name if name is None else name
        self._empty: ClusterState | None = None
        self._rows: dict[tuple[int, int], np.ndarray] = {}
        """Each job's throughput per type, by arrival index and phase (fixed for a run)."""
        self._fits: dict[tuple[int, tuple[int, ...]], bool] = {}
        self._factors: dict[tuple[str, str, int], np.ndarray] = {}
        """Pair speed factors by job models and GPU count (fixed for a run)."""
        self._last: tuple | None = None
        """``(key, throughput, scale)`` of the last active set read (see :meth:`_active_rows`)."""
        self._columns: tuple | None = None
        """The run's :func:`job_columns` (its jobs are fixed for the run)."""
        self._cost: np.ndarray | None = None
        """The run's :func:`type_costs` (its prices are fixed for the run)."""

    def bind(self, view: SchedulerView) -> None:
        """Ask for a decision at every event (a round's end may come with an empty queue)."""
        if view.rounds is None:
            raise RoundsOffError(f"policy '{self.name}' runs in rounds: build the simulator with rounds "
                                 "(the scenario's rounds: block)")
        self._empty = ClusterState(view.cluster)
        self._rows, self._fits, self._factors, self._last = {}, {}, {}, None
        self._columns = job_columns(view.jobs)
        self._cost = type_costs(view, view.rounds)
        view.request_event_decisions()

    def _active_rows(self, view: SchedulerView, rounds: RoundsRun, active: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
        """``(m, k)`` the active jobs' throughputs and ``(m,)`` their GPU counts, both read-only;
        the last ones again while the active jobs (and their phases) stay the same, as they do
        from one round to the next between arrivals and completions."""
        phases = view.phases
        key = (active.tobytes(), None if phases is None else phases.phase[active].tobytes())
        last = self._last
        if last is not None and last[0] == key:
            return last[1], last[2]
        throughput = self._throughput(view, rounds, active)
        scale = self._columns[0][active]
        throughput.flags.writeable = scale.flags.writeable = False
        self._last = (key, throughput, scale)
        return throughput, scale

    def _throughput(self, view: SchedulerView, rounds: RoundsRun, active: np.ndarray) -> np.ndarray:
        """``(m, k)`` the active jobs' throughputs (a job's row is read once a run)."""
        phases = view.phases
        keys = [(i, 0 if phases is None else int(phases.phase[i])) for i in active.tolist()]
        rows, missing = self._rows, [key for key in keys if key not in self._rows]
        if missing:
            fresh = throughput_rows(view, rounds, np.array([i for i, _ in missing], dtype=np.int64),
                                    self._empty)
            for key, row in zip(missing, fresh, strict=True):
                rows[key] = row
        return np.array([rows[key] for key in keys]).reshape(len(active), len(rounds.types))

    def decide(self, view: SchedulerView):
        """HOLD between rounds; at a round boundary, the round's batched action."""
        rounds: RoundsRun = view.rounds
        queue, running = view.queue, view.running_indices()
        if not rounds.due(len(queue) + len(running), view.arrivals_left):
            return 0, HOLD
        active = np.array(sorted([*queue, *running]), dtype=np.int64)
        jobs, rule, empty, fits = view.jobs, view.gang_rule, self._empty, self._fits
        share, solve_s, pairs = None, 0.0, None
        throughput, scale = self._active_rows(view, rounds, active)
        if rounds.needs_allocation(view.time_min, active):
            try:
                candidates = (candidate_pairs(view, rounds, active, throughput, self._factors)
                              if self.policy.packs else None)
                problem = round_problem(view, rounds, active, empty, throughput,
                                        None if candidates is None else candidates[:2], self._columns,
                                        self._cost)
                if self.weights is not None:
                    problem = replace(problem, weight=problem.weight * self.weights(view, active))
                allocation = self.policy(problem)
                allocation.check(problem, capacity=not self.policy.oversubscribes)
            except GpuschedError as exc:  # a solver failure or a malformed allocation: said, and stop
                raise RoundFailedError(f"policy '{self.name}', the round at minute {view.time_min:,.1f} "
                                       f"(round {rounds.rounds + 1}): {exc}") from None
            share, solve_s = allocation.share, allocation.solve_s
            if candidates is not None:
                pair_share = (np.zeros((len(candidates[0]), len(rounds.types)))
                              if allocation.pair_share is None else allocation.pair_share)
                pairs = (active[candidates[0]], pair_share, candidates[2])

        def can_place(row: int, gang: tuple[int, ...]) -> bool:
            key = (int(active[row]), gang)
            ok = fits.get(key)
            if ok is None:
                ok = fits[key] = rule.can_place(empty, jobs[key[0]], gang)
            return ok

        plan = plan_round(rounds, view.time_min, active, set(running), view.job_gpus, scale,
                          throughput, np.asarray(view.gpu_down(), dtype=bool),
                          can_place, share, agnostic=self.policy.agnostic, fifo=self.policy.fifo,
                          solve_s=solve_s, pairs=pairs)
        return 0, plan
