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
free VRAM and compute (on a gang: every GPU of it alike); the planner plays one of them
(``collapse=False`` plays every gang, for tests of that rule). This is a reduction, not a proof:
a base that breaks ties by GPU index may go on differently from two such gangs.

**Reach on large clusters.** A rollout to the end of a 2,000-job run on 108 GPUs takes about as
long as the run itself, at each of thousands of decisions. Two options make the planner
tractable there, and each makes it something less than one step of perfect foresight:

- ``horizon_min``: each fork stops that many minutes after the decision (the view's clairvoyant
  door, ``horizon_min``) and is scored by the job-minutes spent in the system (``jct``) or queued
  (``wait``) up to then (:func:`~gpusched.policies.objective.horizon_score`), not by the mean over
  finished jobs. What it reaches is a clairvoyant planner's reach with that horizon, not a proven
  bound, and it is no longer sure to be at least as good as its base;
- it plans only where the choice is contested: a decision with one distinct action (no choice),
  or one where the base preempts or moves a running job (outside this action space), follows the
  base without a fork.

:attr:`WindowLookahead.decisions`, :attr:`~WindowLookahead.forks`,
:attr:`~WindowLookahead.planned` and :attr:`~WindowLookahead.departed` count the decisions, the
forks played, the decisions searched and those where it took another action than its base, per run.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpusched.core.actions import Batch, Migrate, Preempt
from gpusched.core.simulator import HOLD, Action
from gpusched.core.view import SchedulerView, as_scheduler
from gpusched.policies.objective import check_objective, finished_score, horizon_score


class WindowLookahead:
    """One step of clairvoyant (or arrived-only) search over (window slot, GPU) and HOLD.

    :param base: builds the heuristic that finishes every fork (a fresh instance per fork, so
        that stateful rules such as EFT's reservations start clean), e.g.
        ``lambda: get_policy("sjf+fastest_fit")``.
    :param name: registry name reported in results.
    :param objective: what a finished fork is scored by (``jct`` or ``wait``).
    :param arrived_only: forks forget the jobs that have not arrived yet.
    :param horizon_min: each fork stops this many minutes after the decision and is scored by
        :func:`~gpusched.policies.objective.horizon_score` (``None``: played to the end and scored
        by :func:`~gpusched.policies.objective.finished_score`); clairvoyant forks only.
    :param collapse: play one action of each class of equivalent actions (see the module
        docstring); ``False`` plays every (window job, gang) action.
    """

    def __init__(self, base: Callable[[], object], name: str = "lookahead_jct", objective: str = "jct",
                 arrived_only: bool = False, horizon_min: float | None = None, collapse: bool = True):
        check_objective(objective)
        if horizon_min is not None and not horizon_min > 0:
            raise ValueError(f"horizon_min must be > 0 minutes, got {horizon_min}")
        if horizon_min is not None and arrived_only:
            raise ValueError("horizon_min cuts clairvoyant forks only (arrived_only=False)")
        self.base = base
        self.name = name
        self.objective = objective
        self.arrived_only = arrived_only
        self.horizon_min = horizon_min
        self.collapse = collapse
        self.decisions = 0
        """Decisions this run."""
        self.forks = 0
        """Forks played this run."""
        self.planned = 0
        """Decisions searched this run (more than one distinct action)."""
        self.departed = 0
        """Decisions this run where the planner took another action than its base."""
        self._base = None

    def bind(self, view: SchedulerView) -> None:
        """Start a run: the base heuristic that proposes the default action is bound to ``view``."""
        self._base = as_scheduler(self.base())
        self._base.bind(view)
        self.decisions = self.forks = self.planned = self.departed = 0

    def options(self, view: SchedulerView) -> list[tuple[int, Action]]:
        """The actions it weighs: (slot, gang) pairs, one per class of equivalent gangs (every gang
        without ``collapse``), then ``(0, HOLD)`` when safe."""
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
                if not self.collapse:
                    key = tuple(sorted(gang))
                if key not in seen:
                    seen.add(key)
                    out.append((slot, gang))
        if not view.hold_would_dead_stall():
            out.append((0, HOLD))
        return out

    def _fork(self, view: SchedulerView):  # noqa: ANN202 (a ShownSimulator)
        if self.arrived_only:
            return view.fork()
        # A bound (``lookahead_jct``) plays the truth, through the view's clairvoyant door.
        if self.horizon_min is None:
            return view.clairvoyant_fork()
        return view.clairvoyant_fork(horizon_min=view.time_min + self.horizon_min)

    def _score(self, view: SchedulerView, slot: int, action: Action) -> float:
        fork = self._fork(view)
        fork.step(action, slot)
        base = as_scheduler(self.base())
        forked = fork.view
        base.bind(forked)
        while not fork.run_state.done:
            s, a = base.decide(forked)
            fork.step(a, s)
        self.forks += 1
        if self.horizon_min is None:
            return finished_score(fork, self.objective)
        return horizon_score(fork, self.objective)

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        """The best action by search (ties: the base heuristic's own choice)."""
        if self._base is None:
            raise RuntimeError("WindowLookahead needs bind(view) before decide (Simulator.run does it)")
        self.decisions += 1
        default_slot, default = self._base.decide(view)
        if isinstance(default, Preempt | Migrate | Batch):
            return default_slot, default  # outside the action space: not contested
        if not isinstance(default, int | np.integer):
            default = tuple(int(g) for g in default)
        options = self.options(view)
        if len(options) <= 1:
            return options[0] if options else (0, HOLD)
        self.planned += 1
        scores = [self._score(view, slot, action) for slot, action in options]
        best = min(scores)
        played = {(slot, action): score for (slot, action), score in zip(options, scores, strict=True)}
        default_score = played.get((default_slot, default))
        if default_score is None:
            default_score = self._score(view, default_slot, default)
        if default_score <= best:
            return default_slot, default
        self.departed += 1
        k = int(np.argmin(scores))
        return options[k]
