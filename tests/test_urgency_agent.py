"""The urgency agent: observation version 5, the urgency terms of the training reward, training
with run times not told, and the refusal of models that read declared run times where none is."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from agent_support import assert_reloads_and_reproduces
from test_view import _with_other_truth

from gpusched.agent.config import URGENCY_TEACHER, URGENCY_UNTOLD_TEACHER, TrainConfig, urgency_teacher
from gpusched.agent.models import ModelError
from gpusched.core.cluster import Cluster, NodeGroup
from gpusched.core.history_estimator import HistoryEstimator
from gpusched.core.jobs import Job
from gpusched.core.reward import TrainingRewardSpec
from gpusched.core.simulator import HOLD, Simulator
from gpusched.core.view import as_scheduler
from gpusched.env.env import GPUSchedulerEnv
from gpusched.env.window import (
    JOB_FEATURES_V4,
    JOB_FEATURES_V5,
    MODEL_FAMILIES,
    WindowObservationBuilder,
    model_family,
    window_observation_space,
)
from gpusched.env.wrappers import TrainingReward
from gpusched.errors import GpuschedError, ScenarioError
from gpusched.experiment.runner import run_policy
from gpusched.paths import SCENARIOS_DIR
from gpusched.policies import get_policy, reads_run_times
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

COL = {name: k for k, name in enumerate(JOB_FEATURES_V5)}
LOG_DAY = np.log1p(1440.0)


def _gavel(mode: str, **workload) -> object:
    return load_scenario("gavel-108gpu-heavy").with_overrides(
        **{"workload.declared_run_time": mode, **{f"workload.{k}": v for k, v in workload.items()}})


def _jobs() -> list[Job]:
    """Two finished ResNet-50 jobs, then two that queue behind a long job on one GPU."""
    spec = {"type": "training", "gpus": 1, "vram_gb": 8.0, "compute": 1.0}
    return [Job(id=0, arrival_min=0.0, duration_min=10.0, model="ResNet-50 (batch size 64)", **spec),
            Job(id=1, arrival_min=0.0, duration_min=40.0, model="ResNet-50 (batch size 64)", **spec),
            Job(id=2, arrival_min=1.0, duration_min=500.0, model="LM (batch size 20)", **spec),
            Job(id=3, arrival_min=60.0, duration_min=30.0, model="ResNet-50 (batch size 64)", weight=5.0,
                deadline_min=100.0, **spec),
            Job(id=4, arrival_min=61.0, duration_min=30.0, model="Pix2Pix", deadline_min=10.0, **spec)]


def _one_gpu_run(estimator) -> Simulator:
    sim = Simulator(Cluster([NodeGroup("V100", 16.0, 1)]), _jobs(), window=4,
                    estimator=estimator)
    sim.reset()
    return sim


def _run_to(sim: Simulator, t_min: float) -> None:
    """FCFS on the one GPU until the clock reaches ``t_min`` with jobs waiting."""
    while not sim.run_state.done and sim.run_state.time_min < t_min:
        sim.step(0, 0) if sim.view.state.fit_mask(sim.view.window_jobs()[0])[0] else sim.step(HOLD, 0)


def test_version_5_reads_predictions_their_basis_deadlines_weights_and_families():
    sim = _one_gpu_run(HistoryEstimator)
    _run_to(sim, 61.0)
    view = sim.view
    window = view.window_indices()
    assert [sim.run_state.jobs[i].id for i in window] == [3, 4]
    obs = WindowObservationBuilder(sim.setup.cluster, 1, 4, version=5).observe(view)["jobs"]
    assert obs.shape == (4, len(JOB_FEATURES_V5))
    first, second = obs[0], obs[1]
    # job 3: predicted from the two ResNet-50 jobs completed before it arrived (geometric mean 20)
    assert first[COL["known"]] == 1 and first[COL["predicted"]] == 1
    assert first[COL["basis"]] == pytest.approx(np.log1p(2) / np.log1p(1000), rel=1e-6)
    assert sim.run_state.declared_min[window[0]] == pytest.approx(20.0)
    slack = 60.0 + 100.0 - view.time_min - 20.0
    assert view.time_min == 61.0
    assert first[COL["has_deadline"]] == 1 and first[COL["overdue"]] == 0
    assert first[COL["slack"]] == pytest.approx(np.log1p(slack) / LOG_DAY, rel=1e-5)
    assert first[COL["weight"]] == pytest.approx(1.0)
    assert first[COL["family_ResNet-50"]] == 1 and obs[0, len(JOB_FEATURES_V4) + 7:].sum() == 1
    # job 4: an unknown model (the "other" family), a deadline it can no longer meet
    assert second[COL["family_other"]] == 1 and second[COL["overdue"]] > 0 and second[COL["slack"]] == 0
    assert second[COL["weight"]] == pytest.approx(0.2)
    assert (obs[2:] == 0).all()  # padding


def test_version_5_under_none_reads_no_run_time_and_stays_finite():
    from gpusched.core.estimator import UndeclaredRuntime

    sim = _one_gpu_run(UndeclaredRuntime)
    _run_to(sim, 61.0)
    builder = WindowObservationBuilder(sim.setup.cluster, 1, 4, version=5)
    obs = builder.observe(sim.view)
    for key, block in obs.items():
        assert np.isfinite(block).all(), key
        assert window_observation_space(4, 1, 5)[key].contains(block), key
    jobs = obs["jobs"]
    assert (jobs[:2, COL["known"]] == 0).all() and (jobs[:2, COL["declared"]] == 0).all()
    assert (jobs[:2, COL["predicted"]] == 0).all()
    assert (obs["pairs"][:2, :, 4] == 0).all()  # no run time on any GPU


def test_model_families_cover_every_gavel_model():
    from gpusched.core.gavel_speeds import job_models

    families = {MODEL_FAMILIES[model_family(m)] for m in job_models()}
    assert families == set(MODEL_FAMILIES)
    assert model_family(None) == -1 and model_family("Pix2Pix") == len(MODEL_FAMILIES)


@pytest.mark.parametrize("term", ["weighted_jct", "late", "missed"])
def test_the_urgency_terms_sum_to_the_runs_weighted_jct_lateness_and_misses(term):
    """An episode's urgency reward is exactly the run's weighted JCT sum, total lateness and
    missed deadlines, however the clock jumped between decisions."""
    scenario = _gavel("history", deadlines=True, weights=True)
    weights = {"completion": 0.0, "wait": 0.0, "util_band": 0.0, "imbalance": 0.0, term: 1.0}
    env = TrainingReward(GPUSchedulerEnv(scenario, obs_version=5, n_jobs=120), TrainingRewardSpec(**weights))
    env.reset(seed=0, options={"workload_seed": 4})
    total, done = 0.0, False
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        _, reward, terminated, truncated, _ = env.step(action)
        total, done = total + reward, terminated or truncated
    sim = env.unwrapped.sim
    table = sim.jobs_table()
    jct = (table["end_min"] - table["arrival_min"]).to_numpy()
    weight = np.array([j.weight for j in sim.run_state.jobs])
    deadline = np.array([np.inf if j.deadline_min is None else j.deadline_min for j in sim.run_state.jobs])
    late = np.maximum(jct - deadline, 0.0)
    expected = {"weighted_jct": (weight * jct).sum() / 60.0, "late": late.sum() / 60.0,
                "missed": float((late > 0).sum())}[term]
    assert expected > 0
    assert -total == pytest.approx(expected, rel=1e-9)


def test_the_training_reward_refuses_an_unknown_or_non_finite_term():
    config = TrainConfig(train_reward={"jct": 1.0, "weighted_jct": float("nan")})
    with pytest.raises(GpuschedError, match="train_reward"):
        config.check()
    config = TrainConfig(train_reward={"tardiness": 1.0})
    with pytest.raises(GpuschedError, match="train_reward"):
        config.check()


def test_urgency_settings_and_a_bad_declared_run_time_are_refused_in_one_line():
    config = TrainConfig(scenario="gavel-108gpu-heavy")
    config.urgency_agent("history")
    config.check()
    assert (config.obs_version, config.declared_run_time, config.bc_policy) == (5, "history", URGENCY_TEACHER)
    assert config.max_gpus == 108 and config.max_window == 16 and config.random_windows is None
    assert config.training_scenario().workload.declared_run_time == "history"
    bad = TrainConfig(scenario="gavel-108gpu-heavy", max_gpus=108, declared_run_time="psychic")
    with pytest.raises(GpuschedError, match="declared_run_time") as err:
        bad.check()
    assert "\n" not in str(err.value)


def test_a_model_that_reads_declared_run_times_is_refused_where_none_is_declared():
    scenario = load_scenario("fleet-16gpu").with_overrides(
        **{"workload.declared_run_time": "none", "workload.jobs": 20})
    with pytest.raises(ScenarioError, match="declared_run_time: none") as err:
        run_policy(scenario, "ppo:ppo-window.zip", seed=0)  # a model file: by its sidecar's version
    assert "'ppo:ppo-window.zip' reads them" in str(err.value) and "\n" not in str(err.value)
    sim = make_simulator(scenario, 0)
    with pytest.raises(ModelError, match="declared_run_time: none"):  # and again when it binds
        get_policy("ppo:ppo-window.zip").bind(sim.view)


def test_the_urgency_teacher_is_one_that_runs_under_the_setting():
    """Under ``none`` the urgency agent imitates a pair that reads no run time (it once imitated
    qssf+fastest_fit, which simulate refuses there, and learnt from NaN run times)."""
    from gpusched.policies.preflight import check_told

    for declared, teacher in (("history", URGENCY_TEACHER), ("none", URGENCY_UNTOLD_TEACHER)):
        config = TrainConfig(scenario="ll-stall-mini")
        config.urgency_agent(declared)
        config.check()
        assert config.bc_policy == teacher == urgency_teacher(config.training_scenario())
        check_told(config.training_scenario(), config.bc_policy)  # simulate would run it
    with pytest.raises(ScenarioError, match="reads them"):
        check_told(config.training_scenario(), URGENCY_TEACHER)
    config = TrainConfig(scenario="ll-stall-mini", bc_policy=None)
    config.urgency_agent("none")
    assert config.bc_policy is None  # no warm start stays none


@pytest.mark.parametrize("windows", [None, (1, 4)])
@pytest.mark.parametrize("how", ["set", "scenario"])
def test_train_refuses_an_observation_that_reads_run_times_where_none_is_declared(windows, how, tmp_path):
    """The FIFO and window observations read declared run times: under ``none`` they once gave NaN
    logits and a traceback; now the settings are refused before anything starts."""
    scenario = "ll-stall-mini"
    if how == "scenario":
        doc = yaml.safe_load((SCENARIOS_DIR / "ll-stall-mini.yaml").read_text(encoding="utf-8"))
        doc["workload"]["declared_run_time"] = "none"
        scenario = str(tmp_path / "none.yaml")
        Path(scenario).write_text(yaml.safe_dump(doc), encoding="utf-8")
    config = TrainConfig(scenario=scenario, declared_run_time="none" if how == "set" else None)
    if windows:
        config.window_agent(windows, 0.0)
    with pytest.raises(GpuschedError) as err:
        config.check()
    text = str(err.value)
    key = "training settings, declared_run_time" if how == "set" else "workload.declared_run_time"
    assert key in text and f"observation version {config.obs_version} reads them" in text, text
    assert "\n" not in text
    config.urgency_agent("none")  # version 5 reads no run time: accepted
    config.check()


def test_an_urgency_agent_under_none_trains_from_its_valid_teacher_on_finite_observations(tmp_path):
    from gpusched.agent.train import collect_heuristic, train

    config = TrainConfig(scenario="ll-stall-mini", timesteps=64, n_envs=1, out=str(tmp_path / "u.zip"),
                         log_dir=str(tmp_path / "runs"), progress=False)
    config.urgency_agent("none")
    config.n_steps, config.batch_size, config.n_epochs = 64, 32, 1
    config.bc_episodes, config.bc_epochs, config.dagger_rounds = 1, 2, 0
    config.eval_seeds, config.eval_freq = (900,), 64
    data = collect_heuristic(config, seed=1)
    assert all(np.isfinite(v).all() for v in data["obs"].values()) and len(data["actions"]) > 0
    meta = train(config, log=lambda _: None)
    side = json.loads((tmp_path / "u.json").read_text(encoding="utf-8"))
    assert side["warm_start"]["policy"] == side["config"]["bc_policy"] == URGENCY_UNTOLD_TEACHER
    assert side["config"]["declared_run_time"] == "none"
    assert meta["eval"]["avg"]["ppo"]["jobs_completed"] == 30
    baselines = [name for name in meta["eval"]["avg"] if name != "ppo"]
    assert baselines and not any(reads_run_times(name) for name in baselines)


# ---------------------------------------------------------------------------- training and loading
@pytest.fixture(scope="module")
def urgency_model(tmp_path_factory) -> Path:
    from gpusched.agent.train import train

    folder = tmp_path_factory.mktemp("models")
    config = TrainConfig(scenario="gavel-108gpu-heavy", timesteps=1024, n_envs=2, n_jobs=60,
                         out=str(folder / "urgency.zip"), log_dir=str(folder / "runs"), progress=False)
    config.urgency_agent("history")
    config.n_steps, config.batch_size, config.n_epochs = 256, 128, 2
    config.bc_episodes, config.bc_epochs, config.dagger_rounds = 1, 2, 0
    config.eval_seeds, config.eval_freq = (900,), 512
    meta = train(config, log=lambda _: None)
    assert meta["eval"]["avg"]["ppo"]["jobs_completed"] == 60
    return folder / "urgency.zip"


def test_an_urgency_model_trains_with_history_saves_reloads_safely_and_reproduces(monkeypatch, urgency_model):
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(urgency_model.parent))
    meta = json.loads(urgency_model.with_suffix(".json").read_text())
    assert meta["obs_version"] == 5 and meta["config"]["declared_run_time"] == "history"
    env = GPUSchedulerEnv(_gavel("history"), obs_version=5, max_window=16, n_jobs=60)
    assert_reloads_and_reproduces(urgency_model, env, (108, 16), steps=80)
    # the same weights run where nothing is declared, and with deadlines
    for scenario in (_gavel("none"), _gavel("history", deadlines=True, weights=True)):
        result = run_policy(scenario.with_overrides(**{"workload.jobs": 40}), f"ppo:{urgency_model}", seed=1)
        assert result.metrics["jobs_completed"] == 40


def test_the_urgency_agent_is_never_told_a_true_run_time(monkeypatch, urgency_model):
    """The agent decides through the view: drawing every true duration anew (declared ones kept)
    changes none of its decisions (the property of ``tests/test_view.py``, for this agent)."""
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(urgency_model.parent))
    sim = make_simulator(_gavel("history", deadlines=True), seed=3, n_jobs=60)
    policy = as_scheduler(get_policy(f"ppo:{urgency_model}"))
    sim.reset()
    policy.bind(sim.view)
    for _ in range(25):
        if sim.run_state.done:
            break
        twin_policy, twin = copy.deepcopy((policy, sim))
        _with_other_truth(twin)
        here, there = policy.decide(sim.view), twin_policy.decide(twin.view)
        assert here == there
        sim.step(here[1], here[0])


def test_warm_start_returns_belong_to_the_labelled_decisions():
    """A teacher's decision that is no label (Least-Loaded's misroutes: no action of the mask
    makes them) keeps no return either: every label's return is the return from its own step."""
    from gpusched.agent.train import collect_heuristic

    config = TrainConfig(scenario="ll-stall-mini", n_jobs=100, bc_policy="least_loaded", bc_episodes=1)
    data = collect_heuristic(config, seed=7)
    rewards, labelled = zip(*_teacher_steps(config, seed=7), strict=True)
    assert len(rewards) > sum(labelled) == len(data["actions"])  # some decisions are no label
    returns, acc = np.zeros(len(rewards)), 0.0
    for i in range(len(rewards) - 1, -1, -1):
        acc = rewards[i] + config.gamma * acc
        returns[i] = acc
    np.testing.assert_allclose(data["returns"], returns[np.array(labelled)].astype(np.float32))


def _teacher_steps(config: TrainConfig, seed: int):
    """(reward, labelled) of each step of the episode ``collect_heuristic`` plays with ``seed``."""
    from gpusched.agent.episodes import make_train_env

    env = make_train_env(config)
    env.reset(seed=seed)
    base = env.unwrapped
    teacher = as_scheduler(get_policy(config.bc_policy, seed=seed))
    teacher.bind(base.sim.view)
    done = False
    while not done:
        slot, choice = teacher.decide(base.sim.view)
        label = base.action_for(slot, choice)
        action = label if label is not None else base.action_for(slot, int(next(iter(choice))))
        ok = label is not None and bool(base.action_masks()[label])
        _, reward, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
        yield reward, ok


def test_the_shipped_agents_that_read_run_times_are_refused_before_a_run_where_none_is_declared():
    from gpusched.policies.preflight import check_told
    from gpusched.policies.registry import reads_run_times

    scenario = _gavel("none")
    assert reads_run_times("ppo") and reads_run_times("ppo_rollout") and not reads_run_times("ppo_urgency")
    for name in ("ppo", "ppo_rollout"):
        with pytest.raises(GpuschedError, match="declared_run_time: none"):
            check_told(scenario, name)
    check_told(scenario, "ppo_urgency")
