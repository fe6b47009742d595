"""The scheduler's view: no policy, planner or observation reads a true duration; a fork shares
no mutable state with its parent; the view's epochs move at every disruption."""

from __future__ import annotations

import copy
import pickle
from collections import deque
from dataclasses import replace

import numpy as np
import pytest

from gpusched.core.declared_jobs import DeclaredJob
from gpusched.core.estimator import DeclaredRuntime
from gpusched.core.events import COMPLETION
from gpusched.core.jobs import Job
from gpusched.core.simulator import Simulator
from gpusched.core.speed_model import TableSpeeds
from gpusched.core.view import SchedulerView, as_scheduler
from gpusched.policies import (
    get_policy,
    heuristic_names,
    moving_policy_names,
    preemptive_policy_names,
    queue_policy_names,
    urgency_policy_names,
)
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

CLAIRVOYANT = ("lookahead", "lookahead_jct")
"""The bounds that read the truth through the view's named door (:meth:`SchedulerView.clairvoyant_fork`)."""

PLANNERS = ("queue_lookahead", "cheapest_fit")
URGENCY = ("qssf+first_fit", "edf+first_fit", "least_slack+eft", "qssf+cheapest_fit")
"""The orders and the placement of urgency, also checked with run times predicted from history."""
DECISIONS = 25


def _scenario():
    """Window, speeds, failures with checkpoints, preemption: every channel a leak could take."""
    return load_scenario("fleet-16gpu-failures").with_overrides(
        **{"failures.node_failures_per_1000_node_days": 3000.0})


def _with_other_truth(sim: Simulator) -> None:
    """Draw every job's true duration and every running job's true end anew (in no relation to
    the declared ones, which stay: each job's declared time becomes its estimate)."""
    rng = np.random.default_rng(len(sim.run_state.log.holds) + sim.run_state.decisions)
    declared = sim.run_state.declared_min
    run = sim.run_state
    run.jobs = [replace(j, duration_min=float(rng.uniform(1.0, 3000.0))) for j in run.jobs]
    if not run.estimator.learns:
        estimates = {j.id: d for j, d in zip(run.jobs, declared.tolist(), strict=True)}
        run.estimator = DeclaredRuntime(run.jobs, estimates)
    rec = sim.run_state.record
    for i in sim.run_state.running:
        rec.run_min[i] = float(rng.uniform(1.0, 3000.0))
    sim.run_state.events.retime(COMPLETION, lambda i: float(rec.start_min[i] + rec.run_min[i]))


def _policies() -> list[str]:
    names = [*heuristic_names(), *queue_policy_names(), *preemptive_policy_names(), *urgency_policy_names(),
             *moving_policy_names(), *PLANNERS]
    return list(dict.fromkeys(n for n in names if n not in CLAIRVOYANT))


@pytest.mark.parametrize("name", _policies())
def test_no_decision_depends_on_a_true_duration(name):
    """At each of the first decisions of a run, a copy of the run (and of the policy's state) whose
    true durations differ, declared ones kept, gets the same decision."""
    _check_no_true_duration(name, _scenario())


@pytest.mark.parametrize("name", URGENCY)
def test_no_decision_depends_on_a_true_duration_with_history_estimates(name):
    """The same, with the run times predicted from completed jobs (``declared_run_time: history``)
    and a deadline on every other job (declared: it stays when the truth is drawn anew)."""
    scenario = _scenario().with_overrides(**{"workload.declared_run_time": "history"})
    _check_no_true_duration(name, scenario, deadlines=True)


def _check_no_true_duration(name: str, scenario, deadlines: bool = False) -> None:
    sim = make_simulator(scenario, seed=3, n_jobs=60)
    if deadlines:
        sim.setup.all_jobs = [replace(j, deadline_min=1.5 * j.duration_min if j.id % 2 else None)
                              for j in sim.run_state.jobs]
    policy = as_scheduler(get_policy(name, seed=0))
    sim.reset()
    policy.bind(sim.view)
    checked = 0
    while not sim.run_state.done and checked < DECISIONS:
        twin_policy, twin = copy.deepcopy((policy, sim))
        _with_other_truth(twin)
        here = policy.decide(sim.view)
        there = twin_policy.decide(twin.view)
        assert here == there, (name, sim.run_state.time_min, here, there)
        sim.step(here[1], here[0])
        checked += 1
    assert checked == DECISIONS or sim.run_state.done


