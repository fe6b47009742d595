"""The headline: FCFS First-Fit, the best queue-aware heuristic (measured, never named in advance)
and the agent on the fleet, read from the shipped results.

One source tells it everywhere: ``benchmarks/results/window-agent.json``
(:data:`gpusched.paths.WINDOW_AGENT_RESULTS`), which ``benchmarks/window_agent_table.py`` measures
(every heuristic and agent on every preset, seeds 1000-1019). Home shows it at once, Compare's
default view shows it, and ``benchmarks/render_results.py`` writes the README's finding from it;
``tests/test_shipped_results.py`` re-runs those runs and checks that they give the same numbers.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from gpusched.agent.names import AGENT_POLICIES, AGENT_POLICY, URGENCY_AGENT_POLICY
from gpusched.experiment.paired import PairedDifference, interval_method, paired_difference
from gpusched.experiment.runner import Comparison
from gpusched.experiment.scorecard import TAIL_WAIT_METRIC
from gpusched.paths import REPO_ROOT, WINDOW_AGENT_RESULTS
from gpusched.policies import queue_policy_names
from gpusched.policies.rounds.registry import agnostic_twins
from gpusched.workload.presets import load_scenario

HEADLINE_SCENARIO = "fleet-16gpu"
"""The preset of the headline: a heterogeneous fleet with a queue window and GPU speeds."""

HEADLINE_BASELINE = "fcfs+first_fit"
"""The first card: the queue and placement every cluster starts with."""

HEADLINE_AGENT = AGENT_POLICY
"""The third card: the shipped agent, taking its first choice at every step."""

AGENT_NAMES: tuple[str, ...] = (*AGENT_POLICIES, URGENCY_AGENT_POLICY)
"""The agents among the shipped results' policies (``ppo:PATH`` counts by its ``ppo``): never a
heuristic, never the best one."""

HEADLINE_METRICS: tuple[str, ...] = ("avg_jct_min", "avg_wait_min", TAIL_WAIT_METRIC, "avg_slowdown")
"""The headline's cards and chart panels, in order (names from
:data:`gpusched.words.metric_names.METRIC_NAMES`)."""

LIVE_SEEDS: tuple[int, ...] = (0, 1, 2)
"""Workload seeds of a live search for the best heuristic, on a scenario with no shipped results."""

BEST_BY = "avg_jct_min"
"""What makes a heuristic the best one everywhere it is named (Home, the docs, the agent's
tables): the lowest mean job completion time, the time to result."""

SHIPPED_SOURCE = WINDOW_AGENT_RESULTS.relative_to(REPO_ROOT).as_posix()
"""The shipped results' file, as pages name it."""


def headline_heuristics() -> tuple[str, ...]:
    """Every ``ORDER+PLACEMENT`` pair the headline measures to find the best one."""
    return tuple(queue_policy_names())


def best_heuristic(comparison: Comparison, candidates: tuple[str, ...] | None = None) -> str:
    """The pair with the lowest mean job completion time over the comparison's seeds (ties: the
    first in ``candidates``, by default every shipped ``ORDER+PLACEMENT`` pair)."""
    names = list(candidates or headline_heuristics())
    return best_of_means(dict(zip(names, comparison.summary().loc[names, BEST_BY], strict=True)))


def best_of_means(means: dict[str, float]) -> str:
    """The policy with the lowest mean of :data:`BEST_BY` (minutes; ties: the first given)."""
    return min(means, key=lambda p: (means[p], list(means).index(p)))


@dataclass(frozen=True)
class ShippedResults:
    """What the shipped benchmark measured on one preset.

    :param scenario: the preset's name.
    :param best: the best heuristic on these runs (by :data:`BEST_BY`).
    :param seeds: the workload seeds, ascending.
    :param comparison: one row per (policy, seed) with the measured metrics (no per-job results).
    :param seconds: wall time of the measurement (s).
    """

    scenario: str
    best: str
    seeds: tuple[int, ...]
    comparison: Comparison
    seconds: float

    @property
    def policies(self) -> list[str]:
        """The measured policies, in the order they ran."""
        return list(dict.fromkeys(self.comparison.runs["policy"]))

    @property
    def heuristics(self) -> list[str]:
        """The measured heuristics (every policy but the agent's)."""
        return [p for p in self.policies if p.split(":")[0] not in AGENT_NAMES]

    @property
    def metrics(self) -> list[str]:
        """The measured metrics."""
        return [c for c in self.comparison.runs.columns if c not in ("policy", "seed")]

    def subset(self, policies: list[str] | tuple[str, ...]) -> Comparison:
        """The runs of ``policies`` only, in that order."""
        runs = self.comparison.runs
        part = pd.concat([runs[runs["policy"] == p] for p in policies], ignore_index=True)
        return Comparison(self.scenario, part, {})


def shipped_defaults(shipped: ShippedResults) -> list[str]:
    """The policies Compare's shipped view opens on for a preset other than the headline's: the
    best heuristic, every heterogeneity-agnostic round policy measured there beside its ``_perf``
    twin (what reading the GPU models' speeds buys, at once), then the agents."""
    twins = [p for pair in agnostic_twins(shipped.policies) for p in pair]
    agents = [p for p in shipped.policies if p.startswith(AGENT_POLICY)]
    return list(dict.fromkeys([shipped.best, *twins, *agents]))


