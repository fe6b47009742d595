"""Train the size-agnostic agent with sb3-contrib's MaskablePPO on the CPU.

The run: (optional) warm start by imitating a teacher (a heuristic or a planner, optionally with
DAgger rounds), then MaskablePPO with a
``MaskableEvalCallback`` on held-out workload seeds, a ``CheckpointCallback`` and TensorBoard logs
under ``runs/``. It writes the model zip and its sidecar JSON together, at the end, or neither (see
:func:`gpusched.agent.models.write_model`); both places are checked before anything starts.
Seeding is done in one place, :func:`seed_everything`.
"""

from __future__ import annotations

import copy
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback
from stable_baselines3.common.vec_env import DummyVecEnv

from gpusched.agent.baseline import InputDrivenBaseline
from gpusched.agent.config import TrainConfig
from gpusched.agent.episodes import (
    make_eval_env,
    make_train_env,
    merge_demonstrations,
    warm_start,
    window_options,
    windowed,
)
from gpusched.agent.expert import EXPERT_PROGRESS_FILE, expert_iteration
from gpusched.agent.models import LoadedAgent, sidecar_path, write_model
from gpusched.agent.names import AGENT_POLICY
from gpusched.agent.network import GpuSetPolicy, WindowSetPolicy
from gpusched.agent.scheduler import act, agent_scheduler
from gpusched.core.view import as_scheduler
from gpusched.env.env import GPUSchedulerEnv
from gpusched.policies import get_policy, policy_label
from gpusched.policies.objective import OBJECTIVES
from gpusched.policies.registry import reads_run_times
from gpusched.workload.build import make_simulator
from gpusched.workload.declared import is_undeclared
from gpusched.workload.files import check_output_file
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario

WINDOW_BASELINES: tuple[str, ...] = ("fcfs+first_fit", "sjf", "easy", "sjf+fastest_fit", "easy+eft",
                                     "sjf+eft")
"""The heuristics a window agent's sidecar reports beside it (the speed-aware pairs too: with GPU
speeds the best of them is the best by time to result)."""

EVAL_METRICS: tuple[str, ...] = ("avg_jct_min", "avg_wait_min", "jobs_completed", "total_reward")
"""What a sidecar's evaluation records of the agent and each baseline (means over the seeds)."""


def seed_everything(seed: int) -> None:
    """Seed Python, numpy's legacy global generator and torch (environments are seeded at reset)."""
    random.seed(seed)
    np.random.seed(seed)
    th.manual_seed(seed)


# ---------------------------------------------------------------------------- warm start
Stage = Callable[[str, int, int], None]
"""Receives a stage's progress: what runs (words), how many of its steps are done, of how many."""


def _first_gpu_action(base: GPUSchedulerEnv, slot: int, choice) -> int:
    """The action at a gang's first GPU: how the teacher's run goes on when no action makes its
    gang exactly (the step is not labelled)."""
    return base.action_for(slot, int(next(iter(choice))))


def collect_heuristic(config: TrainConfig, seed: int, episodes: int | None = None,
                      student: GpuSetPolicy | None = None, stage: Stage | None = None,
                      what: str = "warm start") -> dict[str, Any]:
    """Roll out ``config.bc_policy`` in a training environment: observations, masks, actions, returns.

    Any registered policy can be the teacher, including the ``queue_lookahead`` and ``lookahead``
    planners. With ``student``, the student drives and the teacher only labels the states it
    visits (a DAgger round); the returns are those of the student's trajectory. ``stage`` hears
    of each episode as it starts (``what``, episode, episodes).
    """
    env = make_train_env(config)
    base: GPUSchedulerEnv = env.unwrapped
    heuristic = get_policy(config.bc_policy, seed=seed)
    obs_list: list[dict[str, np.ndarray]] = []
    masks, actions, returns = [], [], []
    n_episodes = config.bc_episodes if episodes is None else episodes
    for ep in range(n_episodes):
        if stage is not None:
            stage(f"{what}: playing {policy_label(config.bc_policy)}, episode {ep + 1} of "
                  f"{n_episodes}", ep, n_episodes)
        obs, _ = env.reset(seed=seed + ep)
        teacher = as_scheduler(heuristic)
        teacher.bind(base.sim.view)
        rewards: list[float] = []
        labelled: list[int] = []  # the steps with a label, whose returns are kept
        done = False
        while not done:
            slot, choice = teacher.decide(base.sim.view)
            label = base.action_for(slot, choice)  # the teacher's whole gang, or None
            action = label if label is not None else _first_gpu_action(base, slot, choice)
            mask = base.action_masks()
            if label is not None and mask[label]:  # a misroute, or a gang no action makes, is no label
                obs_list.append(obs)
                masks.append(mask)
                actions.append(action)
                labelled.append(len(rewards))
            if student is not None:
                action = act(student, obs, mask)
            obs, reward, terminated, truncated, _ = env.step(action)
            rewards.append(reward)
            done = terminated or truncated
        ret, acc = np.zeros(len(rewards)), 0.0
        for i in range(len(rewards) - 1, -1, -1):
            acc = rewards[i] + config.gamma * acc
            ret[i] = acc
        returns.append(ret[labelled])
    return {
        "obs": {k: np.stack([o[k] for o in obs_list]) for k in obs_list[0]},
        "masks": np.stack(masks),
        "actions": np.array(actions),
        "returns": np.concatenate(returns).astype(np.float32),
    }


