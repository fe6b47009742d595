"""The event queue: one queue, with the order of events at one instant explicit, and the
simulator handling them in that order (completions, wakeups, node failures and repairs, arrivals)."""

from __future__ import annotations

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.events import EVENT_ORDER, DueEvents, EventQueue
from gpusched.core.failures import FailureSpec, NodeFailures
from gpusched.core.jobs import Job
from gpusched.core.simulator import Simulator
from gpusched.policies import get_policy

SPEC = FailureSpec(node_failures_per_1000_node_days=1.0)


def job(idx: int, arrival: float, duration: float) -> Job:
    return Job(id=idx, type="training", arrival_min=arrival, duration_min=duration, gpus=1,
               vram_gb=8.0, compute=1.0)


def test_order_is_completions_wakeups_nodes_arrivals():
    assert EVENT_ORDER == ("completion", "wakeup", "node", "arrival")


def test_pop_due_hands_out_every_class_in_its_own_order():
    failures = NodeFailures(2, SPEC, seed=0, start_min=0.0)
    failures.events = [(5.0, NodeFailures.FAIL, 1), (6.0, NodeFailures.FAIL, 0)]
    events = EventQueue([0.0, 5.0, 5.0, 9.0], failures)
    for end, idx in ((5.0, 3), (5.0, 1), (4.0, 2), (7.0, 0)):
        events.push_completion(end, idx)
    events.push_wakeup(5.0, now_min=0.0)
    events.push_wakeup(5.0, now_min=0.0)  # the same time twice is one wakeup
    events.push_wakeup(0.0, now_min=0.0)  # not later than now: ignored
    assert events.next_min(queued=False) == 0.0  # the first arrival
    due = DueEvents(*events.pop_due(5.0))
    assert due.completions == [2, 1, 3]  # end time, then arrival index
    assert due.wakeups == 1
    assert due.node_events == [(NodeFailures.FAIL, 1)]
    assert list(due.arrivals) == [0, 1, 2]
    assert events.next_min(queued=False) == 6.0  # node 0's failure, before job 0's end at 7
    assert events.arrivals_left == 1


def test_failures_and_wakeups_alone_do_not_keep_a_run_going():
    failures = NodeFailures(1, SPEC, seed=0, start_min=0.0)
    events = EventQueue([], failures)
    events.push_wakeup(3.0, now_min=0.0)
    assert events.next_min(queued=False) is None
    assert events.next_min(queued=True) == 3.0


def test_copy_is_independent():
    events = EventQueue([0.0, 1.0], NodeFailures(1, SPEC, seed=0, start_min=0.0))
    events.push_completion(4.0, 0)
    twin = events.copy(1, keep_failures=False)
    twin.push_completion(2.0, 1)
    twin.pop_due(10.0)
    assert events.running == [(4.0, 0)] and events.next_arrival == 0
    assert twin.failures is None and twin.arrivals_left == 0


def test_a_job_ending_when_its_node_fails_completes_and_an_arrival_then_finds_the_node_down():
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 1)])
    sim = Simulator(cluster, [job(0, 0.0, 10.0), job(1, 10.0, 5.0)], failures=SPEC)
    sim.events.failures.events = [(10.0, NodeFailures.FAIL, 0)]
    first_fit = get_policy("first_fit")
    while not sim.done:
        sim.step(first_fit.select(sim.state, sim.head_job))
    table = sim.jobs_table().set_index("id")
    assert table.loc[0, "finished"] and table.loc[0, "end_min"] == 10.0
    assert table.loc[0, "interruptions"] == 0
    repair = next(t for t, _, kind in sim.node_events if kind == "repair")
    assert sim.node_events[0] == (10.0, 0, "failure")
    assert table.loc[1, "start_min"] == repair > 10.0
