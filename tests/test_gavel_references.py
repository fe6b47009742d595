"""The stored reference outputs of Gavel's simulator (``benchmarks/gavel/``) agree with each other.

``benchmarks/gavel/run_gavel.py`` wrote them by running Gavel (Narayanan et al., OSDI 2020; MIT
licence) at the commit in ``references.json``. These tests never run Gavel: they check that every
job list has one JCT per job in each of its runs, that the columns are the documented ones, that the
JSON's mean JCT is the CSV's, that no job finishes faster than its fastest GPU allows, that every
duration is a whole number of Gavel's training steps, and that the README's figures are the files'.

Durations checked by hand against Gavel's ``simulation_throughputs.json`` (V100, scale factor 1,
``"null"``), job list ``t1-v100-100-s0``:

- job 0, ResNet-18 (batch size 64): 24.093231895 steps/s; 1139.072311 min x 60 x 24.0932 =
  1,646,636.0 steps, Gavel's integer step count;
- job 1, Transformer (batch size 16): 11.064087213 steps/s; 516.942780 min -> 343,170.0 steps;
- job 2, Recommendation (batch size 2048): 7.469632061 steps/s; 35.775970 min -> 16,034.0 steps.
"""

from __future__ import annotations

import csv
import heapq
import json
import re
from pathlib import Path

import pytest

from gpusched.paths import REPO_ROOT

GAVEL_DIR = REPO_ROOT / "benchmarks" / "gavel"
REFERENCES = json.loads((GAVEL_DIR / "references.json").read_text())
RUNS = REFERENCES["runs"]
STEPS_PER_S = REFERENCES["single_gpu_steps_per_s"]["models"]
JOB_COLUMNS = ["id", "arrival_min", "model", "gpus", "duration_min"]
JCT_COLUMNS = ["id", "jct_s"]
GPU_TYPES = ("v100", "p100", "k80")
WRITTEN_DECIMALS_S = 0.0005
"""Half the last written digit of ``jct_s`` (6 decimals), with room: the JSON's mean is unrounded."""
DURATION_DIGIT_MIN = 0.5e-6
"""Half the last written digit of ``duration_min`` and ``arrival_min``."""
WITHIN = 0.05
"""A job's Gavel JCT agrees with the plain FIFO one when they differ by at most 5 %."""


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def job_list(run: dict) -> list[dict[str, str]]:
    columns, rows = read_csv(GAVEL_DIR / run["job_list"])
    assert columns == JOB_COLUMNS, run["job_list"]
    return rows


def jct_s(run: dict) -> dict[int, float]:
    columns, rows = read_csv(GAVEL_DIR / run["jct"])
    assert columns == JCT_COLUMNS, run["jct"]
    ids = [int(r["id"]) for r in rows]
    assert len(set(ids)) == len(ids), f"{run['jct']}: a job id appears twice"
    return {int(r["id"]): float(r["jct_s"]) for r in rows}


def fastest_run_time_s(job: dict[str, str], cluster: dict[str, int]) -> float:
    """The job's run time on the fastest GPU type the cluster has, in seconds."""
    rates = STEPS_PER_S[job["model"]]
    steps = float(job["duration_min"]) * 60.0 * rates["v100"]
    return min(steps / rates[t] for t in GPU_TYPES if cluster[t] > 0)


def plain_fifo_jct_s(jobs: list[dict[str, str]], gpus: int) -> dict[int, float]:
    """First come, first served on ``gpus`` identical GPUs, one GPU per job, no rounds."""
    free_at_s = [0.0] * gpus
    out = {}
    for job in sorted(jobs, key=lambda j: (float(j["arrival_min"]), int(j["id"]))):
        arrival_s = float(job["arrival_min"]) * 60.0
        start_s = max(arrival_s, heapq.heappop(free_at_s))
        end_s = start_s + float(job["duration_min"]) * 60.0
        heapq.heappush(free_at_s, end_s)
        out[int(job["id"])] = end_s - arrival_s
    return out


