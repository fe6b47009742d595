"""What the scheduler knows: the same jobs run by the same policies when told each job's run time
exactly, with an error, not at all, or from history (``workload.declared_run_time``).

Each setting of :data:`SETTINGS` is the scenario with only ``workload.declared_run_time`` replaced
(:func:`gpusched.workload.scenario.told`): the cluster, the arrivals and the true run times of a
seed stay the same, so a policy's runs under two settings are paired seed by seed. A policy that
reads run times is refused under ``none`` (:func:`gpusched.policies.preflight.check_told`); its rows
are kept, marked ``refused``, with NaN metrics.

- :meth:`KnowledgeTable.cost_of_not_knowing`: per policy and setting, the paired mean difference of
  a metric against the same policy told exactly (positive: not knowing costs that much);
- :meth:`KnowledgeTable.against_best`: per setting, every policy against the best one of that
  setting, paired;
- :meth:`KnowledgeTable.best_gap`: the best policy of a setting against the best told exactly.

Both take their intervals from :mod:`gpusched.experiment.paired` (Student t, or a BCa bootstrap for
the skewed metrics of :data:`~gpusched.experiment.paired.BOOTSTRAP_METRICS`). The settings follow
the issue's question and the field's answers: Tiresias (Gu et al., NSDI '19) schedules without run
times (``las``), Helios (Hu et al., SC '21) predicts them from history (``qssf``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from gpusched.core.metrics import METRIC_KEYS
from gpusched.errors import ScenarioError
from gpusched.experiment.paired import METHOD_NAMES, interval_method, paired_difference
from gpusched.experiment.runner import run_policy
from gpusched.experiment.scorecard import LOWER_IS_BETTER
from gpusched.paths import URGENCY_RESULTS
from gpusched.policies import get_policy
from gpusched.policies.preflight import check_told
from gpusched.workload.scenario import Scenario, told

SETTINGS: tuple[tuple[str, str | dict], ...] = (
    ("exact", "exact"), ("lognormal 1", {"lognormal": 1.0}), ("none", "none"), ("history", "history"))
"""The settings compared: label -> the ``workload.declared_run_time`` value. ``exact`` is the
reference of :meth:`KnowledgeTable.cost_of_not_knowing`."""

EXACT = "exact"
"""The label of the setting the others are paired against."""

COST_COLUMNS: tuple[str, ...] = ("policy", "setting", "mean", "diff", "low", "high", "n", "interval")
"""The columns of :meth:`KnowledgeTable.cost_of_not_knowing`: the policy and setting, the metric's
mean under the setting, the mean paired difference against the same policy under ``exact`` with
its 95 % interval (``low``, ``high``), the seeds paired and the interval's name."""

BEST_COLUMNS: tuple[str, ...] = ("setting", "policy", "best", "mean", "diff", "low", "high", "n",
                                 "interval")
"""The columns of :meth:`KnowledgeTable.against_best`: the setting, the policy, the best policy of
the setting, the policy's mean, and its mean paired difference against the best with its 95 %
interval, the seeds paired and the interval's name."""


def refused(scenario: Scenario, policy: str) -> bool:
    """Whether :func:`~gpusched.policies.preflight.check_told` refuses ``policy`` on ``scenario``."""
    try:
        check_told(scenario, policy)
    except ScenarioError:
        return True
    return False


def lower_is_better(metric: str) -> bool:
    """Whether a lower value of ``metric`` is better
    (:data:`~gpusched.experiment.scorecard.LOWER_IS_BETTER`)."""
    return metric in LOWER_IS_BETTER


def _paired(a: pd.Series, b: pd.Series, metric: str) -> dict[str, Any]:
    """The paired difference ``a - b`` over the seeds where both have a value (NaN ends when none)."""
    pair = pd.concat([a.rename("a"), b.rename("b")], axis=1).dropna()
    method = interval_method(metric)
    if pair.empty:
        return {"diff": math.nan, "low": math.nan, "high": math.nan, "n": 0,
                "interval": METHOD_NAMES[method]}
    d = paired_difference(pair["a"].to_numpy(), pair["b"].to_numpy(), method=method)
    return {"diff": d.mean, "low": d.low, "high": d.high, "n": d.n, "interval": METHOD_NAMES[method]}


