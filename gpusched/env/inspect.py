"""The inspector's environment: a rule proposes, the agent accepts, asks for the next, or holds.

SchedInspector (Zhang, Dai, Bao, Tiwari, Aiken, "SchedInspector: A Batch Job Scheduling Inspector
Using Reinforcement Learning", HPDC '22; repository ``DIR-LAB/SchedInspector``,
``HPCSimSchedInspector.py``) keeps a heuristic scheduler and trains an agent that inspects each of
its decisions and may reject it; RLScheduler (Zhang et al., SC '20) showed that an agent that
replaces the rule loses to it on two of four traces with backfilling. Here the rule is any
``ORDER+PLACEMENT`` pair whose proposals (:mod:`gpusched.policies.proposals`) the environment is
given as an object (this layer sits below the registry): anything with ``bind(view)`` and
``proposals(view, limit) -> [(slot, action, gang), ...]``.

:class:`InspectObservation` is the one reading of the view that the environment and the trained
scheduler (:mod:`gpusched.agent.inspect`) share, so both see the same features.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gpusched.core.cluster import EPS
from gpusched.core.simulator import HOLD, Action, Simulator
from gpusched.core.view import SchedulerView
from gpusched.env.env import TRAIN_SEED_MIN
from gpusched.errors import GpuschedError
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario

ACCEPT, NEXT, WAIT = 0, 1, 2
"""The inspector's actions: accept the proposal, ask for the rule's next one, hold."""

INSPECT_FEATURES: tuple[str, ...] = (
    "proposal_rank", "has_next", "hold_allowed",
    "gpus", "wait", "left_best", "finish_here", "speed_ratio", "attained", "slack", "weight",
    "shorter_share",
    "queue_len", "window_fill", "window_fit_share", "window_left_mean", "window_left_min", "window_wait_mean",
    "idle_share", "vram_free_share", "running", "arrivals_left", "first_release", "gang_share")
"""The observation, in order (see :class:`InspectorEnv`'s table)."""

_LOG_DAY = math.log1p(1440.0)
_LOG_GPU_WEEK = math.log1p(1440.0 * 7 * 8)


class Proposals(Protocol):
    """A rule's proposals (:class:`gpusched.policies.proposals.Proposer`)."""

    def bind(self, view: SchedulerView) -> None: ...

    def proposals(self, view: SchedulerView, limit: int) -> list[tuple[int, Action, tuple[int, ...]]]: ...


def _day(minutes: float) -> float:
    return math.log1p(max(minutes, 0.0)) / _LOG_DAY


class InspectObservation:
    """The features :data:`INSPECT_FEATURES` of proposal ``k`` among ``props``, and the mask.

    :param bound: the most proposals shown at one decision.
    """

    def __init__(self, bound: int):
        self.bound = int(bound)

    def mask(self, view: SchedulerView, props: Sequence, k: int) -> np.ndarray:
        """Accept always; next while another proposal exists; hold unless it would end the run."""
        return np.array([True, k + 1 < len(props), not view.hold_would_dead_stall()])

    def observe(self, view: SchedulerView, props: Sequence, k: int) -> np.ndarray:
        """The observation of proposal ``k`` (float32, :data:`INSPECT_FEATURES`)."""
        slot, _, gang = props[k]
        window, jobs, now, state = view.window_indices(), view.jobs, view.time_min, view.state
        idx = window[slot]
        job = jobs[idx]
        left = view.left_best_min(idx)
        here = view.declared_run_min(idx, gang)
        due = math.inf if job.deadline_min is None else job.arrival_min + job.deadline_min
        slack = 1.0 if due == math.inf else float(np.clip((due - now - here) / 1440.0, -1.0, 1.0))
        others = [i for i in window if i != idx]
        lefts = [view.left_best_min(i) for i in others]
        fitting = [view.left_best_min(i) for i in others if state.fits_somewhere(jobs[i])]
        waits = [now - jobs[i].arrival_min for i in window]
        first, _ = view.gpu_release_min()
        n = view.cluster.n_gpus
        arrived = view.arrivals_left + len(view.queue) + view.running_count + view.jobs_completed
        feats = (
            k / self.bound, float(k + 1 < len(props)), float(not view.hold_would_dead_stall()),
            job.gpus / 8.0, _day(now - job.arrival_min), _day(left), _day(here),
            left / max(here, EPS), math.log1p(float(view.attained_service_gpu_min([idx])[0])) / _LOG_GPU_WEEK,
            slack, job.weight / 5.0,
            (sum(x < left for x in lefts) / len(lefts)) if lefts else 0.0,
            math.log1p(len(view.queue)) / math.log1p(1000.0), len(window) / max(view.window, 1),
            (len(fitting) + 1) / len(window),
            _day(float(np.mean(lefts))) if lefts else 0.0, _day(min(fitting)) if fitting else 0.0,
            _day(float(np.mean(waits))),
            float(np.mean(state.compute_free >= 1.0 - EPS)),
            float(state.vram_free_gb.sum() / view.cluster.gpu_vram_gb.sum()),
            math.log1p(view.running_count) / math.log1p(64.0),
            view.arrivals_left / max(arrived, 1),
            _day(min(first)) if view.running_count and first else 0.0,
            len(gang) / n,
        )
        return np.asarray(feats, dtype=np.float32)


class InspectorEnv(gym.Env):
    """
    ## Description

    A base rule ``ORDER+PLACEMENT`` schedules a GPU cluster, and the agent inspects it. At each
    decision the rule proposes a window job and a gang (its own decision); the agent accepts it,
    asks for the rule's next proposal (the next window job in the rule's order that fits now,
    placed by the rule's placement) up to ``bound`` proposals, or holds until the next event. A
    decision where the rule holds, or where its one proposal may not be refused (nothing else to
    propose and holding would end the run), is taken without the agent. The environment drives
    the one simulator (:mod:`gpusched.core.simulator`) through its public ``step`` alone, and
    every feature is read from the scheduler's view (:mod:`gpusched.core.view`): declared run
    times, never true ones. After SchedInspector (HPDC '22) and RLScheduler (SC '20); see the
    module docstring.

    ## Action Space

    `Discrete(3)`: 0 accepts the proposal, 1 asks for the next one (masked on the last), 2 holds
    (masked when holding would end the run). :meth:`action_masks` gives the mask.

    ## Observation Space

    `Box(-1, 10, (24,), float32)`; "day-log" is `log1p(minutes) / log1p(1440)`.

    | # | feature | meaning | range |
    |---|---|---|---|
    | 0 | proposal_rank | which proposal this is / bound | 0-1 |
    | 1 | has_next | another proposal exists | 0/1 |
    | 2 | hold_allowed | holding does not end the run | 0/1 |
    | 3 | gpus | GPUs the job asks for / 8 | >0 |
    | 4 | wait | day-log of its wait | >=0 |
    | 5 | left_best | day-log of its declared time left on its best gang | >=0 |
    | 6 | finish_here | day-log of its declared run time on the proposed gang | >=0 |
    | 7 | speed_ratio | left_best / finish_here (1: the gang is its best) | 0-1 |
    | 8 | attained | log1p(attained GPU-minutes) / log1p(GPU-week of 8 GPUs) | >=0 |
    | 9 | slack | (due - now - finish_here) / 1 day, clipped; 1 without a deadline | -1-1 |
    | 10 | weight | its weight / 5 | >0 |
    | 11 | shorter_share | share of the other window jobs with less time left | 0-1 |
    | 12 | queue_len | log1p(queued jobs) / log1p(1000) | >=0 |
    | 13 | window_fill | window jobs / window | 0-1 |
    | 14 | window_fit_share | share of window jobs that fit now | 0-1 |
    | 15 | window_left_mean | day-log of the other window jobs' mean time left | >=0 |
    | 16 | window_left_min | day-log of the least time left among the others that fit | >=0 |
    | 17 | window_wait_mean | day-log of the window's mean wait | >=0 |
    | 18 | idle_share | share of GPUs with nothing running | 0-1 |
    | 19 | vram_free_share | free VRAM / all VRAM | 0-1 |
    | 20 | running | log1p(running jobs) / log1p(64) | >=0 |
    | 21 | arrivals_left | share of the jobs still to arrive | 0-1 |
    | 22 | first_release | day-log of the time to the first declared end | >=0 |
    | 23 | gang_share | the proposed gang's GPUs / GPUs of the cluster | 0-1 |

    ## Rewards

    Minus the job-hours spent in the system (queued or running) over the simulated time a step
    covers, decisions taken without the agent since its last step included, times
    `reward_scale`: `-reward_scale * delta(system_job_min) / 60`. An episode's return is minus
    the sum of the jobs' times to result (JCT) in hours, so the agent is trained on the mean
    JCT. Asking for the next proposal takes no time and earns 0.

    ## Starting State

    A workload of the scenario drawn from `workload_seeds` in turn, or a seed of at least
    `TRAIN_SEED_MIN` drawn with `self.np_random`; `options={"workload_seed": s}` fixes it.

    ## Episode End

    Terminated when every job has completed; truncated at the scenario's horizon.

    ## Arguments

    `scenario` (a preset name, a file or a `Scenario`), `proposer` (the rule's proposals),
    `bound` (the most proposals at one decision, 1-16), `workload_seeds`, `n_jobs`,
    `reward_scale` (multiplies the reward).

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": [], "render_fps": 4}

    def __init__(self, scenario: str | Scenario, proposer: Proposals, *, bound: int = 3,
                 workload_seeds: Sequence[int] | None = None, n_jobs: int | None = None,
                 reward_scale: float = 1.0):
        if not 1 <= int(bound) <= 16:
            raise GpuschedError(f"inspector bound must be 1-16 proposals, got {bound!r}")
        self.scenario = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        self.proposer = proposer
        self.bound = int(bound)
        self.workload_seeds = list(workload_seeds) if workload_seeds else None
        self.n_jobs = n_jobs
        self.reward_scale = float(reward_scale)
        self.builder = InspectObservation(self.bound)
        self.action_space = spaces.Discrete(3)
        self.observation_space = spaces.Box(-1.0, 10.0, (len(INSPECT_FEATURES),), np.float32)
        self.sim: Simulator | None = None
        self.workload_seed: int | None = None
        self._cursor = 0
        self._props: list = []
        self._k = 0
        self._last_total = 0.0
        self._pending = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode on a new workload (see Starting State)."""
        super().reset(seed=seed)
        options = options or {}
        if "workload_seed" in options:
            wseed = int(options["workload_seed"])
        elif self.workload_seeds:
            wseed = self.workload_seeds[self._cursor % len(self.workload_seeds)]
            self._cursor += 1
        else:
            wseed = int(self.np_random.integers(TRAIN_SEED_MIN, 2**31 - 1))
        self.workload_seed = wseed
        self.sim = make_simulator(self.scenario, wseed, self.n_jobs)
        self.proposer.bind(self.sim.view)
        self._last_total = self.sim.run_state.integrals.system_job_min
        self._pending = 0.0
        self._advance()
        return self._observe(), {"workload_seed": wseed}

    def _apply(self, action: Action, slot: int) -> None:
        sim = self.sim
        sim.step(action, slot)
        total = sim.run_state.integrals.system_job_min
        self._pending -= (total - self._last_total) / 60.0
        self._last_total = total

    def _advance(self) -> None:
        """Take every decision the agent has no say in, up to the next one it has."""
        run, view = self.sim.run_state, self.sim.view
        while not run.done:
            props = self.proposer.proposals(view, self.bound)
            if props[0][2] and (len(props) > 1 or not view.hold_would_dead_stall()):
                self._props, self._k = props, 0
                return
            slot, action, _ = props[0]
            self._apply(action, slot)
        self._props, self._k = [], 0

    def _observe(self) -> np.ndarray:
        if not self._props:
            return np.zeros(len(INSPECT_FEATURES), dtype=np.float32)
        return self.builder.observe(self.sim.view, self._props, self._k)

    def action_masks(self) -> np.ndarray:
        """The valid actions now (see Action Space)."""
        if not self._props:
            return np.array([True, False, False])
        return self.builder.mask(self.sim.view, self._props, self._k)

    def step(self, action: int):
        """Accept, ask for the next proposal, or hold (see Action Space and Rewards)."""
        sim = self.sim
        if sim is None or sim.run_state.done:
            raise RuntimeError("the episode is over; call reset()")
        action = int(action)
        if action == NEXT and self._k + 1 < len(self._props):
            self._k += 1
        elif action == WAIT and not sim.view.hold_would_dead_stall():
            self._apply(HOLD, 0)
            self._advance()
        else:  # accept (an action the mask refuses is taken as accept)
            slot, act, _ = self._props[self._k]
            self._apply(act, slot)
            self._advance()
        reward, self._pending = self._pending * self.reward_scale, 0.0
        run = sim.run_state
        info: dict[str, Any] = {"time_min": run.time_min}
        terminated = truncated = False
        if run.done:
            truncated = run.end_reason in ("horizon", "safety_horizon")
            terminated = not truncated
            info["metrics"] = sim.metrics()
        return self._observe(), float(reward), terminated, truncated, info
