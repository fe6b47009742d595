"""A training run in the background, with progress anyone can poll.

:class:`TrainingJob` starts :func:`gpusched.agent.train.train` in a child process (so the caller's
thread never blocks, and Stop can end it at once), and :meth:`TrainingJob.snapshot` reads its
progress from the TensorBoard events the run writes: timesteps done, the mean training episode
reward, and on the held-out seeds the evaluation reward and average wait (see
:func:`eval_wait_callback`). The dashboard's Agent page polls it.

Run as ``python -m gpusched.agent.training_job CONFIG.json`` to train from a JSON dump of
:class:`gpusched.agent.config.TrainConfig` (that is what the child process does).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gpusched.paths import REPO_ROOT, RUNS_DIR, USER_MODELS_DIR

TRAIN_TAG = "rollout/ep_rew_mean"
"""TensorBoard tag of the mean training episode reward."""
EVAL_TAG = "eval/mean_reward"
"""TensorBoard tag of the mean evaluation episode reward (training reward, held-out seeds)."""
EVAL_WAIT_TAG = "eval/avg_wait_min"
"""TensorBoard tag of the mean average wait (minutes) of the evaluation episodes."""
STAGE_FILE = "stages.jsonl"
"""The run's stages, one JSON line each (``stage``, ``done``, ``total``), in its work folder: what
runs besides the PPO steps (loading, the warm start, expert iteration, the evaluations)."""
LOADING = "loading the learning libraries"
"""The stage of a run that has started but reported nothing yet."""


@dataclass
class TrainingSnapshot:
    """The state of a training run at one moment.

    :param status: ``starting``, ``running``, ``done``, ``stopped`` or ``failed``.
    :param timesteps_done: environment steps trained so far.
    :param timesteps_total: environment steps asked for.
    :param elapsed_s: seconds since the start.
    :param train_reward: mean training episode reward per logged step (columns step, value).
    :param eval_reward: mean evaluation reward per evaluation (columns step, value).
    :param eval_wait_min: mean average wait (minutes) of the evaluation episodes (step, value).
    :param log_tail: the last lines the run printed.
    :param model_path: the model file, once it is written.
    :param expert_rounds: expert iteration's validation score after each round so far (columns
        round, score; round 0 is the start), and ``expert_total`` the rounds asked for.
    :param stage: what the run is doing now, in words (``warm start: … episode 2 of 4``).
    :param stage_done: steps of that stage done, of ``stage_total``.
    """

    status: str
    timesteps_done: int
    timesteps_total: int
    elapsed_s: float
    train_reward: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["step", "value"]))
    eval_reward: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["step", "value"]))
    eval_wait_min: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["step", "value"]))
    log_tail: list[str] = field(default_factory=list)
    model_path: Path | None = None
    expert_rounds: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["round", "score"]))
    expert_total: int = 0
    stage: str = ""
    stage_done: int = 0
    stage_total: int = 0

    @property
    def in_ppo(self) -> bool:
        """Whether the run is in its PPO steps (the step count is its progress) or done with them."""
        return self.stage.startswith("reinforcement learning") or self.timesteps_done > 0

    @property
    def stage_fraction(self) -> float:
        """Progress of the current stage, 0-1 (the PPO steps': steps done of steps asked; 1 once
        the run is done)."""
        if self.status == "done":
            return 1.0
        if self.in_ppo:
            return min(self.timesteps_done / max(self.timesteps_total, 1), 1.0)
        return min(self.stage_done / self.stage_total, 1.0) if self.stage_total else 0.0

    @property
    def fraction(self) -> float:
        """Progress, 0-1: the expert-iteration rounds and the PPO steps, each an equal share."""
        if self.status == "done":
            return 1.0
        parts = []
        if self.expert_total:
            done = int(self.expert_rounds["round"].max()) if len(self.expert_rounds) else 0
            parts.append(min(done / self.expert_total, 1.0))
        if self.timesteps_total or not parts:
            parts.append(min(self.timesteps_done / max(self.timesteps_total, 1), 1.0))
        return sum(parts) / len(parts)

    @property
    def finished(self) -> bool:
        """Whether the run has ended (done, stopped or failed)."""
        return self.status in ("done", "stopped", "failed")


def page_config(*, name: str, scenario: str, kind: str, timesteps: int, n_envs: int, seed: int,
                learning_rate: float, n_steps: int, ent_coef: float, hidden: int,
                randomize: bool = False, windows: tuple[int, int] = (1, 16), speed_sigma: float = 0.2,
                expert_rounds: int = 0, log_dir: Path | str | None = None,
                out: Path | str | None = None) -> Any:
    """The :class:`~gpusched.agent.config.TrainConfig` of a run started from the dashboard's form:
    the form's choices, a short warm start (4 episodes, 10 epochs, no DAgger round: on 2 cores a
    round's refit alone took longer than the rest of the smallest run) and an evaluation at most
    once per PPO rollout (the policy changes only then).

    :param kind: ``window`` (chooses the job and the GPU) or ``placement`` (the oldest job's GPU).
    :param timesteps: PPO environment steps.
    :param log_dir: where the run's logs go (default ``runs/``).
    :param out: the model file (default ``models/NAME.zip``).
    """
    from gpusched.agent.config import TrainConfig

    rollout = int(n_steps) * int(n_envs)
    config = TrainConfig(
        scenario=scenario, randomize=randomize, timesteps=int(timesteps), n_envs=int(n_envs),
        seed=int(seed), out=str(out or user_model_path(name)),
        eval_freq=max(int(timesteps) // 5, rollout), checkpoint_freq=max(int(timesteps), 1),
        log_dir=str(log_dir or RUNS_DIR), progress=False)
    if kind == "window":
        config.window_agent(windows, speed_sigma)
        config.dagger_rounds = 0
        config.expert_iterations = int(expert_rounds)
        config.expert_episodes = 4
    config.learning_rate, config.n_steps = float(learning_rate), int(n_steps)
    config.ent_coef, config.hidden = float(ent_coef), int(hidden)
    config.bc_episodes, config.bc_epochs = 4, 10
    return config


def user_model_path(name: str) -> Path:
    """Where a model called ``name`` is saved in the user models folder (``models/NAME.zip``)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name.strip()) or "ppo-run"
    return USER_MODELS_DIR / f"{safe.removesuffix('.zip')}.zip"


