"""The Gymnasium environment: a thin adapter over :class:`gpusched.core.simulator.Simulator`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gpusched.core.cluster import Cluster
from gpusched.core.jobs import Job
from gpusched.core.simulator import HOLD, Simulator
from gpusched.core.speed import DEFAULT_SPEEDS, GpuSpeeds
from gpusched.env.observation import OBS_VERSION, OBS_VERSIONS, ObservationBuilder, observation_space
from gpusched.env.randomize import perturbed_speeds, random_cluster, random_mix
from gpusched.env.window import (
    WINDOW_OBS_VERSIONS,
    WindowObservationBuilder,
    window_action_space,
    window_observation_space,
)
from gpusched.errors import GpuschedError
from gpusched.workload.build import simulator_for
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario
from gpusched.workload.synthetic import generate_jobs, rate_for_load

ENV_OBS_VERSIONS: tuple[int, ...] = (*OBS_VERSIONS, *WINDOW_OBS_VERSIONS)
"""Observation layouts the environment builds: 1 and 2 (FIFO, one head job) and 3 (the window)."""

TRAIN_SEED_MIN = 10_000
"""Workload seeds drawn for training are at least this; smaller seeds are left for evaluation."""


class GPUSchedulerEnv(gym.Env):
    """
    ## Description

    Place the jobs of a queue on a heterogeneous GPU cluster. With observation versions 1 and 2
    the queue is FIFO: at each step the agent sees the cluster and the job at the head of the
    queue, and answers with a GPU for that job or HOLD. With version 3 (the window) it sees the
    first `window` queued jobs, the GPUs with their speeds and every (job, GPU) pair, and answers
    with a (window slot, GPU) pair or HOLD (see :mod:`gpusched.env.window`); version 4 is the
    window with failure features, version 5 the window with what a scheduler that is not told
    run times knows of urgency.
    The environment wraps the one event-driven simulator of :mod:`gpusched.core.simulator`; it
    never re-implements its dynamics. Placing a job does not advance time; HOLD advances the
    clock to the next arrival or completion (or, with the scenario's `failures:` key, the next
    node failure or repair: failures are events like arrivals; a job a failure stops goes back to
    the queue, and a down node's GPUs are in no action mask). Only version 4 shows failures to
    the agent (down nodes, attained service, declared remaining work, whether a job ran before);
    versions 1-3 do not. Every observation is built from the scheduler's read-only view of the
    run (:mod:`gpusched.core.view`; a write through it raises): declared run times, never true
    ones (`runtime_estimate_error` hides the truth from the agent as from every heuristic).

    ## Action Space

    Version 3: `Discrete(max_window * max_gpus + 1)`; action `slot * max_gpus + g` starts the
    window job in `slot` on GPU `g` (with its gang), the last action is HOLD, and
    :meth:`action_masks` marks exactly the pairs where that job fits now.

    Versions 1 and 2: `Discrete(max_gpus + 1)`. Action `g < n_gpus` places the head job on GPU `g` (for a
    multi-GPU job, `g` plus the lowest-index other GPUs of its node where the job fits: the
    simulator's gang rule). Action `max_gpus` (the last one, :attr:`hold_action`) is HOLD.
    :meth:`action_masks` marks exactly the GPUs where the head job (its whole gang) fits; padding
    slots are never valid; HOLD is valid unless holding would dead-stall the run (nothing running
    and no arrival left). An action outside the mask is passed to the simulator, which treats it
    as a HOLD and records a misroute (a padding slot is a plain HOLD).

    ## Observation Space

    A `Dict`; VRAM is divided by `vram_scale_gb` (80 by default), so every feature is roughly 0-1.

    | key | shape | feature | range |
    |---|---|---|---|
    | `gpus` | (max_gpus, 12) | present | {0, 1} |
    | | | VRAM total, VRAM free (/ scale) | 0-4 |
    | | | compute used | 0-1 |
    | | | jobs running / 8 | 0-1 |
    | | | head job fits (with its gang) | {0, 1} |
    | | | VRAM left after placing the head here (/ scale; 0 if no fit) | 0-4 |
    | | | compute left after placing the head here (0 if no fit) | 0-1 |
    | | | node room: share of the node's GPUs that could each take one of the head's GPUs | 0-1 |
    | | | node size / 8 | 0-1 |
    | | | idle | {0, 1} |
    | | | could ever hold the head job (empty node) | {0, 1} |
    | `gpu_present` | (max_gpus,) | 1 for a real GPU, 0 for padding | {0, 1} |
    | `job` | (10,) | GPUs / 8; VRAM per GPU / scale; compute per GPU | 0-4 |
    | | | log1p(declared run time, min) / log1p(1440); priority / 3 | 0-1.3 |
    | | | type one-hot (training, inference, batch) | {0, 1} |
    | | | log1p(minutes waited so far) / log1p(1440); share of GPUs where it fits now | 0-1 |
    | `queue` | (8,) | log1p(queue length) / log1p(1000) | 0-1 |
    | | | next `queue_window` jobs: count / window, GPUs x VRAM / cluster VRAM | 0-2 |
    | | | next jobs: GPUs x compute / cluster GPUs, largest VRAM / scale | 0-2 |
    | | | cluster utilisation, VRAM in use / cluster VRAM, running jobs / GPUs | 0-2 |
    | `time` | (2,) | minutes since the first arrival / one week; share of the workload arrived | 0-1 |

    Padding slots are all zero. The layout has a version that saved models record. Version 1 is
    the table above (the default). Version 2 (`obs_version=2`) adds run-time information:

    - two per-GPU features: log1p(minutes until its first running job ends) and log1p(minutes
      until its last one ends), each / log1p(1440), 0 when idle;
    - 16 queue features: the 4 jobs behind the head one by one (GPUs / 8, VRAM / scale, compute,
      log1p(declared run time) / log1p(1440); zeros past the end of the queue).

    Version 3 (`obs_version=3`) is the window layout of :mod:`gpusched.env.window`: per window job
    (declared duration, GPUs, VRAM, compute, priority, wait so far, fits anywhere), per GPU (as
    above, plus its speed for each job type), per (job, GPU) pair (fits, VRAM left after placing,
    the job's own speed on that GPU, as the view's speed model answers for it (its model's, else
    its type's), its declared run time there, node room for the gang), padded to
    `max_window` jobs and `max_gpus` GPUs with presence masks. Version 4 (`obs_version=4`, what new
    window agents train on) adds per GPU whether its node is down (failed, not yet repaired), and
    per window job its attained service (GPU-minutes held so far), its restore plus declared
    remaining work, and whether it ran before (stopped by a failure or a preemption). Version 5
    (`obs_version=5`, the urgency agent's) adds per window job whether a run time is declared or
    predicted at all, whether it is a prediction from history and how many completed jobs it rests
    on, its deadline slack (or how far past it the job is), its weight and its model family; it is
    the one layout that runs under `workload.declared_run_time: none` (every run-time feature then
    reads 0), and a model of versions 1-4 is refused there.

    ## Rewards

    The step reward is the change of the simulator's `total_reward` over the step, so an
    episode's rewards sum to the run's `total_reward` metric. It is the scenario's `reward:` block
    (:mod:`gpusched.core.reward`), over the simulated time the step covers:

        r = completion * jobs_completed - wait * waiting_job_hours
            + util_band * hours_with_cluster_util_in_band - imbalance * gini_hours
            - jct * job_hours_in_system

    Every weight defaults to 1.0 except `jct` (0); the band defaults to 0.60-0.80 (scenario key `util_band`).
    Training replaces it with its own weights (:class:`gpusched.env.wrappers.TrainingReward`),
    which may also charge weighted JCT, lateness and missed deadlines
    (:class:`gpusched.core.reward.TrainingRewardSpec`).

    ## Starting State

    `reset` builds the cluster and draws a workload, then advances the simulator to the first
    decision (the first arrival). Without options the workload is the scenario's generator with a
    workload seed drawn from `self.np_random` (at least :data:`TRAIN_SEED_MIN`, so seeds below it
    stay unseen for evaluation); with `workload_seeds` the resets cycle through those seeds.
    With `randomize=True`, with probability `1 - scenario_prob` a random cluster (size in
    `random_gpus`, random models and node shapes), a random job-type mix and a scaled arrival rate
    (or, with `random_loads`, a rate for an offered load drawn in that range) are drawn instead;
    on such an episode the GPU speeds are the scenario's (or the shipped) table perturbed by
    `speed_sigma`, or with probability `unit_speed_prob` none at all. With `random_windows`, a
    window episode draws its queue window in that range (the scenario's window otherwise).
    `options` may fix the episode:

    - `scenario`: a :class:`~gpusched.workload.scenario.Scenario` or preset name/path (replaces the
      environment's scenario from now on);
    - `workload_seed`: the scenario's workload for this seed (the same jobs as
      `gpusched simulate --seed`);
    - `jobs`: an explicit list of :class:`~gpusched.core.jobs.Job`, with `cluster` optionally giving
      the :class:`~gpusched.core.cluster.Cluster` to run them on.

    ## Episode End

    Terminated when every job has finished (or on a dead stall, only reachable through an
    action outside the mask). Truncated at the scenario's `horizon_min`, or, with failures and no
    horizon, at the run's safety horizon (`gpusched.core.failures.safety_horizon_min`).

    ## Arguments

    - `scenario`: preset name, YAML path or `Scenario` (default `phase1-8gpu`).
    - `max_gpus`: GPU slots of the observation (default: the scenario's GPUs, or the upper end of
      `random_gpus` when randomising).
    - `randomize`, `scenario_prob`, `random_gpus`: randomised training (see Starting State).
    - `n_jobs`: override the scenario's number of jobs.
    - `workload_seeds`: cycle through these workload seeds (held-out evaluation).
    - `queue_window`: jobs behind the head summarised in `queue` (default 8).
    - `vram_scale_gb`: VRAM normaliser in GB (default 80).
    - `obs_version`: observation layout, 1 (default), 2, 3, 4 or 5 (see Observation Space).
    - `max_window`: version 3, job slots of the observation (default: the scenario's window, or
      the upper end of `random_windows`).
    - `random_windows`, `speed_sigma`, `random_loads`, `unit_speed_prob`: version-3 and random
      episode options (see Starting State).
    - `render_mode`: `"ansi"` or `None`.

    ## Version History

    - v0: initial version (observation version 1); versions 2-5 are chosen by `obs_version`.
      Versions 1 and 2 read the head job's and the next jobs' declared run times (before the
      scheduler's view, their true ones: the same on every preset, which declares none).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        scenario: str | Scenario = "phase1-8gpu",
        *,
        max_gpus: int | None = None,
        randomize: bool = False,
        scenario_prob: float = 0.5,
        random_gpus: tuple[int, int] = (2, 16),
        n_jobs: int | None = None,
        workload_seeds: Sequence[int] | None = None,
        queue_window: int = 8,
        vram_scale_gb: float = 80.0,
        obs_version: int = OBS_VERSION,
        render_mode: str | None = None,
        max_window: int | None = None,
        random_windows: tuple[int, int] | None = None,
        speed_sigma: float = 0.0,
        random_loads: tuple[float, float] | None = None,
        unit_speed_prob: float = 0.0,
    ):
        self.scenario = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        self.base_cluster = self.scenario.build_cluster()
        default_max = self.base_cluster.n_gpus
        if randomize:
            default_max = max(default_max, random_gpus[1])
        self.max_gpus = int(max_gpus or default_max)
        if self.base_cluster.n_gpus > self.max_gpus:
            raise GpuschedError(f"scenario '{self.scenario.label}' has {self.base_cluster.n_gpus} GPUs, "
                                f"more than max_gpus={self.max_gpus}")
        if randomize and random_gpus[1] > self.max_gpus:
            raise GpuschedError(f"random_gpus upper bound {random_gpus[1]} exceeds max_gpus={self.max_gpus}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise GpuschedError(f"render_mode must be one of {self.metadata['render_modes']}, "
                                f"got {render_mode!r}")
        self.randomize = randomize
        self.scenario_prob = scenario_prob
        self.random_gpus = random_gpus
        self.n_jobs = n_jobs
        self.workload_seeds = list(workload_seeds) if workload_seeds is not None else None
        self._seed_cursor = 0
        self.queue_window = queue_window
        self.vram_scale_gb = vram_scale_gb
        self.render_mode = render_mode
        if obs_version not in ENV_OBS_VERSIONS:
            raise GpuschedError(f"obs_version must be one of {ENV_OBS_VERSIONS}, got {obs_version!r}")
        self.obs_version = obs_version
        self.random_windows = random_windows
        self.speed_sigma = float(speed_sigma)
        self.random_loads = random_loads
        self.unit_speed_prob = float(unit_speed_prob)
        self.windowed = obs_version in WINDOW_OBS_VERSIONS
        if self.windowed:
            self.max_window = int(max_window or max(self.scenario.window, random_windows[1] if random_windows
                                                    else 1))
            if self.scenario.window > self.max_window:
                raise GpuschedError(f"scenario '{self.scenario.label}' has a window of "
                                    f"{self.scenario.window}, more than max_window={self.max_window}")
            if random_windows and random_windows[1] > self.max_window:
                raise GpuschedError(f"random_windows upper bound {random_windows[1]} exceeds "
                                    f"max_window={self.max_window}")
            self.hold_action = self.max_window * self.max_gpus
            self.action_space = window_action_space(self.max_window, self.max_gpus)
            self.observation_space = window_observation_space(self.max_window, self.max_gpus, obs_version)
        else:
            self.max_window = 1
            self.hold_action = self.max_gpus
            self.action_space = spaces.Discrete(self.max_gpus + 1)
            self.observation_space = observation_space(self.max_gpus, obs_version)
        self.sim: Simulator | None = None
        self.builder: ObservationBuilder | WindowObservationBuilder | None = None
        self.workload_seed: int | None = None
        self._fits: np.ndarray | None = None
        self._last_total = 0.0

    # ---------------------------------------------------------------- episode set-up
    def _draw_episode(self, options: dict[str, Any]) -> tuple[Cluster, list[Job], Scenario, GpuSpeeds | None]:
        if "scenario" in options:
            sc = options["scenario"]
            self.scenario = sc if isinstance(sc, Scenario) else load_scenario(sc)
            self.base_cluster = self.scenario.build_cluster()
            if self.base_cluster.n_gpus > self.max_gpus:
                raise GpuschedError(f"scenario '{self.scenario.label}' has {self.base_cluster.n_gpus} "
                                    f"GPUs, more than max_gpus={self.max_gpus}")
        scenario = self.scenario
        n_jobs = self.n_jobs or scenario.workload.jobs
        if "jobs" in options:
            cluster = options.get("cluster") or self.base_cluster
            self.workload_seed = None
            return cluster, list(options["jobs"]), scenario, self._speeds(scenario, cluster)
        if "workload_seed" in options:
            seed = int(options["workload_seed"])
        elif self.workload_seeds:
            seed = self.workload_seeds[self._seed_cursor % len(self.workload_seeds)]
            self._seed_cursor += 1
        else:
            seed = int(self.np_random.integers(TRAIN_SEED_MIN, 2**31 - 1))
        self.workload_seed = seed
        use_random = self.randomize and "workload_seed" not in options
        if use_random and self.np_random.random() >= self.scenario_prob:
            lo, hi = self.random_gpus
            cluster = random_cluster(self.np_random, lo, hi)
            w = scenario.workload
            speeds = self._speeds(scenario, cluster, perturb=True)
            if self.random_loads:
                load = float(self.np_random.uniform(*self.random_loads))
                mix = random_mix(self.np_random, w.mix)
                rate = rate_for_load(load, mix, cluster, speeds)
            else:
                vram_ratio = float(cluster.gpu_vram_gb.sum()) / float(self.base_cluster.gpu_vram_gb.sum())
                rate = (scenario.arrival_rate_per_hour(self.base_cluster) * vram_ratio
                        * float(self.np_random.uniform(0.7, 1.3)))
                mix = random_mix(self.np_random, w.mix)
            jobs = generate_jobs(n_jobs, rate, mix, np.random.default_rng(seed),
                                 cluster.max_vram_gb_for_gpus())
            return cluster, jobs, scenario, speeds
        cluster = self.base_cluster
        return (cluster, scenario.jobs(seed=seed, n_jobs=n_jobs, cluster=cluster), scenario,
                self._speeds(scenario, cluster))

    def _speeds(self, scenario: Scenario, cluster: Cluster, perturb: bool = False) -> GpuSpeeds | None:
        """The episode's GPU speeds: the scenario's table, and on a random episode with
        ``speed_sigma`` a table perturbed around it (or around the shipped one), or, with
        probability ``unit_speed_prob``, none (every GPU at speed 1.0)."""
        table = scenario.speed_table()
        if perturb and self.unit_speed_prob > 0 and self.np_random.random() < self.unit_speed_prob:
            return None
        if perturb and self.speed_sigma > 0:
            table = perturbed_speeds(self.np_random, table or DEFAULT_SPEEDS, self.speed_sigma)
        return None if table is None else GpuSpeeds(cluster, table)

    def _draw_window(self, options: dict[str, Any]) -> int:
        """The episode's queue window: the scenario's, or a random one while training."""
        if self.windowed and self.random_windows and "workload_seed" not in options and "jobs" not in options:
            lo, hi = self.random_windows
            return int(self.np_random.integers(lo, hi + 1))
        return self.scenario.window

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode (see the class docstring for ``options``)."""
        super().reset(seed=seed)
        options = options or {}
        cluster, jobs, scenario, speeds = self._draw_episode(options)
        if cluster.n_gpus > self.max_gpus:
            raise GpuschedError(f"cluster has {cluster.n_gpus} GPUs, more than max_gpus={self.max_gpus}")
        window = self._draw_window(options)
        seed = scenario.workload.seed if self.workload_seed is None else self.workload_seed
        self.sim = simulator_for(scenario, cluster, jobs, speeds, seed=seed, window=window)
        if self.windowed:
            if (self.builder is None or self.builder.cluster is not cluster
                    or self.builder.speeds is not speeds):
                self.builder = WindowObservationBuilder(cluster, self.max_gpus, self.max_window, speeds,
                                                        self.vram_scale_gb, self.obs_version)
        elif self.builder is None or self.builder.cluster is not cluster:
            self.builder = ObservationBuilder(cluster, self.max_gpus, self.queue_window, self.vram_scale_gb,
                                              self.obs_version)
        self._last_total = self.sim.run_state.integrals.total_reward
        self._n_gpus = cluster.n_gpus
        return self._observe(), self._info()

    # ---------------------------------------------------------------- stepping
    def _observe(self) -> dict[str, np.ndarray]:
        view = self.sim.view  # the observation reads what a scheduler sees
        if self.windowed:
            return self.builder.observe(view)
        job = view.head_job
        self._fits = view.state.fit_mask(job) if job is not None else None
        return self.builder.observe(view, self._fits)

    def _info(self) -> dict[str, Any]:
        run = self.sim.run_state
        return {"time_min": run.time_min, "jobs_completed": run.jobs_completed}

    def action_masks(self) -> np.ndarray:
        """Valid actions for the current decision (bool, length ``action_space.n``; HOLD last)."""
        if self.windowed:
            return self.builder.mask(self.sim.view)
        return self.builder.mask(self.sim.view, self._fits)

    def to_sim_action(self, action: int) -> int:
        """The simulator action for a FIFO environment action (a GPU index or :data:`HOLD`)."""
        action = int(action)
        return HOLD if action >= self.sim.setup.cluster.n_gpus or action < 0 else action

    def to_sim_decision(self, action: int) -> tuple[int, int]:
        """The simulator's (window slot, GPU or :data:`HOLD`) for an environment action; an action
        on a slot beyond the window or a padding GPU is a HOLD."""
        if not self.windowed:
            return 0, self.to_sim_action(action)
        slot, gpu = self.builder.decode(action)
        if slot >= min(self.sim.setup.window, len(self.sim.run_state.queue)):
            return 0, HOLD
        return slot, gpu

    def action_for(self, slot: int, choice) -> int | None:
        """The environment action that makes a scheduler's decision (the inverse of
        :meth:`to_sim_decision`): HOLD, a GPU (with its window slot), or for a whole gang its first
        GPU at which the gang rule takes exactly that gang. ``None`` when no action makes it (a
        gang the rule would not choose from any of its GPUs).

        :param slot: the window slot of the decision's job (0 on a FIFO queue).
        :param choice: a GPU index, a tuple of GPU indices (the whole gang) or :data:`HOLD`.
        """
        if isinstance(choice, int | np.integer):
            gpu = int(choice)
            if gpu == HOLD:
                return self.hold_action
        else:
            sim = self.sim
            gang = [int(g) for g in choice]
            window = sim.view.window_indices()
            if not gang or slot >= len(window):
                return None
            job, wanted = sim.run_state.jobs[window[slot]], sorted(gang)
            gpu = next((g for g in gang  # the decision's own first GPU first
                        if sorted(sim.setup.gang_rule.gang_for(sim.run_state.state, job, g)) == wanted), None)
            if gpu is None:
                return None
        return slot * self.max_gpus + gpu if self.windowed else gpu

    def step(self, action: int):
        """Apply one decision; the reward is the change of the simulator's ``total_reward``."""
        sim = self.sim
        if sim is None or sim.run_state.done:
            raise RuntimeError("the episode is over; call reset()")
        if self.windowed:
            slot, gpu = self.to_sim_decision(action)
        else:  # to_sim_action, inline (it runs at every step)
            slot, gpu = 0, int(action)
            if gpu >= self._n_gpus or gpu < 0:
                gpu = HOLD
        placed = sim.step(gpu, slot)
        run = sim.run_state
        total = run.integrals.total_reward
        reward = total - self._last_total
        self._last_total = total
        obs = self._observe()
        info = self._info()
        info["placed"] = placed
        terminated = truncated = False
        if run.done:
            truncated = run.end_reason in ("horizon", "safety_horizon")
            terminated = not truncated
            info["metrics"] = sim.metrics()
            info["end_reason"] = run.end_reason
        return obs, float(reward), terminated, truncated, info

    def render(self) -> str | None:
        """A text view of the cluster and the head job (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self.sim is None:
            return None
        view, c = self.sim.view, self.sim.setup.cluster
        lines = [f"t={view.time_min:.1f} min  queue={len(view.queue)}  running={view.running_count}"]
        job = view.head_job
        if job is not None:
            lines.append(f"head job {job.id}: {job.gpus} GPU x {job.vram_gb:g} GB, compute {job.compute:.2f}")
        st = view.state
        for g in range(c.n_gpus):
            lines.append(f"  {c.gpu_label(g):>16}  vram {st.vram_used_gb[g]:5.1f}/{c.gpu_vram_gb[g]:g} GB"
                         f"  compute {st.compute_used[g]:.2f}  jobs {st.jobs_running[g]}")
        return "\n".join(lines)