def test_the_view_shows_declared_durations_only():
    scenario = _scenario().with_overrides(**{"workload.runtime_estimate_error": 0.5})
    sim = make_simulator(scenario, seed=1, n_jobs=40)
    view = sim.view
    declared = [j.declared_min for j in view.jobs]
    assert declared == sim.run_state.declared_min.tolist()
    assert not any(hasattr(j, "duration_min") for j in view.jobs)  # the truth cannot be spelled
    assert [j.id for j in view.jobs] == [j.id for j in sim.run_state.jobs]
    assert any(j.duration_min != d for j, d in zip(sim.run_state.jobs, declared, strict=True))  # errors exist
    for name in ("state", "time_min", "declared_end_min", "start_min"):
        assert hasattr(view, name)
    for hidden in ("run_min", "remaining_work_min", "events", "record", "step", "failure_process"):
        assert not hasattr(view, hidden), hidden
    with pytest.raises(ValueError):
        view.start_min[0] = 1.0  # read-only
    with pytest.raises(ValueError):
        view.declared_min[0] = 1.0


def test_a_declared_job_has_every_field_of_a_job_but_its_true_duration():
    shown = {name for cls in DeclaredJob.__mro__ for name in getattr(cls, "__slots__", ())}
    assert shown == set(Job.__dataclass_fields__) - {"duration_min"} | {"declared_min"}


def test_a_declared_job_is_read_only_and_copies_field_by_field():
    sim = make_simulator(load_scenario("phase1-8gpu"), seed=0, n_jobs=5)
    job = sim.view.jobs[0]
    truth = sim.run_state.jobs[0]
    assert (job.id, job.gpus, job.vram_gb, job.model) == (truth.id, truth.gpus, truth.vram_gb, truth.model)
    for name in ("gpus", "declared_min", "duration_min"):
        with pytest.raises(AttributeError, match="read-only"):
            setattr(job, name, 1)
    with pytest.raises(AttributeError, match="read-only"):
        del job.gpus
    twin = pickle.loads(pickle.dumps(job))
    assert twin == job == copy.copy(job) and twin is not job and hash(twin) == hash(job)
    assert replace(truth, gpus=truth.gpus + 1) != truth and sim.view.jobs[1] != job
    assert "declared_min=" in repr(job) and "duration_min" not in repr(job)


@pytest.mark.parametrize("declared", ["exact", {"lognormal": 0.5}, "none"])
def test_fixed_declared_jobs_are_built_once_per_setup(declared):
    """Declared times fixed at the start: every run and every full fork shows the same declared
    jobs, an arrived-only fork the arrived ones among them."""
    scenario = _scenario().with_overrides(**{"workload.declared_run_time": declared})
    sim = make_simulator(scenario, seed=1, n_jobs=40)
    first = sim.view.jobs
    assert len(first) == 40 and isinstance(first, tuple)
    for _ in range(5):
        sim.step(*reversed(as_scheduler(get_policy("first_fit")).decide(sim.view)))
    assert sim.fork().view.jobs is first
    arrived = sim.fork(arrived_only=True).view.jobs
    assert arrived == first[:len(arrived)] and all(a is b for a, b in zip(arrived, first, strict=False))
    sim.reset()
    assert sim.view.jobs is first