def imitate(policy: GpuSetPolicy, config: TrainConfig, log: Callable[[str], None],
            labels: list[dict[str, Any]] | None = None, stage: Stage | None = None) -> dict[str, float]:
    """The warm start: fit the teacher's episodes, then ``config.dagger_rounds`` DAgger rounds in
    which the policy drives and the teacher labels, refitting on all data after each.

    :param labels: receives the labelled decisions (one part per collection), for expert
        iteration to refit on with its own.
    :param stage: hears of each episode played and each fit.
    """
    data = [collect_heuristic(config, seed=config.seed + 1, stage=stage)]
    if stage is not None:
        stage("warm start: the network learns the decisions", 0, 1)
    stats = warm_start(policy, merge_demonstrations(data), config.bc_epochs, config.seed)
    log(f"warm start: {len(data[0]['actions'])} decisions, agreement {stats['agreement']:.3f}")
    for k in range(1, config.dagger_rounds + 1):
        policy.set_training_mode(False)
        data.append(collect_heuristic(config, seed=config.seed + 1 + 1000 * k,
                                      episodes=config.dagger_episodes, student=policy, stage=stage,
                                      what=f"warm start, DAgger round {k} of {config.dagger_rounds}"))
        stats = warm_start(policy, merge_demonstrations(data), config.dagger_epochs, config.seed + k)
        log(f"DAgger round {k}: {sum(len(d['actions']) for d in data)} decisions, "
            f"agreement {stats['agreement']:.3f}")
    if labels is not None:
        labels.extend(data)
    return {**stats, "decisions": float(sum(len(d["actions"]) for d in data))}


# ---------------------------------------------------------------------------- evaluation
def evaluate(agent: LoadedAgent, scenario: str | Scenario, seeds: list[int], baselines: tuple[str, ...] = (
        "first_fit", "best_fit"), n_jobs: int | None = None) -> dict[str, dict[str, float]]:
    """Mean JCT and wait (min), jobs completed and total reward (:data:`EVAL_METRICS`) of the agent
    and the baselines over ``seeds`` (a baseline that reads run times the scenario does not declare
    is left out)."""
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    if is_undeclared(sc.workload.declared_run_time):
        baselines = tuple(b for b in baselines if not reads_run_times(b))
    out: dict[str, dict[str, float]] = {}
    for name in (AGENT_POLICY, *baselines):
        rows = []
        for seed in seeds:
            sim = make_simulator(sc, seed, n_jobs)
            policy = agent_scheduler(agent) if name == AGENT_POLICY else get_policy(name, seed=seed)
            sim.run(policy)
            rows.append(sim.metrics())
        out[name] = {k: float(np.mean([r[k] for r in rows])) for k in EVAL_METRICS}
    return out


def validation_score(policy, config: TrainConfig) -> float:
    """The greedy policy's mean JCT or wait (``config.expert_objective``; minutes) on the
    evaluation seeds: the score expert iteration keeps the best weights by."""
    agent = LoadedAgent(Path(config.out), network_meta(config), policy.state_dict())
    result = evaluate(agent, config.training_scenario(), list(config.eval_seeds), baselines=(),
                      n_jobs=config.n_jobs)
    return result[AGENT_POLICY][OBJECTIVES[config.expert_objective]]


