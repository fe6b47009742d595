"""Read-only faces of the simulator's live state, for the scheduler's view (:mod:`gpusched.core.view`).

A scheduler reads the cluster state, the queue and the GPUs of every job as they change, so the
view hands out the live objects rather than copies made at every decision; these wrappers make
them read-only in fact, not only by contract, at no cost to a read:

- :class:`ReadOnlyState`: the cluster state's arrays as read-only numpy views of the live ones
  (taken once: they follow every change), its read methods, and its counters; no method that
  changes it, and no assignment;
- :class:`JobQueue`: the queue itself, a :class:`~collections.deque` whose own change methods
  raise; the simulator changes it through the ``deque`` methods (:data:`QUEUE_OPS`);
- :class:`FrozenList`: the per-job GPU list, a :class:`list` whose change methods raise; the
  record changes it through ``list.__setitem__``.

Any write through the view raises :class:`TypeError` (or :class:`AttributeError` for an
assignment), so a scheduler cannot change the run it is deciding for.
"""

from __future__ import annotations

from collections import deque
from operator import attrgetter

from gpusched.core.cluster import ClusterState


def _refuse(self, *args, **kwargs):
    raise TypeError(f"the scheduler's view is read-only: a {type(self).__name__} cannot be changed")


class JobQueue(deque):
    """The queue of arrival indices (in arrival order); reading works as on a deque, a change
    through its own methods raises (the simulator uses :data:`QUEUE_OPS`)."""

    __slots__ = ()
    append = appendleft = extend = extendleft = insert = pop = popleft = remove = _refuse
    clear = rotate = reverse = __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __reduce__(self):
        return JobQueue, (list(self),)


QUEUE_OPS = (deque.extend, deque.popleft, deque.__delitem__, deque.insert)
"""The deque methods by which the simulator alone changes a :class:`JobQueue` (extend, popleft,
delete a slot, insert)."""


class FrozenList(list):
    """A list whose own change methods raise (its owner changes it through ``list.__setitem__``)."""

    __slots__ = ()
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __reduce__(self):
        return FrozenList, (list(self),)

    def __copy__(self):
        return FrozenList(self)


def _refused(name: str) -> property:
    """A read of the state's changing method ``name`` that raises (a class attribute: the face
    has no ``__getattr__``, which would put a hook on every read)."""

    def get(self):
        raise AttributeError(f"the scheduler's view is read-only (state.{name} changes or copies the "
                             "run's state)")

    return property(get)


class ReadOnlyState:
    """The read-only face of a :class:`~gpusched.core.cluster.ClusterState` (see the module
    docstring): the same reads, the same fit masks (its caches are the state's), no change.

    :param state: the live state.
    """

    ARRAYS = ("vram_used_gb", "vram_free_gb", "compute_used", "compute_free", "jobs_running",
              "node_cpu_used", "node_memory_used")
    METHODS = ("vram_need_gb", "single_gpu_fit", "fit_mask", "fits_somewhere", "gang_for",
               "misroute_cause", "can_place", "_masks")
    REFUSED = ("place", "release", "set_node_down", "_change", "copy")
    """The state's methods that change or copy it: reading one through the face raises."""
    __slots__ = ("_state", "cluster", *ARRAYS, *METHODS)

    # Counters that change with the state, read through C-level getters.
    version = property(attrgetter("_state.version"))
    idle_gpus = property(attrgetter("_state.idle_gpus"))
    down = property(attrgetter("_state.down"))
    down_gpus = property(attrgetter("_state.down_gpus"))
    place, release, set_node_down, _change, copy = (_refused(name) for name in REFUSED)

    def __init__(self, state: ClusterState):
        put = object.__setattr__
        put(self, "_state", state)
        put(self, "cluster", state.cluster)
        for name in self.ARRAYS:
            frozen = getattr(state, name).view()
            frozen.flags.writeable = False
            put(self, name, frozen)
        for name in self.METHODS:
            put(self, name, getattr(state, name))

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"the scheduler's view is read-only (cannot set state.{name})")

    def __reduce__(self):
        return ReadOnlyState, (self._state,)
