"""Lookahead planners: one step of search over the agent's own action space.

At every decision a planner forks the simulator (:meth:`gpusched.core.simulator.Simulator.fork`) once
per valid action (every GPU where the head job fits, and HOLD unless holding would dead-stall the
run), plays each fork to its end with a base heuristic, and takes the action whose finished run
has the lowest average wait. Ties go to the base heuristic's own choice (a rollout policy).

Two planners differ in what the forks know:

- ``lookahead`` is clairvoyant: its forks hold the whole workload, future arrivals included. No
  real scheduler can do this. It bounds what any policy restricted to the FIFO action space (a
  GPU for the head job, or HOLD) could reach, and on the deterministic simulator it is never
  worse than its base.
- ``queue_lookahead`` knows only what a scheduler knows now: the cluster, the running jobs and
  the queue, with their durations (declared run times). Its forks forget the jobs that have not
  arrived, so it can be deployed wherever run times are declared.

Either can be the teacher that the RL agent imitates before PPO.
"""

from __future__ import annotations

import numpy as np

from gpusched.core.cluster import ClusterState
from gpusched.core.jobs import Job
from gpusched.core.simulator import HOLD, Action, Simulator
from gpusched.policies.base import Policy


def finished_wait_min(sim: Simulator) -> float:
    """The score of a fork played to its end: its average wait (minutes), or infinite if it
    dead-stalled (a HOLD with nothing running and nothing left to arrive in a fork that forgot
    the future)."""
    return np.inf if sim.end_reason == "dead_stall" else sim.metrics()["avg_wait_min"]


def _finish(sim: Simulator, first: Action, base: Policy) -> float:
    """:func:`finished_wait_min` of the run after playing ``first`` and then ``base`` to the end."""
    sim.step(first)
    select = base.select
    while not sim.done:
        sim.step(select(sim.state, sim.jobs[sim.queue[0]]))
    return finished_wait_min(sim)


class Lookahead:
    """One step of lookahead over ``base`` (see the module docstring).

    :param base: the heuristic that finishes every fork, e.g. Best-Fit.
    :param arrived_only: forks forget the jobs that have not arrived (``queue_lookahead``);
        otherwise they play the real future (``lookahead``).
    """

    def __init__(self, base: Policy, name: str = "lookahead", arrived_only: bool = False):
        self.base = base
        self.name = name
        self.arrived_only = arrived_only
        self.sim: Simulator | None = None
        self.forks = 0

    def bind(self, sim: Simulator) -> None:
        """Attach to the simulator whose future it plays (called by ``Simulator.run``)."""
        self.sim = sim

    def options(self, state: ClusterState, job: Job) -> list[Action]:
        """The actions it weighs: every GPU where ``job`` fits, then HOLD when holding is safe."""
        options: list[Action] = [int(g) for g in np.flatnonzero(state.fit_mask(job))]
        if not self.sim.hold_would_dead_stall():
            options.append(HOLD)
        return options

    def select(self, state: ClusterState, job: Job) -> Action:
        if self.sim is None or self.sim.state is not state:
            raise RuntimeError("Lookahead needs bind(simulator) before select (Simulator.run does it)")
        default = self.base.select(state, job)
        default = default if isinstance(default, int | np.integer) else int(default[0])  # a gang's GPU
        options = self.options(state, job)
        if len(options) <= 1:
            return options[0] if options else HOLD
        waits = {a: _finish(self.sim.fork(self.arrived_only), a, self.base) for a in options}
        self.forks += len(options)
        best = min(waits.values())
        if waits.get(int(default), np.inf) <= best:
            return int(default)
        return min(waits, key=waits.get)
