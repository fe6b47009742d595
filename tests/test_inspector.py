"""The inspector agent: an "always accept" inspector is its base rule, a hand-set inspector gives the
hand-computed outcome, and the environment passes Gymnasium's checker."""

from __future__ import annotations

import pytest
from conftest import make_job
from gymnasium.utils.env_checker import check_env

from gpusched.agent.inspect import InspectorScheduler
from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.simulator import Simulator
from gpusched.env.inspect import ACCEPT, INSPECT_FEATURES, NEXT, WAIT, InspectorEnv
from gpusched.errors import UnknownPolicyError
from gpusched.policies import get_policy
from gpusched.policies.proposals import Proposer
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario


def always(action: int):
    return lambda obs, mask: action


@pytest.mark.parametrize("rule", ["sjf+first_fit", "easy+best_fit", "wfp3+fastest_fit", "fcfs+first_fit"])
def test_always_accept_is_exactly_the_base_rule(rule):
    scenario = load_scenario("fleet-16gpu")
    for seed in (1000, 1001):
        base = make_simulator(scenario, seed, 120).run(get_policy(rule))
        inspector = InspectorScheduler(rule, always(ACCEPT), 3, "inspect")
        ours = make_simulator(scenario, seed, 120).run(inspector)
        assert ours.metrics == base.metrics
        assert ours.jobs.equals(base.jobs)
        assert inspector.changed == 0 and inspector.inspected > 0


def _one_gpu(jobs) -> Simulator:
    return Simulator(Cluster([NodeGroup("A100-80GB", 80, 1)]), jobs, window=8)


class Scripted:
    """Answers from a script at each inspected decision, then accepts."""

    def __init__(self, script):
        self.script = list(script)
        self.masks = []

    def __call__(self, obs, mask):
        self.masks.append(mask.tolist())
        return self.script.pop(0) if self.script else ACCEPT


def test_rejecting_the_first_proposal_gives_the_hand_computed_run():
    # One GPU, each job takes it whole; SJF would run A (10 min), C (20), B (30).
    jobs = [make_job(0, duration=10, compute=1.0), make_job(1, duration=30, compute=1.0),
            make_job(2, duration=20, compute=1.0)]
    base = _one_gpu(jobs).run(get_policy("sjf+first_fit"))
    assert base.jobs.set_index("id")["start_min"].to_dict() == {0: 0.0, 1: 30.0, 2: 10.0}
    # Rejecting A at t=0 takes SJF's next proposal, C; then SJF runs A, then B.
    script = Scripted([NEXT])
    result = _one_gpu(jobs).run(InspectorScheduler("sjf+first_fit", script, 3, "inspect"))
    assert result.jobs.set_index("id")["start_min"].to_dict() == {0: 20.0, 1: 30.0, 2: 0.0}
    assert result.metrics["avg_jct_min"] == pytest.approx((30 + 60 + 20) / 3)
    # at t=0 nothing runs and nothing is to arrive: holding is masked, the next proposal is not
    assert script.masks[0] == [True, True, False]


def test_holding_once_waits_for_the_next_arrival():
    jobs = [make_job(0, duration=10, compute=1.0), make_job(1, duration=30, compute=1.0),
            make_job(2, duration=20, compute=1.0), make_job(3, arrival=5, duration=1, compute=1.0)]
    result = _one_gpu(jobs).run(InspectorScheduler("sjf+first_fit", Scripted([WAIT]), 3, "inspect"))
    # held at t=0; at t=5 SJF runs D (1 min), then A, C, B
    starts = result.jobs.set_index("id")["start_min"].to_dict()
    assert starts == {0: 6.0, 1: 36.0, 2: 16.0, 3: 5.0}
    assert result.metrics["avg_jct_min"] == pytest.approx((16 + 66 + 36 + 1) / 4)


def test_the_bound_limits_the_proposals():
    jobs = [make_job(i, duration=10 + i, compute=1.0) for i in range(5)]
    script = Scripted([NEXT] * 4)
    result = _one_gpu(jobs).run(InspectorScheduler("sjf+first_fit", script, 2, "inspect"))
    # bound 2: each NEXT takes SJF's second proposal, which is then taken without asking (nothing
    # else to propose, holding masked); the shortest job waits for the others
    assert result.jobs.set_index("id")["start_min"].to_dict() == {1: 0.0, 2: 11.0, 3: 23.0, 4: 36.0, 0: 50.0}
    assert len(script.masks) == 4 and all(m == [True, True, False] for m in script.masks)
    script = Scripted([NEXT, NEXT])
    result = _one_gpu(jobs).run(InspectorScheduler("sjf+first_fit", script, 3, "inspect"))
    assert result.jobs.set_index("id")["start_min"][2] == 0.0  # bound 3: the third proposal


def test_a_base_that_preempts_or_plans_the_window_is_refused():
    for rule in ("srtf+first_fit", "sjf+eft", "sjf+fastest_move", "sjf"):
        with pytest.raises(UnknownPolicyError):
            Proposer(rule)


def test_the_environment_passes_the_checker_and_its_accepting_episode_is_the_rule():
    scenario = load_scenario("fleet-16gpu")
    env = InspectorEnv(scenario, Proposer("sjf+first_fit"), bound=3, n_jobs=60)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(options={"workload_seed": 1000})
    assert obs.shape == (len(INSPECT_FEATURES),) and env.observation_space.contains(obs)
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(ACCEPT)
        total += reward
        done = terminated or truncated
    base = make_simulator(scenario, 1000, 60).run(get_policy("sjf+first_fit"))
    assert info["metrics"] == base.metrics
    assert total == pytest.approx(-base.metrics["avg_jct_min"] * 60 / 60.0)


def test_the_registry_reads_a_prefix_whose_argument_is_a_pair():
    from gpusched.policies import check_policy, policy_label

    assert check_policy("ppo_inspect:sjf+first_fit").name == "ppo_inspect"
    assert policy_label("ppo_inspect:sjf+first_fit") == "Inspector agent (sjf+first_fit)"
    policy = get_policy("ppo_inspect:sjf+first_fit")
    assert isinstance(policy, InspectorScheduler) and policy.proposer.rule == "sjf+first_fit"
    with pytest.raises(UnknownPolicyError, match="cannot be the placement"):
        check_policy("sjf+tuned:fleet-16gpu")  # a "+" before the ":" is still a pair