def network_meta(config: TrainConfig) -> dict[str, Any]:
    """The sidecar fields that build the network and its observation (the rest describe the run)."""
    settings = config.to_json()
    return {
        "obs_version": config.obs_version,
        "policy_class": "WindowSetPolicy" if windowed(config) else "GpuSetPolicy",
        "hidden": config.hidden,
        "max_gpus": config.max_gpus,
        "queue_window": int(config.queue_window),
        **{key: settings[key] for key in window_options(config)},
        "vram_scale_gb": float(config.vram_scale_gb),
    }


# ---------------------------------------------------------------------------- training
class KeepBest(BaseCallback):
    """Keeps a copy of the weights each time the evaluation callback finds a new best (SB3's
    ``callback_on_new_best``), in memory: the run never reads a model file back."""

    def __init__(self) -> None:
        super().__init__()
        self.state: dict[str, Any] | None = None
        self.timesteps = 0

    def keep(self, policy, timesteps: int) -> None:
        """Copy ``policy``'s weights as the best so far, reached at ``timesteps``."""
        self.state = copy.deepcopy(policy.state_dict())
        self.timesteps = timesteps

    def _on_step(self) -> bool:
        self.keep(self.model.policy, self.num_timesteps)
        return True


def _eval_reward(model: MaskablePPO, config: TrainConfig) -> float:
    """Mean episode reward of the greedy policy on the held-out evaluation seeds."""
    mean, _ = evaluate_policy(model, make_eval_env(config), n_eval_episodes=len(config.eval_seeds),
                              deterministic=True, use_masking=True, warn=False)
    return float(mean)


def sidecar_settings(config: TrainConfig, scenario: Scenario) -> dict[str, Any]:
    """The part of a model's sidecar that the run's settings decide (the network and its slots,
    the window options, the scenario, the rewards, and every setting under ``config``); the
    loader's :class:`~gpusched.agent.models.Sidecar` accepts it for every config that passes
    :meth:`~gpusched.agent.config.TrainConfig.check` (tested)."""
    return {
        **network_meta(config),
        "scenario_window": scenario.window,
        "scenario_speed": scenario.speed,
        "scenario": scenario.name,
        "randomize": config.randomize,
        "timesteps": config.timesteps,
        "seed": config.seed,
        "reward_spec": scenario.reward.model_dump(),
        "train_reward": dict(config.train_reward),
        "reward_scale": config.reward_scale,
        "config": config.to_json(),
    }


def ppo_model(config: TrainConfig, tensorboard_log: str | None = None) -> MaskablePPO:
    """The run's MaskablePPO over ``config.n_envs`` in-process training environments, with every
    PPO setting of ``config`` (what :func:`train` runs and ``benchmarks/bench_training.py`` times).

    :param tensorboard_log: folder of the TensorBoard logs (``None``: none written).
    """
    venv = DummyVecEnv([lambda: make_train_env(config) for _ in range(config.n_envs)])
    return MaskablePPO(
        WindowSetPolicy if windowed(config) else GpuSetPolicy, venv, learning_rate=config.learning_rate,
        n_steps=config.n_steps, batch_size=config.batch_size, n_epochs=config.n_epochs, gamma=config.gamma,
        gae_lambda=config.gae_lambda, clip_range=config.clip_range, ent_coef=config.ent_coef,
        policy_kwargs={"hidden": config.hidden}, tensorboard_log=tensorboard_log,
        seed=config.seed, device="cpu", verbose=0)


