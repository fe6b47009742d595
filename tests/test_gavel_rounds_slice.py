"""A shipped slice of ``docs/results/gavel-rounds.md`` rerun live: the 300-job 4:4:4 run at 360 s
rounds under ``fifo_perf`` and ``max_sum_throughput_perf``, from the copy of Gavel's runs in
``tests/data/gavel-rounds/`` (provenance in its README), through the benchmark's own functions.

Checked: the page's rows for the slice are what the benchmark renders now (every cell but our wall
time, which is the machine's); Gavel's averages the page states are the shipped per-job files'
means; and each policy's average JCT is within 3 % of Gavel's (the issue's target for ``_perf``
policies) with the page's share of jobs within 10 % of Gavel's JCT.
"""

from __future__ import annotations

import csv
import re
import sys

import numpy as np
import pytest

from gpusched.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import gavel_rounds  # noqa: E402

SLICE = REPO_ROOT / "tests" / "data" / "gavel-rounds"
RUN = "trace300_seed0__4-4-4__r360_reset1920"
POLICIES = ("fifo_perf", "max_sum_throughput_perf")
PAGE = REPO_ROOT / "docs" / "results" / "gavel-rounds.md"
SEED = 0


def page_rows(run: str) -> dict[str, list[str]]:
    """The cells of each policy's row in ``run``'s table of the page, keyed by policy."""
    section = PAGE.read_text(encoding="utf-8").split(f"\n## {run}\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"^\| `([\w]+)` \|(.*)\|$", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return rows


def number(cell: str) -> float:
    return float(cell.replace(",", "").replace("%", "").replace("+", ""))


@pytest.fixture(scope="module")
def measured() -> list[gavel_rounds.Row]:
    return gavel_rounds.measure(SLICE, RUN, POLICIES, seed=SEED)


def test_the_page_states_the_slice_with_its_seed_and_settings():
    text = PAGE.read_text(encoding="utf-8")
    assert f"## {RUN}\n\n300 jobs, 4:4:4 V100:P100:K80, 360 s rounds, at least 1920 s between " \
           f"allocation resets, seed {SEED}." in text
    assert set(POLICIES) <= set(page_rows(RUN))


def test_the_pages_rows_are_what_the_benchmark_renders_for_the_slice(measured):
    rendered = {r.policy: line for r, line in zip(measured, gavel_rounds.table_rows(measured), strict=True)}
    stated = page_rows(RUN)
    for policy in POLICIES:
        cells = [c.strip() for c in rendered[policy].strip("|").split("|")][1:]
        assert cells[:-1] == stated[policy][:-1], policy  # the last cell is our wall time


def test_gavels_averages_on_the_page_are_the_shipped_per_job_means():
    stated = page_rows(RUN)
    with (SLICE / RUN / "summary.tsv").open(encoding="utf-8") as f:
        summary = {r["policy"]: r for r in csv.DictReader(f, delimiter="\t")}
    for policy in POLICIES:
        per_job = gavel_rounds.gavel_reference(SLICE / RUN, policy)
        assert per_job.size == 300 and np.isfinite(per_job).all()
        assert f"{per_job.mean():,.0f}" == stated[policy][0], policy
        assert abs(per_job.mean() - float(summary[policy]["avg_jct_s"])) < 0.01
        assert f"{float(summary[policy]['wall_s']):.1f}" == stated[policy][-2]


def test_each_policy_agrees_with_gavel_as_the_page_states(measured):
    stated = page_rows(RUN)
    for row in measured:
        gap = row.ours_s / row.gavel_s - 1.0
        assert abs(gap) <= 0.03, (row.policy, gap)
        assert abs(gap * 100 - number(stated[row.policy][2])) <= 0.05
        assert abs(row.within * 100 - number(stated[row.policy][3])) <= 0.5
        assert row.within >= 0.75, row.policy
        assert row.metrics["jobs_completed"] == 300 and row.metrics["jobs_unfinished"] == 0
