"""The one builder of a simulator from a scenario: its cluster, its jobs, its queue window, GPU
speeds, failures, checkpoints, prices and run-time estimator, and in rounds its ``rounds:`` block.

The command line, the dashboard, the sweeps and the environment
(:class:`gpusched.env.env.GPUSchedulerEnv`) all build their simulator here.
"""

from __future__ import annotations

from gpusched.core.cluster import Cluster
from gpusched.core.jobs import Job
from gpusched.core.restore import CheckpointRestore
from gpusched.core.rounds.mechanism import RoundSpec, estimated_rounds
from gpusched.core.simulator import Simulator
from gpusched.core.speed import GpuSpeeds
from gpusched.core.speed_model import TableSpeeds
from gpusched.errors import InfeasibleJobError, ScenarioError
from gpusched.limits import MAX_ROUNDS
from gpusched.workload.scenario import Scenario


def round_spec(scenario: Scenario, cluster: Cluster, jobs: list[Job]) -> RoundSpec:
    """The scenario's ``rounds:`` block (Gavel's defaults without one), refused when the run
    would take more than :data:`~gpusched.limits.MAX_ROUNDS` rounds.

    :raises ScenarioError: naming the scenario, the key and the limit.
    """
    spec = scenario.rounds or RoundSpec()
    gpu_min = float(sum(j.duration_min * j.gpus for j in jobs))
    count = estimated_rounds(spec, [j.arrival_min for j in jobs], gpu_min, cluster.n_gpus,
                             scenario.horizon_min)
    if count > MAX_ROUNDS:
        raise ScenarioError(
            f"scenario '{scenario.label}', rounds.length_min: {spec.length_min:g} min gives about "
            f"{count:,.0f} rounds for this run, over the limit of {MAX_ROUNDS:,}; use longer rounds")
    return spec


def make_simulator(scenario: Scenario, seed: int | None = None,
                   n_jobs: int | None = None, rounds: bool = False) -> Simulator:
    """A simulator on the scenario's cluster and workload (``seed``/``n_jobs`` override it), with
    its queue window, GPU speeds, failures and checkpoints; with ``rounds``, in rounds (the
    scenario's ``rounds:`` block, :func:`round_spec`)."""
    cluster = scenario.build_cluster(seed)
    scenario.check_prices(cluster)
    jobs = scenario.jobs(seed=seed, n_jobs=n_jobs, cluster=cluster)
    spec = round_spec(scenario, cluster, jobs) if rounds else None
    return simulator_for(scenario, cluster, jobs, scenario.gpu_speeds(cluster), seed=seed, rounds=spec)


def simulator_for(scenario: Scenario, cluster: Cluster, jobs: list[Job], speeds: GpuSpeeds | None, *,
                  seed: int | None = None, window: int | None = None,
                  rounds: RoundSpec | None = None) -> Simulator:
    """The simulator of ``scenario`` on a given cluster, jobs and GPU speeds (an environment's
    episode draws its own): the scenario's reward, utilisation band, horizon, failures,
    checkpoints, preemption guard, prices and run-time estimator.

    :param speeds: the resolved speed table (``None``: every GPU at speed 1.0).
    :param seed: the workload seed the failure seed and the estimator's draws derive from (the
        scenario's if omitted).
    :param window: the queue window (the scenario's if omitted).
    :param rounds: run in rounds with this spec (:func:`round_spec`; ``None``: no rounds).
    :raises InfeasibleJobError: for a job no node of the cluster could ever hold, naming the
        scenario (:attr:`~gpusched.workload.scenario.Scenario.label`) and the job.
    """
    options = scenario.simulator_options(seed)
    if rounds is not None:
        options.update(rounds=rounds, round_seed=scenario.workload.seed if seed is None else seed)
    try:
        return Simulator(cluster, jobs, reward=scenario.reward, util_band=scenario.util_band,
                         horizon_min=scenario.horizon_min,
                         window=scenario.window if window is None else window,
                         speed_model=TableSpeeds(cluster, speeds),
                         restore=CheckpointRestore(scenario.checkpoint), **options)
    except InfeasibleJobError as exc:  # a drawn job no node holds: named with the scenario, as a key is
        raise InfeasibleJobError(f"scenario '{scenario.label}', cluster: {exc}") from None
