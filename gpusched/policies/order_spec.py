"""What a queue order is: one :class:`OrderSpec` per order, registered once in
:data:`gpusched.policies.orders.ORDERS`.

An order picks which window job starts next (:mod:`gpusched.policies.queue`). Its spec holds
everything the rest of the package asks of it: its name and display label, its sort key, whether
it reads run times, and the traits from which the registry composes its scheduler with any
placement (:func:`gpusched.policies.registry.queue_policy`):

- ``head_only``: only the head job may start (``fcfs``);
- ``backfills``: the head job holds a reservation and later jobs start around it (``easy``,
  :class:`~gpusched.policies.queue.EasyBackfill`);
- ``preempts``: it also stops running jobs that rank below a waiting one
  (:class:`~gpusched.policies.preemptive.Preemptive`), with the rank it gives waiting and running
  jobs on one scale;
- ``urgency``: it acts on deadlines and predicted run times, and is listed apart
  (:func:`gpusched.policies.registry.urgency_policy_names`).

Colours are the figures' (:data:`gpusched.figures.style.ORDER_COLORS`); the prose that explains an
order is the glossary's, found by its label (:func:`gpusched.words.glossary.entry_for`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from gpusched.core.view import SchedulerView

OrderKey = Callable[[SchedulerView], Callable[[int], float]]
"""An order's sort key: given the view, a function of a job's arrival index (lower first)."""


class PreemptionRank(Protocol):
    """A preemptive order's rank of waiting and running jobs, on one scale (lower goes first)."""

    view: SchedulerView

    def waiting(self, idx: int) -> float:
        """The rank of the waiting job with arrival index ``idx``."""
        ...

    def running(self, idx: np.ndarray) -> np.ndarray:
        """The ranks of the running jobs ``idx`` (arrival indices)."""
        ...

    def changes_min(self, idx: np.ndarray) -> np.ndarray | None:
        """When the running jobs ``idx``'s ranks next change by themselves (minutes; ``None``
        when they never do): a decision is asked for then."""
        ...


@dataclass(frozen=True)
class OrderSpec:
    """One queue order (see the module docstring).

    :param name: the registry name (``sjf``).
    :param label: the display name (``SJF``).
    :param key: the sort key; ``None``: arrival order.
    :param run_times: it reads declared (or predicted) run times, so that it cannot run where none
        is declared (:func:`gpusched.policies.registry.reads_run_times`).
    :param head_only: only the head job may start.
    :param backfills: EASY backfilling around the head job's reservation.
    :param preempts: builds its :class:`PreemptionRank` on a view; ``None``: it never preempts.
    :param urgency: an order of urgency (deadlines, predictions), listed apart.
    """

    name: str
    label: str
    key: OrderKey | None = None
    run_times: bool = False
    head_only: bool = False
    backfills: bool = False
    preempts: Callable[[SchedulerView], PreemptionRank] | None = None
    urgency: bool = False

    def pick(self, view: SchedulerView, window: Sequence[int]) -> int | None:
        """The window slot to start among the slots whose job fits now (the head for a
        ``head_only`` order, fitting or not; ``None`` when none fits): the smallest key, the
        earliest arrival on ties."""
        if self.head_only:
            return 0
        of = None if self.key is None else self.key(view)
        fits, jobs = view.state.fits_somewhere, view.jobs
        slots = [k for k, i in enumerate(window) if fits(jobs[i])]
        if not slots:
            return None
        if of is None:
            return slots[0]
        return min(slots, key=lambda k: (of(window[k]), k))

    def ranked(self, view: SchedulerView, window: Sequence[int]) -> list[int]:
        """Every window slot in the order's preference, fitting now or not (``head_only``: the
        head alone; no key: arrival order; else by the key, arrival order on ties)."""
        if self.head_only:
            return [0] if window else []
        if self.key is None:
            return list(range(len(window)))
        of = self.key(view)
        return sorted(range(len(window)), key=lambda k: (of(window[k]), k))

    @property
    def reserves(self) -> str:
        """Which of its window jobs that must wait hold a reservation under ``eft``
        (:class:`~gpusched.policies.eft.EarliestFinishQueue`): ``none`` (``head_only``), ``head``
        (``backfills``) or ``all`` (conservative backfilling)."""
        return "none" if self.head_only else "head" if self.backfills else "all"
