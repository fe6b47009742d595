"""Each heuristic on tiny hand-built clusters where the right answer is obvious."""

from __future__ import annotations

import pytest
from conftest import make_job

from gpusched.core.cluster import Cluster, ClusterState, NodeGroup
from gpusched.errors import UnknownPolicyError
from gpusched.policies import HOLD, get_policy, heuristic_names


def test_first_fit_takes_first_gpu_in_order(hetero_state):
    assert get_policy("first_fit").select(hetero_state, make_job(vram=8)) == 0
    hetero_state.place(make_job(vram=80, compute=0.5), (0,))
    assert get_policy("first_fit").select(hetero_state, make_job(vram=8)) == 1
    assert get_policy("first_fit").select(hetero_state, make_job(vram=20)) == 2


def test_least_loaded_ignores_fit_and_picks_idle_small_gpu(hetero_state):
    hetero_state.place(make_job(vram=10, compute=0.2), (0,))
    hetero_state.place(make_job(vram=10, compute=0.2), (2,))
    hetero_state.place(make_job(vram=10, compute=0.2), (3,))
    # The T4 (GPU 1) is the only idle GPU: Least-Loaded sends a 40 GB job there anyway.
    assert get_policy("least_loaded").select(hetero_state, make_job(vram=40)) == 1


def test_least_loaded_breaks_ties_by_most_free_vram(hetero_state):
    assert get_policy("least_loaded").select(hetero_state, make_job(vram=4)) == 0


def test_least_loaded_fit_skips_gpus_that_cannot_hold_the_job(hetero_state):
    hetero_state.place(make_job(vram=10, compute=0.2), (0,))
    hetero_state.place(make_job(vram=10, compute=0.4), (2,))
    hetero_state.place(make_job(vram=10, compute=0.3), (3,))
    assert get_policy("least_loaded_fit").select(hetero_state, make_job(vram=40)) == 0
    assert get_policy("least_loaded_fit").select(hetero_state, make_job(vram=20)) == 0
    assert get_policy("least_loaded_fit").select(hetero_state, make_job(vram=8)) == 1


def test_best_fit_leaves_least_vram(hetero_state):
    assert get_policy("best_fit").select(hetero_state, make_job(vram=16)) == 1
    assert get_policy("best_fit").select(hetero_state, make_job(vram=20)) == 2
    assert get_policy("best_fit").select(hetero_state, make_job(vram=60)) == 0


def test_random_is_seeded_and_only_picks_fitting_gpus(hetero_state):
    job = make_job(vram=20)
    picks_a = [get_policy("random", seed=7).select(hetero_state, job) for _ in range(1)]
    policy_a, policy_b = get_policy("random", seed=7), get_policy("random", seed=7)
    seq_a = [policy_a.select(hetero_state, job) for _ in range(50)]
    seq_b = [policy_b.select(hetero_state, job) for _ in range(50)]
    assert seq_a == seq_b
    assert set(seq_a) == {0, 2, 3}
    assert picks_a[0] in {0, 2, 3}


@pytest.mark.parametrize("name", ["first_fit", "least_loaded_fit", "best_fit", "random"])
def test_every_fit_aware_policy_holds_when_nothing_fits(hetero_state, name):
    assert get_policy(name).select(hetero_state, make_job(vram=100)) == HOLD


def test_multi_gpu_job_only_fits_on_a_node_with_enough_gpus(hetero_state):
    job = make_job(gpus=2, vram=20)
    assert hetero_state.fit_mask(job).tolist() == [False, False, True, True]
    assert get_policy("first_fit").select(hetero_state, job) == 2
    assert hetero_state.gang_for(job, 3) == (3, 2)


def test_heuristic_names_and_unknown_policy():
    assert {"first_fit", "least_loaded", "least_loaded_fit", "best_fit", "random"} <= set(
        heuristic_names())
    with pytest.raises(UnknownPolicyError, match="unknown policy 'nope'"):
        get_policy("nope")


def test_sharing_respects_compute_and_vram():
    state = ClusterState(Cluster([NodeGroup("L4-24GB", 24, 1)]))
    state.place(make_job(vram=10, compute=0.6), (0,))
    assert state.fit_mask(make_job(vram=10, compute=0.4)).tolist() == [True]
    assert state.fit_mask(make_job(vram=10, compute=0.5)).tolist() == [False]
    assert state.fit_mask(make_job(vram=15, compute=0.1)).tolist() == [False]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lookahead_is_never_worse_than_its_base_and_leaves_the_run_untouched(seed):
    """A rollout over Best-Fit: on the deterministic simulator it cannot lose to Best-Fit."""
    from gpusched.experiment.runner import run_policy
    from gpusched.workload.presets import load_scenario

    scenario = load_scenario("phase1-4gpu")
    base = run_policy(scenario, "best_fit", seed, n_jobs=40).metrics
    ahead = run_policy(scenario, "lookahead", seed, n_jobs=40).metrics
    assert ahead["avg_wait_min"] <= base["avg_wait_min"] + 1e-9
    assert ahead["jobs_completed"] == ahead["jobs_submitted"] == 40
    assert run_policy(scenario, "lookahead", seed, n_jobs=40).metrics == ahead  # deterministic


def test_lookahead_refuses_to_run_unbound():
    policy = get_policy("lookahead")
    cluster = Cluster([NodeGroup("A100", 80.0, 2)])
    with pytest.raises(RuntimeError, match="bind"):
        policy.select(ClusterState(cluster), make_job(0, vram=10.0))


