"""Decision-time rollouts: the trained agent checks its own choice by simulating it.

This is the rollout algorithm of approximate dynamic programming (policy improvement by
simulation, as in Tesauro and Galperin's backgammon player and Bertsekas' rollout methods),
with the trained network as the base policy:

1. At a decision with more than one valid action, the network ranks the valid actions; the
   ``candidates`` best (GPUs or HOLD) are the options.
2. The simulator is forked once per option with only the jobs that have arrived
   (:meth:`~gpusched.core.simulator.Simulator.fork` with ``arrived_only=True``): the cluster, the
   running jobs and the queue with their declared run times, which is what a scheduler knows.
   Nothing is read from the future.
3. Each fork plays its option and then the network's greedy choice until its known jobs are
   done. The forks advance in lockstep, so one batched network call decides for all of them.
4. The option whose fork ends with the best score wins (:mod:`gpusched.policies.objective`:
   the lowest average JCT by default, the time to result; or the lowest average wait); a tie
   keeps the network's own first choice.

The forks run the one simulator, so the agent never models the cluster itself. The cost is
one batched network call per decision of the longest fork, so a decision takes milliseconds to
tens of milliseconds depending on the queue.
"""

from __future__ import annotations

import numpy as np
import torch as th

from gpusched.agent.names import ROLLOUT_AGENT_POLICY
from gpusched.agent.scheduler import AgentScheduler, WindowAgentScheduler, one_torch_thread
from gpusched.core.cluster import ClusterState
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.simulator import HOLD, Action, Simulator
from gpusched.core.view import SchedulerView
from gpusched.env.observation import ObservationBuilder
from gpusched.policies.objective import check_objective, finished_score

DEFAULT_CANDIDATES = 3
"""Options weighed per decision: the network's best valid actions."""

DEFAULT_OBJECTIVE = "jct"
"""What a fork is scored by (see :mod:`gpusched.policies.objective`): the time to result."""


def batch_logits(policy, observations: list[dict[str, np.ndarray]]) -> np.ndarray:
    """Action logits of a ``GpuSetPolicy`` for a batch of observations, ``(len, max_gpus + 1)``."""
    with th.no_grad(), one_torch_thread():
        tensors = {k: th.from_numpy(np.stack([o[k] for o in observations])) for k in observations[0]}
        return policy.mlp_extractor.forward_actor(policy.features_extractor(tensors)).numpy()


def _init_search(scheduler, candidates: int, objective: str) -> None:
    """The search state both rollout schedulers keep: options per decision, the objective, forks
    played and decisions the search changed."""
    if candidates < 1:
        raise ValueError(f"candidates must be at least 1, got {candidates}")
    check_objective(objective)
    scheduler.candidates = candidates
    scheduler.objective = objective
    scheduler.forks = 0
    scheduler.changed = 0


def _search(scheduler, sim: SchedulerView, options: list, play) -> int:
    """The index of the best option by rollout: each is played by ``play(fork, option)`` on a fork
    of ``sim`` that knows only the arrived jobs, then the forks run to their end with
    ``scheduler._play_out``; the best score wins, a tie keeps option 0."""
    forks = []
    for option in options:
        fork = sim.fork()  # a view's fork knows only the arrived jobs
        play(fork, option)
        forks.append(fork)
    scheduler.forks += len(forks)
    waits = scheduler._play_out(forks)
    best = int(np.argmin(waits))
    if waits[best] < waits[0]:
        scheduler.changed += 1
        return best
    return 0