@functools.cache
def shipped_results(path: Path = WINDOW_AGENT_RESULTS) -> dict[str, ShippedResults]:
    """Every preset of the shipped results file (read once per process)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out = {}
    for name, entry in data.items():
        runs = pd.DataFrame(entry["runs"])
        out[name] = ShippedResults(name, entry["best_heuristic"],
                                   tuple(int(s) for s in sorted(runs["seed"].unique())),
                                   Comparison(name, runs, {}), float(entry["seconds"]))
    return out


@functools.cache
def _preset_yaml(name: str) -> str:
    return load_scenario(name).to_yaml()


def shipped_for(scenario_yaml: str) -> ShippedResults | None:
    """The shipped results of the preset whose YAML this is, or ``None`` (an edited scenario, or a
    preset the benchmark did not measure)."""
    return next((r for name, r in shipped_results().items() if _preset_yaml(name) == scenario_yaml),
                None)


@dataclass(frozen=True)
class Headline:
    """The headline's numbers, all from the shipped results of :data:`HEADLINE_SCENARIO`.

    :param shipped: the preset's shipped results.
    :param policies: the cards, in order: FCFS First-Fit, the best heuristic, the agent (when
        measured).
    :param comparison: the runs of ``policies``.
    :param best_vs_baseline: the best heuristic minus FCFS First-Fit, mean time to result (min),
        paired seed by seed.
    :param agent_vs_best: the agent minus the best heuristic, mean time to result (min), paired
        (``None`` without agent runs).
    """

    shipped: ShippedResults
    policies: tuple[str, ...]
    comparison: Comparison
    best_vs_baseline: PairedDifference
    agent_vs_best: PairedDifference | None

    @property
    def scenario(self) -> str:
        return self.shipped.scenario

    @property
    def seeds(self) -> tuple[int, ...]:
        return self.shipped.seeds

    @property
    def best(self) -> str:
        return self.shipped.best

    @property
    def baseline(self) -> str:
        return HEADLINE_BASELINE

    @property
    def agent(self) -> str | None:
        return HEADLINE_AGENT if HEADLINE_AGENT in self.policies else None

    def mean(self, policy: str, metric: str = BEST_BY) -> float:
        """A policy's mean of ``metric`` over the seeds."""
        return float(self.comparison.summary().loc[policy, metric])

    def against(self, policy: str, reference: str, metric: str = BEST_BY) -> PairedDifference:
        """``policy`` minus ``reference`` on ``metric``, paired seed by seed (the metric's interval
        kind: :func:`~gpusched.experiment.paired.interval_method`)."""
        wide = self.comparison.runs.pivot_table(index="seed", columns="policy", values=metric)
        return paired_difference(wide[policy].to_numpy(), wide[reference].to_numpy(),
                                 method=interval_method(metric))


def headline(path: Path = WINDOW_AGENT_RESULTS) -> Headline:
    """The headline from the shipped results (``path``: the results file)."""
    shipped = shipped_results(path)[HEADLINE_SCENARIO]
    policies = tuple(p for p in (HEADLINE_BASELINE, shipped.best, HEADLINE_AGENT) if p in shipped.policies)
    comparison = shipped.subset(policies)
    wide = comparison.runs.pivot_table(index="seed", columns="policy", values=BEST_BY)

    def diff(a: str, b: str) -> PairedDifference:
        return paired_difference(wide[a].to_numpy(), wide[b].to_numpy(), method=interval_method(BEST_BY))

    agent = diff(HEADLINE_AGENT, shipped.best) if HEADLINE_AGENT in policies else None
    return Headline(shipped, policies, comparison, diff(shipped.best, HEADLINE_BASELINE), agent)


MATCH_RTOL = 1e-9
"""Relative tolerance within which a live run gives the shipped number (the runs are
deterministic; the tolerance absorbs the JSON's float printing only)."""


def shipped_mismatches(shipped: Comparison, live: Comparison,
                       rtol: float = MATCH_RTOL) -> list[tuple[str, int, str, float, float]]:
    """Every shipped number a live run does not give again: ``(policy, seed, metric, shipped,
    live)`` for each (policy, seed) of ``live`` and each metric the shipped runs keep (a run
    missing from the shipped ones counts for every metric, with ``nan`` as its shipped value).

    :param shipped: the shipped runs (:attr:`ShippedResults.comparison` or a subset).
    :param live: the same policies and seeds, run again.
    """
    metrics = [m for m in shipped.metrics if m in live.runs.columns]
    ship = shipped.runs.set_index(["policy", "seed"])
    out = []
    for row in live.runs.itertuples(index=False):
        key = (row.policy, int(row.seed))
        for m in metrics:
            want = float(ship.loc[key, m]) if key in ship.index else float("nan")
            got = float(getattr(row, m))
            if not abs(got - want) <= rtol * max(abs(want), 1.0):
                out.append((row.policy, key[1], m, want, got))
    return out
