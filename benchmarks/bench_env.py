"""Speed of the RL environment, of training and of the agent's decisions.

Prints:

- environment steps per second with uniformly random *valid* actions, on 8 GPUs (``phase1-8gpu``)
  and on random heterogeneous clusters of 64 and 512 GPUs (episode resets included and excluded);
- MaskablePPO training steps per second on ``phase1-8gpu`` (4 environments, no warm start);
- the agent's time per decision (observation + network + mask) at 8 and 512 GPUs;
- the agent with rollouts (``ppo_rollout``): seconds per ``phase1-8gpu`` run and per decision;
- the window environment (observation version 3) on ``fleet-16gpu`` (16 GPUs, window 16): steps
  per second with random valid (slot, GPU) actions, resets included; MaskablePPO steps per second
  of the window agent's training settings; its decision time at 512 GPUs x window 16 and 32; and
  one greedy run of the shipped agent on ``fleet-16gpu``.

The environment's step is a few dozen small numpy operations, so its speed scales with the
machine's per-operation overhead; the first line prints that overhead as a calibration.

Other programs on a shared machine only ever slow a run down, so each environment figure is the
best of ``--repeat`` runs (as ``timeit`` reports its best), and the spread is printed too.

Usage: ``python benchmarks/bench_env.py [--seconds 3] [--repeat 3] [--train-steps 8192] [--json out.json]``;
``--cpu-steps N`` prints only steps per CPU second over ``N`` steps (:func:`cpu_steps_per_s`).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch as th

from gpusched.core.cluster import Cluster
from gpusched.core.jobs import Job
from gpusched.env import GPUSchedulerEnv
from gpusched.env.randomize import random_cluster
from gpusched.workload.presets import load_scenario
from gpusched.workload.synthetic import generate_jobs


def _workload(n_gpus: int, seed: int) -> tuple[Cluster, list[Job]]:
    """A random cluster of exactly ``n_gpus`` GPUs with phase1-8gpu's load per GB of VRAM."""
    rng = np.random.default_rng(seed)
    cluster = random_cluster(rng, n_gpus, n_gpus)
    base = load_scenario("phase1-8gpu")
    rate = base.workload.arrival_rate_per_hour * float(cluster.gpu_vram_gb.sum()) / 288.0
    n_jobs = max(250, 30 * n_gpus)
    jobs = generate_jobs(n_jobs, rate, base.workload.mix, rng, cluster.max_vram_gb_for_gpus())
    return cluster, jobs


def bench_env_steps(n_gpus: int, seconds: float) -> dict[str, float]:
    """Random valid actions for ``seconds``; steps/s with and without the time spent in ``reset``."""
    rng = np.random.default_rng(0)
    if n_gpus == 8:
        env = GPUSchedulerEnv("phase1-8gpu")
        options: dict = {}
    else:
        cluster, jobs = _workload(n_gpus, seed=n_gpus)
        env = GPUSchedulerEnv("phase1-8gpu", max_gpus=n_gpus)
        options = {"jobs": jobs, "cluster": cluster}
    steps, reset_s = 0, 0.0
    t_reset = time.perf_counter()
    env.reset(seed=0, options=options)
    reset_s += time.perf_counter() - t_reset
    uniforms = rng.random(1 << 16).tolist()  # drawn up front: the harness should cost next to nothing
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        valid = env.action_masks().nonzero()[0]
        action = int(valid[int(uniforms[steps & 0xFFFF] * valid.size)])
        _, _, terminated, truncated, _ = env.step(action)
        steps += 1
        if terminated or truncated:
            t_reset = time.perf_counter()
            env.reset(options=options)
            reset_s += time.perf_counter() - t_reset
    total = time.perf_counter() - start
    return {"gpus": n_gpus, "steps": steps, "steps_per_s": steps / total,
            "steps_per_s_excl_reset": steps / max(total - reset_s, 1e-9)}


