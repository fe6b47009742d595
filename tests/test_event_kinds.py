"""A new kind of event is a handler and a rank: a kind registered here, from outside the core,
runs at its time and at its place among the kinds of one instant, and makes that time a point the
clock stops at."""

from __future__ import annotations

from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.events import EVENT_ORDER
from gpusched.core.failures import FailureSpec, NodeFailures
from gpusched.core.jobs import Job
from gpusched.core.simulator import HOLD, Simulator

AUDIT = "audit"
"""The toy kind: it notes what the run looks like when it falls due."""


def _job(idx: int, arrival: float, duration: float) -> Job:
    return Job(id=idx, type="training", arrival_min=arrival, duration_min=duration, gpus=1,
               vram_gb=8.0, compute=1.0)


def _with_audits(sim: Simulator, rank: float) -> list[tuple]:
    seen: list[tuple] = []

    def audit(run, t, payloads):
        seen.append((t, payloads, list(run.queue), run.state.down is not None, run.jobs_completed))

    sim.event_kinds.register(AUDIT, rank, audit)
    return seen


def test_a_toy_kind_between_node_events_and_arrivals_sees_the_node_down_and_not_the_arrival():
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 1)])
    sim = Simulator(cluster, [_job(0, 0.0, 10.0), _job(1, 10.0, 5.0)],
                    failures=FailureSpec(node_failures_per_1000_node_days=1.0))
    seen = _with_audits(sim, rank=EVENT_ORDER.index("node") + 0.5)
    sim.reset()  # the kind outlives a reset: it belongs to the simulator
    sim.run_state.events.drop("node")
    sim.run_state.events.push(10.0, "node", (NodeFailures.FAIL, 0), 0)
    sim.run_state.events.push(10.0, AUDIT, "at ten")
    sim.run_state.events.push(3.0, AUDIT, "at three")
    sim.step(0)  # job 0 runs 0-10
    while not sim.run_state.done:
        sim.step(HOLD if sim.view.state.down is not None else 0)
    # at 3: nothing but the audit; at 10: job 0 completed, the node failed, job 1 not yet queued
    assert seen == [(3.0, ["at three"], [], False, 0), (10.0, ["at ten"], [], True, 1)]


def test_a_toy_kind_is_a_time_the_clock_stops_at_and_ranks_first_if_asked():
    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 1)])
    sim = Simulator(cluster, [_job(0, 0.0, 10.0), _job(1, 0.0, 5.0)])
    seen = _with_audits(sim, rank=-1)  # before completions at one instant
    sim.run_state.events.push(4.0, AUDIT, 1)
    sim.run_state.events.push(10.0, AUDIT, 2)
    sim.step(0)  # job 0 on the GPU; job 1 waits
    sim.step(HOLD)  # the hold ends at the audit, not at job 0's end
    assert sim.run_state.time_min == 4.0 and sim.run_state.log.holds[-1][:2] == (0.0, 4.0)
    sim.step(HOLD)
    assert sim.run_state.time_min == 10.0
    assert seen == [(4.0, [1], [1], False, 0), (10.0, [2], [1], False, 0)]  # before job 0 completes
    assert sim.run_state.jobs_completed == 1
