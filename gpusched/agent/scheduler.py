"""The trained agent as a scheduling policy for :meth:`gpusched.core.simulator.Simulator.run`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch as th

from gpusched.agent.models import LoadedAgent, ModelError
from gpusched.agent.names import AGENT_POLICY
from gpusched.core.cluster import ClusterState
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.simulator import HOLD, Action
from gpusched.core.view import SchedulerView
from gpusched.env.observation import ObservationBuilder
from gpusched.env.window import UNTOLD_OBS_VERSIONS, WindowObservationBuilder


def check_agent_told(view: SchedulerView, version: int, name: str) -> None:
    """Refuse a model whose observation reads declared run times (every version but
    :data:`~gpusched.env.window.UNTOLD_OBS_VERSIONS`) on a run that declares none
    (``workload.declared_run_time: none``).

    :raises ModelError: one line naming the policy, its version and what to use instead.
    """
    if not view.run_times_declared and version not in UNTOLD_OBS_VERSIONS:
        raise ModelError(f"'{name}' (observation version {version}) reads declared run times, but "
                         "workload.declared_run_time: none declares none (use ppo_urgency, or "
                         "declared_run_time: history)")


class AgentScheduler:
    """Deterministic placement by a trained agent, on a cluster of any size.

    It sees exactly what the environment shows (the same :class:`ObservationBuilder`), padded to
    the cluster's own GPU count, and takes the highest-scoring valid action.

    :param agent: checked weights from :func:`gpusched.agent.models.load_agent`.
    :param name: registry name reported in results.
    """

    def __init__(self, agent: LoadedAgent, name: str = AGENT_POLICY):
        self.agent = agent
        self.name = name
        self._sim = None
        self._builder: ObservationBuilder | None = None
        self._policy = None

    def bind(self, view: SchedulerView) -> None:
        """Attach to a run's view before its first decision (called by ``Simulator.run``)."""
        meta = self.agent.meta
        check_agent_told(view, int(meta["obs_version"]), self.name)
        n = view.cluster.n_gpus
        self._sim = view
        self._builder = ObservationBuilder(view.cluster, n, int(meta.get("queue_window", 8)),
                                           float(meta.get("vram_scale_gb", 80.0)), int(meta["obs_version"]))
        if self._policy is None or self._policy.observation_space["gpus"].shape[0] != n:
            self._policy = self.agent.policy(n)

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        """The agent's action for the head job: a GPU index or :data:`HOLD`."""
        if self._sim is None:
            raise RuntimeError("AgentScheduler needs bind(view) before select()")
        fits = state.fit_mask(job)
        obs = self._builder.observe(self._sim, fits)
        mask = self._builder.mask(self._sim, fits)
        action = act(self._policy, obs, mask)
        return HOLD if action >= self._builder.n else action


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """Run torch on one thread inside the block, then restore the caller's setting.

    A decision's tensors are tiny, so more threads cannot help; on a busy machine (a process
    pool, a test run beside other work) they only make each call wait for the others.
    """
    threads = th.get_num_threads()
    if threads != 1:
        th.set_num_threads(1)
    try:
        yield
    finally:
        if threads != 1:
            th.set_num_threads(threads)


def act(policy, obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
    """The deterministic action of a ``GpuSetPolicy``: the masked argmax of its logits.

    :param policy: a ``GpuSetPolicy``.
    :param obs: one observation (no batch dimension).
    :param mask: valid actions (bool, ``max_gpus + 1``).
    :raises ModelError: when a valid action's score is NaN or infinite.
    """
    with th.no_grad(), one_torch_thread():
        tensors = {k: th.as_tensor(v).unsqueeze(0) for k, v in obs.items()}
        logits = policy.mlp_extractor.forward_actor(policy.features_extractor(tensors))[0].numpy()
    if not np.isfinite(logits[mask]).all():  # never a silent "first valid action"
        raise ModelError("the model scored a valid action NaN or infinite (its weights or its "
                         "observation are not finite); refusing to act on it")
    return int(np.where(mask, logits, -np.inf).argmax())


class WindowAgentScheduler:
    """Deterministic (window slot, GPU) decisions by a trained window agent (observation version
    3), on a cluster of any size and a window of any length.

    It sees exactly what the environment shows (the same :class:`WindowObservationBuilder`),
    padded to the cluster's GPU count and the scenario's window, and takes the highest-scoring
    valid action.

    :param agent: checked weights of a version-3 model.
    :param name: registry name reported in results.
    """

    def __init__(self, agent: LoadedAgent, name: str = AGENT_POLICY):
        self.agent = agent
        self.name = name
        self._builder: WindowObservationBuilder | None = None
        self._policy = None

    def bind(self, view: SchedulerView) -> None:
        """Attach to a run's view before its first decision (called by ``Simulator.run``)."""
        n, w = view.cluster.n_gpus, view.window
        check_agent_told(view, int(self.agent.meta["obs_version"]), self.name)
        self._builder = WindowObservationBuilder(view.cluster, n, w, view.speeds,
                                                 float(self.agent.meta.get("vram_scale_gb", 80.0)),
                                                 int(self.agent.meta["obs_version"]))
        self._policy = self.agent.policy(n, w)

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        """The agent's (window slot, GPU) for the current decision, or ``(0, HOLD)``."""
        if self._builder is None:
            raise RuntimeError("WindowAgentScheduler needs bind(view) before decide()")
        builder = self._builder
        action = act(self._policy, builder.observe(view), builder.mask(view))
        return builder.decode(action)


def agent_scheduler(agent: LoadedAgent, name: str = AGENT_POLICY):
    """The scheduling policy of a model: FIFO (:class:`AgentScheduler`) or window
    (:class:`WindowAgentScheduler`), by its observation version."""
    return WindowAgentScheduler(agent, name) if agent.windowed else AgentScheduler(agent, name)