def test_epochs_move_at_every_completion_and_disruption():
    sim = make_simulator(_scenario(), seed=0, n_jobs=80)
    policy = as_scheduler(get_policy("srtf+best_fit"))
    sim.reset()
    policy.bind(sim.view)
    seen = []
    while not sim.run_state.done:
        run = sim.run_state
        before = (sim.view.epoch, sim.view.plan_epoch, run.jobs_completed, run.disruptions)
        slot, action = policy.decide(sim.view)
        sim.step(action, slot)
        after = (sim.view.epoch, sim.view.plan_epoch, sim.run_state.jobs_completed, sim.run_state.disruptions)
        completed, disrupted = after[2] > before[2], after[3] > before[3]
        assert (after[0] > before[0]) == (completed or disrupted)
        assert (after[1] > before[1]) == disrupted
        seen.append((completed, disrupted))
    assert sim.run_state.preemptions > 0 and sim.run_state.node_failures > 0
    assert any(d for _, d in seen) and any(c for c, _ in seen)


# ---------------------------------------------------------------------------- forks
SHARED = {"cluster", "jobs", "speeds", "speed_model", "gang_rule", "restore", "failures", "checkpoint",
          "reward_spec", "util_band", "_arrival_min", "_estimator0", "best_speed", "declared_min",
          "declared_best_min", "reward", "arrival_min", "failure_seed", "spec", "all_jobs", "lifecycle",
          "setup"}
"""Attributes a fork shares with its parent: immutable, or read-only arrays (the lifecycle holds
only the mechanisms, the setup only the run's fixed parts)."""


def _mutable_parts(obj, path="sim", seen=None, out=None, depth=0):
    """(path, object) of every mutable object reachable from ``obj``, not through :data:`SHARED`."""
    seen = set() if seen is None else seen
    out = [] if out is None else out
    if id(obj) in seen or depth > 6:
        return out
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        if obj.flags.writeable:
            out.append((path, obj))
        return out
    if isinstance(obj, list | deque | dict | set):
        out.append((path, obj))
        items = obj.items() if isinstance(obj, dict) else enumerate(obj)
        for k, v in list(items)[:50]:
            _mutable_parts(v, f"{path}[{k}]", seen, out, depth + 1)
        return out
    if isinstance(obj, SchedulerView | np.random.Generator | np.random.BitGenerator):
        return out
    names = list(getattr(obj, "__dict__", {})) + list(getattr(type(obj), "__slots__", ()))
    if names and not isinstance(obj, type):
        out.append((path, obj))
        for name in names:
            if name in SHARED or not hasattr(obj, name):
                continue
            _mutable_parts(getattr(obj, name), f"{path}.{name}", seen, out, depth + 1)
    return out


@pytest.mark.parametrize("arrived_only", [False, True])
@pytest.mark.parametrize(("name", "disruption"), [("las+best_fit", "preemptions"),
                                                  ("las+fastest_move", "migrations")])
def test_a_fork_shares_no_mutable_state_with_its_parent(arrived_only, name, disruption):
    sim = make_simulator(_scenario(), seed=2, n_jobs=60)
    policy = as_scheduler(get_policy(name))
    sim.reset()
    policy.bind(sim.view)
    while sim.run_state.node_failures < 1 or getattr(sim.run_state, disruption) < 1:
        slot, action = policy.decide(sim.view)
        sim.step(action, slot)
    twin = sim.fork(arrived_only)
    assert getattr(twin.run_state, disruption) == getattr(sim.run_state, disruption)
    moves = sim.run_state.record.lives.migrations[:len(twin.run_state.jobs)]
    assert (twin.run_state.record.lives.migrations == moves).all()
    mine = _mutable_parts(sim)
    theirs = {id(o): p for p, o in _mutable_parts(twin)}
    shared = [(p, theirs[id(o)]) for p, o in mine if id(o) in theirs]
    assert not shared
    arrays = [(p, o) for p, o in mine if isinstance(o, np.ndarray)]
    twin_arrays = [(p, o) for p, o in _mutable_parts(twin) if isinstance(o, np.ndarray)]
    assert not [(p, q) for p, a in arrays for q, b in twin_arrays if np.shares_memory(a, b)]


