"""The urgency agent's rows join the knowledge tables (``benchmarks/urgency_table.py --add``), and
the results page states its targets from them, met or not."""

from __future__ import annotations

import sys

import pytest

from gpusched.experiment.knowledge import KnowledgeTable
from gpusched.paths import REPO_ROOT
from gpusched.workload.scenario_yaml import scenario_from_dict

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import render_results  # noqa: E402
import urgency_table  # noqa: E402

GAVEL = {"name": "tiny-gavel",
         "cluster": {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 1, "count": 2}
                               for m in ("V100", "P100", "K80")]},
         "workload": {"generator": "gavel", "jobs": 30, "load": 0.6, "seed": 0, "deadlines": True},
         "queue": {"window": 4}, "speed": "gavel"}
"""Stand-in policy for the agent: a pair that runs under every setting."""


@pytest.fixture(scope="module")
def joined() -> dict:
    tables = {name: scenario_from_dict(GAVEL, source=name)
              for name in (*render_results.URGENCY_TARGET_TABLES, render_results.URGENCY_DEADLINE_TABLE)}
    base = urgency_table.measure(tables, ["las+fastest_fit", "edf+fastest_fit", "sjf+fastest_fit"], [0, 1, 2])
    part = urgency_table.measure(tables, ["qssf+first_fit"], [0, 1, 2])
    return urgency_table.with_policies(base, part)


def test_added_rows_keep_the_pairs_and_join_them_seed_by_seed(joined):
    for d in joined["tables"].values():
        t = KnowledgeTable.from_json(d)
        assert t.policies[-1] == "qssf+first_fit" and len(t.policies) == 4
        assert len(t.runs) == 4 * len(t.settings) * 3
        assert list(t.values("history", "qssf+first_fit", "avg_jct_min").index) == [0, 1, 2]
    with pytest.raises(ValueError, match="in both parts"):
        urgency_table.with_policies(joined, joined)


def test_the_targets_section_says_met_or_not_from_the_runs(joined, monkeypatch):
    monkeypatch.setattr(render_results, "URGENCY_AGENT_POLICY", "qssf+first_fit")
    known = {n: KnowledgeTable.from_json(d) for n, d in joined["tables"].items()}
    lines = render_results.urgency_targets_section(known)
    rows = [line for line in lines if line.startswith("| `")]
    assert len(rows) == len(render_results.URGENCY_TARGET_TABLES)
    t = known[render_results.URGENCY_TARGET_TABLES[0]]
    pairs = ["las+fastest_fit", "edf+fastest_fit", "sjf+fastest_fit"]
    means = {p: t.values("history", p, "avg_jct_min").mean() for p in pairs}
    best = min(means, key=means.get)
    agent = t.values("history", "qssf+first_fit", "avg_jct_min").mean()
    cells = [c.strip() for c in rows[0].split("|")[1:-1]]
    assert cells[2] == f"`{best}`" and cells[1] == f"{agent:,.1f}"
    assert cells[7] == ("yes" if agent <= 0.85 * means[best] else "no")
    slo = next(line for line in lines if line.startswith("With deadlines"))
    edf = known[render_results.URGENCY_DEADLINE_TABLE].values("history", "edf+fastest_fit", "slo_attainment")
    assert f"{edf.mean() * 100:.1f} % for `edf+fastest_fit`" in slo
