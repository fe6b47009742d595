"""The fixed parts of a run: the cluster, the workload in arrival order, the mechanisms and the
limits, resolved once from the simulator's arguments and shared by the run and every fork.

:class:`RunSetup` checks the arguments, picks each mechanism's default (the speed model, the gang
rule, the restore model, the run-time estimator), works out the prices, every job's best speed
and the safety horizon, and starts a run (:meth:`RunSetup.start`: a fresh
:class:`~gpusched.core.run_state.RunState`, with its own failure process and estimator).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence

from gpusched.core.cluster import Cluster
from gpusched.core.estimator import DeclaredRuntime, RuntimeEstimator
from gpusched.core.events import EventKinds
from gpusched.core.failures import FailureSpec, NodeFailures, safety_horizon_min
from gpusched.core.gang import GangRule, SameNodeGang
from gpusched.core.jobs import Job, check_jobs_feasible
from gpusched.core.phase_mechanism import PhasedSpeeds, PhasedWork, PhaseMechanism
from gpusched.core.prices import gpu_prices
from gpusched.core.restore import CheckpointRestore, RestoreModel
from gpusched.core.reward import RewardSpec
from gpusched.core.rounds.mechanism import ROUND_GUARD_MIN, RoundMechanism, RoundSpec
from gpusched.core.run_state import RunState
from gpusched.core.speed import GpuSpeeds
from gpusched.core.speed_model import SpeedModel, TableSpeeds

DEFAULT_PREEMPTION_MIN_RUN_MIN = 10.0
"""Minutes a job runs (after its restore) since it last started before it may be preempted."""


class RunSetup:
    """The fixed parts of a run (see the module docstring).

    :param cluster: the cluster topology.
    :param jobs: the workload (any order; ids must be unique).
    :param reward: reward weights (see :mod:`gpusched.core.reward`).
    :param util_band: target band of cluster utilisation (fractions 0-1).
    :param horizon_min: end the run at this time (minutes), or ``None`` to run until done (with
        failures: until done or the safety horizon). Not before the first arrival, where the
        clock starts (``ValueError``; a scenario refuses it naming ``horizon_min``).
    :param check_feasible: refuse jobs that no node could ever hold (raises
        :class:`~gpusched.errors.InfeasibleJobError`).
    :param window: queued jobs the scheduler may start (1 is a strict FIFO queue).
    :param failures: node failures and repairs (``None`` or a rate of 0: nodes never fail).
    :param failure_seed: seed of the failure process (see
        :meth:`~gpusched.core.failures.FailureSpec.seed_for`).
    :param preemption_min_run_min: minutes a job runs after it (re)starts, not counting its
        restore, before it may be preempted (must be > 0).
    :param speed_model: the speed model, e.g. :class:`~gpusched.core.speed_model.TableSpeeds` of a
        speed table (default: every GPU at speed 1.0).
    :param gang_rule: the gang rule (default: the cluster's own, else
        :class:`~gpusched.core.gang.SameNodeGang`).
    :param restore: the restore model, e.g. :class:`~gpusched.core.restore.CheckpointRestore` of a
        scenario's ``checkpoint:`` block (default: no job checkpoints, and a resumption costs
        nothing).
    :param estimator: the run-time estimator, or a function of the jobs in arrival order that
        builds one (default: :class:`~gpusched.core.estimator.DeclaredRuntime`).
    :param prices: USD per GPU-hour per GPU model (default: the shipped table of
        :mod:`gpusched.core.prices`); fixed for the run, read by the cost metrics and by
        price-aware placements, never by the dynamics.
    :param rounds: run in rounds (:mod:`gpusched.core.rounds.mechanism`; ``None``: no rounds);
        the preemption guard is then :data:`~gpusched.core.rounds.mechanism.ROUND_GUARD_MIN`.
    :param round_seed: the seed of the rounds' type order (agnostic policies).
    :param phases: the jobs whose speed changes as they run, and the reference GPU model
        (:mod:`gpusched.core.phase_mechanism`; ``None``: every job is rigid).
    """

    def __init__(
        self,
        cluster: Cluster,
        jobs: Sequence[Job],
        *,
        reward: RewardSpec | None = None,
        util_band: tuple[float, float] = (0.6, 0.8),
        horizon_min: float | None = None,
        check_feasible: bool = True,
        window: int = 1,
        failures: FailureSpec | None = None,
        failure_seed: int = 0,
        preemption_min_run_min: float = DEFAULT_PREEMPTION_MIN_RUN_MIN,
        speed_model: SpeedModel | None = None,
        gang_rule: GangRule | None = None,
        restore: RestoreModel | None = None,
        estimator: RuntimeEstimator | Callable[[list[Job]], RuntimeEstimator] | None = None,
        prices: Mapping[str, float] | None = None,
        rounds: RoundSpec | None = None,
        round_seed: int = 0,
        phases: PhasedWork | None = None,
    ):
        if check_feasible:
            check_jobs_feasible(jobs, cluster)
        if window < 1:
            raise ValueError(f"window must be at least 1, got {window}")
        if not preemption_min_run_min > 0:
            raise ValueError(f"preemption_min_run_min must be > 0, got {preemption_min_run_min}")
        self.cluster = cluster
        self.window = int(window)
        self.speed_model: SpeedModel = speed_model or TableSpeeds(cluster, None)
        self.speeds: GpuSpeeds | None = self.speed_model.table
        """The speed model's table, or ``None`` (the observations show its rows per job type)."""
        clocks = {} if phases is None else phases.clocks(jobs)
        if clocks:  # a phased job's speed is its phase's (gpusched.core.phase_mechanism)
            self.speed_model = PhasedSpeeds(self.speed_model, cluster, clocks)
        self.gang_rule: GangRule = gang_rule or cluster.gang_rule or SameNodeGang(cluster)
        self.all_jobs: list[Job] = sorted(jobs, key=lambda j: (j.arrival_min, j.id))
        """The workload in arrival order (a run's own jobs, which a fork may cut or change, are
        :attr:`RunState.jobs <gpusched.core.run_state.RunState>`)."""
        if horizon_min is not None and self.all_jobs and horizon_min < self.all_jobs[0].arrival_min:
            # the clock starts at the first arrival: an earlier horizon would run it backwards
            raise ValueError(f"horizon_min ({horizon_min:g}) is before the first arrival "
                             f"({self.all_jobs[0].arrival_min:g})")
        if callable(estimator) and not hasattr(estimator, "declared_min"):
            estimator = estimator(self.all_jobs)
        self._estimator0: RuntimeEstimator = estimator or DeclaredRuntime(self.all_jobs)
        self.gpu_price_usd_per_hour = gpu_prices(cluster.gpu_model, prices)
        self.gpu_price_usd_per_hour.flags.writeable = False
        """USD per GPU-hour of each GPU (NaN: no price), by GPU index."""
        self.best_speed_all = self.speed_model.best(self.all_jobs)
        self.best_speed_all.flags.writeable = False  # shared with every fork
        """The fastest speed any gang of the cluster that could ever hold each job offers it
        (1.0 without a speed table), by arrival index."""
        self.reward_spec = reward or RewardSpec()
        self.util_band = util_band
        self.horizon_min = horizon_min
        rate = 0.0 if failures is None else failures.node_failures_per_1000_node_days
        self.failures = failures if rate > 0 else None
        self.failure_seed = int(failure_seed)
        self.preemption_min_run_min = float(ROUND_GUARD_MIN if rounds is not None else preemption_min_run_min)
        self.mechanisms: tuple[RoundMechanism | PhaseMechanism, ...] = (
            (() if not clocks else (PhaseMechanism(clocks, cluster),))
            + (() if rounds is None else (RoundMechanism(rounds, round_seed),)))
        """Mechanisms plugged into the loop beside the lifecycle: each registers its event kinds,
        starts its part of a new run and sees each batched action (phases and rounds, when asked for)."""
        self.restore: RestoreModel = restore or CheckpointRestore(None)
        self.safety_horizon = horizon_min is None and self.failures is not None and bool(self.all_jobs)
        """Whether ``horizon_min`` is the run's safety horizon (failures and no horizon given)."""
        if self.safety_horizon:
            restore_of = self.restore.resume_cost_min
            self.horizon_min = safety_horizon_min(self.all_jobs, self.failures,
                                                  lambda job: restore_of(job, ()), self.speeds)

    def until(self, horizon_min: float) -> RunSetup:
        """The same setup ending at ``horizon_min`` (minutes) or at its own horizon if that is
        earlier: a shallow copy (every part shared) for a fork that stops there
        (:meth:`Simulator.fork <gpusched.core.simulator.Simulator.fork>`); its end reason is
        ``horizon``, and it is never before the copy's clock (the caller's to ensure)."""
        twin = copy.copy(self)
        if self.horizon_min is None or horizon_min < self.horizon_min:
            twin.horizon_min = float(horizon_min)
            twin.safety_horizon = False
        return twin

    def start(self, kinds: EventKinds) -> RunState:
        """A run at its start (a fresh failure process and estimator), whose events have ``kinds``."""
        jobs = self.all_jobs
        failures = (None if self.failures is None else
                    NodeFailures(self.cluster.n_nodes, self.failures, self.failure_seed,
                                 jobs[0].arrival_min if jobs else 0.0))
        run = RunState(self.cluster, jobs, self.best_speed_all, self._estimator0.copy(len(jobs)),
                       self.gpu_price_usd_per_hour, self.speed_model.uniform, self.speeds is not None,
                       self.util_band, self.reward_spec, kinds, failures)
        run.horizon_min = self.horizon_min
        return run
