"""The gang rule: which GPUs a job's gang takes, and which nodes a gang holds (one interface).

A multi-GPU job runs on a *gang*. Two rules ship, chosen by the scenario key
``cluster.gang_placement``:

- ``node`` (the default, :class:`SameNodeGang`): a gang lies on one node, the chosen GPU plus the
  lowest-index other GPUs of its node where the job fits
  (:meth:`gpusched.core.cluster.ClusterState.gang_for`).
- ``spread`` (:class:`SpreadGang`): a gang may span several nodes of one GPU model, and takes the
  fewest nodes it can (see :class:`SpreadGang` for the rule and its tie-breaks). A gang that spans
  nodes runs at the measured unconsolidated throughput where the speed table has one.

The simulator asks the rule for a gang and for the nodes a gang holds (a node failure stops every
job whose gang holds that node). The cluster's fit masks follow the rule the cluster was built with
(:class:`gpusched.core.cluster.Cluster`'s ``gang``), so every policy, reservation and action mask
sees the same gangs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

from gpusched.core.cluster import Cluster, ClusterState
from gpusched.core.jobs import Job

GANG_PLACEMENTS: tuple[str, ...] = ("node", "spread")
"""The values of the scenario key ``cluster.gang_placement``."""


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

    placement = "node"

    def __init__(self, cluster: Cluster):
        self.gpu_node = cluster.gpu_node

    # The cluster state's own rule, called without a frame of its own (it runs at every placement).
    gang_for = staticmethod(ClusterState.gang_for)
    can_place = staticmethod(ClusterState.can_place)

    def holds_node(self, gang: Sequence[int], node: int) -> bool:
        return self.gpu_node[gang[0]] == node


SpreadFactors = Mapping[str, Mapping[str, Mapping[int, float]]]
"""GPU model -> job model -> GPUs -> speed factor of a gang spread over several nodes."""


class SpreadGang:
    """A gang may span several nodes of one GPU model, and takes the fewest nodes it can
    (``cluster.gang_placement: spread``).

    **Rule.** Let ``k`` be the job's GPU count and, per node, its *room* the number of its GPUs that
    could each take one of the job's GPUs now (VRAM, compute, GPU model, node CPU and memory, up).

    1. If some node has room for ``k``, the gang lies on one node, exactly as :class:`SameNodeGang`
       places it (the packed gangs; a spread gang is never chosen while a packed one exists).
    2. Otherwise the gang spans the fewest nodes any gang of the job could span now: for each GPU
       model, the fewest of its nodes whose rooms add up to ``k`` (largest rooms first); ``n`` is
       the smallest over the models. The fit mask holds the GPUs from which a gang of ``n`` nodes
       can be formed.
    3. Placed at GPU ``g``, the gang is ``g``, then the lowest-index other GPUs with room on ``g``'s
       node, then GPUs of the other nodes of ``g``'s model by decreasing room (ties: the lower node
       index), lowest index first within a node, until it has ``k`` GPUs.

    A policy's own choice of GPU (First-Fit's lowest index, Best-Fit's least VRAM left,
    Fastest-Fit's fastest) breaks the ties among the GPUs of the mask, as with packed gangs. A
    policy that names a whole gang (a tuple) may name any gang of GPUs of one model where the job
    fits (:meth:`can_place`). A gang's CPU and memory requests are checked on every node it holds
    and charged to the node of its first GPU.

    **Speed.** A gang on one node runs at the speed table's speed. A gang that spans nodes runs at
    that speed times its factor: from ``factors`` (with ``speed: gavel``, Gavel's measured
    unconsolidated ÷ consolidated throughput on that GPU type,
    :func:`gpusched.core.gavel_speeds.spread_speed_table`) where it names the job's model, GPU
    model and GPU count, else ``default_factor`` (the scenario's ``cluster.spread_speed``, 1.0
    unless given: no penalty). The factor comes from the speed model
    (:class:`gpusched.core.speed_model.TableSpeeds`). Gavel's own simulator never applies it: its
    gangs are placed without servers, so this goes beyond Gavel.

    **Failures.** A spread gang stops when any of its nodes fails (:meth:`holds_node`).

    :param cluster: the cluster.
    :param factors: GPU model -> job model -> GPUs -> speed factor of a spread gang.
    :param default_factor: the factor where ``factors`` has no value (> 0).
    """

    placement = "spread"

    def __init__(self, cluster: Cluster, factors: SpreadFactors | None = None,
                 default_factor: float = 1.0):
        if not default_factor > 0:
            raise ValueError(f"default_factor must be > 0, got {default_factor}")
        self.cluster = cluster
        self.gpu_node = cluster.gpu_node
        self.node_code = cluster.gpu_model_code[cluster.node_first_gpu]
        self.codes = np.unique(self.node_code).tolist()
        self.factors = {m: dict(row) for m, row in (factors or {}).items()}
        self.default_factor = float(default_factor)
        self.uniform = not self.factors and self.default_factor == 1.0
        """Whether a spread gang runs as fast as a packed one, for every job."""
        self._last: tuple[np.ndarray, np.ndarray] | None = None

    def _room(self, single: np.ndarray) -> np.ndarray:
        """Each node's room in ``single``; the last answer is kept, as the fit mask, the gang and
        the speed of one job in one state all ask for the same (read-only) mask."""
        last = self._last
        if last is not None and last[0] is single and not single.flags.writeable and single.base is None:
            return last[1]
        room = np.bincount(self.gpu_node[single], minlength=self.cluster.n_nodes)
        self._last = (single, room)
        return room

    # ---------------------------------------------------------------- the cluster's fit masks
    def packs(self, single: np.ndarray, gpus: int) -> bool:
        """Whether some node has room for the whole gang (rule 1)."""
        return bool((self._room(single) >= gpus).any())

    def mask(self, single: np.ndarray, gpus: int) -> np.ndarray:
        """The GPUs of ``single`` from which a gang of ``gpus`` GPUs with the fewest nodes can be
        formed (rules 1 and 2)."""
        c = self.cluster
        room = self._room(single)
        packed = room >= gpus
        if packed.any():
            return single & packed[self.gpu_node]
        fewest, plans = np.inf, []
        for code in self.codes:
            nodes = np.flatnonzero((self.node_code == code) & (room > 0))
            if not nodes.size or room[nodes].sum() < gpus:
                continue
            order = nodes[np.lexsort((nodes, -room[nodes]))]
            prefix = np.cumsum(room[order])
            n = int(np.searchsorted(prefix, gpus)) + 1
            if n < fewest:
                fewest, plans = n, []
            if n == fewest:
                plans.append((order, prefix))
        ok = np.zeros(c.n_nodes, dtype=bool)
        for order, prefix in plans:
            n = int(fewest)
            rank = np.arange(order.size)
            others = prefix[n - 2]  # the top n - 1 rooms of the model's other nodes
            ok[order] = (rank < n - 1) | (room[order] + others >= gpus)
        return single & ok[self.gpu_node]

    def at(self, single: np.ndarray, gpu: int, gpus: int) -> tuple[int, ...]:
        """The gang of ``gpus`` GPUs placed at ``gpu`` (rule 3; ``gpu`` must be in :meth:`mask`)."""
        c = self.cluster
        gang = c.gang_at(single, gpu, gpus, spread=False)
        if len(gang) >= gpus:
            return gang
        node = int(self.gpu_node[gpu])
        room = self._room(single)
        others = np.flatnonzero((self.node_code == self.node_code[node]) & (room > 0))
        others = others[others != node]
        out = list(gang)
        for other in others[np.lexsort((others, -room[others]))].tolist():
            first = int(c.node_first_gpu[other])
            local = np.flatnonzero(single[first:first + int(c.node_gpu_count[other])]) + first
            out.extend(int(g) for g in local[: gpus - len(out)])
            if len(out) >= gpus:
                break
        return tuple(out)

    def spans(self, gpus: Sequence[int]) -> bool:
        """Whether the gang holds GPUs of more than one node."""
        node = self.gpu_node[gpus[0]]
        return any(self.gpu_node[g] != node for g in gpus)

    def factor(self, job: Job, gpu_model: str) -> float:
        """The speed factor of ``job``'s gang spread over nodes of ``gpu_model`` (see the class
        docstring)."""
        value = self.factors.get(gpu_model, {}).get(job.model, {}).get(job.gpus) if job.model else None
        return self.default_factor if value is None else float(value)

    # ---------------------------------------------------------------- the gang rule
    def gang_for(self, state: ClusterState, job: Job, gpu: int) -> tuple[int, ...]:
        return state.gang_for(job, gpu)

    def can_place(self, state: ClusterState, job: Job, gang: Sequence[int]) -> bool:
        """Whether ``job`` fits on exactly these GPUs: distinct, the job's count, one GPU model,
        each able to take one of its GPUs now."""
        c = self.cluster
        if len(gang) != job.gpus or len(set(gang)) != len(gang):
            return False
        if len(gang) and (min(gang) < 0 or max(gang) >= c.n_gpus):  # each a GPU index
            return False
        codes = c.gpu_model_code[list(gang)]
        if (codes != codes[0]).any():
            return False
        return state.gpus_fit(job, list(gang))

    def holds_node(self, gang: Sequence[int], node: int) -> bool:
        gpu_node = self.gpu_node
        return any(gpu_node[g] == node for g in gang)


def spread_rule(factors: SpreadFactors | None = None, default_factor: float = 1.0):
    """A ``gang`` argument of :class:`~gpusched.core.cluster.Cluster` that builds a
    :class:`SpreadGang` with these factors for the cluster."""
    return lambda cluster: SpreadGang(cluster, factors, default_factor)