def train(config: TrainConfig, log: Callable[[str], None] = print,
          callbacks: list[BaseCallback] | None = None, stage: Stage | None = None) -> dict[str, Any]:
    """Run the whole training and write the model and its sidecar.

    :param config: every knob of the run.
    :param log: receives one-line progress messages.
    :param callbacks: extra SB3 callbacks, run after the evaluation and checkpoint callbacks.
    :param stage: hears what runs before and after the PPO steps (the warm start's episodes,
        expert iteration's rounds, the evaluations), which the step count does not show.
    :return: the sidecar's content.
    """
    config.check()
    out = Path(config.out)
    check_output_file(out, what="--out", folder_created=True)
    check_output_file(sidecar_path(out), what="--out (its sidecar)", folder_created=True)
    scenario = config.training_scenario()
    th.set_num_threads(config.torch_threads)
    seed_everything(config.seed)
    t0 = time.perf_counter()
    run_name = f"{out.stem}-s{config.seed}"
    run_dir = Path(config.log_dir) / run_name
    model = ppo_model(config, tensorboard_log=str(Path(config.log_dir) / "tb"))
    bc_stats: dict[str, float] = {}
    teacher_labels: list[dict[str, Any]] = []
    if config.bc_policy:
        log(f"warm start: imitating {config.bc_policy} on {config.bc_episodes} episodes"
            + (f", then {config.dagger_rounds} DAgger rounds" if config.dagger_rounds else ""))
        bc_stats = imitate(model.policy, config, log, teacher_labels, stage)
    expert = None
    if config.expert_iterations:
        rounds_file = run_dir / EXPERT_PROGRESS_FILE
        rounds_file.parent.mkdir(parents=True, exist_ok=True)
        rounds_file.write_text("", encoding="utf-8")

        def progress(record: dict[str, Any]) -> None:
            with rounds_file.open("a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")

        expert = expert_iteration(model.policy, config, network_meta(config),
                                  lambda policy: validation_score(policy, config), log, progress,
                                  teacher_labels, stage)
    keep_best = KeepBest() if config.keep_best else None
    evaluation = MaskableEvalCallback(make_eval_env(config), n_eval_episodes=len(config.eval_seeds),
                                      eval_freq=max(config.eval_freq // config.n_envs, 1),
                                      log_path=str(run_dir / "eval"), deterministic=True, warn=False,
                                      verbose=0, callback_on_new_best=keep_best)
    if keep_best is not None:  # the warm start is the first candidate
        if stage is not None:
            stage("scoring the warm start on the evaluation seeds", 0, 1)
        evaluation.best_mean_reward = _eval_reward(model, config)
        keep_best.keep(model.policy, 0)
    all_callbacks: list[BaseCallback] = [
        *([InputDrivenBaseline(config.seed, config.gamma)] if config.input_driven_baseline else []),
        evaluation,
        CheckpointCallback(save_freq=max(config.checkpoint_freq // config.n_envs, 1),
                           save_path=str(run_dir / "checkpoints"), name_prefix="ppo"),
        *(callbacks or []),
    ]
    if config.timesteps > 0:
        if stage is not None:
            stage("reinforcement learning (PPO)", 0, config.timesteps)
        model.learn(total_timesteps=config.timesteps, callback=all_callbacks, progress_bar=config.progress,
                    tb_log_name=run_name)
    selected = None
    if keep_best is not None:
        final = _eval_reward(model, config)
        if final < evaluation.best_mean_reward:
            model.policy.load_state_dict(keep_best.state)
            selected = {"timesteps": keep_best.timesteps, "eval_mean_reward": evaluation.best_mean_reward}
        else:
            selected = {"timesteps": config.timesteps, "eval_mean_reward": final}
        log(f"kept the weights of step {selected['timesteps']:,} (evaluation reward "
            f"{selected['eval_mean_reward']:.1f})")
    train_time = time.perf_counter() - t0
    meta: dict[str, Any] = {
        **sidecar_settings(config, scenario),
        "training_time_s": round(train_time, 1),
        "warm_start": {"policy": config.bc_policy, **bc_stats} if config.bc_policy else None,
        "expert_iteration": expert,
        "selected": selected,
    }
    if stage is not None:
        stage("evaluating the model against the heuristics", 0, 1)
    agent = LoadedAgent(out, meta, model.policy.state_dict())
    baselines = WINDOW_BASELINES if windowed(config) else ("first_fit", "best_fit")
    meta["eval"] = {"seeds": list(config.eval_seeds),
                    "avg": evaluate(agent, scenario, list(config.eval_seeds), baselines,
                                    n_jobs=config.n_jobs)}
    out.parent.mkdir(parents=True, exist_ok=True)
    write_model(out, model.save, meta)
    log(f"saved {out} and {out.with_suffix('.json').name} ({train_time:.0f} s of training)")
    return meta
