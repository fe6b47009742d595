"""The "What the scheduler knows" page's data: a :class:`~gpusched.experiment.knowledge.KnowledgeTable`
(the shipped benchmark's, or one run live) turned into the frames its figures draw
(:mod:`gpusched.figures.knowledge`), and live comparisons run off the page's thread with progress.

Every number comes from runs: the shipped table is what ``gpusched.experiment.knowledge`` measured
(its seeds are named on the page), and a live table is run here on the chosen preset.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import pandas as pd

from gpusched.agent.names import AGENT_POLICY
from gpusched.experiment.knowledge import SETTINGS, KnowledgeTable, knowledge_comparison
from gpusched.experiment.paired import interval_method, mean_interval
from gpusched.workload.presets import load_scenario

KNOWLEDGE_PRESETS: tuple[str, ...] = ("gavel-108gpu-heavy", "openb-replay-heavy", "fleet-16gpu")
"""The presets the page offers, each with a shipped comparison (``benchmarks/urgency_table.py``),
the heavy Gavel load first (where ordering matters most)."""

LIVE_POLICIES: tuple[str, ...] = ("fcfs+first_fit", "las+fastest_fit", "qssf+fastest_fit",
                                  "sjf+fastest_fit", "srtf+eft")
"""The rules a live comparison runs by default: the baseline, the rule that needs no run time
(LAS, Tiresias), the one that predicts them (QSSF, Helios) and two that read them."""

LIVE_SEEDS: tuple[int, ...] = (0, 1, 2, 3, 4)
"""The workload seeds of a live comparison by default: five, where a 95 % t interval is 2.8 standard
errors wide on each side (on two it is 12.7, and runs from 0 to twice the mean); it runs every rule
four times, in the background."""

MAX_LIVE_SEEDS = 10
"""Most seeds a live comparison may run (as many as the shipped tables)."""

FEW_SEEDS = 4
"""Below this many seeds, the page says the intervals are wide before showing them."""

METRIC = "avg_jct_min"
"""The metric the page compares by: time to result."""


def means_frame(table: KnowledgeTable, metric: str = METRIC) -> pd.DataFrame:
    """One row per (policy, setting) in the table's order: ``mean``, ``low`` and ``high`` of
    ``metric`` over the seeds (a 95 % interval of the metric's kind, never below 0) and
    ``refused`` (every run of the combination was refused)."""
    runs = table.runs
    rows = []
    for policy in table.policies:
        for setting in table.settings:
            part = runs[(runs["policy"] == policy) & (runs["setting"] == setting)]
            refused = bool(len(part)) and bool(part["refused"].astype(bool).all())
            values = part.loc[~part["refused"].astype(bool), metric].to_numpy(float)
            mean, low, high = (mean_interval(values, floor=0.0, method=interval_method(metric))
                               if len(values) else (float("nan"),) * 3)
            rows.append({"policy": policy, "setting": setting, "mean": mean, "low": low,
                         "high": high, "refused": refused, "n": len(values)})
    return pd.DataFrame(rows)


def cost_frame(table: KnowledgeTable, metric: str = METRIC) -> pd.DataFrame:
    """The cost of not knowing (:meth:`KnowledgeTable.cost_of_not_knowing`), one row per (policy,
    setting other than exact) with those as columns, refused combinations left out."""
    return table.cost_of_not_knowing(metric).dropna(subset=["diff"]).reset_index(drop=True)


def agent_among(table: KnowledgeTable) -> bool:
    """Whether the agent is among the table's policies."""
    return any(p.split(":")[0].startswith(AGENT_POLICY) for p in table.policies)


def refused_rules(table: KnowledgeTable) -> list[str]:
    """The table's rules that were refused where no run time is declared (they read run times)."""
    return [p for p in table.policies if "none" in table.settings and table.is_refused("none", p)]


@dataclass
class LiveKnowledge:
    """A live :func:`~gpusched.experiment.knowledge.knowledge_comparison` on a worker thread: its
    progress so far, then its table or its error. The page polls it.

    :param scenario: the preset's name.
    :param policies: registry names.
    :param seeds: workload seeds.
    """

    scenario: str
    policies: tuple[str, ...]
    seeds: tuple[int, ...]
    done: int = 0
    total: int = 0
    started: float = field(default_factory=time.monotonic)
    table: KnowledgeTable | None = None
    error: str | None = None
    _thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def finished(self) -> bool:
        return self.table is not None or self.error is not None

    @property
    def fraction(self) -> float:
        """Share of the runs done (0-1)."""
        return self.done / self.total if self.total else 0.0

    def _progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    def _work(self) -> None:
        try:
            self.table = knowledge_comparison(load_scenario(self.scenario), list(self.policies),
                                              list(self.seeds), SETTINGS, progress=self._progress)
        except Exception as exc:  # handed to the page, which shows it in one line
            self.error = f"{type(exc).__name__}: {exc}".splitlines()[0]

    def start(self) -> LiveKnowledge:
        """Start the comparison (once)."""
        if self._thread is None:
            self.total = self.total or len(self.policies) * len(self.seeds) * len(SETTINGS)
            self._thread = threading.Thread(target=self._work, name="gpusched-knowledge", daemon=True)
            self._thread.start()
        return self
