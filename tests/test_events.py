"""The event heap: one heap of ``(time, rank, sequence, kind, payload)``, the order of events at
one instant explicit (completions, wakeups, node failures and repairs, arrivals), and a handler
per kind."""

from __future__ import annotations

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.events import ARRIVAL, COMPLETION, EVENT_ORDER, NODE, WAKEUP, EventHeap, EventKinds
from gpusched.core.failures import FailureSpec, NodeFailures
from gpusched.core.jobs import Job
from gpusched.core.simulator import Simulator
from gpusched.policies import get_policy

SPEC = FailureSpec(node_failures_per_1000_node_days=1.0)


def job(idx: int, arrival: float, duration: float) -> Job:
    return Job(id=idx, type="training", arrival_min=arrival, duration_min=duration, gpus=1,
               vram_gb=8.0, compute=1.0)


class _Run:
    done = False


def _recording_kinds(seen: list) -> EventKinds:
    kinds = EventKinds()
    for rank, kind in enumerate(EVENT_ORDER):
        kinds.register(kind, rank, lambda run, t, payloads, kind=kind: seen.append((t, kind, payloads)))
    return kinds


def test_order_is_completions_wakeups_nodes_arrivals():
    assert EVENT_ORDER == ("completion", "wakeup", "node", "arrival")
    sim = Simulator(Cluster([NodeGroup("A100-80GB", 80.0, 1)]), [job(0, 0.0, 1.0)])
    assert sorted(EVENT_ORDER, key=sim.event_kinds.ranks.get) == list(EVENT_ORDER)


def test_the_heap_hands_out_each_kind_at_one_instant_together_in_rank_then_sequence_order():
    seen: list = []
    events = EventHeap(_recording_kinds(seen))
    events.push(5.0, ARRIVAL, 7, 7)
    events.push(5.0, NODE, (NodeFailures.FAIL, 1), 1)
    events.push(6.0, NODE, (NodeFailures.FAIL, 0), 0)
    for end, idx in ((5.0, 3), (5.0, 1), (4.0, 2), (7.0, 0)):
        events.push_completion(end, idx)
    events.push_wakeup(5.0, now_min=0.0)
    events.push_wakeup(5.0, now_min=0.0)  # the same time twice is one wakeup
    events.push_wakeup(0.0, now_min=0.0)  # not later than now: ignored
    assert events.next_min() == 4.0
    events.run_due(_Run(), 4.0)
    assert seen == [(4.0, COMPLETION, [2])]
    seen.clear()
    events.run_due(_Run(), 5.0)
    assert seen == [(5.0, COMPLETION, [1, 3]), (5.0, WAKEUP, [5.0]),
                    (5.0, NODE, [(NodeFailures.FAIL, 1)]), (5.0, ARRIVAL, [7])]
    assert events.next_min() == 6.0  # node 0's failure, before job 0's end at 7


def test_dropped_events_never_run_and_a_copy_is_independent():
    seen: list = []
    events = EventHeap(_recording_kinds(seen))
    events.push_completion(4.0, 0)
    events.push_completion(3.0, 1)
    twin = events.copy(events.kinds)
    events.drop(COMPLETION, [1])
    for heap in (twin, events):
        while heap.next_min() is not None:
            heap.run_due(_Run(), heap.next_min())
    assert seen == [(3.0, COMPLETION, [1]), (4.0, COMPLETION, [0]), (4.0, COMPLETION, [0])]


def test_failures_and_wakeups_alone_do_not_keep_a_run_going():
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 1)])
    sim = Simulator(cluster, [job(0, 0.0, 10.0)], failures=SPEC)
    sim.run_state.request_wakeup(3.0)
    assert sim.run_state.next_min(queued=True) == 3.0  # the job waits
    assert sim.run_state.next_min(queued=False) is None  # had it not been queued, nothing would be left
    sim.step(0)
    assert sim.run_state.done and sim.run_state.time_min == 10.0 and sim.run_state.end_reason == "completed"


def test_one_instant_runs_completion_wakeup_node_arrival_in_the_order_of_the_old_queue():
    """A job ends, a wakeup falls due, the node fails and a job arrives at the same minute: the
    handlers run in the order the four-source queue used (completion, wakeup, node, arrival)."""
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 1)])
    sim = Simulator(cluster, [job(0, 0.0, 10.0), job(1, 10.0, 5.0)], failures=SPEC)
    sim.run_state.events.drop(NODE)
    sim.run_state.events.push(10.0, NODE, (NodeFailures.FAIL, 0), 0)
    order: list[str] = []
    for kind in EVENT_ORDER:
        inner = sim.event_kinds.handlers[kind]
        sim.event_kinds.handlers[kind] = (
            lambda run, t, payloads, kind=kind, inner=inner: (order.append(kind), inner(run, t, payloads)))
    sim.run_state.request_wakeup(10.0)
    sim.step(0)  # job 0 starts, ends at 10
    while not sim.run_state.done:
        sim.step(get_policy("first_fit").select(sim.run_state.state, sim.view.head_job))
    assert order[:4] == list(EVENT_ORDER)


def test_a_job_ending_when_its_node_fails_completes_and_an_arrival_then_finds_the_node_down():
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 1)])
    sim = Simulator(cluster, [job(0, 0.0, 10.0), job(1, 10.0, 5.0)], failures=SPEC)
    sim.run_state.events.drop(NODE)
    sim.run_state.events.push(10.0, NODE, (NodeFailures.FAIL, 0), 0)
    first_fit = get_policy("first_fit")
    while not sim.run_state.done:
        sim.step(first_fit.select(sim.run_state.state, sim.view.head_job))
    table = sim.jobs_table().set_index("id")
    assert table.loc[0, "finished"] and table.loc[0, "end_min"] == 10.0
    assert table.loc[0, "interruptions"] == 0
    repair = next(t for t, _, kind in sim.run_state.log.node_events if kind == "repair")
    assert sim.run_state.log.node_events[0] == (10.0, 0, "failure")
    assert table.loc[1, "start_min"] == repair > 10.0
