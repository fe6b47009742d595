"""The inspector agent ``ppo_inspect:RULE``: MaskablePPO over a rule's proposals.

The rule ``ORDER+PLACEMENT`` proposes (:mod:`gpusched.policies.proposals`); the agent accepts,
asks for the next proposal, or holds (:class:`gpusched.env.inspect.InspectorEnv`). This is
SchedInspector's design (Zhang et al., HPDC '22; ``DIR-LAB/SchedInspector``,
``HPCSimSchedInspector.py``): learning on top of a heuristic rather than instead of it, after
RLScheduler (Zhang et al., SC '20) lost to the best heuristic on half its traces when it replaced
the rule. An agent that always accepts is its base rule, decision for decision.

Train one with ``python benchmarks/train_inspector.py --rule sjf+first_fit --scenario fleet-16gpu
--timesteps 20000`` (:func:`train_inspector`); every knob is a field of :class:`InspectConfig`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from gpusched.agent.rule_models import InspectModel, save_inspect
from gpusched.core.simulator import HOLD, Action
from gpusched.core.view import SchedulerView
from gpusched.env.inspect import ACCEPT, INSPECT_FEATURES, NEXT, InspectObservation, InspectorEnv
from gpusched.policies.proposals import Proposer

Decide = Callable[[np.ndarray, np.ndarray], int]
"""The agent's choice: ``decide(observation, mask) -> action`` (0 accept, 1 next, 2 hold)."""


def network_decide(policy) -> Decide:
    """The greedy masked choice of a network (:func:`gpusched.agent.inspect_network.build_network`)."""

    def decide(obs: np.ndarray, mask: np.ndarray) -> int:
        action, _ = policy.predict(obs[None, :], action_masks=mask[None, :], deterministic=True)
        return int(np.asarray(action).reshape(-1)[0])

    return decide


class InspectorScheduler:
    """A scheduler that inspects its rule's proposals (see the module docstring).

    :param rule: the base rule ``ORDER+PLACEMENT``.
    :param decide: the agent's choice given the observation and the mask.
    :param bound: the most proposals it sees at one decision.
    :param name: the registry name reported in results.
    :param seed: the seed of a placement that draws random numbers.
    """

    def __init__(self, rule: str, decide: Decide, bound: int, name: str, seed: int = 0):
        self.proposer = Proposer(rule, seed)
        self.decide_action = decide
        self.builder = InspectObservation(bound)
        self.bound = int(bound)
        self.name = name
        self.inspected = 0
        """Decisions the agent took (the rest had no alternative)."""
        self.changed = 0
        """Decisions where it did not take the rule's own."""

    def bind(self, view: SchedulerView) -> None:
        """Start a run: the rule forgets its plans."""
        self.proposer.bind(view)
        self.inspected = self.changed = 0

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        """The proposal the agent accepts, or ``(0, HOLD)``."""
        props = self.proposer.proposals(view, self.bound)
        slot, action, gang = props[0]
        if not gang:
            return slot, action
        self.inspected += 1
        k = 0
        while True:
            mask = self.builder.mask(view, props, k)
            if not mask[1:].any():
                choice = ACCEPT
            else:
                choice = self.decide_action(self.builder.observe(view, props, k), mask)
            if choice == NEXT and mask[1]:
                k += 1
                continue
            if choice != ACCEPT and mask[2]:
                self.changed += 1
                return 0, HOLD
            self.changed += k > 0
            return props[k][0], props[k][1]


def inspector_scheduler(model: InspectModel, name: str, seed: int = 0) -> InspectorScheduler:
    """The scheduler of a loaded inspector model (its base rule and bound from its sidecar)."""
    return InspectorScheduler(str(model.meta["base"]), network_decide(model.policy()),
                              int(model.meta["bound"]), name, seed)


# ---------------------------------------------------------------------------- training
@dataclass
class InspectConfig:
    """Every knob of an inspector's training run (the documented defaults)."""

    rule: str = "sjf+first_fit"
    """The base rule ``ORDER+PLACEMENT`` it inspects."""
    scenario: str = "fleet-16gpu"
    """The training scenario (preset name or file)."""
    bound: int = 3
    """The most proposals at one decision."""
    timesteps: int = 20_000
    """Agent steps of training."""
    n_jobs: int | None = None
    """Jobs per episode (``None``: the scenario's)."""
    training_seeds: list[int] = field(default_factory=lambda: list(range(20_000, 20_050)))
    """Workload seeds of the training episodes, in turn (apart from the held-out 1000-1019)."""
    seed: int = 0
    """Seed of the network's initialisation and of PPO's sampling."""
    hidden: int = 64
    """Units of each of the two hidden layers."""
    learning_rate: float = 3e-4
    """Adam's step size."""
    n_steps: int = 512
    """Steps per rollout before each update."""
    batch_size: int = 64
    """Minibatch size of each update."""
    n_epochs: int = 5
    """Passes over each rollout."""
    gamma: float = 0.999
    """Discount per decision."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    accept_bias: float = 4.0
    """The initial logit of accepting over the other actions (about 96 % accept at the start with
    4.0): the agent starts as its base rule and learns where to depart from it."""
    reward_scale: float = 0.01
    """Multiplies the reward (minus job-hours in the system)."""


def train_inspector(config: InspectConfig, out: str | Path, log: Callable[[str], None] = print) -> Path:
    """Train an inspector with MaskablePPO and write it with its sidecar (:func:`save_inspect`).

    :param config: the run's knobs.
    :param out: the model file (``.zip``; put it in ``models/inspect/`` to run it by name).
    :return: the model file's path.
    """
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    def make() -> InspectorEnv:
        return InspectorEnv(config.scenario, Proposer(config.rule, config.seed), bound=config.bound,
                            workload_seeds=config.training_seeds, n_jobs=config.n_jobs,
                            reward_scale=config.reward_scale)

    venv = DummyVecEnv([make])
    model = MaskablePPO("MlpPolicy", venv, learning_rate=config.learning_rate, n_steps=config.n_steps,
                        batch_size=config.batch_size, n_epochs=config.n_epochs, gamma=config.gamma,
                        ent_coef=config.ent_coef, policy_kwargs={"net_arch": [config.hidden, config.hidden]},
                        seed=config.seed, device="cpu", verbose=0)
    import torch

    with torch.no_grad():  # start as the base rule: accept with high probability
        bias = model.policy.action_net.bias
        bias.zero_()
        bias[ACCEPT] = config.accept_bias
    start = time.perf_counter()
    log(f"training an inspector of {config.rule} on {config.scenario} for {config.timesteps} steps")
    model.learn(total_timesteps=config.timesteps)
    took = time.perf_counter() - start
    log(f"trained in {took:.0f} s ({config.timesteps / max(took, 1e-9):.0f} steps/s)")
    meta = {"base": config.rule, "bound": config.bound, "hidden": config.hidden,
            "obs_size": len(INSPECT_FEATURES), "scenario": config.scenario, "seed": config.seed,
            "timesteps": config.timesteps, "training_seeds": list(config.training_seeds),
            "training_time_s": round(took, 3), "config": asdict(config)}
    save_inspect(out, model.policy.state_dict(), meta)
    return Path(out)
