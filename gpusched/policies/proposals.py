"""A rule's proposals: the decision it would take now, then its next choices in its own order.

The inspector agent (:mod:`gpusched.env.inspect`, :mod:`gpusched.agent.inspect`) does not choose
jobs itself: at each decision the base rule ``ORDER+PLACEMENT`` proposes a job and a gang, and the
agent accepts it, asks for the rule's next proposal, or holds (SchedInspector: Zhang, Dai, Bao,
Tiwari, Aiken, "SchedInspector: A Batch Job Scheduling Inspector Using Reinforcement Learning",
HPDC '22; repository ``DIR-LAB/SchedInspector``, ``HPCSimSchedInspector.py``, where the agent
inspects the heuristic's pick and may reject it).

Proposal 0 is exactly the rule's own decision (``decide(view)``, called once per decision, so a
rule that keeps plans, such as EASY's reservation, keeps them as when it runs alone). The next
proposals are the next window jobs in the order's ranking (:meth:`OrderSpec.ranked
<gpusched.policies.order_spec.OrderSpec.ranked>`) that fit now, each placed by the rule's
placement. A rule that preempts, moves running jobs or plans the whole window (``eft``) proposes
more than a job and a gang, and is refused as a base.
"""

from __future__ import annotations

from gpusched.core.simulator import Action
from gpusched.core.view import SchedulerView
from gpusched.errors import UnknownPolicyError
from gpusched.policies.queue import EasyBackfill, QueuePolicy
from gpusched.policies.registry import queue_policy

Proposal = tuple[int, Action, tuple[int, ...]]
"""A proposal: the window slot of its job, the action to step (the rule's own answer for the first
proposal, a gang for the next ones) and the gang it takes (GPU indices; ``()`` when it takes none)."""


class Proposer:
    """The proposals of a base rule ``ORDER+PLACEMENT`` (see the module docstring).

    :param rule: the base rule's registry name (``sjf+first_fit``).
    :param seed: the seed of a placement that draws random numbers.
    :raises UnknownPolicyError: for an unknown rule, or one that proposes more than a job and a
        gang (preemptive orders, ``fastest_move``, ``eft``).
    """

    def __init__(self, rule: str, seed: int = 0):
        if "+" not in rule:
            raise UnknownPolicyError(f"base rule '{rule}': name a pair ORDER+PLACEMENT, e.g. sjf+first_fit")
        base = queue_policy(rule, seed)
        if type(base) not in (QueuePolicy, EasyBackfill):
            raise UnknownPolicyError(f"base rule '{rule}' preempts, moves jobs or plans the whole window; "
                                     "an inspector's base proposes one job and one gang (e.g. sjf+first_fit)")
        self.rule = rule
        self.base = base

    def bind(self, view: SchedulerView) -> None:
        """Start a run (the base rule forgets its plans)."""
        self.base.bind(view)

    def proposals(self, view: SchedulerView, limit: int) -> list[Proposal]:
        """Up to ``limit`` proposals now, the rule's own decision first. When the rule holds (or
        answers a GPU where its job does not fit) that decision is the only proposal, with an
        empty gang: there is nothing to inspect.

        :param view: the scheduler's view.
        :param limit: the most proposals wanted (>= 1).
        """
        slot, action = self.base.decide(view)
        gang = _gang(view, slot, action)
        out: list[Proposal] = [(slot, action, gang)]
        if not gang or limit <= 1:
            return out
        window, jobs, state = view.window_indices(), view.jobs, view.state
        select = self.base.placement.select
        for k in self.base.order.ranked(view, window):
            if k == slot or not state.fits_somewhere(jobs[window[k]]):
                continue
            other = _gang(view, k, select(state, jobs[window[k]]))
            if other:
                out.append((k, other, other))
                if len(out) >= limit:
                    break
        return out


def _gang(view: SchedulerView, slot: int, action: Action) -> tuple[int, ...]:
    window = view.window_indices()
    if not window or slot >= len(window):
        return ()
    return view.gang_of(view.jobs[window[slot]], action)