def agreement(run: dict) -> tuple[int, float, list[float]]:
    """Against plain FIFO on a V100-only run: the jobs whose Gavel JCT is within ``WITHIN`` of plain
    FIFO's, Gavel's mean JCT over plain FIFO's minus 1, and each job's Gavel JCT minus FIFO's (s)."""
    gavel = jct_s(run)
    fifo = plain_fifo_jct_s(job_list(run), run["cluster"]["v100"])
    within = sum(abs(gavel[i] - fifo[i]) <= WITHIN * fifo[i] for i in fifo)
    return within, sum(gavel.values()) / sum(fifo.values()) - 1.0, [gavel[i] - fifo[i] for i in sorted(fifo)]


def groups() -> dict[tuple[str, str, str, str], list[str]]:
    """Runs by (tier, cluster ``V:P:K``, policy, ``"T s / R s"``), in ``references.json`` order."""
    out: dict[tuple[str, str, str, str], list[str]] = {}
    for name, run in RUNS.items():
        c = run["cluster"]
        rounds = f"{run['time_per_iteration_s']} s / {run['minimum_time_between_allocation_resets_s']:,} s"
        key = (run["tier"], f"{c['v100']}:{c['p100']}:{c['k80']}", run["policy"], rounds)
        out.setdefault(key, []).append(name)
    return out


V100_ONLY = [name for name, run in RUNS.items() if run["cluster"]["p100"] == run["cluster"]["k80"] == 0]


def test_the_references_cover_every_tier() -> None:
    tiers = {run["tier"] for run in RUNS.values()}
    assert tiers == {"1", "2", "3", "wall"}
    assert len({run["seed"] for run in RUNS.values() if run["tier"] == "3"}) >= 10
    assert REFERENCES["gavel"]["commit"] == "c4fa40097339e9608ab71fd64c8bdea96a5e4a4c"


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_job_has_one_jct_and_the_means_agree(name: str) -> None:
    run = RUNS[name]
    jobs = job_list(run)
    jct = jct_s(run)
    assert [int(j["id"]) for j in jobs] == list(range(len(jobs)))
    assert sorted(jct) == list(range(len(jobs))) and len(jobs) == run["num_jobs"]
    mean = sum(jct.values()) / len(jct)
    assert mean == pytest.approx(run["mean_jct_s"], abs=WRITTEN_DECIMALS_S)
    arrivals = [float(j["arrival_min"]) for j in jobs]
    assert arrivals[0] == 0.0 and arrivals == sorted(arrivals)
    assert {int(j["gpus"]) for j in jobs} == {1}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_no_job_beats_its_fastest_gpu(name: str) -> None:
    """JCT >= the run time on the fastest GPU type present; on V100-only runs, the V100 run time."""
    run = RUNS[name]
    jct = jct_s(run)
    for job in job_list(run):
        floor_s = fastest_run_time_s(job, run["cluster"])
        assert jct[int(job["id"])] >= floor_s - 60.0 * DURATION_DIGIT_MIN * 2, (name, job["id"])
        if name in V100_ONLY:
            assert floor_s == pytest.approx(float(job["duration_min"]) * 60.0, rel=1e-12)


def test_durations_are_whole_steps_of_gavels_generator() -> None:
    """Each duration is Gavel's integer step count over its V100 rate, inside its Philly support."""
    lists = {run["job_list"]: run for run in RUNS.values()}
    assert len(lists) >= 10
    for run in lists.values():
        for job in job_list(run):
            rate = STEPS_PER_S[job["model"]]["v100"]
            steps = float(job["duration_min"]) * 60.0 * rate
            assert abs(steps - round(steps)) <= 60.0 * DURATION_DIGIT_MIN * rate + 1e-6, (
                run["job_list"],
                job,
            )
            # 10^U(1.5, 4) minutes, less at most one step lost to Gavel's integer steps.
            assert 10**1.5 - 1.0 / rate / 60.0 - DURATION_DIGIT_MIN <= float(job["duration_min"]) <= 10**4


def test_the_stored_rates_are_gavels() -> None:
    """Three of the 78 stored rates against Gavel's simulation_throughputs.json, read by hand."""
    assert len(STEPS_PER_S) == 26
    assert STEPS_PER_S["ResNet-18 (batch size 64)"]["v100"] == pytest.approx(24.093231895382736)
    assert STEPS_PER_S["Recommendation (batch size 2048)"]["p100"] == pytest.approx(16.59663998583255)
    assert STEPS_PER_S["Transformer (batch size 16)"]["k80"] == pytest.approx(5.467379291465242)