def test_stepping_a_fork_leaves_the_parent_as_it_was_and_the_other_way_round():
    sim = make_simulator(_scenario(), seed=2, n_jobs=60)
    for _ in range(40):
        slot, action = as_scheduler(get_policy("srtf+best_fit")).decide(sim.view)
        sim.step(action, slot)
    before = (sim.metrics(), sim.jobs_table().to_csv(), list(sim.run_state.queue), sim.run_state.time_min)
    twin = sim.fork()
    policy = as_scheduler(get_policy("las+best_fit"))
    policy.bind(twin.view)
    while not twin.run_state.done:
        slot, action = policy.decide(twin.view)
        twin.step(action, slot)
    run = sim.run_state
    assert (sim.metrics(), sim.jobs_table().to_csv(), list(run.queue), run.time_min) == before
    other = sim.fork()
    frozen = (other.metrics(), other.jobs_table().to_csv())
    policy.bind(sim.view)
    while not sim.run_state.done:
        slot, action = policy.decide(sim.view)
        sim.step(action, slot)
    assert (other.metrics(), other.jobs_table().to_csv()) == frozen


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
def test_no_observation_depends_on_a_true_duration(version):
    """Every observation layout, built from the view, is the same with other true durations (the
    FIFO layouts once read the head job's true duration)."""
    from gpusched.env.observation import ObservationBuilder
    from gpusched.env.window import WindowObservationBuilder

    sim = make_simulator(_scenario(), seed=5, n_jobs=60)
    n = sim.setup.cluster.n_gpus
    policy = as_scheduler(get_policy("srtf+best_fit"))
    policy.bind(sim.view)
    for _ in range(DECISIONS):
        if sim.run_state.done:
            break
        twin = copy.deepcopy(sim)
        _with_other_truth(twin)
        observed = []
        for s in (sim, twin):
            view = s.view
            if version <= 2:
                builder = ObservationBuilder(s.setup.cluster, n, 8, 80.0, version)
                observed.append(builder.observe(view, view.state.fit_mask(view.head_job)))
            else:
                fixed = s.setup
                builder = WindowObservationBuilder(fixed.cluster, n, fixed.window, fixed.speeds, 80.0,
                                                   version)
                observed.append(builder.observe(view))
        for key in observed[0]:
            np.testing.assert_array_equal(observed[0][key], observed[1][key], err_msg=key)
        slot, action = policy.decide(sim.view)
        sim.step(action, slot)


# ---------------------------------------------------------------------------- read-only in fact
def _writes(view):
    """Every kind of write a scheduler could try through the view (each must raise)."""
    i = view.queue[0]
    busy = next(j for j in range(len(view.declared_min)) if view.is_running(j))
    job = view.jobs[i]
    return {
        "state array": lambda: view.state.vram_free_gb.__setitem__(0, 1.0),
        "state array in place": lambda: view.state.compute_used.__iadd__(1.0),
        "state counter": lambda: setattr(view.state, "idle_gpus", 0),
        "state place": lambda: view.state.place(job, (0,)),
        "state release": lambda: view.state.release(view.jobs[busy], view.job_gpus[busy]),
        "state node down": lambda: view.state.set_node_down(0, True),
        "state cache": lambda: view.state._fit_by_job.clear(),
        "queue append": lambda: view.queue.append(i),
        "queue popleft": lambda: view.queue.popleft(),
        "queue del": lambda: view.queue.__delitem__(0),
        "queue set": lambda: view.queue.__setitem__(0, busy),
        "queue clear": lambda: view.queue.clear(),
        "job gpus set": lambda: view.job_gpus.__setitem__(busy, ()),
        "job gpus append": lambda: view.job_gpus.append(()),
        "jobs set": lambda: view.jobs.__setitem__(i, view.jobs[busy]),
        "declared": lambda: view.declared_min.__setitem__(i, 1.0),
        "declared best": lambda: view.declared_best_min.__setitem__(i, 1.0),
        "best speed": lambda: view.best_speed.__setitem__(i, 1.0),
        "start": lambda: view.start_min.__setitem__(busy, 0.0),
        "declared end": lambda: view.declared_end_min.__setitem__(busy, 0.0),
        "view attribute": lambda: setattr(view, "window", 99),
    }