class RolloutScheduler(AgentScheduler):
    """The trained agent, improving each choice by rollouts of itself (see the module docstring).

    :param agent: checked weights from :func:`gpusched.agent.models.load_agent`.
    :param name: registry name reported in results.
    :param candidates: options weighed per decision (the network's best valid actions).
    :param objective: what a fork is scored by (``jct`` or ``wait``).
    """

    def __init__(self, agent, name: str = ROLLOUT_AGENT_POLICY, candidates: int = DEFAULT_CANDIDATES,
                 objective: str = DEFAULT_OBJECTIVE):
        super().__init__(agent, name=name)
        _init_search(self, candidates, objective)

    def _decide(self, views: list[SchedulerView], builder: ObservationBuilder) -> list[np.ndarray]:
        """The masked logits of every view's current decision, from one network call."""
        observations, masks = [], []
        for view in views:
            fits = view.state.fit_mask(view.head_job)
            observations.append(builder.observe(view, fits))
            masks.append(builder.mask(view, fits))
        logits = batch_logits(self._policy, observations)
        return [np.where(m, row, -np.inf) for m, row in zip(masks, logits, strict=True)]

    def _play_out(self, forks: list[Simulator]) -> list[float]:
        """Play every fork to its end with the network's greedy choice, in lockstep."""
        builder, n = self._builder, self._builder.n
        active = [f for f in forks if not f.run_state.done]
        while active:
            for fork, logits in zip(active, self._decide([f.view for f in active], builder), strict=True):
                action = int(logits.argmax())
                fork.step(HOLD if action >= n else action)
            active = [f for f in active if not f.run_state.done]
        return [finished_score(f, self.objective) for f in forks]

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        """The best of the network's top options by rollout: a GPU index or :data:`HOLD`."""
        sim = self._sim
        if sim is None:
            raise RuntimeError("RolloutScheduler needs bind(view) before select()")
        logits = self._decide([sim], self._builder)[0]
        n = self._builder.n
        valid = np.flatnonzero(np.isfinite(logits))
        ranked = valid[np.argsort(-logits[valid], kind="stable")][: self.candidates]
        options = [HOLD if a >= n else int(a) for a in ranked]
        if len(options) == 1:
            return options[0]
        return options[_search(self, sim, options, lambda fork, option: fork.step(option))]


class WindowRolloutScheduler(WindowAgentScheduler):
    """A window agent improving each (slot, GPU) choice by rollouts of itself: the same rollout
    algorithm as :class:`RolloutScheduler`, over the window's actions.

    :param agent: checked weights of a version-3 model.
    :param name: registry name reported in results.
    :param candidates: options weighed per decision (the network's best valid actions).
    :param objective: what a fork is scored by (``jct`` or ``wait``).
    """

    def __init__(self, agent, name: str = ROLLOUT_AGENT_POLICY, candidates: int = DEFAULT_CANDIDATES,
                 objective: str = DEFAULT_OBJECTIVE):
        super().__init__(agent, name=name)
        _init_search(self, candidates, objective)

    def _decide(self, views: list[SchedulerView]) -> list[np.ndarray]:
        """The masked logits of every view's current decision, from one network call."""
        builder = self._builder
        observations, masks = [], []
        for view in views:
            observations.append(builder.observe(view))
            masks.append(builder.mask(view))
        logits = batch_logits(self._policy, observations)
        return [np.where(m, row, -np.inf) for m, row in zip(masks, logits, strict=True)]

    def _play_out(self, forks: list[Simulator]) -> list[float]:
        """Play every fork to its end with the network's greedy choice, in lockstep."""
        active = [f for f in forks if not f.run_state.done]
        while active:
            for fork, logits in zip(active, self._decide([f.view for f in active]), strict=True):
                slot, gpu = self._builder.decode(int(logits.argmax()))
                fork.step(gpu, slot)
            active = [f for f in active if not f.run_state.done]
        return [finished_score(f, self.objective) for f in forks]

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        """The best of the network's top options by rollout: a (slot, GPU) or ``(0, HOLD)``."""
        if self._builder is None:
            raise RuntimeError("WindowRolloutScheduler needs bind(view) before decide()")
        logits = self._decide([view])[0]
        valid = np.flatnonzero(np.isfinite(logits))
        ranked = valid[np.argsort(-logits[valid], kind="stable")][: self.candidates]
        options = [self._builder.decode(int(a)) for a in ranked]
        if len(options) > 1:
            options[0] = options[_search(self, view, options,
                                         lambda fork, option: fork.step(option[1], option[0]))]
        return options[0]


def rollout_scheduler(agent, name: str = ROLLOUT_AGENT_POLICY, candidates: int = DEFAULT_CANDIDATES,
                      objective: str = DEFAULT_OBJECTIVE):
    """The agent deciding with rollouts of itself: FIFO (:class:`RolloutScheduler`) or window
    (:class:`WindowRolloutScheduler`), by its observation version."""
    cls = WindowRolloutScheduler if agent.windowed else RolloutScheduler
    return cls(agent, name, candidates, objective)