def _ppo_steps_per_s(config, policy_class, steps: int) -> dict[str, float]:
    """MaskablePPO steps per second of ``config``'s training environments (no warm start)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from gpusched.agent.train import make_train_env, seed_everything

    th.set_num_threads(config.torch_threads)
    seed_everything(0)
    venv = DummyVecEnv([lambda: make_train_env(config) for _ in range(config.n_envs)])
    model = MaskablePPO(policy_class, venv, n_steps=config.n_steps, batch_size=config.batch_size,
                        n_epochs=config.n_epochs, policy_kwargs={"hidden": config.hidden}, seed=0,
                        device="cpu")
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    elapsed = time.perf_counter() - start
    return {"steps": steps, "seconds": elapsed, "steps_per_s": steps / elapsed}


def bench_training(steps: int) -> dict[str, float]:
    """MaskablePPO steps per second on phase1-8gpu (4 envs, 512-step rollouts, no warm start)."""
    from gpusched.agent.config import TrainConfig
    from gpusched.agent.network import GpuSetPolicy

    return _ppo_steps_per_s(TrainConfig(randomize=True, n_envs=4), GpuSetPolicy, steps)


def bench_inference(n_gpus: int, decisions: int = 300) -> dict[str, float]:
    """Mean time (ms) of one agent decision: observation, network forward and masked argmax."""
    from gpusched.agent.network import GpuSetPolicy
    from gpusched.agent.scheduler import act
    from gpusched.env.observation import ObservationBuilder

    if n_gpus == 8:
        env = GPUSchedulerEnv("phase1-8gpu")
        env.reset(seed=0)
    else:
        cluster, jobs = _workload(n_gpus, seed=n_gpus)
        env = GPUSchedulerEnv("phase1-8gpu", max_gpus=n_gpus)
        env.reset(seed=0, options={"jobs": jobs, "cluster": cluster})
    th.manual_seed(0)
    policy = GpuSetPolicy(env.observation_space, env.action_space, lambda _: 0.0)
    builder = ObservationBuilder(env.sim.setup.cluster, n_gpus)
    times = []
    for _ in range(decisions):
        sim = env.sim.view
        start = time.perf_counter()
        fits = sim.state.fit_mask(sim.head_job)
        action = act(policy, builder.observe(sim, fits), builder.mask(sim, fits))
        times.append(time.perf_counter() - start)
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return {"gpus": n_gpus, "ms_per_decision": 1e3 * float(np.mean(times))}


def bench_rollout(seeds: tuple[int, ...] = (0, 1, 2)) -> dict[str, float]:
    """Seconds per ``phase1-8gpu`` run (250 jobs) and ms per decision of the agent with rollouts."""
    from gpusched.policies import get_policy
    from gpusched.workload.build import make_simulator

    scenario = load_scenario("phase1-8gpu")
    seconds, decisions = 0.0, 0
    for seed in seeds:
        sim = make_simulator(scenario, seed)
        policy = get_policy("ppo_rollout")
        start = time.perf_counter()
        sim.run(policy)
        seconds += time.perf_counter() - start
        decisions += sim.run_state.decisions
    return {"seconds_per_run": seconds / len(seeds), "ms_per_decision": 1e3 * seconds / decisions}


def bench_window_env_steps(seconds: float) -> dict[str, float]:
    """Random valid (slot, GPU) actions on fleet-16gpu (16 GPUs, window 16) for ``seconds``."""
    rng = np.random.default_rng(0)
    env = GPUSchedulerEnv("fleet-16gpu", obs_version=3, max_window=16)
    uniforms = rng.random(1 << 16).tolist()
    env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        valid = env.action_masks().nonzero()[0]
        _, _, terminated, truncated, _ = env.step(int(valid[int(uniforms[steps & 0xFFFF] * valid.size)]))
        steps += 1
        if terminated or truncated:
            env.reset()
    return {"gpus": 16, "window": 16, "steps_per_s": steps / (time.perf_counter() - start)}


def cpu_steps_per_s(n_gpus: int, steps: int) -> float:
    """Environment steps per CPU second (``time.process_time``) over a fixed ``steps`` random valid
    actions, resets included: ``n_gpus`` 64 or 512 as :func:`bench_env_steps`, 16 the window
    environment of :func:`bench_window_env_steps`. A fixed count timed by CPU time compares two
    packages on a shared machine better than a fixed wall time does."""
    if n_gpus == 16:
        env, options = GPUSchedulerEnv("fleet-16gpu", obs_version=3, max_window=16), {}
    else:
        cluster, jobs = _workload(n_gpus, seed=n_gpus)
        env = GPUSchedulerEnv("phase1-8gpu", max_gpus=n_gpus)
        options = {"jobs": jobs, "cluster": cluster}
    uniforms = np.random.default_rng(0).random(1 << 16).tolist()
    env.reset(seed=0, options=options)
    start = time.process_time()
    for step in range(steps):
        valid = env.action_masks().nonzero()[0]
        _, _, terminated, truncated, _ = env.step(int(valid[int(uniforms[step & 0xFFFF] * valid.size)]))
        if terminated or truncated:
            env.reset(options=options)
    return steps / (time.process_time() - start)


def bench_window_training(steps: int) -> dict[str, float]:
    """MaskablePPO steps per second with the window agent's settings (fleet-16gpu, randomised
    clusters, windows 1-16, speed sigma 0.2, 1024-step rollouts; no warm start)."""
    from gpusched.agent.config import TrainConfig
    from gpusched.agent.network import WindowSetPolicy

    config = TrainConfig(scenario="fleet-16gpu", randomize=True, n_envs=4)
    config.window_agent((1, 16), 0.2)
    return _ppo_steps_per_s(config, WindowSetPolicy, steps)


def bench_window_inference(n_gpus: int, window: int, decisions: int = 300) -> dict[str, float]:
    """Mean time (ms) of one window-agent decision (observation, network, masked argmax) on a
    random cluster of ``n_gpus`` GPUs with the shipped speeds and a queue of ``window`` slots."""
    from gpusched.agent.network import WindowSetPolicy
    from gpusched.agent.scheduler import act
    from gpusched.core.speed import DEFAULT_SPEEDS, GpuSpeeds
    from gpusched.env.window import WindowObservationBuilder

    cluster, jobs = _workload(n_gpus, seed=n_gpus)
    env = GPUSchedulerEnv("fleet-16gpu", max_gpus=n_gpus, obs_version=3, max_window=window)
    env.reset(seed=0, options={"jobs": jobs, "cluster": cluster})
    th.manual_seed(0)
    policy = WindowSetPolicy(env.observation_space, env.action_space, lambda _: 0.0)
    cluster = env.sim.setup.cluster
    builder = WindowObservationBuilder(cluster, n_gpus, window, GpuSpeeds(cluster, DEFAULT_SPEEDS), 80.0,
                                       env.obs_version)
    times = []
    for _ in range(decisions):
        sim = env.sim.view
        start = time.perf_counter()
        action = act(policy, builder.observe(sim), builder.mask(sim))
        times.append(time.perf_counter() - start)
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return {"gpus": n_gpus, "window": window, "ms_per_decision": 1e3 * float(np.mean(times))}


def bench_greedy_fleet(seeds: tuple[int, ...] = (0, 1, 2)) -> dict[str, float]:
    """Seconds per greedy run of the shipped agent (``ppo``) on fleet-16gpu (400 jobs)."""
    from gpusched.policies import get_policy
    from gpusched.workload.build import make_simulator

    scenario = load_scenario("fleet-16gpu")
    get_policy("ppo")  # load the model once, as every later run does
    seconds = []
    for seed in seeds:
        sim = make_simulator(scenario, seed)
        start = time.perf_counter()
        sim.run(get_policy("ppo"))
        seconds.append(time.perf_counter() - start)
    return {"seconds_per_run": float(np.mean(seconds)), "max_seconds": float(np.max(seconds))}


def numpy_op_us() -> float:
    """Time (microseconds) of one tiny numpy operation: a calibration of this machine's overhead."""
    import timeit

    a = np.zeros(8)
    return timeit.timeit(lambda: a * 0.5, number=20000) / 20000 * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per environment benchmark (s)")
    parser.add_argument("--repeat", type=int, default=3, help="environment runs per size (the best is kept)")
    parser.add_argument("--train-steps", type=int, default=8192, help="PPO steps of the training benchmark")
    parser.add_argument("--json", help="also write the figures as JSON to this path")
    parser.add_argument("--cpu-steps", type=int, default=0,
                        help="only print steps per CPU second over this many steps (64 and 512 GPUs, "
                             "the window environment)")
    args = parser.parse_args()
    th.set_num_threads(1)
    if args.cpu_steps:
        for n, name in ((64, "64 GPUs"), (512, "512 GPUs"), (16, "window env, fleet-16gpu")):
            print(f"{name}: {cpu_steps_per_s(n, args.cpu_steps):.0f} steps per CPU second")
        return
    out: dict[str, list | dict | float] = {"env": [], "inference": [], "numpy_op_us": numpy_op_us()}
    print(f"calibration: one small numpy operation takes {out['numpy_op_us']:.2f} us on this machine")
    print("environment, random valid actions")
    print(f"{'GPUs':>6} {'steps/s':>10} {'excl. reset':>12} {'all runs (steps/s)':>24}")
    for n in (8, 64, 512):
        runs = [bench_env_steps(n, args.seconds) for _ in range(args.repeat)]
        row = max(runs, key=lambda r: r["steps_per_s"])
        row["all_steps_per_s"] = [r["steps_per_s"] for r in runs]
        out["env"].append(row)
        spread = ", ".join(f"{r['steps_per_s']:.0f}" for r in runs)
        print(f"{n:>6} {row['steps_per_s']:>10.0f} {row['steps_per_s_excl_reset']:>12.0f} {spread:>24}")
    row = bench_training(args.train_steps)
    out["training"] = row
    print(f"training: {row['steps']} PPO steps in {row['seconds']:.1f} s = {row['steps_per_s']:.0f} steps/s")
    for n in (8, 512):
        row = bench_inference(n)
        out["inference"].append(row)
        print(f"agent decision at {n} GPUs: {row['ms_per_decision']:.2f} ms")
    row = bench_rollout()
    out["rollout"] = row
    print(f"agent with rollouts, phase1-8gpu seeds 0-2: {row['seconds_per_run']:.1f} s per run, "
          f"{row['ms_per_decision']:.1f} ms per decision")
    runs = [bench_window_env_steps(args.seconds) for _ in range(args.repeat)]
    out["window_env"] = max(runs, key=lambda r: r["steps_per_s"])
    print(f"window environment, fleet-16gpu (16 GPUs x window 16), random valid actions, resets "
          f"included: {out['window_env']['steps_per_s']:.0f} steps/s (all runs: "
          + ", ".join(f"{r['steps_per_s']:.0f}" for r in runs) + ")")
    row = bench_window_training(args.train_steps)
    out["window_training"] = row
    print(f"window agent training: {row['steps']} PPO steps in {row['seconds']:.1f} s = "
          f"{row['steps_per_s']:.0f} steps/s")
    out["window_inference"] = []
    for n, w in ((16, 16), (512, 16), (512, 32)):
        row = bench_window_inference(n, w)
        out["window_inference"].append(row)
        print(f"window agent decision at {n} GPUs x window {w}: {row['ms_per_decision']:.2f} ms")
    row = bench_greedy_fleet()
    out["greedy_fleet"] = row
    print(f"greedy agent (ppo) on fleet-16gpu, seeds 0-2: {row['seconds_per_run']:.2f} s per run "
          f"(slowest {row['max_seconds']:.2f} s)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
