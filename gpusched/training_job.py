"""A training run in the background, with progress anyone can poll.

:class:`TrainingJob` starts :func:`gpusched.agent.train.train` in a child process (so the caller's
thread never blocks, and Stop can end it at once), and :meth:`TrainingJob.snapshot` reads its
progress from the TensorBoard events the run writes: timesteps done, the mean training episode
reward and the evaluation reward on held-out seeds. The dashboard's Agent page polls it.

Run as ``python -m gpusched.training_job CONFIG.json`` to train from a JSON dump of
:class:`gpusched.agent.config.TrainConfig` (that is what the child process does).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gpusched.catalog import REPO_ROOT, USER_MODELS_DIR

TRAIN_TAG = "rollout/ep_rew_mean"
"""TensorBoard tag of the mean training episode reward."""
EVAL_TAG = "eval/mean_reward"
"""TensorBoard tag of the mean evaluation episode reward (scenario reward, held-out seeds)."""
EVAL_WAIT_TAG = "eval/avg_wait_min"
"""TensorBoard tag of the mean average wait (minutes) of the evaluation episodes."""


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

    @property
    def fraction(self) -> float:
        """Progress, 0-1."""
        if self.status == "done":
            return 1.0
        return min(self.timesteps_done / max(self.timesteps_total, 1), 1.0)

    @property
    def finished(self) -> bool:
        """Whether the run has ended (done, stopped or failed)."""
        return self.status in ("done", "stopped", "failed")


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
        """Start the child process (returns at once)."""
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        config_path = self.work_dir / "config.json"
        data = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self.config).items()}
        config_path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        with self._lock:
            log = self.log_path.open("w", encoding="utf-8")
            self._proc = subprocess.Popen(
                [self.python, "-m", "gpusched.training_job", str(config_path)], cwd=REPO_ROOT,
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
            return TrainingSnapshot(
                status=status, timesteps_done=max(steps, default=0),
                timesteps_total=int(self.config.timesteps),
                elapsed_s=time.monotonic() - self._started if self._started else 0.0,
                train_reward=scalars[TRAIN_TAG], eval_reward=scalars[EVAL_TAG],
                eval_wait_min=scalars[EVAL_WAIT_TAG], log_tail=tail,
                model_path=self.out if status == "done" else None)


def _log_eval_wait() -> None:
    """Make the training run's evaluation callback also log the evaluation episodes' average
    wait (``eval/avg_wait_min``, minutes), read from the environment's end-of-episode metrics.

    This swaps the callback class that :mod:`gpusched.agent.train` uses, in this child process
    only; a ``callbacks`` argument on :func:`gpusched.agent.train.train` would make it unneeded.
    """
    import gpusched.agent.train as agent_train

    base = getattr(agent_train, "MaskableEvalCallback", None)
    if base is None:
        return

    class WaitLoggingEvalCallback(base):
        def _log_success_callback(self, locals_: dict, globals_: dict) -> None:
            super()._log_success_callback(locals_, globals_)
            metrics = (locals_.get("info") or {}).get("metrics") if locals_.get("done") else None
            if metrics and "avg_wait_min" in metrics:
                self.logger.record_mean(EVAL_WAIT_TAG, float(metrics["avg_wait_min"]))

    agent_train.MaskableEvalCallback = WaitLoggingEvalCallback


def main(argv: list[str] | None = None) -> int:
    """Train from a JSON dump of a TrainConfig (the child process of :class:`TrainingJob`)."""
    from gpusched.agent.config import TrainConfig
    from gpusched.agent.train import train

    _log_eval_wait()
    args = sys.argv[1:] if argv is None else argv
    data = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    for key in ("random_gpus", "eval_seeds"):
        if key in data and isinstance(data[key], list):
            data[key] = tuple(data[key])
    train(TrainConfig(**data), log=lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
