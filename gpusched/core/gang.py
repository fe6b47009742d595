"""The gang rule: which GPUs a job's gang takes, and which nodes a gang holds (one interface).

A multi-GPU job runs on a *gang*. The shipped rule (:class:`SameNodeGang`) is the cluster's: a
gang lies on one node, the chosen GPU plus the lowest-index other GPUs of its node where the job
fits (:meth:`gpusched.core.cluster.ClusterState.gang_for`). The simulator asks the rule for a gang
and for the nodes a gang holds (a node failure stops every job whose gang holds that node), so a
rule that spans servers replaces :class:`SameNodeGang` alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gpusched.core.cluster import Cluster, ClusterState
from gpusched.core.jobs import Job


class GangRule(Protocol):
    """Which GPUs a job takes, and which nodes a gang holds."""

    def gang_for(self, state: ClusterState, job: Job, gpu: int) -> tuple[int, ...]:
        """The gang ``job`` takes when placed at ``gpu``, or ``()`` if it does not fit there."""
        ...

    def can_place(self, state: ClusterState, job: Job, gang: Sequence[int]) -> bool:
        """Whether ``job`` fits on exactly the GPUs ``gang``."""
        ...

    def holds_node(self, gang: Sequence[int], node: int) -> bool:
        """Whether the gang holds a GPU of ``node``."""
        ...


class SameNodeGang:
    """A gang lies on one node (see the module docstring).

    :param cluster: the cluster.
    """

    def __init__(self, cluster: Cluster):
        self.gpu_node = cluster.gpu_node

    # The cluster state's own rule, called without a frame of its own (it runs at every placement).
    gang_for = staticmethod(ClusterState.gang_for)
    can_place = staticmethod(ClusterState.can_place)

    def holds_node(self, gang: Sequence[int], node: int) -> bool:
        return self.gpu_node[gang[0]] == node