def test_a_shorter_list_is_the_start_of_a_longer_one_with_the_same_seed() -> None:
    """Gavel's generator draws job after job from one seeded stream, so lists share their prefix."""
    short = job_list(RUNS["t1-v100-100-s0-r60w0"])
    long = job_list(RUNS["t1-v100-300-s0-r60w0"])
    assert long[: len(short)] == short


@pytest.mark.parametrize("name", V100_ONLY)
def test_gavel_never_finishes_a_job_before_plain_fifo_on_one_gpu_type(name: str) -> None:
    """Rounds and allocation resets only delay: every Gavel JCT is at least plain FIFO's."""
    assert min(agreement(RUNS[name])[2]) >= -2 * 60.0 * DURATION_DIGIT_MIN * RUNS[name]["num_jobs"]


def test_fine_rounds_agree_with_plain_fifo_on_the_v100_only_lists() -> None:
    """At 60 s rounds and no wait between allocation resets, Gavel's fifo_perf is plain FIFO within
    the cross-check's tier-1 tolerance: mean within 2 % and at least 90 % of jobs within 5 %."""
    fine = [n for n in V100_ONLY if RUNS[n]["time_per_iteration_s"] == 60]
    assert len(fine) == 2
    for name in fine:
        within, excess, _ = agreement(RUNS[name])
        assert abs(excess) <= 0.02, name
        assert within >= 0.9 * RUNS[name]["num_jobs"], name


README_ROW = re.compile(r"^\| `(?P<name>[^`]+)` \|(?P<cells>.*)\|$", re.MULTILINE)


def test_the_readme_tables_are_the_files() -> None:
    """Every run has a README row, whose mean JCT is the JSON's and, on V100-only runs, whose
    within-5 % count and mean excess over plain FIFO are the ones computed here."""
    text = (GAVEL_DIR / "README.md").read_text()
    rows: dict[str, list[list[str]]] = {}
    for m in README_ROW.finditer(text):
        rows.setdefault(m["name"], []).append([c.strip() for c in m["cells"].split("|")])
    assert set(RUNS) <= set(rows)
    for name, run in RUNS.items():
        assert all(f"{run['mean_jct_s']:,.0f}" in cells for cells in rows[name]), name
        if name in V100_ONLY:
            within, excess, delays_s = agreement(run)
            assert [
                f"{within} / {run['num_jobs']}",
                f"{100 * excess:+.2f} %",
                f"{sum(delays_s) / len(delays_s):,.0f}",
                f"{max(delays_s):,.0f}",
            ] in [cells[-4:] for cells in rows[name]], name
    for (tier, cluster, policy, rounds), names in groups().items():
        mean_s = sum(RUNS[n]["mean_jct_s"] for n in names) / len(names)
        row = f"| summary | {tier} | {cluster} | `{policy}` | {rounds} | {len(names)} | {mean_s:,.0f} |"
        assert row in text.splitlines(), row
    tier1 = RUNS["t1-v100-300-s0-r60w0"]
    jobs = job_list(tier1)
    mean_duration_s = sum(float(j["duration_min"]) * 60.0 for j in jobs) / len(jobs)
    fifo = plain_fifo_jct_s(jobs, tier1["cluster"]["v100"])
    assert f"({mean_duration_s:,.0f} s on the 300-job seed-0 list)" in " ".join(text.split())
    assert f"plain FIFO's mean wait is {sum(fifo.values()) / len(fifo) - mean_duration_s:,.0f} s" in " ".join(
        text.split()
    )
    (wall,) = [run for run in RUNS.values() if run["tier"] == "wall"]
    driver = wall["trace_driver"]
    assert f"`simulate` took {wall['wall_time_s']} s of wall time ({wall['cpu_time_s']} s CPU)" in text
    assert f"took {driver['wall_time_s']} s ({driver['cpu_time_s']} s CPU)" in text