@pytest.mark.parametrize("name", ["queue_lookahead", "ppo_rollout"])
def test_planners_on_arrived_jobs_never_read_the_future(name):
    """Two workloads that agree until job 30 arrives get the same decisions until then."""
    import dataclasses

    from gpusched.core.simulator import Simulator
    from gpusched.workload.build import make_simulator
    from gpusched.workload.presets import load_scenario

    scenario = load_scenario("phase1-4gpu")
    full = make_simulator(scenario, seed=5, n_jobs=60)
    jobs = full.run_state.jobs
    cut = jobs[30].arrival_min
    # Same first 30 jobs; every later job is replaced by a small, short one.
    changed = jobs[:30] + [dataclasses.replace(j, vram_gb=8.0, duration_min=1.0, gpus=1) for j in jobs[30:]]
    runs = []
    for workload in (jobs, changed):
        sim = Simulator(full.setup.cluster, workload, reward=scenario.reward)
        policy = get_policy(name)
        sim.run(policy)
        assert policy.forks > 0
        runs.append(sim)
    early = [i for i in range(30) if runs[0].run_state.record.start_min[i] < cut]
    assert len(early) > 10
    for i in early:
        assert runs[0].run_state.record.start_min[i] == runs[1].run_state.record.start_min[i]
        assert runs[0].run_state.record.job_gpus[i] == runs[1].run_state.record.job_gpus[i]
    assert runs[0].metrics()["jobs_completed"] == 60


def test_fork_of_arrived_jobs_forgets_the_future():
    from gpusched.workload.build import make_simulator
    from gpusched.workload.presets import load_scenario

    sim = make_simulator(load_scenario("phase1-4gpu"), seed=2, n_jobs=50)
    policy = get_policy("first_fit")
    for _ in range(25):
        sim.step(policy.select(sim.run_state.state, sim.view.head_job))
    known = sim.fork(arrived_only=True)
    assert len(known.run_state.jobs) == len(sim.run_state.jobs) - sim.run_state.arrivals_left < 50
    assert known.run_state.arrivals_left == 0
    while not known.run_state.done:
        known.step(policy.select(known.run_state.state, known.view.head_job))
    assert known.metrics()["jobs_completed"] == len(known.run_state.jobs)
    assert len(sim.run_state.jobs) == 50 and not sim.run_state.done  # the original is untouched


@pytest.mark.parametrize("name", ["sjf+lookahead", "sjf+queue_lookahead", "wfp3+queue_lookahead"])
def test_order_plus_lookahead_evaluates_the_job_the_order_chose(name, monkeypatch):
    """Every fork of every decision plays the window job the order picked, from its window slot,
    not the head job: a fork whose first action places a job starts that job at once."""
    from gpusched.core.simulator import HOLD
    from gpusched.policies import lookahead
    from gpusched.policies.queue import QueuePolicy
    from gpusched.workload.build import make_simulator
    from gpusched.workload.presets import load_scenario

    decisions: list[tuple[int, int]] = []  # (job the order chose, head job) per decision
    forks: list[tuple[int, int, bool]] = []  # (decision, job the fork played, started at once)
    real_decide, real_finish = QueuePolicy.decide, lookahead._finish

    def decide(self, sim):
        window = sim.window_indices()
        slot = self.pick(sim, window)
        decisions.append((-1 if slot is None else window[slot], window[0]))
        return real_decide(self, sim)

    def finish(sim, first, base, slot=0):
        idx, now = sim.run_state.queue[slot], sim.run_state.time_min
        wait = real_finish(sim, first, base, slot)
        started_now = bool(sim.run_state.record.start_min[idx] == now)
        forks.append((len(decisions) - 1, idx, first == HOLD or started_now))
        return wait

    monkeypatch.setattr(QueuePolicy, "decide", decide)
    monkeypatch.setattr(lookahead, "_finish", finish)
    make_simulator(load_scenario("fleet-16gpu"), seed=0, n_jobs=60).run(get_policy(name))
    weighed = {d for d, _, _ in forks}
    assert any(decisions[d][0] != decisions[d][1] for d in weighed), "no weighed choice behind the head"
    for decision, played, started in forks:
        assert played == decisions[decision][0], (decision, played, decisions[decision])
        assert started, (decision, played)


def test_lookahead_under_easy_weighs_only_the_gpus_away_from_the_reservation():
    """As EASY's placement, the planner may be asked about a view in which the head job's reserved
    GPUs are full: it weighs only the gangs that view allows and answers with one of them."""
    import numpy as np

    from gpusched.core.cluster import Cluster
    from gpusched.core.simulator import HOLD, Simulator
    from gpusched.policies.queue import MaskedState

    cluster = Cluster([NodeGroup("A100-80GB", 80.0, 2), NodeGroup("T4-16GB", 16.0, 2)])
    jobs = [make_job(i, arrival=0.0 if i < 3 else 10.0, duration=30.0, vram=8.0, compute=0.5)
            for i in range(4)]
    sim = Simulator(cluster, jobs, window=4)
    planner = get_policy("queue_lookahead")
    planner.bind(sim.view)
    allowed = np.array([False, False, True, True])
    view = MaskedState(sim.view.state, allowed)  # EASY masks the state its view shows
    job = sim.view.jobs[sim.view.window_indices()[2]]  # as its view shows it
    assert planner.options(view, job) == [(2,), (3,), HOLD]
    action = planner.select(view, job)
    assert action == HOLD or set(action) <= {2, 3}
