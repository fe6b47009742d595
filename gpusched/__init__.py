"""gpusched: a GPU-cluster scheduling lab.

Data flows one way: scenario -> workload and cluster -> simulator with a policy -> result
(metrics, timeline, jobs) -> figures and tables.
"""

from gpusched.cluster import Cluster, ClusterState, NodeGroup
from gpusched.errors import GpuschedError, ScenarioError
from gpusched.jobs import JOB_TYPES, Job
from gpusched.policies import HOLD, get_policy, heuristic_names, policy_names
from gpusched.result import Result
from gpusched.runner import Comparison, compare, run_policy
from gpusched.scenario import Scenario, load_scenario, preset_names
from gpusched.simulator import Simulator

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
