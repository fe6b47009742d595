"""The ``gpusched train`` sub-command (torch is imported only when it runs).

Before anything starts, the flags and every ``--set KEY=VALUE`` go into one
:class:`~gpusched.agent.config.TrainConfig`, checked as a whole with the same bounds
(:meth:`~gpusched.agent.config.TrainConfig.check`), and the model file, its sidecar and the log
folder are checked by creating a temporary file where each goes. The model and its sidecar are
then written together at the end, or not at all.
"""

from __future__ import annotations

import argparse
import json

from gpusched.agent.config import TrainConfig, field_names
from gpusched.agent.models import sidecar_path
from gpusched.backends import BACKENDS
from gpusched.cli.args import (
    env_count,
    expert_rounds,
    gpu_count,
    load_range,
    seed_value,
    speed_sigma,
    timestep_count,
    window_range,
    worker_count,
)
from gpusched.errors import GpuschedError, shorten
from gpusched.workload.files import check_output_dir, check_output_file


def _set_value(raw: str) -> object:
    """A ``--set`` value: JSON (``64``, ``0.01``, ``[1, 16]``, ``null``, ``true``, ``"text"``),
    else the text itself (``best_fit``). ``NaN`` and ``Infinity`` stay numbers, and the config's
    check refuses them."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return raw


def _apply_overrides(config: TrainConfig, pairs: list[str]) -> None:
    """Set ``TrainConfig`` fields from ``KEY=VALUE`` strings (values parsed as JSON, else text);
    :meth:`TrainConfig.check` validates the result."""
    known = field_names()
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or key not in known:
            raise GpuschedError(f"--set '{shorten(pair, 40)}': expected KEY=VALUE with KEY a TrainConfig "
                                f"field ({', '.join(sorted(known))})")
        config.set(key, _set_value(raw))


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The run's settings from the ``train`` flags and ``--set`` pairs, checked as a whole.

    :raises GpuschedError: one line naming the flag or field that is wrong.
    """
    config = TrainConfig(scenario=args.scenario, randomize=args.randomize, timesteps=args.timesteps,
                         n_envs=args.n_envs, seed=args.seed, out=args.out, log_dir=args.log_dir,
                         progress=not args.no_progress)
    if args.max_gpus:
        config.max_gpus = args.max_gpus
        config.random_gpus = (min(config.random_gpus[0], args.max_gpus), args.max_gpus)
    if args.no_warm_start:
        config.bc_policy = None
    if args.urgency and args.windows:
        raise GpuschedError("--urgency trains on the scenario's own window: leave out --windows")
    if args.urgency and args.randomize:
        raise GpuschedError("--urgency trains on the scenario's own cluster: leave out --randomize")
    if args.urgency and args.speed_sigma:
        raise GpuschedError("--urgency trains on the scenario's own GPU speeds: leave out --speed-sigma")
    if args.urgency:
        config.urgency_agent(args.urgency, max_gpus=args.max_gpus)
    elif args.windows:
        config.window_agent(args.windows, args.speed_sigma)
    elif args.speed_sigma:
        raise GpuschedError("--speed-sigma perturbs the speeds a window agent sees: give --windows too")
    if args.expert_iterations:
        config.expert_iterations = args.expert_iterations
    # --backend and --label-workers are label_backend and label_workers: config.check() applies
    # one rule to the flags and to --set (they need expert iteration)
    config.label_backend = args.backend
    config.label_workers = args.label_workers
    if args.loads:
        if not args.randomize:
            raise GpuschedError("--loads sets the load of random clusters: give --randomize too")
        config.random_loads = args.loads
    _apply_overrides(config, args.set or [])
    config.check()  # every field and the scenario, before importing torch
    return config


def cmd_train(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    check_output_file(config.out, what="--out", folder_created=True)
    check_output_file(sidecar_path(config.out), what="--out (its sidecar)", folder_created=True)
    check_output_dir(config.log_dir, what="--log-dir")
    from gpusched.agent.train import train

    meta = train(config)
    for name, row in meta["eval"]["avg"].items():
        print(f"  held-out seeds {meta['eval']['seeds']}: {name:<16} avg JCT {row['avg_jct_min']:.1f} min, "
              f"avg wait {row['avg_wait_min']:.1f} min")
    return 0


def install(sub: argparse._SubParsersAction) -> None:
    """Add the ``train`` command to the ``gpusched`` parser."""
    p = sub.add_parser("train", help="train the MaskablePPO agent and write a model + sidecar JSON")
    p.add_argument("--scenario", required=True, help="preset name or path to a YAML file")
    p.add_argument("--randomize", action="store_true",
                   help="draw a random cluster and job mix on half of the episodes")
    p.add_argument("--timesteps", type=timestep_count, required=True, help="PPO environment steps")
    p.add_argument("--n-envs", type=env_count, default=4, help="parallel environments (default 4)")
    p.add_argument("--seed", type=seed_value, default=0, help="training seed (default 0)")
    p.add_argument("--max-gpus", type=gpu_count,
                   help="GPU slots of the observation, and the largest random cluster (default 16)")
    p.add_argument("--out", required=True, help="model path ending in .zip (sidecar: same name .json)")
    p.add_argument("--log-dir", default="runs", help="TensorBoard logs and checkpoints (default runs/)")
    p.add_argument("--windows", type=window_range, metavar="LO-HI",
                   help="train a window agent (it chooses which queued job starts, and where), "
                        "each episode's queue window drawn from LO to HI, e.g. 1-16")
    p.add_argument("--urgency", choices=("history", "none"),
                   help="train an urgency agent (observation version 5) told run times only as "
                        "declared_run_time HISTORY or NONE tells them, on the scenario's cluster")
    p.add_argument("--speed-sigma", type=speed_sigma, default=0.0, metavar="SIGMA",
                   help="window agent: perturb the GPU speeds of random clusters by exp(SIGMA * Z)")
    p.add_argument("--loads", type=load_range, metavar="LO-HI",
                   help="with --randomize: draw the offered load of random clusters from LO to HI")
    p.add_argument("--no-warm-start", action="store_true",
                   help="start PPO from random weights instead of imitating a heuristic first "
                        "(best_fit; sjf+fastest_fit for a window agent)")
    p.add_argument("--expert-iterations", type=expert_rounds, metavar="N",
                   help="after the warm start, N rounds of expert iteration: the network drives, "
                        "ppo_rollout labels the states it visits (by JCT), the network is refit")
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="where expert iteration labels its episodes: local processes or Ray")
    p.add_argument("--label-workers", type=worker_count, default=1, metavar="K",
                   help="labelling processes (local) or CPUs of a local Ray instance (default 1)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="set any TrainConfig field, e.g. --set ent_coef=0.01 (repeatable)")
    p.set_defaults(func=cmd_train)

