"""The one builder of a simulator from a scenario: its cluster, its jobs, its queue window, GPU
speeds, failures, checkpoints, prices and run-time estimator, and in rounds its ``rounds:`` block.

The command line, the dashboard, the sweeps and the environment
(:class:`gpusched.env.env.GPUSchedulerEnv`) all build their simulator here.
"""

from __future__ import annotations

from gpusched.core.cluster import Cluster
from gpusched.core.jobs import Job
from gpusched.core.rounds.mechanism import RoundSpec, estimated_rounds
from gpusched.core.simulator import Simulator
from gpusched.errors import ScenarioError
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
            f"scenario '{scenario.name}', rounds.length_min: {spec.length_min:g} min gives about "
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
    options = scenario.simulator_options(seed)
    if rounds:
        options.update(rounds=round_spec(scenario, cluster, jobs),
                       round_seed=scenario.workload.seed if seed is None else seed)
    return Simulator(cluster, jobs, reward=scenario.reward, util_band=scenario.util_band,
                     horizon_min=scenario.horizon_min, window=scenario.window,
                     speeds=scenario.gpu_speeds(cluster), **options)
