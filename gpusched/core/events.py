"""The simulator's one event heap, SimPy's shape: ``(time, rank, sequence, kind, payload)``.

Every future event of a run is one entry of one heap (SimPy's ``Environment`` keeps
``(time, priority, id, event)``; simpy/core.py). Entries pop in order of their time (minutes),
then their *rank* (the order of kinds at one instant), then their *sequence* (the order within a
kind at one instant, given by whoever pushes it). A *kind* is a name with a rank and a handler
(:class:`EventKinds`); the loop (:meth:`EventHeap.run_due`) pops every entry due by a time and
hands the entries of one kind at one instant to that kind's handler together, as
``handler(run, t, payloads)`` (``run`` is the run state the loop advances, ``t`` the instant in
minutes, ``payloads`` in sequence order). A kind is handled completely before the next rank.

The kinds of the simulator (:data:`EVENT_ORDER`, in rank order at one instant):

- ``completion``: a running job's true end (sequence and payload: its arrival index);
- ``wakeup``: a decision time a policy asked for (payload: the time; a time is pushed once);
- ``node``: a node's failure or repair (:mod:`gpusched.core.failures`; payload ``(kind, node)``,
  sequence ``kind * nodes + node``, the failure process's own order);
- ``arrival``: the next job's arrival. Only the next arrival is in the heap: its handler takes
  every job arriving by the instant from the sorted arrival times (a cursor) and pushes the
  next one.

So a job that completes at the instant its node fails is complete, and a job that arrives then
finds the node down. A new kind of event is a handler and a rank (:meth:`EventKinds.register`),
pushed with :meth:`EventHeap.push`; nothing else changes.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable
from typing import Any

COMPLETION, WAKEUP, NODE, ARRIVAL = "completion", "wakeup", "node", "arrival"
"""The simulator's kinds of event."""

EVENT_ORDER: tuple[str, ...] = (COMPLETION, WAKEUP, NODE, ARRIVAL)
"""The simulator's kinds, in the order they are handled at one instant (their ranks 0-3)."""

Handler = Callable[[Any, float, list], None]
"""``handler(run, t, payloads)``: handles every event of its kind due at instant ``t``."""

_heappush, _heappop = heapq.heappush, heapq.heappop


class EventKinds:
    """The kinds of event of a simulator: each one's rank and handler (a fork takes a copy)."""

    __slots__ = ("handlers", "ranks")

    def __init__(self):
        self.ranks: dict[str, float] = {}
        self.handlers: dict[str, Handler] = {}

    def copy(self) -> EventKinds:
        """An independent copy."""
        twin = EventKinds()
        twin.ranks.update(self.ranks)
        twin.handlers.update(self.handlers)
        return twin

    def register(self, kind: str, rank: float, handler: Handler) -> None:
        """Add (or replace) a kind: its events at one instant are handled after every kind of a
        lower rank and before every kind of a higher one.

        :param kind: its name.
        :param rank: its place at one instant (the simulator's kinds are ranked 0 to 3, see
            :data:`EVENT_ORDER`; a rank between two of them puts it between them).
        :param handler: ``handler(run, t, payloads)``.
        """
        if not math.isfinite(rank):
            raise ValueError(f"event kind '{kind}': rank must be finite (got {rank})")
        self.ranks[kind] = rank
        self.handlers[kind] = handler


class EventHeap:
    """Every future event of one run (see the module docstring).

    :param kinds: the kinds of event.
    """

    __slots__ = ("heap", "kinds", "wakeups")

    def __init__(self, kinds: EventKinds):
        self.kinds = kinds
        self.heap: list[tuple[float, float, int, str, Any]] = []
        """The entries, a heap of ``(time, rank, sequence, kind, payload)``."""
        self.wakeups: set[float] = set()
        """The decision times policies asked for that are still to come (minutes)."""

    def copy(self, kinds: EventKinds) -> EventHeap:
        """An independent copy (the entries are immutable tuples) whose kinds are ``kinds``."""
        twin = object.__new__(EventHeap)
        twin.kinds = kinds
        twin.heap = list(self.heap)
        twin.wakeups = set(self.wakeups)
        return twin

    def push(self, time_min: float, kind: str, payload: Any = None, sequence: int = 0) -> None:
        """Add an event of a registered kind at ``time_min``."""
        _heappush(self.heap, (time_min, self.kinds.ranks[kind], sequence, kind, payload))

    def push_completion(self, end_min: float, job_idx: int) -> None:
        """A job started: it completes at ``end_min`` unless it stops first."""
        _heappush(self.heap, (end_min, 0, job_idx, COMPLETION, job_idx))

    def push_wakeup(self, t_min: float, now_min: float) -> None:
        """Make ``t_min`` a decision point, if it is later than ``now_min`` and not one already."""
        if t_min > now_min and math.isfinite(t_min) and t_min not in self.wakeups:
            self.wakeups.add(float(t_min))
            _heappush(self.heap, (float(t_min), 1, 0, WAKEUP, float(t_min)))

    def drop(self, kind: str, payloads: Iterable[Any] | None = None) -> None:
        """Forget the events of ``kind`` (with these payloads, or all of them): the completions
        of jobs that stopped, the failures a fork does not foresee."""
        gone = None if payloads is None else set(payloads)
        if gone is not None and not gone:
            return
        heap = self.heap  # changed in place: the loop holds it
        heap[:] = [e for e in heap if e[3] != kind or (gone is not None and e[4] not in gone)]
        heapq.heapify(heap)

    def retime(self, kind: str, time_of: Callable[[Any], float]) -> None:
        """Move every event of ``kind`` to ``time_of(payload)`` (a fork that takes declared run
        times as true moves the completions to the declared ends)."""
        heap = self.heap
        heap[:] = [(time_of(e[4]), *e[1:]) if e[3] == kind else e for e in heap]
        heapq.heapify(heap)

    def pending(self, kind: str) -> list[tuple[float, Any]]:
        """``(time, payload)`` of every event of ``kind`` to come, soonest first."""
        return [(e[0], e[4]) for e in sorted(self.heap) if e[3] == kind]

    def next_min(self) -> float | None:
        """Time of the next event (minutes), ``None`` if there is none."""
        return self.heap[0][0] if self.heap else None

    def run_due(self, run: Any, t: float) -> None:
        """Pop every event due by ``t`` and hand each kind's events at one instant to its
        handler, in the heap's order; stop early once ``run.done`` (a handler ended the run)."""
        heap, handlers = self.heap, self.kinds.handlers
        while heap and heap[0][0] <= t:
            entry = _heappop(heap)
            kind = entry[3]
            batch = [entry[4]]
            while heap and heap[0][0] <= t and heap[0][3] == kind:
                batch.append(_heappop(heap)[4])
            handlers[kind](run, t, batch)
            if run.done:
                return
