"""What a run refuses before it starts: one check shared by ``simulate``, ``compare``, ``sweep``
and ``train``, so that what one refuses the others refuse too, in one line and before any run.

:func:`check_runs` refuses, for a scenario and the policies to run on it:

- a policy name the registry does not know, or a model file that is missing or invalid
  (:func:`~gpusched.policies.registry.check_policy`);
- a policy that reads run times on a scenario that declares none
  (``workload.declared_run_time: none``; :func:`check_told`), a ``ppo:PATH`` model by the
  observation version its sidecar names;
- a workload that cannot be built: a job list that is missing or malformed, a job no node of the
  cluster could ever hold, Gavel's gangs on nodes too small for them. It builds the first run's
  simulator (:func:`~gpusched.workload.build.make_simulator`), which reads and checks all of
  them, and runs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpusched.errors import ScenarioError, shorten
from gpusched.policies.registry import check_policy, reads_run_times
from gpusched.workload.build import make_simulator
from gpusched.workload.declared import is_undeclared
from gpusched.workload.scenario import Scenario


def check_told(scenario: Scenario, policy: str) -> None:
    """Refuse a policy that reads run times on a scenario that declares none
    (``workload.declared_run_time: none``; give ``history`` for an estimator).

    :raises ScenarioError: one line naming the scenario, the key and the policy.
    """
    if is_undeclared(scenario.workload.declared_run_time) and reads_run_times(policy):
        raise ScenarioError(f"scenario '{scenario.label}', workload.declared_run_time: none declares no "
                            f"run time, but '{shorten(policy)}' reads them (use an order that does not, "
                            "such as las or fcfs, or declared_run_time: history)")


def check_runs(scenario: Scenario, policies: Iterable[str], seed: int | None = None,
               n_jobs: int | None = None) -> None:
    """Refuse, before any run starts, what a run of any of ``policies`` on ``scenario`` would
    refuse (see the module docstring). Nothing is run.

    :param seed: the first run's workload seed (default ``workload.seed``).
    :param n_jobs: overrides ``workload.jobs``, as the runs will.
    :raises GpuschedError: one line naming the file and the key, the policy or the job.
    """
    for name in policies:
        check_policy(name)
        check_told(scenario, name)
    make_simulator(scenario, seed, n_jobs)
