"""The agent's entry into the policy registry (entry point group ``gpusched.policies``).

The registry never names the agent: ``pyproject.toml`` lists :func:`register_policies` under the
entry point group :data:`gpusched.policies.registry.ENTRY_POINT_GROUP`, and the registry calls it
the first time a name is not found. Registering imports nothing heavy; torch is imported only
when a model is built (:func:`ppo_policy`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from gpusched.agent.models import LoadedAgent, ModelError, load_agent, read_sidecar, resolve_model
from gpusched.agent.names import (
    AGENT_POLICY,
    DEFAULT_INSPECT,
    DEFAULT_TUNED,
    INSPECT_AGENT_POLICY,
    ROLLOUT_AGENT_POLICY,
    TUNED_POLICY,
    URGENCY_AGENT_POLICY,
)
from gpusched.agent.rule_models import (
    load_inspect,
    load_tuned,
    read_rule_sidecar,
    resolve_rule_model,
)
from gpusched.core.simulator import Action
from gpusched.core.view import SchedulerView, as_scheduler
from gpusched.errors import UnknownPolicyError, shorten
from gpusched.paths import DEFAULT_MODEL, URGENCY_MODEL, WINDOW_MODEL
from gpusched.policies import Policy, policy_info, register, register_prefix
from gpusched.policies.rounds.registry import ROUND_POLICIES, get_round_policy
from gpusched.policies.rounds.scheduler import RoundScheduler


@lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int, size: int) -> LoadedAgent:
    return load_agent(path)


def _scheduler(path: Path, name: str, rollout: bool):
    stat = path.stat()
    agent = _load_cached(str(path), stat.st_mtime_ns, stat.st_size)
    if rollout:
        from gpusched.agent.rollout import rollout_scheduler

        return rollout_scheduler(agent, name=name)
    from gpusched.agent.scheduler import agent_scheduler

    return agent_scheduler(agent, name=name)


def shipped_model_for(window: int) -> Path:
    """The shipped model ``ppo`` runs on a scenario with this queue window: the window agent
    (:data:`~gpusched.paths.WINDOW_MODEL`) above 1, the FIFO agent (:data:`~gpusched.paths.DEFAULT_MODEL`)
    otherwise. On the FIFO presets the window agent waits longer than the FIFO agent (see
    ``docs/results/window-agent.md``), so both ship."""
    return WINDOW_MODEL if window > 1 else DEFAULT_MODEL


class ShippedAgent:
    """``ppo`` / ``ppo_rollout`` with the shipped models: at :meth:`bind` it picks the model for the
    simulator's queue window (:func:`shipped_model_for`) and decides through its scheduler.

    :param name: registry name reported in results.
    :param rollout: decide with rollouts of the model instead of its greedy choice alone.
    """

    def __init__(self, name: str, rollout: bool = False):
        self.name = name
        self.rollout = rollout
        self.scheduler = None
        """The scheduler of the model chosen at the last :meth:`bind`."""
        self._decider = None

    def bind(self, view: SchedulerView) -> None:
        """Choose the model for ``view``'s window and attach its scheduler."""
        path = resolve_model(shipped_model_for(view.window))
        self.scheduler = _scheduler(path, self.name, self.rollout)
        self._decider = as_scheduler(self.scheduler)
        self._decider.bind(view)

    def __getattr__(self, name: str):
        """The chosen scheduler's attributes after :meth:`bind` (e.g. ``forks``, ``changed``)."""
        scheduler = self.__dict__.get("scheduler")
        if scheduler is None:
            raise AttributeError(name)
        return getattr(scheduler, name)

    def decide(self, view: SchedulerView) -> tuple[int, Action]:
        """The chosen model's (window slot, action); a FIFO model places the head job (slot 0)."""
        if self.scheduler is None:
            raise RuntimeError(f"{self.name} needs bind(view) before decide()")
        return self._decider.decide(view)


def ppo_policy(ref: str | None = None, seed: int = 0, rollout: bool = False) -> Policy:
    """The scheduling policy of a trained model, loaded safely (``None``: the shipped models,
    chosen by the scenario's window; see :class:`ShippedAgent`).

    :param ref: model path, absolute or relative to the cwd or a model folder.
    :param seed: unused (the agent acts deterministically); kept for the registry's signature.
    :param rollout: decide with rollouts of the model (``ppo_rollout``) instead of its greedy
        choice alone (``ppo``).
    :raises gpusched.agent.models.ModelError: if the model is refused.
    """
    base = ROLLOUT_AGENT_POLICY if rollout else AGENT_POLICY
    if ref is None:
        for path in (DEFAULT_MODEL, WINDOW_MODEL):
            resolve_model(path)  # refuse a missing shipped model now, not at the first run
        return ShippedAgent(base, rollout)
    return _scheduler(resolve_model(ref), f"{base}:{ref}", rollout)


