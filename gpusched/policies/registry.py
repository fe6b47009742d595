"""The policy registry: every policy's name, display label and traits, and how to build it.

The CLI, the dashboard and the tests look policies up here by name. The registry imports only
what lies below it: the core heuristics, the planners and the FGD paper's policies. Policies
defined above it (the RL agent) register themselves through the package entry point group
:data:`ENTRY_POINT_GROUP`: each entry point names a function that calls :func:`register`. The
group is read once, the first time a name is not found or the names are listed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points

from gpusched.errors import UnknownPolicyError, shorten
from gpusched.fgd.policies import paper_policy
from gpusched.fgd.scoring import POLICY_NAMES as FGD_POLICY_NAMES
from gpusched.policies.base import Policy
from gpusched.policies.cheapest import CheapestFit
from gpusched.policies.eft import EarliestFinish, EarliestFinishQueue
from gpusched.policies.heuristics import (
    BestFit,
    FastestFit,
    FirstFit,
    LeastLoaded,
    LeastLoadedFit,
    LeastLoadedJobs,
    LeastLoadedVram,
    RandomFit,
)
from gpusched.policies.lookahead import Lookahead
from gpusched.policies.migration import MOVING_PLACEMENT, FastestMove
from gpusched.policies.order_spec import OrderSpec
from gpusched.policies.orders import ORDERS
from gpusched.policies.preemptive import Preemptive
from gpusched.policies.queue import EasyBackfill, QueuePolicy
from gpusched.policies.rounds.registry import ROUND_POLICIES, get_round_policy
from gpusched.policies.rounds.scheduler import RoundScheduler
from gpusched.policies.window_lookahead import WindowLookahead

PolicyFactory = Callable[[int], Policy]
"""Builds a policy from a seed (used by policies that draw random numbers)."""

ENTRY_POINT_GROUP = "gpusched.policies"
"""Entry point group of policy plug-ins: each names a function that calls :func:`register`."""


@dataclass(frozen=True)
class PolicyInfo:
    """What the registry knows of one policy.

    :param name: the registry name (``first_fit``, ``ppo``, ...).
    :param label: the display name (``First-Fit``, ``PPO agent``, ...).
    :param factory: builds the policy from a seed.
    :param heuristic: in the default policy list of ``compare`` and the dashboard.
    :param slow: its runs take seconds, not milliseconds (the dashboard runs them in the
        background).
    :param placement: it may be the PLACEMENT of ``ORDER+PLACEMENT``: it places any job it is
        given (``select(state, job)``), not only the head job. The agent chooses by itself and
        registers with ``placement=False``.
    :param run_times: it reads declared (or predicted) run times, so that it cannot run where none
        is declared (:func:`reads_run_times`): the one definition, given at registration (an
        order's from its :class:`~gpusched.policies.order_spec.OrderSpec`; ``ORDER+PLACEMENT``
        reads them when either part does). The clairvoyant bounds (``lookahead``,
        ``lookahead_jct``) read the true run times through their named door and do not.
    :param plans_window: as the placement of an order, it plans every window job the order ranks
        itself instead of placing the one job the order picked (``eft``:
        :class:`~gpusched.policies.eft.EarliestFinishQueue`).
    :param moves_from: it moves running jobs up, and places jobs as the placement it names
        (``fastest_move`` places as ``fastest_fit``): ``ORDER+it`` is ``ORDER+moves_from`` with
        the moves first (:class:`~gpusched.policies.migration.FastestMove`).
    """

    name: str
    label: str
    factory: PolicyFactory
    heuristic: bool = True
    slow: bool = False
    placement: bool = True
    run_times: bool = False
    plans_window: bool = False
    moves_from: str | None = None


_REGISTRY: dict[str, PolicyInfo] = {}
_PREFIX_RESOLVERS: dict[str, Callable[[str, int], Policy]] = {}
_PREFIX_CHECKS: dict[str, Callable[[str], object]] = {}
_PREFIX_RUN_TIMES: dict[str, Callable[[str], bool]] = {}
_plugins: dict[str, str] = {}
"""Entry points read so far: name -> ``""`` when it loaded, else the one-line reason it failed."""


def register(name: str, factory: PolicyFactory, *, label: str | None = None, heuristic: bool = True,
             slow: bool = False, placement: bool = True, run_times: bool = False,
             plans_window: bool = False, moves_from: str | None = None) -> None:
    """Add a policy (or replace one of the same name). Heuristics form the default policy list of
    ``compare``; ``slow`` policies run in the dashboard's background worker; only ``placement``
    policies may place the job an order chose (``ORDER+PLACEMENT``); ``run_times`` policies read
    declared run times (:func:`reads_run_times`); ``plans_window`` and ``moves_from`` say how a
    placement joins an order (:class:`PolicyInfo`)."""
    _REGISTRY[name] = PolicyInfo(name, label or name, factory, heuristic, slow, placement, run_times,
                                 plans_window, moves_from)


def register_prefix(prefix: str, resolver: Callable[[str, int], Policy],
                    check: Callable[[str], object] | None = None,
                    run_times: Callable[[str], bool] | None = None) -> None:
    """Resolve names of the form ``prefix:ARG`` (e.g. ``ppo:PATH``) with ``resolver(arg, seed)``.
    ``prefix`` itself must be registered: ``prefix:ARG`` shares its label and traits.

    :param check: called as ``check(arg)`` by :func:`check_policy` to refuse a bad ``ARG`` (a
        missing model) without building the policy; raises a ``GpuschedError``.
    :param run_times: called as ``run_times(arg)`` by :func:`reads_run_times`: whether the policy
        ``ARG`` names reads declared run times (a model, by its observation version); ``False``
        for an ``ARG`` it cannot read (:func:`check_policy` refuses that).
    """
    _PREFIX_RESOLVERS[prefix] = resolver
    if check is not None:
        _PREFIX_CHECKS[prefix] = check
    if run_times is not None:
        _PREFIX_RUN_TIMES[prefix] = run_times


def _load_plugins() -> None:
    """Read the entry point group once: each plug-in registers its policies."""
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in _plugins:
            continue
        try:
            point.load()()
            _plugins[point.name] = ""
        except Exception as exc:  # a broken plug-in must not break the other policies
            _plugins[point.name] = f"{type(exc).__name__}: {exc}".splitlines()[0]


def _is_pair(name: str) -> bool:
    """Whether ``name`` is ``ORDER+PLACEMENT`` (a ``+`` before any ``:``), not ``PREFIX:ARG`` whose
    argument names a pair (``ppo_inspect:sjf+first_fit``)."""
    plus, colon = name.find("+"), name.find(":")
    return plus >= 0 and (colon < 0 or plus < colon)


def heuristic_names() -> list[str]:
    """Registered heuristics, in registration order."""
    _load_plugins()
    return [name for name, info in _REGISTRY.items() if info.heuristic]


def policy_names() -> list[str]:
    """Every registered policy name."""
    _load_plugins()
    return list(_REGISTRY)


def policy_info(name: str) -> PolicyInfo:
    """What the registry knows of ``name`` (``prefix:ARG`` names share their prefix's).

    :raises UnknownPolicyError: if the name is not registered.
    """
    info = _REGISTRY.get(name)
    if info is None and _is_pair(name):
        return _queue_info(name)
    if info is None:
        _load_plugins()
        prefix, sep, arg = name.partition(":")
        info = _REGISTRY.get(name) or (_REGISTRY.get(prefix) if sep and prefix in _PREFIX_RESOLVERS
                                       else None)
        if info is not None and sep and not arg.strip():
            raise UnknownPolicyError(f"policy '{shorten(name)}' names nothing after '{prefix}:' (give a "
                                     f"model file, e.g. {prefix}:models/my-agent.zip)")
    if info is None:
        failed = "".join(f"; plug-in '{p}' failed to load ({why})" for p, why in _plugins.items() if why)
        raise UnknownPolicyError(f"unknown policy '{shorten(name)}' (known: {', '.join(sorted(_REGISTRY))})"
                                 f"{failed}")
    return info


def check_policy(name: str) -> PolicyInfo:
    """Refuse a policy name before any run, without building the policy: :func:`policy_info`, and
    for ``prefix:ARG`` the prefix's own check of ``ARG`` (the agent's: the model file and its
    sidecar exist and are valid), also as the placement of ``ORDER+PLACEMENT``.

    :raises GpuschedError: (an :class:`UnknownPolicyError`, or the check's own error) naming it.
    """
    info = policy_info(name)
    target = name.partition("+")[2] if _is_pair(name) else name
    prefix, sep, arg = target.partition(":")
    if sep and prefix in _PREFIX_CHECKS:
        _PREFIX_CHECKS[prefix](arg)
    return info


def policy_label(name: str) -> str:
    """The display name of a policy (``ppo:models/x.zip`` -> ``PPO agent (x)``); a name the
    registry does not know is its own label."""
    base, sep, arg = name.partition(":")
    try:
        label = policy_info(base).label
    except UnknownPolicyError:
        label = base
    if sep:
        stem = arg.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        label = f"{label} ({stem})"
    return label


def is_slow(name: str) -> bool:
    """Whether a policy's runs take seconds (False for a name the registry does not know)."""
    try:
        return policy_info(name).slow
    except UnknownPolicyError:
        return False


def reads_run_times(name: str) -> bool:
    """Whether the policy ``name`` (``ORDER+PLACEMENT`` or alone) reads declared or predicted run
    times, so that it cannot run when none is declared (``declared_run_time: none``): its
    :attr:`PolicyInfo.run_times`, or for ``NAME:ARG`` (a model file) what its prefix's plug-in
    reads of ARG (``False`` for a name the registry does not know)."""
    prefix, sep, arg = name.partition(":")
    if sep and not _is_pair(name):
        _load_plugins()
        check = _PREFIX_RUN_TIMES.get(prefix)
        return bool(check(arg)) if check is not None else False
    try:
        return policy_info(name).run_times
    except UnknownPolicyError:
        return False


def get_policy(name: str, seed: int = 0) -> Policy:
    """Build the policy called ``name`` (seeded with ``seed`` where it draws random numbers).

    :raises UnknownPolicyError: if the name is not registered.
    """
    info = policy_info(name)
    if info.name == name:
        return info.factory(seed)
    prefix, _, arg = name.partition(":")
    return _PREFIX_RESOLVERS[prefix](arg, seed)


# ---------------------------------------------------------------------------- ORDER+PLACEMENT
QUEUE_PLACEMENTS: tuple[str, ...] = ("best_fit", "first_fit", "fastest_fit", "least_loaded_fit", "eft")
"""The placements the shipped queue-aware heuristics pair with every order."""


def queue_policy_names() -> list[str]:
    """Every shipped queue-aware heuristic: each non-preemptive order with each of
    :data:`QUEUE_PLACEMENTS`. The preemptive orders are left out (:func:`preemptive_policy_names`):
    Home measures every pair listed here, and without failures or a restore time a preemption
    costs nothing, which would flatter them."""
    return [f"{spec.name}+{placement}" for spec in ORDERS.values()
            if spec.preempts is None and not spec.urgency
            for placement in QUEUE_PLACEMENTS]


def urgency_policy_names() -> list[str]:
    """The orders of urgency (``qssf``, ``edf``, ``least_slack``; :mod:`gpusched.policies.urgency`)
    with each of :data:`QUEUE_PLACEMENTS` and with ``cheapest_fit``. They are listed apart from
    :func:`queue_policy_names` (the pairs Home measures): they act on deadlines and predictions
    that most presets do not have."""
    return [f"{spec.name}+{placement}" for spec in ORDERS.values() if spec.urgency
            for placement in (*QUEUE_PLACEMENTS, "cheapest_fit")]


def preemptive_policy_names() -> list[str]:
    """Every shipped preemptive heuristic: each order that preempts (``las``, ``srtf``) with each
    of :data:`QUEUE_PLACEMENTS`."""
    return [f"{spec.name}+{placement}" for spec in ORDERS.values() if spec.preempts is not None
            for placement in QUEUE_PLACEMENTS]


def moving_policy_names() -> list[str]:
    """Every order with the placement that moves running jobs up (``ORDER+fastest_move``,
    :mod:`gpusched.policies.migration`)."""
    return [f"{order}+{MOVING_PLACEMENT}" for order in ORDERS]


def _split_queue_name(name: str) -> tuple[str, str]:
    """``ORDER+PLACEMENT`` split in two, each checked (one line naming what is wrong)."""
    order, _, placement = name.partition("+")
    shown = shorten(name)
    if "+" in placement:
        raise UnknownPolicyError(f"unknown policy '{shown}': ORDER+PLACEMENT takes one '+', between a "
                                 f"queue order ({', '.join(ORDERS)}) and a FIFO placement, e.g. sjf+best_fit")
    if order not in ORDERS:
        what = "nothing" if not order else f"'{shorten(order, 30)}', which"
        raise UnknownPolicyError(f"unknown policy '{shown}': {what} before '+' is not a queue order "
                                 f"(known: {', '.join(ORDERS)})")
    if not placement:
        raise UnknownPolicyError(f"unknown policy '{shown}': nothing after '+'; name a FIFO placement "
                                 f"(e.g. {order}+best_fit), or write '{order}' alone for {order}+best_fit")
    base = policy_info(placement)
    if base.name in ORDERS:
        raise UnknownPolicyError(f"unknown policy '{shown}': the placement '{shorten(placement, 30)}' "
                                 "must be a FIFO placement policy, not a queue order")
    if not base.placement:
        raise UnknownPolicyError(f"policy '{shown}': '{shorten(placement, 30)}' cannot be the placement "
                                 "of a queue order (it chooses the job itself); run it alone")
    return order, placement


SAME_AS_PLACEMENT = "fcfs"
"""The order that adds nothing to its placement: ``fcfs+X`` starts the head job only, which is what
the FIFO placement ``X`` does alone on any window (:mod:`gpusched.policies.queue`), so the two
names are one rule and share one display name, the placement's (``First-Fit``)."""


def queue_label(order: str, placement: str) -> str:
    """The display name of ``ORDER+PLACEMENT``: ``SJF + First-Fit``, and for FCFS the placement's
    own (:data:`SAME_AS_PLACEMENT`: ``fcfs+first_fit`` is ``First-Fit``, as ``first_fit`` is)."""
    if order == SAME_AS_PLACEMENT:
        return policy_label(placement)
    return f"{ORDERS[order].label} + {policy_label(placement)}"


def _queue_info(name: str) -> PolicyInfo:
    order, placement = _split_queue_name(name)
    base = policy_info(placement)
    return PolicyInfo(name, queue_label(order, placement), lambda seed: queue_policy(name, seed),
                      heuristic=False, slow=base.slow, run_times=ORDERS[order].run_times or base.run_times)


def queue_policy(name: str, seed: int = 0) -> QueuePolicy | EarliestFinishQueue | Preemptive | FastestMove:
    """The queue-aware heuristic ``ORDER+PLACEMENT`` (``ORDER`` alone: ``ORDER+best_fit``):
    :func:`order_with_placement` of the order's spec and the placement."""
    order, placement = _split_queue_name(name if "+" in name else f"{name}+best_fit")
    return order_with_placement(ORDERS[order], placement, name, seed)


def order_with_placement(spec: OrderSpec, placement: str, name: str, seed: int = 0
                         ) -> QueuePolicy | EarliestFinishQueue | Preemptive | FastestMove:
    """An order (a registered one, or any :class:`~gpusched.policies.order_spec.OrderSpec`, such as
    the tuned rule's score) with a registered placement, composed from the traits of the order and
    of the placement (:class:`PolicyInfo`): a placement that ``moves_from`` another is the order
    with that one, wrapped in :class:`~gpusched.policies.migration.FastestMove`; one that
    ``plans_window`` schedules the order's window itself
    (:class:`~gpusched.policies.eft.EarliestFinishQueue`); any other places the job the order picks
    (:class:`~gpusched.policies.queue.EasyBackfill` for an order that ``backfills``, else
    :class:`~gpusched.policies.queue.QueuePolicy`); an order that ``preempts`` wraps it in
    :class:`~gpusched.policies.preemptive.Preemptive`.

    :param name: the name reported in results.
    :param seed: the placement's seed.
    """
    info = policy_info(placement)
    if info.moves_from is not None:
        return FastestMove(order_with_placement(spec, info.moves_from, f"{spec.name}+{info.moves_from}",
                                                seed), name)
    if info.plans_window:
        inner = EarliestFinishQueue(spec, name)
    else:
        base = get_policy(placement, seed)
        inner = EasyBackfill(spec, base, name) if spec.backfills else QueuePolicy(spec, base, name)
    return Preemptive(inner, spec, name) if spec.preempts is not None else inner


register("first_fit", lambda seed: FirstFit(), label="First-Fit")
register("least_loaded", lambda seed: LeastLoaded(), label="Least-Loaded")
# Least-Loaded as it is written elsewhere, without a fit check either: by job count (what an
# agent that observes jobs per GPU sees) and by free VRAM.
register("least_loaded_jobs", lambda seed: LeastLoadedJobs(), label="Least-Loaded (jobs)")
register("least_loaded_vram", lambda seed: LeastLoadedVram(), label="Least-Loaded (VRAM)")
register("least_loaded_fit", lambda seed: LeastLoadedFit(), label="Least-Loaded (fit)")
register("best_fit", lambda seed: BestFit(), label="Best-Fit")
register("random", lambda seed: RandomFit(seed), label="Random")
register("fastest_fit", lambda seed: FastestFit(), label="Fastest-Fit")
# Earliest finish time (gpusched.policies.eft): waits for a faster gang when that finishes sooner.
# Without speeds it is Best-Fit, so it stays out of the default (FIFO) list.
register("eft", lambda seed: EarliestFinish(), label="EFT", heuristic=False, run_times=True,
         plans_window=True)
# The cheapest GPUs on which the job meets its deadline (gpusched.policies.cheapest).
register("cheapest_fit", lambda seed: CheapestFit(), label="Cheapest-Fit", heuristic=False,
         run_times=True)
# Fastest-Fit that moves running jobs to faster GPUs as they free up (gpusched.policies.migration);
# alone it is FCFS with it. Without speeds it is Best-Fit, so it stays out of the default list.
register(MOVING_PLACEMENT,
         lambda seed: FastestMove(QueuePolicy(ORDERS["fcfs"], FastestFit(), MOVING_PLACEMENT)),
         label="Fastest-Fit (with moves)", heuristic=False, moves_from="fastest_fit")
# Queue-aware heuristics (gpusched.policies.queue): an order alone places with Best-Fit;
# ``ORDER+PLACEMENT`` names any FIFO placement.
for _order in ORDERS.values():
    register(_order.name, lambda seed, _o=_order.name: queue_policy(_o, seed),
             label=queue_label(_order.name, "best_fit"), heuristic=False, run_times=_order.run_times)
# Planners over forks of the simulator (see gpusched.policies.lookahead): ``lookahead`` plays the
# real future (a bound and a teacher), ``queue_lookahead`` only the jobs that have arrived.
register("lookahead", lambda seed: Lookahead(BestFit()), heuristic=False, slow=True)
register("queue_lookahead", lambda seed: Lookahead(BestFit(), "queue_lookahead", arrived_only=True),
         heuristic=False, slow=True, run_times=True)
# The clairvoyant bound in the window agent's action space, by time to result (see
# gpusched.policies.window_lookahead); its base is SJF with Fastest-Fit, among the best pairs by JCT
# on fleet-16gpu and, unlike First-Fit, blind to the order in which the nodes are listed.
LOOKAHEAD_BASE = "sjf+fastest_fit"
"""The heuristic that finishes the forks of ``lookahead_jct``."""
register("lookahead_jct", lambda seed: WindowLookahead(lambda: queue_policy(LOOKAHEAD_BASE)),
         label="Clairvoyant lookahead (JCT)", heuristic=False, slow=True, placement=False)

# The FGD paper's six policies (gpusched.fgd.policies), on any scenario. Its Random and Best-Fit
# are labelled apart from the core heuristics of the same idea.
FGD_LABELS: dict[str, str] = {
    "fgd_random": "Random (FGD paper)",
    "dot_product": "Dot-Product",
    "gpu_clustering": "GPU Clustering",
    "gpu_packing": "GPU Packing",
    "fgd_best_fit": "Best-Fit (FGD paper)",
    "fgd": "FGD",
}
"""Display names of the FGD paper's policies."""
for _name in FGD_POLICY_NAMES:
    register(_name, lambda seed, _n=_name: paper_policy(_n, seed), label=FGD_LABELS[_name],
             heuristic=False)

# The field's round policies under Gavel's names (gpusched.policies.rounds), run in rounds
# (gpusched.core.rounds.mechanism): the simulator is built with the scenario's rounds: block. A run
# solves one allocation per change and places every round, seconds on a few hundred jobs: slow.
for _name, _cls in ROUND_POLICIES.items():
    register(_name, lambda seed, _n=_name: RoundScheduler(get_round_policy(_n, seed)), label=_cls.label,
             heuristic=False, slow=True, placement=False, run_times=_cls.run_times)


def is_round_policy(name: str) -> bool:
    """Whether ``name`` is a round policy (its runs need the simulator's rounds): a round policy's
    name, alone or with an argument (``max_min_fairness_perf:tuned:NAME``, its per-job weights set by
    a plug-in's score, :mod:`gpusched.policies.rounds.weights`)."""
    return name.partition(":")[0] in ROUND_POLICIES