class TrainingJob:
    """One background training run. Thread-safe: start, poll and stop from any thread.

    :param config: a :class:`gpusched.agent.config.TrainConfig` (its ``out`` is the model path).
    :param python: the interpreter of the child process.
    """

    def __init__(self, config: Any, python: str = sys.executable):
        self.config = config
        self.python = python
        self.out = Path(config.out)
        self.run_name = f"{self.out.stem}-s{config.seed}"
        self.log_dir = Path(config.log_dir)
        self.work_dir = self.log_dir / self.run_name
        self.log_path = self.work_dir / "train.log"
        self._proc: subprocess.Popen | None = None
        self._stopped = False
        self._lock = threading.Lock()
        self._started = 0.0
        self._accumulator: Any = None
        self._accumulator_dir: Path | None = None

    def start(self) -> None:
        """Check the config (:meth:`~gpusched.agent.config.TrainConfig.check`), then start the
        child process (returns at once).

        :raises gpusched.errors.GpuschedError: for a config out of bounds, before anything starts.
        """
        self.config.check()
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        (self.work_dir / STAGE_FILE).unlink(missing_ok=True)  # a former run's under this name
        config_path = self.work_dir / "config.json"
        config_path.write_text(json.dumps(self.config.to_json(), indent=2), encoding="utf-8")
        with self._lock:
            log = self.log_path.open("w", encoding="utf-8")
            self._proc = subprocess.Popen(
                [self.python, "-m", "gpusched.agent.training_job", str(config_path)], cwd=REPO_ROOT,
                stdout=log, stderr=subprocess.STDOUT, text=True)
            log.close()
            self._started = time.monotonic()

    def stop(self) -> None:
        """End the run now (no model is written)."""
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                self._stopped = True
                self._proc.terminate()
                try:
                    self._proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._proc.kill()

    def _status(self) -> str:
        if self._proc is None:
            return "starting"
        code = self._proc.poll()
        if code is None:
            return "running"
        if self._stopped:
            return "stopped"
        return "done" if code == 0 and self.out.is_file() else "failed"

    def _events_dir(self) -> Path | None:
        runs = sorted((self.log_dir / "tb").glob(f"{self.run_name}_*"),
                      key=lambda p: p.stat().st_mtime)
        return runs[-1] if runs else None

    def _scalars(self) -> dict[str, pd.DataFrame]:
        events = self._events_dir()
        empty = {tag: pd.DataFrame(columns=["step", "value"])
                 for tag in (TRAIN_TAG, EVAL_TAG, EVAL_WAIT_TAG)}
        if events is None:
            return empty
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        if self._accumulator is None or self._accumulator_dir != events:
            self._accumulator = EventAccumulator(str(events), size_guidance={"scalars": 0})
            self._accumulator_dir = events
        self._accumulator.Reload()
        tags = set(self._accumulator.Tags().get("scalars", []))
        out = dict(empty)
        for tag in (TRAIN_TAG, EVAL_TAG, EVAL_WAIT_TAG, "time/total_timesteps"):
            if tag in tags:
                out[tag] = pd.DataFrame([(e.step, e.value) for e in self._accumulator.Scalars(tag)],
                                        columns=["step", "value"])
        return out

    def _expert_rounds(self) -> pd.DataFrame:
        from gpusched.agent.expert import EXPERT_PROGRESS_FILE

        path = self.work_dir / EXPERT_PROGRESS_FILE
        rows = []
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:  # the last line may be half-written while the run appends it
                    record = json.loads(line)
                except ValueError:
                    continue
                rows.append((int(record["round"]), float(record["score"])))
        return pd.DataFrame(rows, columns=["round", "score"])

    def _stage(self) -> tuple[str, int, int]:
        path = self.work_dir / STAGE_FILE
        if not path.is_file():
            return (LOADING, 0, 0) if self._proc is not None else ("", 0, 0)
        for line in reversed(path.read_text(encoding="utf-8").splitlines()):
            try:  # the last line may be half-written while the run appends it
                record = json.loads(line)
            except ValueError:
                continue
            return str(record["stage"]), int(record["done"]), int(record["total"])
        return LOADING, 0, 0

    def snapshot(self) -> TrainingSnapshot:
        """The run's progress now (reads the TensorBoard events and the log)."""
        with self._lock:
            status = self._status()
            scalars = self._scalars()
            steps = [int(df["step"].max()) for df in scalars.values() if len(df)]
            tail: list[str] = []
            if self.log_path.is_file():
                text = self.log_path.read_text(encoding="utf-8", errors="replace")
                tail = [ln for ln in text.replace("\r", "\n").splitlines() if ln.strip()][-8:]
            stage, stage_done, stage_total = self._stage()
            return TrainingSnapshot(
                stage=stage, stage_done=stage_done, stage_total=stage_total,
                expert_rounds=self._expert_rounds(),
                expert_total=int(getattr(self.config, "expert_iterations", 0)),
                status=status, timesteps_done=max(steps, default=0),
                timesteps_total=int(self.config.timesteps),
                elapsed_s=time.monotonic() - self._started if self._started else 0.0,
                train_reward=scalars[TRAIN_TAG], eval_reward=scalars[EVAL_TAG],
                eval_wait_min=scalars[EVAL_WAIT_TAG], log_tail=tail,
                model_path=self.out if status == "done" else None)


