"""gpusched: a GPU-cluster scheduling lab.

Data flows one way: scenario -> workload and cluster -> simulator with a policy -> result
(metrics, timeline, jobs) -> figures and tables. Each layer is a folder (see the README's code
map): ``core`` -> ``workload`` -> ``fgd``, ``env`` -> ``policies`` -> ``agent``, ``experiment``
-> ``sweep``, ``figures``, ``dashboard`` -> ``cli``. This module re-exports the front door.
"""

from gpusched.core.cluster import Cluster, ClusterState, NodeGroup
from gpusched.core.jobs import Job
from gpusched.core.result import Result
from gpusched.core.simulator import Simulator
from gpusched.errors import GpuschedError, ScenarioError
from gpusched.experiment.runner import Comparison, compare, run_policy
from gpusched.policies import HOLD, get_policy, heuristic_names, policy_names
from gpusched.workload.scenario import Scenario, load_scenario, preset_names
from gpusched.workload.synthetic import JOB_TYPES

__version__ = "0.1.0"

__all__ = [
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
