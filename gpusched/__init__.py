"""gpusched: a GPU-cluster scheduling lab.

Data flows one way: scenario -> workload and cluster -> simulator with a policy -> result
(metrics, timeline, jobs) -> figures and tables. Each layer is a folder (see the README's code
map): ``core`` -> ``workload`` -> ``fgd``, ``env`` -> ``policies`` -> ``agent``, ``experiment``
-> ``sweep``, ``figures``, ``dashboard`` -> ``cli``. This module re-exports the front door.

It also registers the Gymnasium environment (when gymnasium is installed) with a string entry
point, which imports nothing until the environment is made, so the usual idiom works::

    import gpusched, gymnasium
    env = gymnasium.make("gpusched/GPUScheduler-v0", scenario="phase1-8gpu")

**The same numbers on every machine.** The agents run their networks with torch, whose CPU
matrix products are Intel MKL's; by default MKL picks a code path for the CPU it runs on (AVX-512
on one machine, another path on another), and the paths round differently, so two machines can
break a near tie between two GPUs' scores differently and schedule differently. Importing
gpusched sets ``MKL_CBWR=COMPATIBLE`` (MKL's conditional numerical reproducibility: one code path
on every x86 CPU) unless the environment sets it already; MKL reads it at its first product, so
import gpusched before running any torch operation. On this project's 2-core machine an agent's
run takes the same time either way; a lone 64 x 200 linear layer takes about twice as long.
``tests/test_app_home.py`` recomputes the shipped agent runs and checks them to the last digit.
"""

import os

os.environ.setdefault("MKL_CBWR", "COMPATIBLE")

from gpusched.core.cluster import Cluster, ClusterState, NodeGroup  # noqa: E402 (after MKL_CBWR)
from gpusched.core.jobs import Job
from gpusched.core.result import Result
from gpusched.core.simulator import Simulator
from gpusched.errors import GpuschedError, ScenarioError
from gpusched.experiment.runner import Comparison, compare, run_policy
from gpusched.policies import HOLD, get_policy, heuristic_names, policy_names
from gpusched.workload.presets import load_scenario, preset_names
from gpusched.workload.scenario import Scenario
from gpusched.workload.synthetic import JOB_TYPES

__version__ = "0.1.0"

ENV_ID = "gpusched/GPUScheduler-v0"
"""The Gymnasium id of :class:`gpusched.env.GPUSchedulerEnv`."""

ENV_ENTRY_POINT = "gpusched.env.env:GPUSchedulerEnv"
"""Where Gymnasium finds the environment when it is made (imported only then)."""


def _register_env() -> None:
    """Register :data:`ENV_ID` once, if gymnasium imports (it imports no torch, numba or ray)."""
    try:
        import gymnasium
    except ImportError:
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point=ENV_ENTRY_POINT)


_register_env()

__all__ = [
    "ENV_ID",
    "HOLD",
    "JOB_TYPES",
    "Cluster",
    "ClusterState",
    "Comparison",
    "GpuschedError",
    "Job",
    "NodeGroup",
    "Result",
    "Scenario",
    "ScenarioError",
    "Simulator",
    "compare",
    "get_policy",
    "heuristic_names",
    "load_scenario",
    "policy_names",
    "preset_names",
    "run_policy",
]