def check_model(ref: str) -> None:
    """Refuse a model before any run, without importing torch: it must be found inside the model
    folders, with a valid sidecar whose sha256 matches (:func:`~gpusched.agent.models.read_sidecar`).

    :raises gpusched.agent.models.ModelError: naming the model and what is wrong.
    """
    read_sidecar(resolve_model(ref))


def model_reads_run_times(ref: str) -> bool:
    """Whether the model ``ref`` reads declared run times: its sidecar's observation version is not
    one of :data:`~gpusched.env.window.UNTOLD_OBS_VERSIONS` (``False`` for a model that cannot be
    read, which :func:`check_model` refuses). Read from the sidecar, without importing torch, so
    that a run where none is declared refuses it before it starts."""
    from gpusched.env.window import UNTOLD_OBS_VERSIONS

    try:
        meta = read_sidecar(resolve_model(ref))
    except ModelError:
        return False
    return int(meta["obs_version"]) not in UNTOLD_OBS_VERSIONS


def urgency_policy(seed: int = 0) -> Policy:
    """The shipped urgency agent (:data:`~gpusched.paths.URGENCY_MODEL`), loaded safely.

    :param seed: unused (the agent acts deterministically).
    :raises gpusched.agent.models.ModelError: if the model is refused.
    """
    return _scheduler(resolve_model(URGENCY_MODEL), URGENCY_AGENT_POLICY, False)


def tuned_policy(ref: str = DEFAULT_TUNED, seed: int = 0) -> Policy:
    """The tuned rule ``tuned:NAME`` (:mod:`gpusched.policies.tuned`), its weights loaded safely
    (:func:`~gpusched.agent.rule_models.load_tuned`) and its placement from its sidecar.

    :raises ModelError: for a refused model, or a placement that cannot place a chosen job.
    """
    from gpusched.policies.tuned import tuned_rule

    model = load_tuned(ref)
    placement = str(model.meta["placement"])
    info = policy_info(placement)
    if not info.placement:
        raise ModelError(f"sidecar '{model.path.with_suffix('.json').name}', placement: '{placement}' "
                         "cannot place the job a score picks (name a placement, e.g. fastest_fit or eft)")
    return tuned_rule(model.weights, placement, f"{TUNED_POLICY}:{ref}", seed)


def _weighting_ref(round_name: str, arg: str) -> str:
    """The tuned model named by the argument of ``ROUND:tuned:NAME`` (one line if it names none)."""
    kind, sep, ref = arg.partition(":")
    if kind != TUNED_POLICY or not sep or not ref.strip():
        raise UnknownPolicyError(f"policy '{shorten(f'{round_name}:{arg}')}': after '{round_name}:' name "
                                 f"the score that sets its job weights, {TUNED_POLICY}:NAME (e.g. "
                                 f"{round_name}:{TUNED_POLICY}:{DEFAULT_TUNED})")
    return ref


def weighted_round_policy(round_name: str, arg: str, seed: int = 0) -> Policy:
    """The round policy ``round_name`` with per-job weights from a tuned score,
    ``ROUND:tuned:NAME``: each time it computes an allocation, every active job's weight is its own
    times the rank-based multiplier of its tuned score
    (:func:`~gpusched.policies.rounds.weights.rank_multipliers`, spread
    :data:`~gpusched.policies.rounds.weights.RANK_SPREAD`), the score read from the view
    (:func:`~gpusched.policies.tuned.tuned_scores`) with the weights of ``tuned/NAME.npz`` loaded
    safely (:func:`~gpusched.agent.rule_models.load_tuned`). The sidecar's placement is not used:
    the round mechanism places.

    :param round_name: a round policy that honours weights (``RoundPolicy.weighted``).
    :param arg: ``tuned:NAME`` (a model name or file in a model folder).
    :param seed: the round policy's seed.
    :raises ModelError: for a refused model; :class:`UnknownPolicyError` for another argument.
    """
    from gpusched.policies.rounds.weights import score_weights
    from gpusched.policies.tuned import tuned_scores

    model = load_tuned(_weighting_ref(round_name, arg))
    return RoundScheduler(get_round_policy(round_name, seed), score_weights(tuned_scores(model.weights)),
                          name=f"{round_name}:{arg}")