@dataclass
class KnowledgeTable:
    """Every policy under every setting on the same jobs, seed by seed.

    :param scenario: the scenario's name.
    :param seeds: the workload seeds.
    :param settings: the settings' labels, in :data:`SETTINGS` order.
    :param policies: the policies' registry names.
    :param runs: one row per (setting, policy, seed): ``setting``, ``policy``, ``seed``,
        ``refused`` (the policy reads run times the setting does not give; its metrics are NaN) and
        the metric columns of :data:`~gpusched.core.metrics.METRIC_KEYS` the runs give.
    """

    scenario: str
    seeds: list[int]
    settings: list[str]
    policies: list[str]
    runs: pd.DataFrame

    @property
    def metrics(self) -> list[str]:
        """The metrics the runs hold, in :data:`~gpusched.core.metrics.METRIC_KEYS` order."""
        return [k for k in METRIC_KEYS if k in self.runs.columns]

    def values(self, setting: str, policy: str, metric: str) -> pd.Series:
        """One policy's metric per seed under one setting (indexed by seed; NaN when refused)."""
        runs = self.runs
        part = runs[(runs["setting"] == setting) & (runs["policy"] == policy)]
        return part.set_index("seed")[metric].astype(float)

    def is_refused(self, setting: str, policy: str) -> bool:
        """Whether the policy was refused under the setting."""
        runs = self.runs
        part = runs[(runs["setting"] == setting) & (runs["policy"] == policy)]
        return bool(part["refused"].any())

    def cost_of_not_knowing(self, metric: str = "avg_jct_min") -> pd.DataFrame:
        """Per policy and setting other than ``exact``, the metric's mean and its paired mean
        difference against the same policy under ``exact`` (setting - exact, in the metric's unit),
        with its 95 % interval; refused rows are kept with NaN (:data:`COST_COLUMNS`).

        :raises ValueError: if the table has no ``exact`` setting or no such metric.
        """
        self._check(metric)
        if EXACT not in self.settings:
            raise ValueError(f"no '{EXACT}' setting to pair against (settings: {', '.join(self.settings)})")
        rows = []
        for policy in self.policies:
            exact = self.values(EXACT, policy, metric)
            for setting in (s for s in self.settings if s != EXACT):
                values = self.values(setting, policy, metric)
                rows.append({"policy": policy, "setting": setting, "mean": _mean(values),
                             **_paired(values, exact, metric)})
        return pd.DataFrame(rows, columns=list(COST_COLUMNS))

    def best(self, setting: str, metric: str = "avg_jct_min",
             among: Sequence[str] | None = None) -> str | None:
        """The policy (of ``among``, default all) with the best mean of ``metric`` under
        ``setting`` (lower or higher as :func:`lower_is_better` says; ``None`` when every one was
        refused)."""
        self._check(metric)
        among = self.policies if among is None else among
        means = {p: _mean(self.values(setting, p, metric)) for p in among}
        means = {p: m for p, m in means.items() if not math.isnan(m)}
        if not means:
            return None
        pick = min if lower_is_better(metric) else max
        return pick(means, key=means.__getitem__)

    def paired(self, setting: str, a: str, b: str, metric: str = "avg_jct_min") -> dict[str, Any]:
        """Policy ``a`` against ``b`` under ``setting``, seed by seed: the mean difference ``a - b``
        with its 95 % interval (``diff``, ``low``, ``high``, ``n``, ``interval``)."""
        self._check(metric)
        return _paired(self.values(setting, a, metric), self.values(setting, b, metric), metric)

    def against_best(self, metric: str = "avg_jct_min") -> pd.DataFrame:
        """Per setting and policy, the metric's mean and its paired mean difference against the
        best policy of the same setting (:meth:`best`; policy - best), with its 95 % interval
        (:data:`BEST_COLUMNS`; the best policy's own row has a difference of 0)."""
        rows = []
        for setting in self.settings:
            best = self.best(setting, metric)
            reference = (self.values(setting, best, metric) if best is not None
                         else pd.Series(dtype=float))
            for policy in self.policies:
                values = self.values(setting, policy, metric)
                rows.append({"setting": setting, "policy": policy, "best": best, "mean": _mean(values),
                             **_paired(values, reference, metric)})
        return pd.DataFrame(rows, columns=list(BEST_COLUMNS))

    def best_gap(self, setting: str, metric: str = "avg_jct_min") -> dict[str, Any]:
        """The best policy of ``setting`` against the best policy told exactly (:meth:`best` of
        each; two policies, the same seeds): ``best``, ``exact_best``, and the paired mean difference
        (setting's best - exact's best) with its interval, ``diff``, ``low``, ``high``, ``n``,
        ``interval``. What the best a scheduler can pick loses by not knowing.

        :raises ValueError: if the table has no ``exact`` setting.
        """
        if EXACT not in self.settings:
            raise ValueError(f"no '{EXACT}' setting to pair against (settings: {', '.join(self.settings)})")
        best, exact_best = self.best(setting, metric), self.best(EXACT, metric)
        values = self.values(setting, best, metric) if best is not None else pd.Series(dtype=float)
        return {"best": best, "exact_best": exact_best,
                **_paired(values, self.values(EXACT, exact_best, metric), metric)}

    def _check(self, metric: str) -> None:
        if metric not in self.runs.columns:
            raise ValueError(f"no metric '{metric}' in the runs (have: {', '.join(self.metrics)})")

    def to_json(self) -> dict:
        """The table as plain JSON data (NaN written as ``null``); :meth:`from_json` reads it back."""
        runs = self.runs.astype(object).where(self.runs.notna(), None)
        return {"scenario": self.scenario, "seeds": [int(s) for s in self.seeds],
                "settings": list(self.settings), "policies": list(self.policies),
                "runs": {col: [_plain(v) for v in runs[col]] for col in runs.columns}}

    @classmethod
    def from_json(cls, data: dict) -> KnowledgeTable:
        """The table :meth:`to_json` wrote."""
        runs = pd.DataFrame(data["runs"])
        for col in runs.columns:
            if col not in ("setting", "policy", "seed", "refused"):
                runs[col] = pd.to_numeric(runs[col], errors="coerce").astype(float)
        if len(runs):
            runs["seed"] = runs["seed"].astype(int)
            runs["refused"] = runs["refused"].astype(bool)
        return cls(str(data["scenario"]), [int(s) for s in data["seeds"]], list(data["settings"]),
                   list(data["policies"]), runs)