def test_any_write_through_the_view_raises_and_changes_nothing():
    sim = make_simulator(_scenario(), seed=2, n_jobs=60)
    twin = make_simulator(_scenario(), seed=2, n_jobs=60)
    policy, twin_policy = as_scheduler(get_policy("easy+best_fit")), as_scheduler(get_policy("easy+best_fit"))
    for s, p in ((sim, policy), (twin, twin_policy)):
        s.reset()
        p.bind(s.view)
    tried = 0
    while not sim.run_state.done:
        view = sim.view
        if view.queue and view.running_count and tried < 5:
            for what, write in _writes(view).items():
                with pytest.raises((TypeError, AttributeError, ValueError)):
                    write()
                    pytest.fail(f"{what}: the write went through")
            tried += 1
        for s, p in ((sim, policy), (twin, twin_policy)):
            slot, action = p.decide(s.view)
            s.step(action, slot)
    assert tried == 5
    assert sim.metrics() == twin.metrics()  # the refused writes changed nothing


class MeanOfCompletions:
    """A toy learning estimator: every job not yet completed is declared at the mean work of the
    completed ones (the declared times until the first completion)."""

    learns = True
    declares = True
    basis = None
    estimate_min = None

    def __init__(self, jobs):
        self.declared_min = np.array([j.duration_min for j in jobs], dtype=float)
        self.done = np.zeros(len(jobs), dtype=bool)
        self.work: list[float] = []
        self.epoch = 0

    def observe_completion(self, job_idx, job, work_min):
        self.done[job_idx] = True
        self.work.append(float(work_min))
        self.declared_min = np.where(self.done, self.declared_min, float(np.mean(self.work)))
        self.epoch += 1

    def fix_at_arrival(self, job_idx, job):
        """Estimates change at completions (its epoch), not at arrivals."""

    def copy(self, k):
        twin = object.__new__(MeanOfCompletions)
        twin.declared_min, twin.done = self.declared_min[:k].copy(), self.done[:k].copy()
        twin.work, twin.epoch = list(self.work), self.epoch
        return twin


class RecordsDeclared:
    """A FIFO placement (Best-Fit) that records the head job's duration as it is given."""

    name = "records_declared"

    def __init__(self):
        self.seen: list[tuple[int, float]] = []
        self.best_fit = get_policy("best_fit")

    def select(self, state, job):
        self.seen.append((job.id, job.declared_min))
        return self.best_fit.select(state, job)


@pytest.mark.parametrize("speeds", [False, True])
def test_the_view_follows_a_learning_estimator(speeds):
    """Once the estimator learns, the view's declared times, its declared job list, the declared
    times on the best GPU and the jobs a placement is given all follow it; plans are stale."""
    scenario = load_scenario("fleet-16gpu" if speeds else "phase1-8gpu")
    base = make_simulator(scenario, seed=1, n_jobs=40)
    fixed, jobs = base.setup, base.run_state.jobs
    estimator = MeanOfCompletions(jobs)
    sim = Simulator(fixed.cluster, jobs,
                    speed_model=TableSpeeds(fixed.cluster, fixed.speeds), estimator=estimator)
    placement = RecordsDeclared()
    sim.run(placement)
    learned = sim.run_state.estimator
    assert learned.epoch == len(learned.work) == sim.run_state.jobs_completed > 2
    view = sim.view
    assert view.estimates_epoch == learned.epoch
    np.testing.assert_array_equal(view.declared_min, learned.declared_min)
    np.testing.assert_array_equal(view.declared_best_min, learned.declared_min / sim.run_state.best_speed)
    assert [j.declared_min for j in view.jobs] == learned.declared_min.tolist()
    # Each job was given to the placement with the estimate in force at that decision: after the
    # first completion, the mean of the completions so far, never its own true duration.
    truth = {j.id: j.duration_min for j in sim.run_state.jobs}
    means = {float(np.mean(learned.work[:k])) for k in range(1, len(learned.work) + 1)}
    assert any(d in means and d != truth[i] for i, d in placement.seen), "no decision saw an estimate"
    assert all(d in means or d == truth[i] for i, d in placement.seen)
    assert sim.run_state.disruptions >= learned.epoch  # every change of the estimates made plans stale
