"""Every knob of a training run, in one dataclass (the defaults are the documented defaults)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

WINDOW_TEACHER = "sjf+best_fit"
"""The heuristic a window agent imitates in its warm start (the best queue-aware heuristic on
``fleet-16gpu``; see the README's agent tables)."""


@dataclass
class TrainConfig:
    """One MaskablePPO training run of the size-agnostic GPU placement agent."""

    scenario: str = "phase1-8gpu"
    """Preset name or YAML path the agent trains on."""
    randomize: bool = False
    """Draw a random cluster and job mix on part of the resets (see ``scenario_prob``)."""
    scenario_prob: float = 0.5
    """With ``randomize``, the share of episodes on the scenario's own cluster."""
    random_gpus: tuple[int, int] = (2, 16)
    """With ``randomize``, the range of GPU counts of random clusters."""
    max_gpus: int = 16
    """GPU slots of the training observation (the trained weights run on any size)."""
    n_jobs: int | None = None
    """Override the scenario's number of jobs per episode."""
    timesteps: int = 300_000
    """Environment steps (decisions) of PPO training."""
    n_envs: int = 4
    """Parallel environments (in-process vector env)."""
    seed: int = 0
    """Seeds torch, the environments (workload seeds are drawn from it) and PPO."""
    out: str = "models/ppo.zip"
    """Model path; the sidecar JSON is written next to it (same name, ``.json``)."""
    hidden: int = 64
    """Width of the network's hidden layers."""
    obs_version: int = 1
    """Observation layout (1, or 2 with run-time information, for a FIFO head job; 3 for a queue
    window of jobs with GPU speeds; see ``GPUSchedulerEnv``)."""
    max_window: int = 16
    """With ``obs_version`` 3, the job slots of the training observation (the trained weights
    run on any window)."""
    random_windows: tuple[int, int] | None = None
    """With ``obs_version`` 3, draw each training episode's queue window in this range."""
    speed_sigma: float = 0.0
    """On random clusters, perturb the GPU speeds around the scenario's table (or the shipped one)
    by a log-normal factor with this sigma."""
    random_loads: tuple[float, float] | None = None
    """On random clusters, draw the offered load in this range (otherwise the scenario's rate is
    scaled by the cluster's VRAM)."""
    unit_speed_prob: float = 0.0
    """On random clusters, the share of episodes with no speed table (every GPU at speed 1.0, as
    on the FIFO presets)."""
    learning_rate: float = 1e-4
    """Adam learning rate (constant)."""
    n_steps: int = 512
    """Rollout length per environment between updates."""
    batch_size: int = 256
    """Minibatch size of the PPO update."""
    n_epochs: int = 5
    """Passes over each rollout."""
    gamma: float = 0.995
    """Discount per decision."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_range: float = 0.1
    """PPO clip range."""
    ent_coef: float = 0.003
    """Entropy bonus."""
    train_reward: dict[str, float] = field(
        default_factory=lambda: {"completion": 1.0, "wait": 1.0, "util_band": 0.0, "imbalance": 0.0})
    """Weights of the reward the agent is trained on (same formula as the scenario's reward;
    the environment still reports the scenario's reward). Waiting job-hours is the average wait."""
    reward_scale: float = 0.1
    """Factor applied to the training reward (keeps value targets near 1)."""
    bc_policy: str | None = "best_fit"
    """Heuristic imitated before PPO (warm start), or ``None`` to start from random weights."""
    bc_episodes: int = 16
    """Episodes of the heuristic collected for the warm start."""
    bc_epochs: int = 30
    """Passes over the warm-start data."""
    dagger_rounds: int = 0
    """DAgger rounds after the warm start: the policy drives, the teacher labels, refit on all data."""
    dagger_episodes: int = 16
    """Episodes per DAgger round."""
    dagger_epochs: int = 20
    """Passes over all data after each DAgger round."""
    expert_iterations: int = 0
    """Expert-iteration rounds after the warm start (:mod:`gpusched.agent.expert`): the network
    drives, ``ppo_rollout`` with these weights labels the states it visits, the network is refit
    on every label so far; the weights that validate best are kept."""
    expert_episodes: int = 8
    """Episodes labelled per expert-iteration round."""
    expert_epochs: int = 20
    """Passes over every label so far after each expert-iteration round."""
    expert_candidates: int = 3
    """Options the labelling search weighs per decision (the network's best valid actions)."""
    expert_objective: str = "jct"
    """What the labelling search and the validation score: ``jct`` (mean job completion time) or
    ``wait``."""
    label_backend: str = "local"
    """Where labelling episodes run: ``local`` (process pool) or ``ray``."""
    label_workers: int = 1
    """Local processes (or Ray CPUs of a local Ray instance) for labelling."""
    keep_best: bool = False
    """Save the weights that scored best on ``eval_seeds`` (the warm start, an evaluation during
    PPO, or the final weights) instead of the final ones; the sidecar's ``selected`` says which."""
    eval_seeds: tuple[int, ...] = (500, 501, 502, 503, 504)
    """Held-out workload seeds of the evaluation callback (training draws seeds >= 10,000)."""
    eval_freq: int = 20_000
    """Evaluate every this many environment steps."""
    checkpoint_freq: int = 50_000
    """Save a checkpoint every this many environment steps."""
    log_dir: str = "runs"
    """TensorBoard logs and checkpoints go under this folder."""
    torch_threads: int = 1
    """Torch CPU threads (small networks run fastest on one)."""
    progress: bool = True
    """Show a progress bar."""

    def window_agent(self, windows: tuple[int, int], speed_sigma: float,
                     unit_speed_prob: float = 0.25) -> None:
        """Make this a window agent's run, with the settings the shipped window agent was chosen
        with (README, "The window agent"): observation version 3, each episode's queue window
        drawn in ``windows``, GPU speeds perturbed by ``speed_sigma`` on random clusters (and
        absent on ``unit_speed_prob`` of them); a warm start imitating :data:`WINDOW_TEACHER`
        with four DAgger rounds; then a cautious PPO (small steps, no entropy bonus) on the
        waiting time alone, keeping the weights that score best on the evaluation seeds."""
        from gpusched.env.window import WINDOW_OBS_VERSION

        self.obs_version = WINDOW_OBS_VERSION
        self.random_windows = (int(windows[0]), int(windows[1]))
        self.max_window = max(self.random_windows[1], 1)
        self.speed_sigma = float(speed_sigma)
        self.unit_speed_prob = float(unit_speed_prob)
        self.keep_best = True
        if self.bc_policy:
            self.bc_policy = WINDOW_TEACHER
        self.bc_episodes, self.bc_epochs = 24, 40
        self.dagger_rounds, self.dagger_episodes = 4, 16
        self.learning_rate, self.ent_coef, self.clip_range = 2e-5, 0.0, 0.05
        self.n_steps, self.gamma = 1024, 0.999
        self.train_reward = {"completion": 0.0, "wait": 1.0, "util_band": 0.0, "imbalance": 0.0}

    def to_json(self) -> dict[str, Any]:
        """Every field as JSON-ready values (tuples become lists); :meth:`from_json` reads it back."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainConfig:
        """A config from :meth:`to_json` output (lists become tuples again)."""
        return cls(**{k: _from_json_value(v) for k, v in data.items()})

    def set(self, name: str, value: Any) -> None:
        """Set one field from a JSON value (a list for a tuple field becomes a tuple).

        :raises KeyError: if ``name`` is not a field.
        """
        if name not in field_names():
            raise KeyError(name)
        setattr(self, name, _from_json_value(value))


def field_names() -> list[str]:
    """The names of every :class:`TrainConfig` field."""
    return [f.name for f in fields(TrainConfig)]


def _from_json_value(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value