def _check_weighting(round_name: str) -> Callable[[str], None]:
    def check(arg: str) -> None:
        ref = _weighting_ref(round_name, arg)
        read_rule_sidecar("tuned", resolve_rule_model("tuned", ref))

    return check


def inspect_policy(ref: str = DEFAULT_INSPECT, seed: int = 0) -> Policy:
    """The inspector ``ppo_inspect:RULE`` (:mod:`gpusched.agent.inspect`): the model
    ``inspect/RULE.zip`` of a model folder (or a file path), loaded safely.

    :raises ModelError: for a refused model.
    """
    from gpusched.agent.inspect import inspector_scheduler

    return inspector_scheduler(_load_inspect_cached(str(resolve_rule_model("inspect", ref))),
                               f"{INSPECT_AGENT_POLICY}:{ref}", seed)


@lru_cache(maxsize=8)
def _load_inspect_cached(path: str):
    return load_inspect(path)


def _check_rule_model(kind: str) -> Callable[[str], None]:
    def check(ref: str) -> None:
        read_rule_sidecar(kind, resolve_rule_model(kind, ref))

    return check


def register_policies() -> None:
    """Register ``ppo``, ``ppo_rollout`` (and their ``NAME:PATH`` forms), ``ppo_urgency`` and the
    schedulers built on a rule (``tuned``, ``ppo_inspect``, and ``ROUND:tuned:NAME`` for each round
    policy that honours weights, :func:`weighted_round_policy`) with the registry. The shipped
    ``ppo`` models read declared run times (observation versions 1 and 4), so ``ppo`` and
    ``ppo_rollout`` are refused where none is declared; ``ppo_urgency`` is not; a ``ppo:PATH`` model
    is refused by the version its sidecar names (:func:`model_reads_run_times`) before a run starts,
    and again when it binds (:func:`~gpusched.agent.scheduler.check_agent_told`).

    Neither may be the placement of ``ORDER+PLACEMENT``: the agent chooses the job itself (the
    window agent) or was trained on the head job only (the FIFO agent)."""
    register(AGENT_POLICY, lambda seed: ppo_policy(None, seed), label="PPO agent",
             heuristic=False, slow=True, placement=False, run_times=True)
    register_prefix(AGENT_POLICY, lambda path, seed: ppo_policy(path, seed), check=check_model,
                    run_times=model_reads_run_times)
    register(ROLLOUT_AGENT_POLICY, lambda seed: ppo_policy(None, seed, rollout=True),
             label="PPO agent + rollouts", heuristic=False, slow=True, placement=False, run_times=True)
    register_prefix(ROLLOUT_AGENT_POLICY, lambda path, seed: ppo_policy(path, seed, rollout=True),
                    check=check_model, run_times=model_reads_run_times)
    register(URGENCY_AGENT_POLICY, urgency_policy, label="PPO agent (urgency)", heuristic=False,
             slow=True, placement=False)
    # Built on a rule (docs/agent.md): a tuned score, and an agent that inspects a rule's proposals.
    register(TUNED_POLICY, lambda seed: tuned_policy(DEFAULT_TUNED, seed), label="Learned-weight score",
             heuristic=False, placement=False, run_times=True)
    register_prefix(TUNED_POLICY, lambda ref, seed: tuned_policy(ref, seed), check=_check_rule_model("tuned"),
                    run_times=lambda _ref: True)  # its score reads predicted remaining work
    # A round policy that honours weights, its job weights set by a tuned score: ROUND:tuned:NAME.
    for round_name, cls in ROUND_POLICIES.items():
        if cls.weighted:
            register_prefix(round_name, lambda arg, seed, _r=round_name: weighted_round_policy(_r, arg, seed),
                            check=_check_weighting(round_name), run_times=lambda _arg: True)
    register(INSPECT_AGENT_POLICY, lambda seed: inspect_policy(DEFAULT_INSPECT, seed),
             label="Inspector agent", heuristic=False, slow=True, placement=False, run_times=True)
    register_prefix(INSPECT_AGENT_POLICY, lambda ref, seed: inspect_policy(ref, seed),
                    check=_check_rule_model("inspect"), run_times=lambda _ref: True)  # predicted finishes
