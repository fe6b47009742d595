"""The generated results pages under ``docs/results/`` and the README's findings are what the
shipped results say: each page is what ``benchmarks/render_results.py`` renders from them, and,
read back independently, every mean ± std, paired row and claim matches the measured runs."""

from __future__ import annotations

import json
import re
import sys

import numpy as np
import pandas as pd
import pytest

from gpusched.experiment.paired import paired_difference
from gpusched.experiment.runner import Comparison, compare
from gpusched.experiment.scorecard import scorecard
from gpusched.paths import REPO_ROOT
from gpusched.policies.registry import is_round_policy

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import render_results  # noqa: E402

RESULTS = REPO_ROOT / "benchmarks" / "results" / "window-agent.json"
BOUND = REPO_ROOT / "benchmarks" / "results" / "lookahead-bound.json"
DOCS = REPO_ROOT / "docs"


def _read(path) -> str:
    return path.read_text(encoding="utf-8")


def _tables() -> dict[str, str]:
    """Text of each scenario's block of the window agent's page, keyed by scenario name."""
    parts = re.split(r"^\*\*([\w-]+)\*\* \(", _read(DOCS / "results" / "window-agent.md"), flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _runs(name: str) -> pd.DataFrame:
    return pd.DataFrame(json.loads(_read(RESULTS))[name]["runs"])


def test_every_generated_page_and_the_readme_findings_are_current():
    """``python benchmarks/render_results.py`` would change nothing."""
    for path, text in render_results.rendered().items():
        stale = f"{path.relative_to(REPO_ROOT)} is stale: run python benchmarks/render_results.py"
        assert _read(path) == text, stale


def test_the_window_agent_page_covers_every_measured_scenario():
    assert set(_tables()) == set(json.loads(_read(RESULTS)))


@pytest.mark.parametrize("name", ["fleet-16gpu", "fleet-64gpu", "phase1-8gpu", "phase1-4gpu"])
def test_every_row_is_the_measured_mean_and_std(name):
    block = _tables()[name]
    runs = _runs(name)
    mean = runs.groupby("policy")["avg_jct_min"].mean()
    std = runs.groupby("policy")["avg_jct_min"].std(ddof=0)  # as Comparison.spread
    rows = re.findall(r"^\| ([\w:+./-]+)(?: \(best heuristic\))? \| ([\d.]+) ± ([\d.]+) \|", block,
                      flags=re.MULTILINE)
    assert {p for p, _, _ in rows} == set(mean.index)
    for policy, m, s in rows:
        assert float(m) == pytest.approx(mean[policy], abs=0.051), policy
        assert float(s) == pytest.approx(std[policy], abs=0.051), policy


@pytest.mark.parametrize("name", ["fleet-16gpu", "phase1-4gpu"])
def test_every_paired_row_is_the_scorecard_of_the_measured_runs(name):
    block = _tables()[name]
    comparison = Comparison(name, _runs(name), {})
    rows = re.findall(r"^\| ([\w:+./-]+) \| ([\w:+./-]+) \| (\w+) \| [\d.]+ \| [\d.]+ \| ([+-][\d.]+) "
                      r"\[([+-][\d.]+), ([+-][\d.]+)\] \| .* \| (\d+)/(\d+)/(\d+) \|$", block,
                      flags=re.MULTILINE)
    assert rows
    for agent, baseline, metric, diff, low, high, won, tied, lost in rows:
        card = scorecard(comparison, baseline, [metric])
        row = card[card["policy"] == agent].iloc[0]
        assert (float(diff), float(low), float(high)) == pytest.approx(
            (row["diff"], row["low"], row["high"]), abs=0.006)
        assert (int(won), int(tied), int(lost)) == (row["wins"], row["ties"], row["losses"])


def test_the_best_heuristic_is_the_measured_one():
    data = json.loads(_read(RESULTS))
    for name, block in _tables().items():
        marked = re.search(r"^\| ([\w:+./-]+) \(best heuristic\)", block, flags=re.MULTILINE).group(1)
        assert marked == data[name]["best_heuristic"]
        runs = _runs(name)
        heuristics = runs[~runs["policy"].str.startswith("ppo") & ~runs["policy"].map(is_round_policy)]
        assert heuristics.groupby("policy")["avg_jct_min"].mean().idxmin() == marked


FLEETS = ("fleet-16gpu", "fleet-64gpu", "fleet-32gpu")


def _paired_cell(mean: pd.Series, jct: pd.DataFrame, agent: str, best: str) -> str:
    diff = paired_difference(jct[agent], jct[best])
    cell = (f"{mean[agent]:.1f} min: {diff.mean:+.2f} [{diff.low:+.2f}, {diff.high:+.2f}], "
            f"{100 * diff.mean / mean[best]:+.1f} %, {diff.a_lower}/{diff.ties}/{diff.a_higher}")
    return cell.replace("-", "−")


@pytest.mark.parametrize("name", FLEETS)
def test_the_agent_page_targets_table_is_the_measured_one(name):
    """docs/agent.md's targets table: per fleet, the best heuristic with its mean JCT, and the greedy
    and rollout agents' mean JCT with their paired difference against it, from the shipped JSON."""
    text = " ".join(_read(DOCS / "agent.md").split())
    data = json.loads(_read(RESULTS))[name]
    runs = pd.DataFrame(data["runs"])
    jct = runs.pivot_table(index="seed", columns="policy", values="avg_jct_min")
    mean = jct.mean()
    best = data["best_heuristic"]
    row = (f"| `{best}` ({mean[best]:.1f} min) | {_paired_cell(mean, jct, 'ppo', best)} | "
           f"{_paired_cell(mean, jct, 'ppo_rollout', best)} |")
    assert row in text
    done = runs.pivot_table(index="seed", columns="policy", values="jobs_completed")
    assert done["ppo"].eq(done.max(axis=1)).all()  # "it completes every job": as many as any policy


def test_the_agent_page_p99_claims_are_the_measured_ones():
    text = " ".join(_read(DOCS / "agent.md").split())
    data = json.loads(_read(RESULTS))
    p99 = {n: pd.DataFrame(data[n]["runs"]).pivot_table(index="seed", columns="policy",
                                                         values="p99_wait_min") for n in FLEETS}
    home = p99["fleet-16gpu"]
    diff = paired_difference(home["ppo"], home["easy+eft"], method="bootstrap")  # p99: skewed
    assert not diff.excludes_zero  # "the difference ... is not measurable"
    claim = (f"Its p99 wait, {home['ppo'].mean():.0f} min, is higher than `easy+eft`'s "
             f"{home['easy+eft'].mean():.0f} on average, but paired, the difference "
             f"({diff.mean:+.1f} min [{diff.low:+.1f}, {diff.high:+.1f}], bootstrap interval, "
             f"{diff.a_lower} seeds lower "
             f"and {diff.a_higher} higher) is not measurable")
    assert claim.replace("-", "−") in text
    far = p99["fleet-32gpu"]
    assert (f"its p99 wait ({far['ppo'].mean():.0f} min against {far['easy+eft'].mean():.0f} for "
            "`easy+eft`)") in text


def test_the_readme_findings_name_the_measured_numbers():
    """Read back from the README, independently of the renderer: the fleet's best heuristic, its
    mean JCT and the agent's, and the clairvoyant bound."""
    text = _read(REPO_ROOT / "README.md")
    block = text[text.index(render_results.FINDINGS_START):text.index(render_results.FINDINGS_END)]
    assert 1 <= block.count("\n- ") <= 7
    data = json.loads(_read(RESULTS))["fleet-16gpu"]
    mean = pd.DataFrame(data["runs"]).groupby("policy")["avg_jct_min"].mean()
    best = data["best_heuristic"]
    assert f"(`{best}`), brings the average time to result to **{mean[best]:.1f} min**" in block
    assert f"against {mean['fcfs+first_fit']:.1f} for first-come first-served First-Fit" in block
    assert f"**{mean['ppo']:.1f} min**" in block
    bound_data = json.loads(_read(BOUND))
    bound = pd.DataFrame(bound_data["runs"]).groupby("policy")["avg_jct_min"].mean()
    assert f"reaches {bound['lookahead_jct']:.1f} min" in block
    mover = bound[bound_data["moving"]].idxmin()  # the best rule that moves jobs, beside the bound
    wide = pd.DataFrame(bound_data["runs"]).pivot_table(index="seed", columns="policy", values="avg_jct_min")
    d = paired_difference(wide["lookahead_jct"].to_numpy(), wide[mover].to_numpy())
    reach = "further" if d.low > 0 else "not as far" if d.high < 0 else "as far, within the paired interval"
    assert f"gets {reach}: `{mover}`, {bound[mover]:.1f} min." in block


def test_the_clairvoyant_bound_on_the_agent_page_is_the_measured_one():
    """docs/agent.md: lookahead_jct's mean JCT, the best heuristic's, and the paired difference,
    from ``benchmarks/results/lookahead-bound.json``."""
    data = json.loads(_read(BOUND))
    runs = pd.DataFrame(data["runs"])
    mean = runs.groupby("policy")["avg_jct_min"].mean()
    best = data["best_heuristic"]
    assert best == mean.drop(["lookahead_jct", *data.get("moving", [])]).idxmin()  # moves: not its space
    card = scorecard(Comparison("fleet-16gpu", runs, {}), best, ["avg_jct_min"])
    row = card[card["policy"] == "lookahead_jct"].iloc[0]
    assert row["wins"] == row["seeds"]  # "winning all"
    text = " ".join(_read(DOCS / "agent.md").split())
    claim = (f"average JCT of {mean['lookahead_jct']:.1f} min against {mean[best]:.1f} for the best "
             f"heuristic (`{best}`): {row['diff']:+.2f} min [{row['low']:+.2f}, {row['high']:+.2f}] paired, "
             f"{100 * row['diff'] / row['baseline_mean']:+.1f} %, winning all {row['wins']} seeds")
    assert claim.replace("-", "−") in text


def test_the_rules_that_move_jobs_stand_beside_the_fleet_bound_as_measured():
    """docs/results/lookahead-bound.md: the best ``ORDER+fastest_move`` rule of the JSON, its row,
    and the planner paired against it, with the clause its interval calls for."""
    data = json.loads(_read(BOUND))
    assert data["moving"] and all(p.endswith("+fastest_move") for p in data["moving"])
    wide = pd.DataFrame(data["runs"]).pivot_table(index="seed", columns="policy", values="avg_jct_min")
    mover = wide[data["moving"]].mean().idxmin()
    page = _read(DOCS / "results" / "lookahead-bound.md")
    fleet = page[:page.index("\n## ")]
    assert f"| {mover} (best rule that moves jobs) | {wide[mover].mean():.1f} ± " in fleet
    d = paired_difference(wide["lookahead_jct"].to_numpy(), wide[mover].to_numpy())
    assert f"| lookahead_jct | {mover} | avg_jct_min | {d.mean:+.2f} [{d.low:+.2f}, {d.high:+.2f}] |" in fleet
    reach = ("beyond the bound" if d.low > 0 else "short of the bound" if d.high < 0
             else "as far as the bound of this action space, within the interval")
    assert f"The best of them, `{mover}`, reaches {reach}" in fleet


def test_the_fleet_planner_over_a_moving_base_is_the_measured_one():
    """docs/results/lookahead-bound.md: the planner over ``ORDER+fastest_move``, never worse than
    its base on a seed, and its headroom over the best rule that moves jobs, read back from the JSON
    independently of the renderer."""
    data = json.loads(_read(render_results.LOOKAHEAD_MOVING_BASE_JSON))
    base = data["planner"]["base"]
    assert base.endswith("+fastest_move") and data["planner"]["horizon_min"] is None
    wide = pd.DataFrame(data["runs"]).pivot_table(index="seed", columns="policy", values="avg_jct_min")
    assert (wide["lookahead_jct"] <= wide[base] + 1e-9).all()  # a rollout policy of its base
    mover = wide[data["moving"]].mean().idxmin()
    page = _read(DOCS / "results" / "lookahead-bound.md")
    section = page[page.index(f"## {data['scenario']}, over a base that moves jobs"):]
    section = section[:section.index("\n## ")] if "\n## " in section else section
    assert f"On every seed its mean JCT is at most `{base}`'s." in section
    d = paired_difference(wide["lookahead_jct"].to_numpy(), wide[mover].to_numpy())
    assert (f"The headroom above the rules that move jobs: {d.mean:+.2f} min [{d.low:+.2f}, {d.high:+.2f}] "
            f"against `{mover}` ({100 * d.mean / wide[mover].mean():+.1f} %") in section
    if data.get("deployable"):  # the planner told only the arrived jobs, against its base and the planner
        own = paired_difference(wide["lookahead_arrived"].to_numpy(), wide[base].to_numpy())
        lead = paired_difference(wide["lookahead_jct"].to_numpy(), wide["lookahead_arrived"].to_numpy())
        assert (f"averages {wide['lookahead_arrived'].mean():.2f} min: {own.mean:+.2f} min "
                f"[{own.low:+.2f}, {own.high:+.2f}] against `{base}`") in section
        assert f"adds over it, {lead.mean:+.2f} min [{lead.low:+.2f}, {lead.high:+.2f}]" in section


SHIPPED_CUTS = [p for p in render_results.LOOKAHEAD_CUT_JSONS if p.is_file()]
"""The large presets whose planner runs are shipped (``gavel-108gpu-heavy`` at least)."""


def test_the_gavel_bound_is_shipped():
    assert render_results.LOOKAHEAD_CUT_JSONS[0] in SHIPPED_CUTS


@pytest.mark.parametrize("path", SHIPPED_CUTS, ids=lambda p: p.stem)
def test_each_large_preset_bound_section_is_the_measured_one(path):
    """docs/results/lookahead-bound.md: a section per shipped large preset that says the planner is
    cut at its horizon (not a proven bound), names the best rule under the same information, and
    gives the planner's mean JCT and its paired difference against that rule, read back from the
    JSON independently of the renderer."""
    data = json.loads(_read(path))
    runs = pd.DataFrame(data["runs"])
    page = _read(DOCS / "results" / "lookahead-bound.md")
    section = page[page.index(f"## {data['scenario']}, "):]
    section = section[:section.index("\n## ")] if "\n## " in section else section
    horizon = data["planner"]["horizon_min"]
    assert f"{horizon:g}-minute horizon, not a proven bound" in section
    wide = runs.pivot_table(index="seed", columns="policy", values="avg_jct_min")
    best = data["best_heuristic"]
    assert {best, data["planner"]["base"], "lookahead_jct"} <= set(wide.columns)
    assert f"Best rule under the same information: `{best}`" in section
    planner = wide["lookahead_jct"]
    assert f"| lookahead_jct | {planner.mean():.1f} ± {planner.std(ddof=0):.1f} |" in section
    d = paired_difference(planner.to_numpy(), wide[best].to_numpy())
    interval = f"[{d.low:+.2f}, {d.high:+.2f}]" if len(wide) > 1 else "[no interval from one seed]"
    assert (f"| lookahead_jct | {best} | avg_jct_min | {d.mean:+.2f} {interval} | "
            f"{100 * d.mean / wide[best].mean():+.1f} % |") in section
    assert f"Seeds {', '.join(str(s) for s in wide.index)} ({len(wide)} of" in section


def _fgd_rows() -> list[list[str]]:
    text = _read(DOCS / "results" / "fgd-accuracy.md")
    return [[c.strip() for c in line.split("|")[1:-1]] for line in text.splitlines()
            if re.match(r"\| \w+ \| \d\d-", line)]


def test_the_fgd_page_quotes_the_published_results_and_its_differences_add_up():
    from gpusched.fgd.published import published_runs
    from gpusched.fgd.scoring import PUBLISHED_NAMES

    by_name = {v: k for k, v in PUBLISHED_NAMES.items()}
    rows = _fgd_rows()
    assert len(rows) == 24
    for trace, name, ours100, pub100, diff100, ours130, pub130, diff130 in rows:
        published = published_runs(f"openb_pod_list_{trace}").loc[by_name[name]]
        for ours, pub, diff, column in ((ours100, pub100, diff100, 100), (ours130, pub130, diff130, 130)):
            mean, std = re.match(r"([\d.]+) \(([\d.]+)\)", pub).groups()
            assert float(mean) == pytest.approx(published[column].mean(), abs=0.006), (trace, name)
            assert float(std) == pytest.approx(published[column].std(ddof=1), abs=0.006), (trace, name)
            shown = float(diff.split()[0])
            assert shown == pytest.approx(float(ours) - float(mean), abs=0.011), (trace, name)
    worst = max(abs(float(r[i].split()[0])) for r in rows for i in (4, 7))
    assert f"Largest absolute difference: {worst:.2f} points." in _read(DOCS / "results" / "fgd-accuracy.md")


FIFO_HEURISTICS = ("first_fit", "least_loaded", "least_loaded_fit", "best_fit", "random")


def _fifo_tables() -> dict[str, dict[str, list[str]]]:
    parts = re.split(r"^\*\*([\w-]+)\*\* \(", _read(DOCS / "results" / "fifo-agent.md"), flags=re.MULTILINE)
    return {name: {cells[0]: cells[1:] for cells in
                   ([c.strip() for c in line.split("|")[1:-1]] for line in block.splitlines()
                    if line.startswith("| ") and not line.startswith("| policy"))}
            for name, block in zip(parts[1::2], parts[2::2], strict=True)}


@pytest.mark.parametrize("ref", ["phase1-8gpu", "phase1-4gpu", "benchmarks/scenarios/hetero-32gpu.yaml"])
def test_the_fifo_agent_page_heuristic_rows_are_what_the_simulator_gives(ref):
    """The FIFO agent's page keeps no JSON, so its heuristic rows are run again (seeds 1000-1009)."""
    from gpusched.workload.presets import load_scenario

    scenario = load_scenario(str(REPO_ROOT / ref) if ref.endswith(".yaml") else ref)
    table = _fifo_tables()[scenario.name]
    comp = compare(scenario, list(FIFO_HEURISTICS), list(range(1000, 1010)))
    mean, std = comp.summary(), comp.spread()
    for policy in FIFO_HEURISTICS:
        for cell, key in zip(table[policy], ("avg_wait_min", "p95_wait_min", "jobs_completed", "avg_util",
                                             "total_reward"), strict=False):
            m, s = (float(x) for x in cell.split(" ± "))
            places = 3 if key == "avg_util" else 1
            assert m == pytest.approx(mean.loc[policy, key], abs=0.6 * 10 ** -places), (policy, key)
            assert s == pytest.approx(std.loc[policy, key], abs=0.6 * 10 ** -places), (policy, key)
    ff = mean.loc["first_fit", "avg_wait_min"]
    for policy in FIFO_HEURISTICS:
        shown = float(table[policy][-1].removesuffix(" %"))
        assert shown == pytest.approx(100 * (mean.loc[policy, "avg_wait_min"] / ff - 1), abs=0.051)
    assert np.isfinite(mean.loc[list(FIFO_HEURISTICS)].to_numpy(dtype=float)).all()


GAVEL_LOAD = REPO_ROOT / "benchmarks" / "results" / "gavel-load.json"
GAVEL_TUNING = REPO_ROOT / "benchmarks" / "results" / "gavel-load-tuning.json"


def _gavel_means() -> tuple[dict, pd.DataFrame]:
    data = json.loads(_read(GAVEL_LOAD))
    runs = pd.DataFrame(data["runs"])
    return data, runs.groupby(["load", "policy"])["avg_jct_min"].mean().unstack()


def test_the_load_sweep_runs_every_pair_on_every_seed_never_on_a_tuning_seed():
    data = json.loads(_read(GAVEL_LOAD))
    runs = pd.DataFrame(data["runs"])
    pairs = data["agnostic"] + data["aware"]
    tuning = json.loads(_read(GAVEL_TUNING))["tuning_seeds"]
    assert len(data["seeds"]) >= 10 and not set(data["seeds"]) & set(tuning)
    assert len(runs) == len(data["loads"]) * len(pairs) * len(data["seeds"])
    assert set(runs.groupby(["load", "policy"]).size()) == {len(data["seeds"])}
    assert {"fcfs+first_fit", "random"} <= set(data["agnostic"])
    assert {"fcfs+fastest_fit", "fcfs+eft", "fcfs+fastest_move"} <= set(data["aware"])
    assert {load for _, load in data["presets"].values()} <= set(data["loads"])


def test_the_load_sweep_page_means_are_the_measured_ones():
    data, means = _gavel_means()
    page = _read(DOCS / "results" / "gavel-load.md")
    table = page[page.index("## Mean JCT against load"):page.index("## Paired against")]
    rows = [line.split("|")[1:-1] for line in table.splitlines() if re.match(r"^\| [\d.]+ \|", line)]
    assert [float(r[0]) for r in rows] == data["loads"]
    for r in rows:
        shown = [float(c.replace(",", "")) for c in r[1:]]
        measured = list(means.loc[float(r[0]), data["agnostic"] + data["aware"]])
        assert shown == pytest.approx(measured, abs=0.051)


def test_the_load_sweep_paired_rows_are_the_seed_by_seed_differences():
    data, _ = _gavel_means()
    runs = pd.DataFrame(data["runs"])
    page = _read(DOCS / "results" / "gavel-load.md")
    sections = re.split(r"^### load ([\d.]+)", page, flags=re.MULTILINE)
    assert [float(x) for x in sections[1::2]] == data["loads"]
    for load, block in zip(sections[1::2], sections[2::2], strict=True):
        at = runs[runs["load"] == float(load)].sort_values("seed")
        base = at[at["policy"] == data["baseline"]]["avg_jct_min"].to_numpy()
        num = r"([+−-][\d,.]+)"
        rows = re.findall(rf"^\| `([\w+]+)` \| \w+ \| [\d,.]+ \| {num} \[{num}, {num}\]", block,
                          flags=re.MULTILINE)
        assert {p for p, *_ in rows} == set(data["agnostic"] + data["aware"]) - {data["baseline"]}
        for policy, *cells in rows:
            d = paired_difference(at[at["policy"] == policy]["avg_jct_min"].to_numpy(), base)
            shown = [float(c.replace(",", "").replace("−", "-")) for c in cells]
            assert shown == pytest.approx([d.mean, d.low, d.high], abs=0.051), (load, policy)


def test_the_load_sweep_ratio_on_the_page_and_in_the_readme_is_the_measured_one():
    data, means = _gavel_means()
    heaviest = means.loc[max(data["loads"])]
    best = heaviest[data["aware"]].min()
    ratio = heaviest[data["baseline"]] / best
    assert f"of **{ratio:.2f}×**" in _read(DOCS / "results" / "gavel-load.md")
    readme = _read(REPO_ROOT / "README.md")
    assert f"averages **{best:,.0f} min** JCT against {heaviest[data['baseline']]:,.0f}" in readme
    assert f"**{ratio:.2f}×**" in readme


GAVEL_ROUNDS = REPO_ROOT / "benchmarks" / "results" / "gavel-load-rounds.json"


def test_the_rounds_ratios_on_the_page_and_in_the_readme_are_the_measured_ones():
    from gpusched.experiment.paired import mean_interval

    data = json.loads(_read(GAVEL_ROUNDS))
    runs = pd.DataFrame(data["runs"])
    seeds = data["seeds"]
    assert len(runs) == len(data["loads"]) * sum(len(p) for p in data["pairs"]) * len(seeds)
    assert not set(seeds) & set(data["tuning_seeds"])
    page = _read(DOCS / "results" / "gavel-load.md")
    section = page[page.index("## Time-slicing in rounds"):]
    largest = (0.0, None)
    for load in data["loads"]:
        at = runs[runs["load"] == load].pivot(index="seed", columns="policy", values="avg_jct_min")
        for agnostic, aware in data["pairs"]:
            mean, low, high = mean_interval((at[agnostic] / at[aware]).to_numpy())
            row = f"| {load:g} | `{agnostic}` / `{aware}` | {mean:.2f} [{low:.2f}, {high:.2f}] |"
            assert row in section, row
            largest = max(largest, (mean, (load, low, high)), key=lambda x: x[0])
    mean, (load, low, high) = largest
    assert f"**Largest ratio: {mean:.2f}×**" in section and f"at load {load:g}" in section
    readme = _read(REPO_ROOT / "README.md")
    assert f"the largest agnostic/aware ratio is **{mean:.2f}×**" in readme
    assert f"at load {load:g} (mean of the per-seed ratios, 95 % interval {low:.2f}–{high:.2f}" in readme


def test_the_readme_real_cluster_finding_is_what_the_shipped_comparison_measured():
    """Read back from the README against the raw JCTs of ``real-cluster.json``, recomputed here:
    how many policies' average JCT is within 10 % of the real cluster's, the mean |error| of ours
    and of Shockwave's simulator, and each policy where fewer of our jobs land within 10 %."""
    text = _read(REPO_ROOT / "README.md")
    block = text[text.index(render_results.FINDINGS_START):text.index(render_results.FINDINGS_END)]
    data = json.loads(_read(REPO_ROOT / "benchmarks" / "results" / "real-cluster.json"))
    shared = data["shared"]
    ours_err, sim_err = [], []
    for p in shared:
        real = np.asarray(data["references"][p]["real"]["jct_s"], dtype=float)
        ours = np.asarray(data["runs"][p]["jct_s"], dtype=float)
        sim_avg = data["references"][p]["shockwave_sim"]["avg_jct_s"]
        ours_err.append(100 * abs(ours.mean() / real.mean() - 1))
        sim_err.append(100 * abs(sim_avg / real.mean() - 1))
        ours_within = 100 * np.mean(np.abs(ours - real) <= 0.1 * real)
        sim_within = data["references"][p]["shockwave_sim"]["within_pct"]
        line = f"{ours_within:.0f} % against its {sim_within:.0f} % on `{p}`"
        assert (line in block) == (ours_within < sim_within), p
    close = sum(e <= 10 for e in ours_err)
    assert f"**{close} of the {len(shared)}** policies" in block
    assert f"mean |error| {np.mean(ours_err):.2f} %" in block
    assert f"Shockwave's own simulator's {np.mean(sim_err):.2f} %" in block
    assert (np.mean(ours_err) <= np.mean(sim_err)) == ("at most Shockwave's" in block)
    # told the costs Shockwave's simulator charges: the largest gap to that simulator, from raw JCTs
    sim_avg = {p: data["references"][p]["shockwave_sim"]["avg_jct_s"] for p in shared}
    gaps = [100 * abs(np.mean(runs["shockwave"]["jct_s"]) / sim_avg[p] - 1)
            for p, runs in data["shockwave_costs"]["runs"].items()]
    assert f"within {max(gaps):.1f} % of that simulator's on each of the {len(gaps)}." in block
