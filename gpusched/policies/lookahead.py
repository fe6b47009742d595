"""Lookahead planners: one step of search over the agent's own action space.

At every decision a planner forks the simulator (:meth:`gpusched.core.simulator.Simulator.fork`) once
per valid action (every GPU where the job fits, and HOLD unless holding would dead-stall the
run), plays each fork to its end with a base heuristic, and takes the action whose finished run
has the lowest average wait. Ties go to the base heuristic's own choice (a rollout policy).

The job is the one it is asked about: the head job on a FIFO queue, or, as the placement of a
queue-aware heuristic (``sjf+lookahead``), the window job that the order chose. Each fork starts
that job, from its window slot, and then plays the base heuristic on the head of the queue. Under
EASY backfilling the placement may be asked about a view of the state in which the head job's
reserved GPUs are full (:class:`gpusched.policies.queue.MaskedState`); the planner then weighs
only the gangs that view allows.

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
from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.simulator import HOLD, Action, Simulator
from gpusched.core.view import SchedulerView
from gpusched.policies.base import Policy


def finished_wait_min(sim: Simulator) -> float:
    """The score of a fork played to its end: its average wait (minutes), or infinite if it
    dead-stalled (a HOLD with nothing running and nothing left to arrive in a fork that forgot
    the future)."""
    return np.inf if sim.run_state.end_reason == "dead_stall" else sim.metrics()["avg_wait_min"]


def _finish(sim: Simulator, first: Action, base: Policy, slot: int = 0) -> float:
    """:func:`finished_wait_min` of the run after playing ``first`` for the job in window slot
    ``slot`` and then ``base`` (on the head job) to the end."""
    sim.step(first, slot)
    run = sim.run_state
    select, state, jobs, queue = base.select, run.state, sim.view.jobs, run.queue
    while not run.done:
        sim.step(select(state, jobs[queue[0]]))
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
        self.sim: SchedulerView | None = None
        self.forks = 0

    def bind(self, view: SchedulerView) -> None:
        """Attach to the run it plans for (called by ``Simulator.run``)."""
        self.sim = view

    def _fork(self) -> Simulator:
        """A fork of the run: of what a scheduler knows (``queue_lookahead``), or through the view's
        clairvoyant door (``lookahead``, a bound)."""
        return self.sim.fork() if self.arrived_only else self.sim.clairvoyant_fork()

    def options(self, state: ClusterState, job: DeclaredJob) -> list[Action]:
        """The actions it weighs: every GPU where ``job`` fits, then HOLD when holding is safe.
        On a restricted view of the state (EASY's, see the module docstring) every GPU is given
        as the whole gang that the view allows there."""
        fits = [int(g) for g in np.flatnonzero(state.fit_mask(job))]
        options: list[Action] = fits if state is self.sim.state else [state.gang_for(job, g) for g in fits]
        if not self.sim.hold_would_dead_stall():
            options.append(HOLD)
        return options

    def _as_option(self, state: ClusterState, job: DeclaredJob, action: Action) -> Action:
        """``action`` in the form :meth:`options` gives: a GPU index (a gang's first GPU) on the
        simulator's own state, the whole gang on a restricted view, or HOLD."""
        if isinstance(action, int | np.integer):
            if state is self.sim.state or int(action) == HOLD:
                return int(action)
            return state.gang_for(job, int(action)) or HOLD
        gang = tuple(int(g) for g in action)
        return gang[0] if state is self.sim.state else gang

    def _slot_of(self, job: DeclaredJob) -> int:
        """The window slot of ``job`` in the bound simulator.

        :raises RuntimeError: if ``job`` is not in the window.
        """
        sim = self.sim
        for slot, idx in enumerate(sim.window_indices()):
            if sim.jobs[idx] is job or sim.jobs[idx] == job:
                return slot
        raise RuntimeError(f"{self.name}: job {job.id} is not in the queue window")

    def select(self, state: ClusterState, job: DeclaredJob) -> Action:
        sim = self.sim
        if sim is None or (state is not sim.state and getattr(state, "_state", None) is not sim.state):
            raise RuntimeError("Lookahead needs bind(view) before select (Simulator.run does it)")
        slot = self._slot_of(job)
        default = self._as_option(state, job, self.base.select(state, job))
        options = self.options(state, job)
        if len(options) <= 1:
            return options[0] if options else HOLD
        waits = {a: _finish(self._fork(), a, self.base, slot) for a in options}
        self.forks += len(options)
        best = min(waits.values())
        if waits.get(default, np.inf) <= best:
            return default
        return min(waits, key=waits.get)
