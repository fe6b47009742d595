"""The window planner's reach options: collapsed actions, forks cut at a horizon and their score."""

from __future__ import annotations

import pytest

from gpusched.experiment.runner import run_scheduler
from gpusched.policies import get_policy
from gpusched.policies.objective import horizon_score, minutes_left_lower_bound
from gpusched.policies.window_lookahead import WindowLookahead
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import told

BASE = "sjf+fastest_fit"


def _planner(**options) -> WindowLookahead:
    return WindowLookahead(lambda: get_policy(BASE), **options)


def _gavel_small():
    """Gavel's 108 GPUs (one per server, three models), 60 jobs, run times from history."""
    return told(load_scenario("gavel-108gpu-heavy"), "history")


@pytest.mark.parametrize("seed", [0, 1])
def test_collapsing_equivalent_actions_chooses_as_the_full_enumeration(seed):
    """On a small fleet, playing one gang per class of equivalent gangs makes the same choice at
    every decision as playing every gang: the two runs are the same run."""
    scenario = load_scenario("fleet-16gpu")
    collapsed, full = _planner(), _planner(collapse=False)
    a = run_scheduler(scenario, collapsed, "collapsed", seed, n_jobs=20)
    b = run_scheduler(scenario, full, "full", seed, n_jobs=20)
    assert a.metrics == b.metrics
    assert a.jobs["gpu_ids"].tolist() == b.jobs["gpu_ids"].tolist()  # the same GPUs, job by job
    assert full.forks > collapsed.forks  # the full enumeration played more actions


def test_full_enumeration_weighs_every_gang_and_collapse_one_per_class():
    sim = make_simulator(_gavel_small(), 0, 60)
    view = sim.view
    collapsed, full = _planner(), _planner(collapse=False)
    for planner in (collapsed, full):
        planner.bind(view)
    head = view.jobs[view.queue[0]]
    fitting = int(view.state.fit_mask(head).sum())
    full_head = [a for s, a in full.options(view) if s == 0 and a != -1]
    kept_head = [a for s, a in collapsed.options(view) if s == 0 and a != -1]
    assert len(full_head) == len({tuple(sorted(g)) for g in full_head}) <= fitting
    models = {view.cluster.gpu_model[g[0]] for g in full_head}
    assert len(kept_head) == len(models) == 3  # an empty cluster: one class per GPU model


def test_a_fork_cut_at_a_horizon_ends_there_and_leaves_the_run_as_it_was():
    sim = make_simulator(_gavel_small(), 0, 60)
    now = sim.view.time_min
    cut = sim.view.clairvoyant_fork(horizon_min=now + 30.0)
    base = get_policy(BASE)
    base.bind(cut.view)
    while not cut.run_state.done:
        s, a = base.decide(cut.view)
        cut.step(a, s)
    assert cut.run_state.end_reason == "horizon" and cut.run_state.time_min == pytest.approx(now + 30.0)
    assert sim.view.time_min == now and not sim.run_state.done
    with pytest.raises(ValueError, match="before the clock"):
        sim.fork(horizon_min=now - 1.0)


def _play(fork) -> None:
    base = get_policy(BASE)
    base.bind(fork.view)
    while not fork.run_state.done:
        s, a = base.decide(fork.view)
        fork.step(a, s)


@pytest.mark.parametrize("ahead_min", [60.0, 600.0, 6000.0])
def test_the_horizon_score_is_a_lower_bound_of_the_sum_of_jcts(ahead_min):
    """Cut at any horizon, the score (job-minutes so far, plus the unfinished jobs' minutes left at
    least) is at most the sum of the JCTs the same play reaches at its end; past the end it is that
    sum."""
    sim = make_simulator(_gavel_small(), 0, 60)
    base = get_policy(BASE)
    base.bind(sim.view)
    for _ in range(20):  # some decisions in, so that jobs run and wait
        s, a = base.decide(sim.view)
        sim.step(a, s)
    now = sim.view.time_min
    cut, whole = sim.view.clairvoyant_fork(horizon_min=now + ahead_min), sim.view.clairvoyant_fork()
    _play(cut)
    _play(whole)
    total = whole.metrics()["avg_jct_min"] * whole.metrics()["jobs_completed"]
    assert minutes_left_lower_bound(cut) >= 0.0
    assert horizon_score(cut) <= total + 1e-6
    late = sim.view.clairvoyant_fork(horizon_min=now + 1e7)
    _play(late)
    assert late.run_state.end_reason == "completed"
    assert horizon_score(late) == pytest.approx(total, rel=1e-9)
    assert minutes_left_lower_bound(late) == 0.0


def test_the_cut_planner_runs_counts_its_work_and_refuses_bad_options():
    scenario = _gavel_small()
    planner = _planner(horizon_min=240.0)
    result = run_scheduler(scenario, planner, "cut", 0, n_jobs=40)
    assert result.metrics["jobs_completed"] == 40
    assert planner.decisions >= 40 and 0 <= planner.departed <= planner.planned <= planner.decisions
    assert planner.forks >= 2 * planner.planned  # every searched decision plays at least two actions
    again = _planner(horizon_min=240.0)
    assert run_scheduler(scenario, again, "cut", 0, n_jobs=40).metrics == result.metrics  # deterministic
    with pytest.raises(ValueError, match="horizon_min"):
        _planner(horizon_min=0.0)
    with pytest.raises(ValueError, match="clairvoyant"):
        _planner(horizon_min=60.0, arrived_only=True)

