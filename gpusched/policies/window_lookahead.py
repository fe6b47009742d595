"""A clairvoyant planner in the window agent's action space: the headroom over the heuristics.

At every decision the planner weighs every distinct action the window agent could take — each
window job on each GPU where it fits (its gang by the gang rule), and HOLD unless holding would
end the run — by forking the simulator (:meth:`~gpusched.core.simulator.Simulator.fork`),
playing the action, then a base heuristic to the end, and scoring the finished fork by its
objective (:mod:`gpusched.policies.objective`; ``jct`` by default). It takes the best; a tie keeps
the base heuristic's own choice, so on the deterministic simulator it is never worse than its
base (a rollout policy).

Its forks hold the whole workload, future arrivals included (``arrived_only=False``): no real
scheduler can do this. Registered as ``lookahead_jct`` with the best heuristic of the fleet as its
base, it tells what one step of perfect foresight reaches in the same action space as the window
agent, so that a learned scheduler's headroom is known. With ``arrived_only=True`` it is a
deployable planner that knows only the arrived jobs and their declared run times.

Two actions are the same when they start the same job on GPUs of the same model with the same
free VRAM and compute (on a gang: every GPU of it alike); the planner plays one of them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpusched.core.simulator import HOLD, Action
from gpusched.core.view import SchedulerView, as_scheduler
from gpusched.policies.objective import check_objective, finished_score


class WindowLookahead:
    """One step of clairvoyant (or arrived-only) search over (window slot, GPU) and HOLD.

    :param base: builds the heuristic that finishes every fork (a fresh instance per fork, so
        that stateful rules such as EFT's reservations start clean), e.g.
        ``lambda: get_policy("sjf+fastest_fit")``.
    :param name: registry name reported in results.
    :param objective: what a finished fork is scored by (``jct`` or ``wait``).
    :param arrived_only: forks forget the jobs that have not arrived yet.
    """

    def __init__(self, base: Callable[[], object], name: str = "lookahead_jct", objective: str = "jct",
                 arrived_only: bool = False):
        check_objective(objective)
        self.base = base
        self.name = name
        self.objective = objective
        self.arrived_only = arrived_only
        self.forks = 0
        self._base = None

    def bind(self, view: SchedulerView) -> None:
        """Start a run: the base heuristic that proposes the default action is bound to ``view``."""
        self._base = as_scheduler(self.base())
        self._base.bind(view)
        self.forks = 0

    def options(self, view: SchedulerView) -> list[tuple[int, Action]]:
        """The distinct actions it weighs: (slot, gang) pairs, then ``(0, HOLD)`` when safe."""
        state, cluster = view.state, view.cluster
        out: list[tuple[int, Action]] = []
        for slot, idx in enumerate(view.window_indices()):
            job = view.jobs[idx]
            seen: set[tuple] = set()
            for gpu in np.flatnonzero(state.fit_mask(job)):
                gang = state.gang_for(job, int(gpu))
                key = (cluster.gpu_model[gang[0]],
                       tuple(sorted((round(float(state.vram_free_gb[g]), 6),
                                     round(float(state.compute_free[g]), 6)) for g in gang)))
                if key not in seen:
                    seen.add(key)
                    out.append((slot, gang))
        if not view.hold_would_dead_stall():
            out.append((0, HOLD))
        return out

    def _score(self, view: SchedulerView, slot: int, action: Action) -> float:
        # A bound (``lookahead_jct``) plays the truth, through the view's clairvoyant door.
        fork = view.fork() if self.arrived_only else view.clairvoyant_fork()
        fork.step(action, slot)
        base = as_scheduler(self.base())
        forked = fork.view
        base.bind(forked)
        while not fork.done:
            s, a = base.decide(forked)
            fork.step(a, s)
        self.forks += 1
        return finished_score(fork, self.objective)

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        """The best action by search (ties: the base heuristic's own choice)."""
        if self._base is None:
            raise RuntimeError("WindowLookahead needs bind(view) before decide (Simulator.run does it)")
        default_slot, default = self._base.decide(view)
        if not isinstance(default, int | np.integer):
            default = tuple(int(g) for g in default)
        options = self.options(view)
        if len(options) <= 1:
            return options[0] if options else (0, HOLD)
        scores = [self._score(view, slot, action) for slot, action in options]
        best = min(scores)
        default_score = self._score(view, default_slot, default)
        if default_score <= best:
            return default_slot, default
        k = int(np.argmin(scores))
        return options[k]
