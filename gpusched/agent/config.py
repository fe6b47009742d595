"""Every knob of a training run, in one dataclass (the defaults are the documented defaults).

Each field's type carries its bounds (from :mod:`gpusched.limits` where a limit exists), and
:meth:`TrainConfig.check` validates a whole config with them before anything starts: the command
line's flags and ``--set KEY=VALUE``, the dashboard's training form and
:func:`gpusched.agent.train.train` all go through it. Numbers are numbers (never ``true`` or a
quoted number), finite and within their bounds; switches are ``true`` or ``false``.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field, fields
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictBool, TypeAdapter, ValidationError

from gpusched.core.numbers import Number, Whole
from gpusched.errors import GpuschedError, shorten
from gpusched.limits import (
    LOAD_RANGE,
    MAX_EXPERT_ITERATIONS,
    MAX_GPUS,
    MAX_JOBS,
    MAX_N_ENVS,
    MAX_QUEUE_WINDOW,
    MAX_REWARD_WEIGHT,
    MAX_SEED,
    MAX_SEEDS,
    MAX_SIDECAR_HIDDEN,
    MAX_SPEED_SIGMA,
    MAX_TIMESTEPS,
    MAX_TRAIN_COUNT,
    MAX_WINDOW,
    MAX_WORKERS,
    VRAM_SCALE_RANGE_GB,
)
from gpusched.workload.validation import validation_message

Text = Annotated[str, Field(min_length=1)]
Count = Annotated[Whole, Field(ge=1, le=MAX_TRAIN_COUNT)]
"""A count of a training run: 1 to :data:`gpusched.limits.MAX_TRAIN_COUNT`."""
Fraction = Annotated[Number, Field(ge=0.0, le=1.0)]
"""A share or a discount: 0 to 1."""
GpuCount = Annotated[Whole, Field(ge=1, le=MAX_GPUS)]
Window = Annotated[Whole, Field(ge=1, le=MAX_WINDOW)]
Load = Annotated[Number, Field(ge=LOAD_RANGE[0], le=LOAD_RANGE[1])]
Interval = Annotated[Whole, Field(ge=1)]
"""Environment steps between two evaluations or checkpoints (beyond the run: never)."""
Seed = Annotated[Whole, Field(ge=0, le=MAX_SEED)]
Weight = Annotated[Number, Field(ge=0.0, le=MAX_REWARD_WEIGHT)]

URGENCY_TEACHER = "qssf+fastest_fit"
"""The heuristic an urgency agent imitates in its warm start (:meth:`TrainConfig.urgency_agent`):
QSSF orders by history's predictions, Fastest-Fit places by the measured speeds; among the best
pairs that read no true run time on ``gavel-108gpu-heavy`` (tuning seeds 900-901)."""

URGENCY_UNTOLD_TEACHER = "las+fastest_fit"
"""The urgency agent's teacher where no run time is declared (``declared_run_time: none``, under
which :data:`URGENCY_TEACHER` is refused: it reads run times): LAS orders by attained service,
Fastest-Fit places by the measured speeds. On ``gavel-108gpu-heavy`` under ``none`` (tuning seeds
900-901) its mean JCT is 1,481.1 min against 1,499.4 for ``fcfs+fastest_fit`` (``edf+fastest_fit``
ties it: the preset has no deadlines)."""

URGENCY_EVAL_SEEDS: tuple[int, ...] = (900, 901, 902)
"""The seeds an urgency agent's weights are chosen on: ``gavel-108gpu``'s tuning seeds, never the
held-out seeds its tables report."""

WINDOW_TEACHER = "sjf+fastest_fit"
"""The heuristic a window agent imitates in its warm start: among the best pairs by time to result
on ``fleet-16gpu`` (held-out seeds 1000-1019, see ``docs/results/window-agent.md``), and, unlike
``sjf+first_fit``, blind to the order in which a cluster lists its nodes."""


@dataclass
class TrainConfig:
    """One MaskablePPO training run of the size-agnostic GPU placement agent (each field's type
    holds its bounds; :meth:`check` validates them)."""

    __pydantic_config__ = ConfigDict(allow_inf_nan=False)  # read by pydantic, not a field

    scenario: Text = "phase1-8gpu"
    """Preset name or YAML path the agent trains on."""
    declared_run_time: str | dict[str, Any] | None = None
    """What the training runs are told of run times (``exact``, ``none``, ``history`` or
    ``{lognormal: SIGMA}``: ``workload.declared_run_time``, replacing the scenario's); ``None``
    keeps the scenario's. Training and evaluation runs all use it (:meth:`training_scenario`)."""
    randomize: StrictBool = False
    """Draw a random cluster and job mix on part of the resets (see ``scenario_prob``)."""
    scenario_prob: Fraction = 0.5
    """With ``randomize``, the share of episodes on the scenario's own cluster."""
    random_gpus: tuple[GpuCount, GpuCount] = (2, 16)
    """With ``randomize``, the range of GPU counts of random clusters."""
    max_gpus: GpuCount = 16
    """GPU slots of the training observation (the trained weights run on any size)."""
    n_jobs: Annotated[Whole, Field(ge=1, le=MAX_JOBS)] | None = None
    """Override the scenario's number of jobs per episode."""
    timesteps: Annotated[Whole, Field(ge=0, le=MAX_TIMESTEPS)] = 300_000
    """Environment steps (decisions) of PPO training."""
    n_envs: Annotated[Whole, Field(ge=1, le=MAX_N_ENVS)] = 4
    """Parallel environments (in-process vector env)."""
    seed: Seed = 0
    """Seeds torch, the environments (workload seeds are drawn from it) and PPO."""
    out: Text = "models/ppo.zip"
    """Model path; the sidecar JSON is written next to it (same name, ``.json``)."""
    hidden: Annotated[Whole, Field(ge=1, le=MAX_SIDECAR_HIDDEN)] = 64
    """Width of the network's hidden layers."""
    obs_version: Whole = 1
    """Observation layout (1, or 2 with run-time information, for a FIFO head job; 3 for a queue
    window of jobs with GPU speeds; see ``GPUSchedulerEnv``)."""
    queue_window: Annotated[Whole, Field(ge=1, le=MAX_QUEUE_WINDOW)] = 8
    """With ``obs_version`` 1 or 2, the jobs behind the head that the observation summarises."""
    vram_scale_gb: Annotated[Number, Field(ge=VRAM_SCALE_RANGE_GB[0], le=VRAM_SCALE_RANGE_GB[1])] = 80.0
    """The observation's VRAM divisor (GB): every VRAM feature is VRAM / this; within the range a
    model's sidecar may record (``VRAM_SCALE_RANGE_GB``), so every trained model loads."""
    max_window: Window = 16
    """With ``obs_version`` 3, the job slots of the training observation (the trained weights
    run on any window)."""
    random_windows: tuple[Window, Window] | None = None
    """With ``obs_version`` 3, draw each training episode's queue window in this range."""
    speed_sigma: Annotated[Number, Field(ge=0.0, le=MAX_SPEED_SIGMA)] = 0.0
    """On random clusters, perturb the GPU speeds around the scenario's table (or the shipped one)
    by a log-normal factor with this sigma."""
    random_loads: tuple[Load, Load] | None = None
    """On random clusters, draw the offered load in this range (otherwise the scenario's rate is
    scaled by the cluster's VRAM)."""
    unit_speed_prob: Fraction = 0.0
    """On random clusters, the share of episodes with no speed table (every GPU at speed 1.0, as
    on the FIFO presets)."""
    learning_rate: Annotated[Number, Field(gt=0.0, le=1.0)] = 1e-4
    """Adam learning rate (constant)."""
    n_steps: Count = 512
    """Rollout length per environment between updates."""
    batch_size: Annotated[Whole, Field(ge=2, le=MAX_TRAIN_COUNT)] = 256
    """Minibatch size of the PPO update."""
    n_epochs: Count = 5
    """Passes over each rollout."""
    gamma: Fraction = 0.995
    """Discount per decision."""
    gae_lambda: Fraction = 0.95
    """GAE lambda."""
    clip_range: Annotated[Number, Field(gt=0.0, le=1.0)] = 0.1
    """PPO clip range."""
    ent_coef: Weight = 0.003
    """Entropy bonus."""
    train_reward: dict[str, Number] = field(
        default_factory=lambda: {"completion": 1.0, "wait": 1.0, "util_band": 0.0, "imbalance": 0.0})
    """Weights of the reward the agent is trained on (same formula as the scenario's reward;
    the environment still reports the scenario's reward). Waiting job-hours is the average wait."""
    reward_scale: Annotated[Number, Field(gt=0.0, le=MAX_REWARD_WEIGHT)] = 0.1
    """Factor applied to the training reward (keeps value targets near 1)."""
    bc_policy: Text | None = "best_fit"
    """Heuristic imitated before PPO (warm start), or ``None`` to start from random weights."""
    bc_episodes: Count = 16
    """Episodes of the heuristic collected for the warm start."""
    bc_epochs: Count = 30
    """Passes over the warm-start data."""
    dagger_rounds: Annotated[Whole, Field(ge=0, le=MAX_TRAIN_COUNT)] = 0
    """DAgger rounds after the warm start: the policy drives, the teacher labels, refit on all data."""
    dagger_episodes: Count = 16
    """Episodes per DAgger round."""
    dagger_epochs: Count = 20
    """Passes over all data after each DAgger round."""
    expert_iterations: Annotated[Whole, Field(ge=0, le=MAX_EXPERT_ITERATIONS)] = 0
    """Expert-iteration rounds after the warm start (:mod:`gpusched.agent.expert`): the network
    drives, ``ppo_rollout`` with these weights labels the states it visits, the network is refit
    on every label so far; the weights that validate best are kept."""
    expert_episodes: Count = 8
    """Episodes labelled per expert-iteration round."""
    expert_epochs: Count = 20
    """Passes over every label so far after each expert-iteration round."""
    expert_candidates: Annotated[Whole, Field(ge=1, le=MAX_WINDOW)] = 3
    """Options the labelling search weighs per decision (the network's best valid actions)."""
    expert_objective: Literal["jct", "wait"] = "jct"
    """What the labelling search and the validation score: ``jct`` (mean job completion time) or
    ``wait``."""
    label_backend: Literal["local", "ray"] = "local"
    """Where labelling episodes run: ``local`` (process pool) or ``ray``."""
    label_workers: Annotated[Whole, Field(ge=1, le=MAX_WORKERS)] = 1
    """Local processes (or Ray CPUs of a local Ray instance) for labelling."""
    input_driven_baseline: StrictBool = False
    """PPO's advantages by Decima's input-driven baseline (:mod:`gpusched.agent.baseline`): the
    environments of a rollout batch share their input, and each step is compared with the mean
    return of the others at the same simulated time."""
    keep_best: StrictBool = False
    """Save the weights that scored best on ``eval_seeds`` (the warm start, an evaluation during
    PPO, or the final weights) instead of the final ones; the sidecar's ``selected`` says which."""
    eval_seeds: Annotated[tuple[Seed, ...], Field(min_length=1, max_length=MAX_SEEDS)] = (
        500, 501, 502, 503, 504)
    """Held-out workload seeds of the evaluation callback (training draws seeds >= 10,000)."""
    eval_freq: Interval = 20_000
    """Evaluate every this many environment steps."""
    checkpoint_freq: Interval = 50_000
    """Save a checkpoint every this many environment steps."""
    log_dir: Text = "runs"
    """TensorBoard logs and checkpoints go under this folder."""
    torch_threads: Annotated[Whole, Field(ge=1, le=MAX_WORKERS)] = 1
    """Torch CPU threads (small networks run fastest on one)."""
    progress: StrictBool = True
    """Show a progress bar."""

    def window_agent(self, windows: tuple[int, int], speed_sigma: float,
                     unit_speed_prob: float = 0.25) -> None:
        """Make this a window agent's run, with the settings the shipped window agent was chosen
        with (``docs/agent.md``, "Training"): the newest window observation, each episode's queue window
        drawn in ``windows``, GPU speeds perturbed by ``speed_sigma`` on random clusters (and
        absent on ``unit_speed_prob`` of them); a warm start imitating :data:`WINDOW_TEACHER`
        with four DAgger rounds; then a cautious PPO (small steps, no entropy bonus) on the time
        to result (the ``jct`` reward: job-hours in the system), keeping the weights that score
        best on the evaluation seeds. Expert iteration (``expert_iterations``) runs between the
        warm start and PPO."""
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
        self.train_reward = {"completion": 0.0, "wait": 0.0, "util_band": 0.0, "imbalance": 0.0, "jct": 1.0}

    def urgency_agent(self, declared_run_time: str = "history", max_gpus: int | None = None) -> None:
        """Make this an urgency agent's run (``docs/agent.md``, "The urgency agent"): a window agent
        (:meth:`window_agent`'s settings, on the scenario's own cluster and window) reading
        observation version 5, told run times only as ``declared_run_time`` tells them (history's
        predictions by default), warm-started by imitating :func:`urgency_teacher` under the same
        setting. A random cluster, a speed perturbation or other windows are no part of it (the
        command line refuses ``--randomize`` and ``--speed-sigma`` with ``--urgency``; a ``--set``
        after it is kept, and the sidecar records it).

        :param max_gpus: the GPU slots the user asked for (:meth:`check` refuses fewer than the
            scenario's GPUs); ``None``: the scenario's GPUs, or :attr:`max_gpus` if larger.
        """
        from gpusched.env.window import URGENCY_OBS_VERSION

        self.window_agent((1, self.max_window), speed_sigma=0.0, unit_speed_prob=0.0)
        self.random_windows = None
        self.randomize = False
        self.obs_version = URGENCY_OBS_VERSION
        self.declared_run_time = declared_run_time
        scenario = self.training_scenario()
        self.max_gpus = max(self.max_gpus, scenario.n_gpus) if max_gpus is None else max_gpus
        self.max_window = max(self.max_window, scenario.window)
        if self.bc_policy:
            self.bc_policy = urgency_teacher(scenario)
        # a run of 2,000 jobs on 108 GPUs is ~70 times a fleet-16gpu episode's decisions x GPUs:
        # fewer, longer episodes (the budget of ``docs/agent.md``: within an hour on 2 cores)
        self.bc_episodes, self.bc_epochs = 8, 10
        self.dagger_rounds, self.dagger_episodes, self.dagger_epochs = 2, 4, 5
        self.eval_seeds = URGENCY_EVAL_SEEDS

    def training_scenario(self):  # noqa: ANN201 - a Scenario (imported late: it loads presets)
        """The scenario every training and evaluation run uses: :attr:`scenario`, with
        :attr:`declared_run_time` in place of its own when set."""
        from gpusched.workload.presets import load_scenario
        from gpusched.workload.scenario import told

        scenario = load_scenario(self.scenario)
        return scenario if self.declared_run_time is None else told(scenario, self.declared_run_time)

    def check(self) -> None:
        """Validate every field against its type and bounds, then the fields against each other
        and the scenario (it loads, fits ``max_gpus`` and ``max_window``), before anything starts.
        Accepted values are kept in their field's type (``--set timesteps=0.0`` is the whole
        number 0), so the sidecar a run writes is one the loader accepts.

        :raises GpuschedError: one line naming the field and what is wrong.
        """
        try:
            checked = _adapter().validate_python(asdict(self))
        except ValidationError as exc:
            raise GpuschedError(validation_message(exc, "training settings")) from None
        for name in field_names():
            setattr(self, name, getattr(checked, name))
        _check_together(self)

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


def urgency_teacher(scenario) -> str:  # noqa: ANN001 - a Scenario (imported late: it loads presets)
    """The heuristic an urgency agent imitates on ``scenario``: :data:`URGENCY_TEACHER`, or
    :data:`URGENCY_UNTOLD_TEACHER` where the scenario declares no run time, which the first reads
    (the sidecar's ``warm_start.policy`` names the one used)."""
    from gpusched.policies.preflight import check_told

    try:
        check_told(scenario, URGENCY_TEACHER)
    except GpuschedError:
        return URGENCY_UNTOLD_TEACHER
    return URGENCY_TEACHER


@functools.cache
def _adapter() -> TypeAdapter:
    return TypeAdapter(TrainConfig)


def _check_together(config: TrainConfig) -> None:
    """The checks that involve more than one field, or the scenario (see :meth:`TrainConfig.check`)."""
    from gpusched.core.reward import TrainingRewardSpec
    from gpusched.env.env import ENV_OBS_VERSIONS
    from gpusched.env.window import WINDOW_OBS_VERSIONS
    from gpusched.policies import check_policy
    def refuse(key: str, why: str) -> None:
        raise GpuschedError(f"training settings, {key}: {why}")

    if config.obs_version not in ENV_OBS_VERSIONS:
        refuse("obs_version", f"must be one of {', '.join(map(str, ENV_OBS_VERSIONS))} "
                              f"(got {config.obs_version})")
    if not config.expert_iterations and (config.label_backend != "local" or config.label_workers != 1):
        key = ("label_backend (--backend)" if config.label_backend != "local"
               else "label_workers (--label-workers)")
        refuse(key, "runs expert iteration's labelling: set expert_iterations too (--expert-iterations)")
    if not config.out.endswith(".zip"):
        refuse("out (--out)", f"must end in .zip, the model file (got '{shorten(config.out)}')")
    for key in ("random_gpus", "random_windows", "random_loads"):
        pair = getattr(config, key)
        if pair is not None and pair[0] > pair[1]:
            refuse(key, f"the first value is above the second (got {list(pair)})")
    if config.randomize and config.random_gpus[1] > config.max_gpus:
        refuse("random_gpus", f"the largest random cluster ({config.random_gpus[1]} GPUs) must fit "
                              f"max_gpus ({config.max_gpus})")
    windowed = config.obs_version in WINDOW_OBS_VERSIONS
    if not windowed:  # a FIFO agent's environment never reads them: refused, not ignored
        for key, unset in (("random_loads (--loads)", None), ("speed_sigma (--speed-sigma)", 0.0),
                           ("unit_speed_prob", 0.0), ("random_windows", None)):
            if getattr(config, key.split()[0]) != unset:
                refuse(key, f"randomises a window agent's episodes (--windows), but observation version "
                            f"{config.obs_version} is a FIFO agent's, which would ignore it")
    if windowed and config.random_windows and config.random_windows[1] > config.max_window:
        refuse("random_windows", f"the longest window ({config.random_windows[1]}) must fit "
                                 f"max_window ({config.max_window})")
    if config.n_steps * config.n_envs < 2:
        refuse("n_steps", f"a rollout needs at least 2 steps in all (n_steps {config.n_steps} × "
                          f"n_envs {config.n_envs})")
    try:
        TrainingRewardSpec.model_validate(config.train_reward)
    except ValidationError as exc:
        raise GpuschedError(validation_message(exc, "training settings, train_reward")) from None
    if config.bc_policy is not None:
        try:
            check_policy(config.bc_policy)
        except GpuschedError as exc:
            refuse("bc_policy", str(exc))
    from gpusched.workload.declared import check_declared

    if config.declared_run_time is not None:
        try:
            check_declared(config.declared_run_time)
        except ValueError as exc:
            refuse("declared_run_time", str(exc))
    scenario = config.training_scenario()
    if scenario.n_gpus > config.max_gpus:
        refuse("max_gpus (--max-gpus)", f"scenario '{scenario.label}' has {scenario.n_gpus} GPUs, more "
                                        f"than max_gpus ({config.max_gpus})")
    if windowed and scenario.window > config.max_window:
        refuse("max_window", f"scenario '{scenario.label}' has a queue window of {scenario.window}, "
                             f"more than max_window ({config.max_window})")
    if config.randomize and config.random_loads is None:
        try:  # a random cluster's jobs arrive at the scenario's rate, scaled by its VRAM
            scenario.arrival_rate_per_hour()
        except GpuschedError as exc:
            refuse("randomize (--randomize)", f"random clusters draw jobs at the scenario's arrival rate, "
                                              f"but {exc}; give random_loads too (--loads LO-HI)")
    _check_runs(config, scenario)


def _check_runs(config: TrainConfig, scenario) -> None:  # noqa: ANN001 - a Scenario
    """Refuse what the run's evaluation (or its teacher) could not run, before training starts:
    the check ``simulate`` makes (:func:`gpusched.policies.preflight.check_runs`) for the teacher
    on the training scenario and its first evaluation seed, and an observation that reads declared
    run times (every version but :data:`~gpusched.env.window.UNTOLD_OBS_VERSIONS`) where the
    scenario declares none: its network would read NaN, and ``simulate`` refuses such a model.

    :raises GpuschedError: one line naming the setting (or the scenario's key) and what to use.
    """
    from gpusched.env.window import UNTOLD_OBS_VERSIONS, URGENCY_OBS_VERSION
    from gpusched.policies.preflight import check_runs, check_told
    from gpusched.workload.declared import is_undeclared

    where = ("training settings, declared_run_time" if config.declared_run_time is not None
             else f"scenario '{scenario.label}', workload.declared_run_time")
    if is_undeclared(scenario.workload.declared_run_time) and config.obs_version not in UNTOLD_OBS_VERSIONS:
        raise GpuschedError(f"{where}: none declares no run time, but observation version "
                            f"{config.obs_version} reads them (train an urgency agent, --urgency none, "
                            f"whose version {URGENCY_OBS_VERSION} does not; or declared_run_time: history)")
    if config.bc_policy is not None:
        try:
            check_told(scenario, config.bc_policy)
        except GpuschedError as exc:
            raise GpuschedError(f"training settings, bc_policy (the warm start's teacher): {exc}") from None
    check_runs(scenario, [], seed=config.eval_seeds[0], n_jobs=config.n_jobs)


def field_names() -> list[str]:
    """The names of every :class:`TrainConfig` field."""
    return [f.name for f in fields(TrainConfig)]


def _from_json_value(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value