def eval_wait_callback(config: Any, every_steps: int) -> Any:
    """An SB3 callback that evaluates the policy on the held-out seeds every ``every_steps``
    environment steps and logs the mean training reward (``eval/mean_reward``) and the mean
    average wait of the episodes (``eval/avg_wait_min``, minutes, from the environment's
    end-of-episode metrics). It stands in for the training run's own evaluation callback.
    """
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.callbacks import BaseCallback

    from gpusched.agent.train import make_eval_env

    class EvalWaitCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.every = max(every_steps // config.n_envs, 1)
            self.env = make_eval_env(config)

        def _on_step(self) -> bool:
            if self.n_calls % self.every:
                return True
            waits: list[float] = []

            def collect(locals_: dict, globals_: dict) -> None:
                info = locals_.get("info") or {}
                if locals_.get("done") and "metrics" in info:
                    waits.append(float(info["metrics"]["avg_wait_min"]))

            rewards, _ = evaluate_policy(self.model, self.env, n_eval_episodes=len(config.eval_seeds),
                                         deterministic=True, return_episode_rewards=True,
                                         callback=collect, use_masking=True, warn=False)
            self.logger.record(EVAL_TAG, float(sum(rewards) / max(len(rewards), 1)))
            if waits:
                self.logger.record(EVAL_WAIT_TAG, sum(waits) / len(waits))
            self.logger.dump(self.num_timesteps)
            return True

    return EvalWaitCallback()


def main(argv: list[str] | None = None) -> int:
    """Train from a JSON dump of a TrainConfig (the child process of :class:`TrainingJob`)."""
    from gpusched.agent.config import TrainConfig
    from gpusched.agent.train import train

    args = sys.argv[1:] if argv is None else argv
    config = TrainConfig.from_json(json.loads(Path(args[0]).read_text(encoding="utf-8")))
    # Our callback evaluates at the asked frequency and also logs the wait; the run's own
    # evaluation is pushed past the end so the episodes are not played twice.
    every = config.eval_freq
    config.eval_freq = 10 * max(config.timesteps, 1) * max(config.n_envs, 1)
    stages = Path(args[0]).parent / STAGE_FILE

    def stage(what: str, done: int, total: int) -> None:
        with stages.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"stage": what, "done": done, "total": total}) + "\n")

    stage("building the environments", 0, 1)
    train(config, log=lambda line: print(line, flush=True),
          callbacks=[eval_wait_callback(config, every)], stage=stage)
    return 0


if __name__ == "__main__":
    sys.exit(main())