def _mean(values: pd.Series) -> float:
    values = values.dropna()
    return float(values.mean()) if len(values) else math.nan


def _plain(value: Any) -> Any:
    """A JSON-ready scalar (numpy numbers to Python ones, non-finite floats to ``None``)."""
    if value is None:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def knowledge_comparison(scenario: Scenario, policies: Sequence[str], seeds: Sequence[int],
                         settings: Sequence[tuple[str, str | dict]] = SETTINGS,
                         progress: Callable[[int, int], None] | None = None,
                         metrics: Sequence[str] | None = None) -> KnowledgeTable:
    """Every policy under every setting on the same jobs for every seed.

    :param scenario: the scenario; each setting replaces only its ``workload.declared_run_time``.
    :param policies: registry names (``ORDER+PLACEMENT`` or alone).
    :param seeds: workload seeds.
    :param settings: (label, ``declared_run_time`` value) pairs (default :data:`SETTINGS`).
    :param progress: called as ``progress(done, total)`` after each (setting, policy, seed), a
        refused one included.
    :param metrics: the metric columns to keep (default: every metric of
        :data:`~gpusched.core.metrics.METRIC_KEYS`).
    :raises UnknownPolicyError: for an unknown policy name, before any run.
    """
    for name in policies:
        get_policy(name)  # fail fast on an unknown name
    keep = list(METRIC_KEYS if metrics is None else metrics)
    unknown = [m for m in keep if m not in METRIC_KEYS]
    if unknown:
        raise ValueError(f"unknown metric '{unknown[0]}' (known: {', '.join(METRIC_KEYS)})")
    variants = [(label, told(scenario, value)) for label, value in settings]
    rows: list[dict[str, Any]] = []
    total = len(variants) * len(policies) * len(seeds)
    for label, variant in variants:
        for name in policies:
            no = refused(variant, name)
            for seed in seeds:
                row: dict[str, Any] = {"setting": label, "policy": name, "seed": int(seed), "refused": no}
                if no:
                    row.update(dict.fromkeys(keep, math.nan))
                else:
                    result = run_policy(variant, name, seed=int(seed))
                    row.update({m: float(result.metrics[m]) for m in keep})
                rows.append(row)
                if progress:
                    progress(len(rows), total)
    runs = pd.DataFrame(rows, columns=["setting", "policy", "seed", "refused", *keep])
    return KnowledgeTable(scenario.name, [int(s) for s in seeds], [label for label, _ in settings],
                          list(policies), runs)


@cache
def _shipped() -> dict[str, dict]:
    if not URGENCY_RESULTS.is_file():
        return {}
    return json.loads(URGENCY_RESULTS.read_text(encoding="utf-8"))["tables"]


def shipped_knowledge(scenario_name: str) -> KnowledgeTable | None:
    """The shipped table of one preset (:data:`gpusched.paths.URGENCY_RESULTS`, written by
    ``benchmarks/urgency_table.py``), or ``None`` when the file or the preset is absent."""
    data = _shipped().get(scenario_name)
    return None if data is None else KnowledgeTable.from_json(data)


def shipped_knowledge_names() -> list[str]:
    """The presets (and variants) the shipped file holds, in its order."""
    return list(_shipped())
