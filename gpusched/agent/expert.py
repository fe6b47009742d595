"""Expert iteration: the network drives, a search that uses the network labels, the network learns.

Anthony, Tian and Barber, "Thinking fast and slow with deep learning and tree search" (NeurIPS
2017), and for scheduling and packing Ranked Reward (Laterre et al., 2018) and SLIM (2024): a
search that plays the policy forward finds better actions than the policy alone, and the policy
is trained on the search's choices, so the next search starts from a better policy.

A round:

1. **The network drives.** Episodes of the training environment (their workload seeds drawn for
   the round), the network taking its greedy action at every decision.
2. **The search labels.** At every decision with more than one valid action, ``ppo_rollout`` with
   the current weights (:mod:`gpusched.agent.rollout`, scoring forks by JCT by default) gives the
   action it would take; that is the label. The forks know only the arrived jobs, so the labels
   use nothing from the future.
3. **Refit.** The network is fitted to every label so far (cross-entropy, and its value to the
   driven episodes' returns), as in the warm start: the warm start's and DAgger's teacher labels
   and every round's search labels. (Refitting on the search labels alone threw the warm start
   away in a first run: the network got worse each round, and a worse network drives longer
   episodes, so labelling slowed down too.)
4. **Validate.** The greedy network runs on the evaluation seeds; the mean JCT (or wait) after
   each round is recorded, and the best weights so far are kept.

Labelling is embarrassingly parallel, one task per episode, on the project's backends
(:mod:`gpusched.backends`): the local process pool, or Ray on one machine or a cluster. A task
carries the run's settings and the weights as plain numpy arrays; the worker builds the network
in code and loads them (no pickle of a model file is ever read).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch as th

from gpusched.agent.config import TrainConfig
from gpusched.agent.episodes import make_train_env, merge_demonstrations, warm_start
from gpusched.agent.models import LoadedAgent
from gpusched.agent.scheduler import act
from gpusched.backends import run_tasks
from gpusched.core.view import as_scheduler

EXPERT_PROGRESS_FILE = "expert.jsonl"
"""The file in a training run's folder (``LOG_DIR/RUN``) where each round's record is appended as
one JSON line as it ends (round 0: the starting score), for a page to poll."""

EXPERT_SEED_OFFSET = 70_000
"""Workload seeds of expert-iteration episodes: the run's seed plus this, plus 1,000 per round
(training seeds stay apart from the evaluation seeds below 10,000)."""


@dataclass(frozen=True)
class LabelTask:
    """One labelling episode, as plain data a worker process can receive.

    :param config: the run's settings (:meth:`TrainConfig.to_json`).
    :param meta: what builds the network (``obs_version``, ``hidden``, window options).
    :param weights: the network's weights (name -> array).
    :param seed: the episode's reset seed.
    """

    config: dict[str, Any]
    meta: dict[str, Any]
    weights: dict[str, np.ndarray]
    seed: int


def label_episode(task: LabelTask) -> dict[str, Any]:
    """Drive one episode with the network and label its decisions by the rollout search.

    :return: ``obs``, ``masks``, ``actions`` (the labels), ``returns`` (of the driven episode),
        and ``changed`` (decisions where the label differs from the network's own choice).
    """
    from gpusched.agent.rollout import rollout_scheduler

    th.set_num_threads(1)
    config = TrainConfig.from_json(task.config)
    agent = LoadedAgent(Path("expert-iteration"), task.meta,
                        {k: th.as_tensor(v) for k, v in task.weights.items()})
    env = make_train_env(config)
    base = env.unwrapped
    obs, _ = env.reset(seed=task.seed)
    policy = agent.policy(base.max_gpus, base.max_window)
    search = rollout_scheduler(agent, candidates=config.expert_candidates, objective=config.expert_objective)
    search = as_scheduler(search)
    search.bind(base.sim.view)
    observations, masks, labels, rewards, labelled = [], [], [], [], []
    changed, done = 0, False
    while not done:
        mask = base.action_masks()
        student = act(policy, obs, mask)
        if int(mask.sum()) > 1:
            label = base.action_for(*search.decide(base.sim.view))
            if label is not None and mask[label]:
                observations.append(obs)
                masks.append(mask)
                labels.append(label)
                labelled.append(len(rewards))
                changed += int(label != student)
        obs, reward, terminated, truncated, _ = env.step(student)
        rewards.append(float(reward))
        done = terminated or truncated
    returns, acc = np.zeros(len(rewards), dtype=np.float32), 0.0
    for i in range(len(rewards) - 1, -1, -1):
        acc = rewards[i] + config.gamma * acc
        returns[i] = acc
    if not observations:
        return {"obs": {}, "masks": np.zeros((0, 0), bool), "actions": np.zeros(0, np.int64),
                "returns": np.zeros(0, np.float32), "changed": 0}
    return {"obs": {k: np.stack([o[k] for o in observations]) for k in observations[0]},
            "masks": np.stack(masks), "actions": np.array(labels, dtype=np.int64),
            "returns": returns[labelled], "changed": changed}


def weights_of(policy) -> dict[str, np.ndarray]:
    """A policy's weights as plain numpy arrays (what a :class:`LabelTask` carries)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in policy.state_dict().items()}


def label_round(policy, config: TrainConfig, meta: dict[str, Any], round_no: int) -> list[dict[str, Any]]:
    """Label ``config.expert_episodes`` episodes driven by ``policy`` on the configured backend."""
    weights = weights_of(policy)
    first = config.seed + EXPERT_SEED_OFFSET + 1000 * round_no
    tasks = [LabelTask(config.to_json(), meta, weights, first + e) for e in range(config.expert_episodes)]
    parts = list(run_tasks(label_episode, tasks, backend=config.label_backend,
                           workers=config.label_workers))
    return [p for p in parts if len(p["actions"])]


def expert_iteration(policy, config: TrainConfig, meta: dict[str, Any],
                     validate: Callable[[Any], float], log: Callable[[str], None] = print,
                     progress: Callable[[dict[str, Any]], None] | None = None,
                     teacher_labels: list[dict[str, Any]] | None = None,
                     stage: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    """Run ``config.expert_iterations`` rounds on ``policy`` (changed in place; it ends with the
    weights that validated best, the starting ones included).

    :param meta: what builds the network in a worker (see :class:`LabelTask`).
    :param validate: the policy's validation score (lower is better, e.g. mean JCT in minutes).
    :param progress: called with the start's record (round 0) and each round's as it ends.
    :param teacher_labels: the warm start's labelled decisions, refit on with the search's.
    :param stage: hears what each round is doing (words, rounds done, rounds).
    :return: the record for the sidecar: each round's labels, changed labels, agreement, score
        and seconds, the starting score, and the round whose weights were kept (0: the start).
    """
    total = config.expert_iterations
    if stage:
        stage("expert iteration: scoring the start on the evaluation seeds", 0, total)
    start_score = validate(policy)
    best = {"round": 0, "score": start_score, "state": weights_of(policy)}
    log(f"expert iteration: start, validation {config.expert_objective} {start_score:.2f}")
    if progress:
        progress({"round": 0, "score": round(start_score, 4)})
    data: list[dict[str, Any]] = list(teacher_labels or [])
    rounds = []
    for k in range(1, config.expert_iterations + 1):
        t0 = time.perf_counter()
        policy.set_training_mode(False)
        if stage:
            stage(f"expert iteration round {k} of {total}: the search labels "
                  f"{config.expert_episodes} episodes", k - 1, total)
        parts = label_round(policy, config, meta, k)
        if stage:
            stage(f"expert iteration round {k} of {total}: the network learns the labels, then is "
                  "scored", k - 1, total)
        data.extend(parts)
        stats = {"agreement": float("nan")}
        if parts:
            stats = warm_start(policy, merge_demonstrations(data), config.expert_epochs, config.seed + k)
        policy.set_training_mode(False)
        score = validate(policy)
        labels = sum(len(p["actions"]) for p in parts)
        changed = sum(p["changed"] for p in parts)
        rounds.append({"round": k, "labels": labels, "changed": changed,
                       "agreement": round(float(stats["agreement"]), 4), "score": round(score, 4),
                       "seconds": round(time.perf_counter() - t0, 1)})
        log(f"expert iteration round {k}: {labels} labels ({changed} differ from the network), "
            f"validation {config.expert_objective} {score:.2f}")
        if progress:
            progress(rounds[-1])
        if score < best["score"]:
            best = {"round": k, "score": score, "state": weights_of(policy)}
    policy.load_state_dict({k: th.as_tensor(v) for k, v in best["state"].items()})
    return {"objective": config.expert_objective, "backend": config.label_backend,
            "start_score": round(start_score, 4), "rounds": rounds, "kept_round": best["round"]}
