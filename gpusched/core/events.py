"""The simulator's one event queue, with an explicit order for events at the same instant.

Four classes of event move a run forward: a running job's *completion*, a *wakeup* a policy asked
for (:meth:`gpusched.core.simulator.Simulator.request_wakeup`), a node's *failure or repair*
(:mod:`gpusched.core.failures`) and a job's *arrival*. The queue keeps each class in its own
structure (a heap of (end time, arrival index) for completions, a heap of times for wakeups, the
failure process's own heap, and a cursor into the arrival times, which are sorted), and
:meth:`EventQueue.pop_due` hands out every event due by a time in the class order
:data:`EVENT_ORDER`: completions first (in end-time order, then arrival index), then wakeups, then
node failures and repairs (in the failure process's order), then arrivals (in arrival order). The
simulator handles each class completely before the next, so a job that completes at the instant
its node fails is complete, and a job that arrives then finds the node down.

A mechanism that adds an event class (a migration that finishes, a deadline) adds it here, at its
place in :data:`EVENT_ORDER`, and nowhere else.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import NamedTuple

from gpusched.core.failures import NodeFailures

EVENT_ORDER: tuple[str, ...] = ("completion", "wakeup", "node", "arrival")
"""The classes of event, in the order they are handled at one instant."""


class DueEvents(NamedTuple):
    """Every event due by a time, by class (see :data:`EVENT_ORDER`): the fields of the plain
    tuple :meth:`EventQueue.pop_due` returns (a plain tuple, on the hot path).

    :param completions: arrival indices of the jobs that complete, in end-time order.
    :param wakeups: how many wakeups were due.
    :param node_events: ``(kind, node)`` of every failure (``NodeFailures.FAIL``) and repair, in order.
    :param arrivals: arrival indices of the jobs that arrive (a range, in arrival order).
    """

    completions: list[int]
    wakeups: int
    node_events: list[tuple[int, int]]
    arrivals: range


class EventQueue:
    """Every future event of one run (see the module docstring).

    :param arrival_min: the jobs' arrival times (minutes), sorted (shared, never changed).
    :param failures: the node failure process (``None``: nodes never fail).
    """

    __slots__ = ("arrival_min", "failures", "next_arrival", "running", "wakeups")

    def __init__(self, arrival_min: Sequence[float], failures: NodeFailures | None):
        self.arrival_min = arrival_min
        self.failures = failures
        self.next_arrival = 0
        """Arrival index of the next job to arrive."""
        self.running: list[tuple[float, int]] = []
        """Heap of (true end time in minutes, arrival index) of the running jobs."""
        self.wakeups: list[float] = []
        """Heap of the decision times policies asked for (minutes)."""

    def copy(self, k: int, keep_failures: bool = True) -> EventQueue:
        """An independent copy that knows the first ``k`` jobs' arrivals (and the failure process,
        copied, if ``keep_failures``)."""
        twin = object.__new__(EventQueue)
        twin.arrival_min = self.arrival_min[:k] if k < len(self.arrival_min) else self.arrival_min
        twin.failures = None if self.failures is None or not keep_failures else self.failures.copy()
        twin.next_arrival = self.next_arrival
        twin.running = list(self.running)
        twin.wakeups = list(self.wakeups)
        return twin

    @property
    def arrivals_left(self) -> int:
        """Jobs that have not arrived yet."""
        return len(self.arrival_min) - self.next_arrival

    def next_min(self, queued: bool) -> float | None:
        """Time of the next event (minutes), ``None`` if there is none. A failure, a repair or a
        wakeup counts only while another event is to come or ``queued`` (jobs wait): a run with
        nothing left to do ends without waiting for the next failure."""
        k, arrival_min, running = self.next_arrival, self.arrival_min, self.running
        if k < len(arrival_min):
            t = arrival_min[k]
            if running and running[0][0] < t:
                t = running[0][0]
        else:
            t = running[0][0] if running else None
        failures, wakeups = self.failures, self.wakeups
        if failures is not None and (t is not None or queued):
            t_node = failures.next_min()
            t = t_node if t is None else min(t, t_node)
        if wakeups and (t is not None or queued):
            t = wakeups[0] if t is None else min(t, wakeups[0])
        return t

    def push_completion(self, end_min: float, job_idx: int) -> None:
        """A job started: it completes at ``end_min`` unless it stops first."""
        heapq.heappush(self.running, (end_min, job_idx))

    def drop_running(self, victims: Sequence[int]) -> None:
        """Forget the completions of jobs that stopped."""
        if victims:
            gone = set(victims)
            self.running = [e for e in self.running if e[1] not in gone]
            heapq.heapify(self.running)

    def push_wakeup(self, t_min: float, now_min: float) -> None:
        """Make ``t_min`` a decision point, if it is later than ``now_min`` and not one already."""
        if t_min > now_min and math.isfinite(t_min) and t_min not in self.wakeups:
            heapq.heappush(self.wakeups, float(t_min))

    def pop_due(self, t: float) -> tuple[Sequence[int], int, Sequence[tuple[int, int]], range]:
        """Remove and return every event due at or before ``t``, by class in :data:`EVENT_ORDER`
        (the fields of :class:`DueEvents`; a class with no event due is an empty tuple)."""
        running = self.running
        completions: list[int] | tuple = ()
        if running and running[0][0] <= t:
            completions = []
            while running and running[0][0] <= t:
                completions.append(heapq.heappop(running)[1])
        wakeups = self.wakeups
        n_wakeups = 0
        while wakeups and wakeups[0] <= t:
            heapq.heappop(wakeups)
            n_wakeups += 1
        node_events: list[tuple[int, int]] | tuple = ()
        failures = self.failures
        if failures is not None and failures.next_min() <= t:
            node_events = []
            while failures.next_min() <= t:
                _, kind, node = failures.pop()
                node_events.append((kind, node))
        first = k = self.next_arrival
        arrival_min, n = self.arrival_min, len(self.arrival_min)
        while k < n and arrival_min[k] <= t:
            k += 1
        self.next_arrival = k
        return completions, n_wakeups, node_events, range(first, k)

    def pop_arrivals(self, t: float) -> range:
        """Remove and return the arrivals due at or before ``t`` (the start of a run)."""
        first = k = self.next_arrival
        while k < len(self.arrival_min) and self.arrival_min[k] <= t:
            k += 1
        self.next_arrival = k
        return range(first, k)
