"""Expert iteration and the agent, timed: labels per second on 1 and 2 local workers, PPO steps per
second, and one greedy ``ppo`` and one ``ppo_rollout`` run on ``fleet-16gpu`` (targets: 1 s and 3 s).

Labelling uses the shipped window agent's weights (or ``--model``) on the window agent's training
episodes; each episode is one task. Usage: ``python benchmarks/bench_expert.py [--episodes 4]
[--model PATH]``.
"""

from __future__ import annotations

import argparse
import time

from gpusched.agent.config import TrainConfig
from gpusched.agent.expert import LabelTask, label_episode
from gpusched.agent.models import load_agent
from gpusched.agent.train import network_meta
from gpusched.backends import run_tasks
from gpusched.experiment.runner import run_policy
from gpusched.paths import WINDOW_MODEL
from gpusched.workload.presets import load_scenario


def labels_per_second(config: TrainConfig, meta: dict, weights: dict, episodes: int, workers: int) -> tuple:
    """(labels, seconds, labels per second) of ``episodes`` labelling tasks on ``workers``."""
    tasks = [LabelTask(config.to_json(), meta, weights, 90_000 + e) for e in range(episodes)]
    started = time.perf_counter()
    parts = list(run_tasks(label_episode, tasks, workers=workers))
    seconds = time.perf_counter() - started
    labels = sum(len(p["actions"]) for p in parts)
    return labels, seconds, labels / seconds


def ppo_steps_per_second(steps: int = 4096) -> float:
    """Environment steps per second of a short MaskablePPO run of the window agent (no warm start)."""
    import tempfile

    from gpusched.agent.train import train

    with tempfile.TemporaryDirectory() as folder:
        config = TrainConfig(scenario="fleet-16gpu", randomize=True, timesteps=steps, n_envs=4,
                             out=f"{folder}/m.zip", log_dir=f"{folder}/runs", progress=False,
                             eval_freq=10 * steps, checkpoint_freq=10 * steps)
        config.window_agent((1, 16), 0.2)
        config.bc_policy, config.dagger_rounds, config.eval_seeds = None, 0, (500,)
        started = time.perf_counter()
        train(config, log=lambda _: None)
        return steps / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=4, help="labelling episodes per measurement")
    parser.add_argument("--model", default=str(WINDOW_MODEL))
    args = parser.parse_args()
    agent = load_agent(args.model)
    config = TrainConfig(scenario="fleet-16gpu", randomize=True)
    config.window_agent((1, 16), 0.2)
    config.obs_version = int(agent.meta["obs_version"])
    meta = network_meta(config)
    weights = {k: v.detach().cpu().numpy() for k, v in agent.state_dict.items()}
    for workers in (1, 2):
        labels, seconds, rate = labels_per_second(config, meta, weights, args.episodes, workers)
        print(f"labelling, {workers} worker(s): {labels} labels in {seconds:.1f} s = {rate:.1f} labels/s")
    print(f"PPO (window agent, 4 environments): {ppo_steps_per_second():.0f} steps/s")
    scenario = load_scenario("fleet-16gpu")
    for policy in (f"ppo:{args.model}", f"ppo_rollout:{args.model}"):
        run_policy(scenario, policy, seed=999, n_jobs=20)  # load the model and compile the kernel first
        started = time.perf_counter()
        run_policy(scenario, policy, seed=1000)
        print(f"{policy.split(':')[0]} on fleet-16gpu (400 jobs, seed 1000): "
              f"{time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
