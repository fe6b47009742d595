"""Render the results pages under ``docs/results/`` and the README's findings from shipped results.

The long benchmarks write what they measured as JSON under ``benchmarks/results/``; this script turns
those files, and the shipped stall-conditions sweep, into Markdown without running anything again:

- ``benchmarks/results/window-agent.json`` (``window_agent_table.py --json``) ->
  ``docs/results/window-agent.md``;
- ``benchmarks/results/lookahead-bound.json`` (``lookahead_bound.py --json``) ->
  ``docs/results/lookahead-bound.md``;
- ``benchmarks/results/gavel-crosscheck.json`` (``gavel_crosscheck.py``) ->
  ``docs/results/gavel-crosscheck.md``;
- ``benchmarks/results/gavel-load.json`` (``gavel_load_sweep.py``),
  ``benchmarks/results/gavel-load-rounds.json`` (``gavel_load_sweep.py --rounds``) and
  ``benchmarks/results/gavel-load-tuning.json`` (``gavel_load.py --json``) ->
  ``docs/results/gavel-load.md``, ``gavel-load.svg`` and ``gavel-load-rounds.svg``;
- ``benchmarks/results/urgency.json`` (``urgency_table.py``) and
  ``benchmarks/results/urgency-window.json`` (``urgency_window.py``) -> ``docs/results/urgency.md``;
- ``assets/sweeps/results/stall-conditions/`` (``gpusched sweep assets/sweeps/stall-conditions.yaml``)
  -> ``docs/results/stall-conditions.md``;
- ``benchmarks/results/philly-pairs.json``, ``philly-rounds.json`` and ``philly-full.json``
  (``philly.py``) and ``philly-history.json`` (``philly_history.py``) -> ``docs/results/philly.md``;
- ``benchmarks/results/rule-models-shift.json`` (``rule_models_shift.py --json``), with the bound of
  ``lookahead-bound.json`` and, when present, ``rule-models-rounds.json`` (``rule_models_rounds.py
  --json``), -> ``docs/results/rule-models.md`` (:mod:`rule_models_page`);
- all of them, with ``docs/results/fgd-accuracy.md`` (which ``fgd_accuracy.py`` writes itself) and
  ``benchmarks/results/real-cluster.json`` (whose page ``benchmarks/real_cluster.py`` renders), ->
  the findings block of ``README.md`` (between :data:`FINDINGS_START` and :data:`FINDINGS_END`).

``tests/test_docs_results.py`` checks that every page and the README block are what this script
renders, and checks the numbers in them against the shipped results independently.

Usage: ``python benchmarks/render_results.py [--check]`` (``--check`` writes nothing and exits with 1
when a page is out of date).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from rule_models_page import rule_models_markdown
from urgency_window import window_summary

from gpusched.agent import AGENT_POLICIES, AGENT_POLICY, ROLLOUT_AGENT_POLICY
from gpusched.agent.names import URGENCY_AGENT_POLICY
from gpusched.dashboard.headline import AGENT_NAMES, BEST_BY, Headline, headline
from gpusched.dashboard.real_cluster import real_cluster_summary
from gpusched.experiment.knowledge import KnowledgeTable
from gpusched.experiment.paired import PairedDifference, mean_interval, paired_difference
from gpusched.experiment.runner import Comparison
from gpusched.experiment.scorecard import scorecard
from gpusched.experiment.stall import FamilyFinding, conditions_findings
from gpusched.figures.headline import headline_sentence, paired_verdict
from gpusched.figures.words import signed
from gpusched.paths import (
    BENCHMARK_RESULTS_DIR,
    PHILLY_FULL_RESULTS,
    PHILLY_HISTORY_RESULTS,
    PHILLY_PAIRS_RESULTS,
    PHILLY_ROUNDS_RESULTS,
    REAL_CLUSTER_RESULTS,
    REPO_ROOT,
    STALL_CONDITIONS_RESULTS_DIR,
    URGENCY_RESULTS,
    URGENCY_WINDOW_RESULTS,
    WINDOW_MODEL,
)
from gpusched.policies import policy_label
from gpusched.policies.registry import policy_info
from gpusched.policies.rounds.registry import ROUND_POLICIES, agnostic_twins
from gpusched.sweep.analysis import load_sweep_results
from gpusched.workload.presets import load_scenario

RESULTS_DIR = BENCHMARK_RESULTS_DIR
"""Where the benchmarks write what they measured (JSON)."""
DOCS_RESULTS_DIR = REPO_ROOT / "docs" / "results"
"""Where the rendered Markdown pages go."""
WINDOW_AGENT_JSON = RESULTS_DIR / "window-agent.json"
LOOKAHEAD_BOUND_JSON = RESULTS_DIR / "lookahead-bound.json"
LOOKAHEAD_CUT_JSONS = tuple(RESULTS_DIR / f"lookahead-bound-{name}.json"
                            for name in ("gavel-108gpu-heavy", "openb-replay-heavy"))
"""The cut planner's measurements on the large presets (``lookahead_bound.py --horizon-min``), each
a section of ``docs/results/lookahead-bound.md`` when it was shipped."""
LOOKAHEAD_MOVING_BASE_JSON = RESULTS_DIR / "lookahead-bound-fleet-moving.json"
"""The fleet's planner over a base that moves jobs (``lookahead_bound.py --base sjf+fastest_move
--moving``), a section of ``docs/results/lookahead-bound.md`` when it was shipped."""
RULE_MODELS_SHIFT_JSON = RESULTS_DIR / "rule-models-shift.json"
RULE_MODELS_ROUNDS_JSON = RESULTS_DIR / "rule-models-rounds.json"
GAVEL_CROSSCHECK_JSON = RESULTS_DIR / "gavel-crosscheck.json"
GAVEL_LOAD_JSON = RESULTS_DIR / "gavel-load.json"
GAVEL_LOAD_TUNING_JSON = RESULTS_DIR / "gavel-load-tuning.json"
GAVEL_LOAD_ROUNDS_JSON = RESULTS_DIR / "gavel-load-rounds.json"
GAVEL_HEADLINE = 3.5
"""Gavel's published "up to 3.5x" average JCT from heterogeneity-aware policies (OSDI 2020)."""
FGD_ACCURACY_MD = DOCS_RESULTS_DIR / "fgd-accuracy.md"
README = REPO_ROOT / "README.md"
FINDINGS_START = "<!-- findings: generated by benchmarks/render_results.py from the shipped results -->"
FINDINGS_END = "<!-- end of findings -->"

PLANNER = "lookahead_jct"
"""The clairvoyant planner of ``lookahead_bound.py``."""
DEPLOYABLE = "lookahead_arrived"
"""The same planner told only the arrived jobs (``lookahead_bound.py --deployable``)."""
WINDOW_AGENTS = tuple(f"{p}:{WINDOW_MODEL.relative_to(REPO_ROOT).as_posix()}" for p in AGENT_POLICIES)
"""The shipped window agent named by its path (on FIFO presets ``ppo`` runs the FIFO agent)."""
COLUMNS = (("avg_jct_min", "avg JCT (min)", "{:.1f}"), ("avg_wait_min", "avg wait (min)", "{:.1f}"),
           ("p99_wait_min", "p99 wait (min)", "{:.0f}"), ("avg_slowdown", "slowdown", "{:.2f}"),
           ("speed_loss_min", "speed loss (min)", "{:.1f}"), ("jobs_completed", "jobs completed", "{:.0f}"))
"""The agent tables' columns: metric key, header, number format."""
PAIRED = ("avg_jct_min", "avg_wait_min", "avg_slowdown", "speed_loss_min", "p99_wait_min", "jobs_completed")
"""The metrics each agent is paired on, seed by seed."""
FLEET_BASELINES = ("fcfs+first_fit", "easy+best_fit")
"""Baselines the agent meets on a queue window, besides the best heuristic."""


def mean_std(runs: pd.DataFrame, metrics: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Mean and standard deviation (ddof 0, as :meth:`Comparison.spread`) per policy, in run order."""
    order = list(dict.fromkeys(runs["policy"]))
    grouped = runs.groupby("policy", sort=False)[metrics]
    return grouped.mean().loc[order], grouped.std(ddof=0).fillna(0.0).loc[order]


def paired_plan(window: int, best: str, policies: list[str]) -> tuple[list[str], list[str]]:
    """Baselines and agents of the paired rows: on a window, ``ppo``, ``ppo_rollout`` and (where it
    ran) ``ppo_urgency`` against the
    best heuristic and :data:`FLEET_BASELINES`; on a FIFO queue, the window agent against the best
    heuristic and the FIFO agent (``ppo``)."""
    if window > 1:
        baselines = [best, *FLEET_BASELINES]
        agents = [AGENT_POLICY, ROLLOUT_AGENT_POLICY, URGENCY_AGENT_POLICY]
    else:
        baselines, agents = [best, AGENT_POLICY], list(WINDOW_AGENTS)
    return baselines, [p for p in agents if p in policies]


def _mean_std_row(label: str, mean: pd.Series, std: pd.Series) -> str:
    cells = [f"{fmt.format(mean[k])} ± {fmt.format(std[k])}" for k, _, fmt in COLUMNS]
    return f"| {label} | " + " | ".join(cells) + " |"


def _header() -> list[str]:
    return ["| policy | " + " | ".join(c[1] for c in COLUMNS) + " |", "|---|" + "---|" * len(COLUMNS)]


def window_agent_block(name: str, runs: pd.DataFrame, best: str, seconds: float) -> str:
    """One scenario's tables: every policy ranked by mean JCT, then the agents' paired rows.

    :param name: the scenario (preset name).
    :param runs: one row per (policy, seed) with every metric of :data:`COLUMNS` and :data:`PAIRED`.
    :param best: the best heuristic on these runs.
    :param seconds: wall time of the measurement (s).
    """
    scenario = load_scenario(name)
    seeds = sorted(runs["seed"].unique())
    mean, std = mean_std(runs, [k for k, _, _ in COLUMNS])
    lines = [f"**{scenario.name}** ({scenario.n_gpus} GPUs, {scenario.workload.jobs} jobs, window "
             f"{scenario.window}, seeds {seeds[0]}-{seeds[-1]}, mean ± std; {seconds:.0f} s)", "", *_header()]
    for p in mean.sort_values(BEST_BY, kind="stable").index:
        lines.append(_mean_std_row(f"{p}{' (best heuristic)' if p == best else ''}", mean.loc[p], std.loc[p]))
    baselines, agents = paired_plan(scenario.window, best, list(mean.index))
    rounds = [p for p in mean.index if p in ROUND_POLICIES]
    if rounds:  # the agent against the best round policy too (by mean JCT on these seeds)
        baselines.append(mean.loc[rounds, BEST_BY].idxmin())
    lines += ["", "| agent | against | metric | agent | baseline | difference [95 % interval] | "
              "relative | won/tied/lost |", "|---|---|---|---|---|---|---|---|"]
    comparison = Comparison(name, runs, {})
    for baseline in baselines:
        card = scorecard(comparison, baseline, list(PAIRED))
        for agent in agents:
            for r in card[card["policy"] == agent].itertuples():
                rel = f"{100 * r.diff / r.baseline_mean:+.1f} %" if r.baseline_mean else ""
                lines.append(f"| {agent} | {baseline} | {r.metric} | {r.policy_mean:.2f} | "
                             f"{r.baseline_mean:.2f} | {r.diff:+.2f} [{r.low:+.2f}, {r.high:+.2f}] | {rel} | "
                             f"{r.wins}/{r.ties}/{r.losses} |")
    lines += rounds_block(runs, best)
    return "\n".join(lines)


FAIRNESS_COLUMNS = (("rho_mean", "mean ρ", "{:.2f}"), ("rho_max", "max ρ", "{:.2f}"),
                    ("rho_over_1_share", "share ρ > 1", "{:.2f}"), ("jain_index", "Jain's index", "{:.3f}"),
                    ("type_changes_per_job", "type changes per job", "{:.1f}"))
"""The fairness table's columns (the keys of :data:`gpusched.core.metrics.FAIRNESS_METRIC_KEYS`)."""
TWIN_PAIRED = ("avg_jct_min", "rho_mean", "jain_index", "type_changes_per_job")
"""The metrics each ``_perf`` round policy is paired on against its heterogeneity-agnostic twin."""


def rounds_block(runs: pd.DataFrame, best: str) -> list[str]:
    """The fairness table and the agnostic-against-``_perf`` rows of a preset measured with round
    policies: its round policies, the best heuristic, ``fcfs+first_fit`` and the agents."""
    policies = list(dict.fromkeys(runs["policy"]))
    rounds = [p for p in policies if p in ROUND_POLICIES]
    if not rounds:
        return []
    shown = list(dict.fromkeys([*rounds, best, *(p for p in FLEET_BASELINES[:1] if p in policies),
                                *(p for p in policies if p.split(":")[0] in AGENT_NAMES)]))
    mean, std = mean_std(runs, [k for k, _, _ in FAIRNESS_COLUMNS])
    lines = ["", "Fairness (mean ± std over the seeds; ρ is each job's finish-time fairness, "
             "[metrics](../metrics.md#per-run-metrics)):", "",
             "| policy | " + " | ".join(c[1] for c in FAIRNESS_COLUMNS) + " |",
             "|---|" + "---|" * len(FAIRNESS_COLUMNS)]
    for p in mean.loc[shown].sort_values("rho_mean", kind="stable").index:
        cells = [f"{fmt.format(mean.loc[p, k])} ± {fmt.format(std.loc[p, k])}"
                 for k, _, fmt in FAIRNESS_COLUMNS]
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    twins = agnostic_twins(policies)
    if twins:
        lines += ["", "Each `_perf` round policy paired seed by seed with its heterogeneity-agnostic twin:",
                  "",
                  "| policy | against | metric | policy | twin | difference [95 % interval] | relative "
                  "| won/tied/lost |", "|---|---|---|---|---|---|---|---|"]
        comparison = Comparison("rounds", runs, {})
        for agnostic, perf in twins:
            card = scorecard(comparison, agnostic, list(TWIN_PAIRED))
            for r in card[card["policy"] == perf].itertuples():
                rel = f"{100 * r.diff / r.baseline_mean:+.1f} %" if r.baseline_mean else ""
                lines.append(f"| {perf} | {agnostic} | {r.metric} | {r.policy_mean:.2f} "
                             f"| {r.baseline_mean:.2f} | {r.diff:+.2f} [{r.low:+.2f}, {r.high:+.2f}] "
                             f"| {rel} | {r.wins}/{r.ties}/{r.losses} |")
    return lines


def window_agent_markdown(data: dict) -> str:
    """``docs/results/window-agent.md`` from what ``window_agent_table.py --json`` writes."""
    blocks = [window_agent_block(name, pd.DataFrame(d["runs"]), d["best_heuristic"], d["seconds"])
              for name, d in data.items()]
    intro = (
        "# The window agent on seeds never used in training\n\n"
        "Generated by `python benchmarks/render_results.py` from `benchmarks/results/window-agent.json`, "
        "which `python benchmarks/window_agent_table.py --json benchmarks/results/window-agent.json` "
        "measured; do not edit by hand. Each table lists every policy, mean ± std over the seeds, ranked by "
        "average job completion time (JCT, the time to result). Below it, each agent is paired seed by "
        "seed with the best heuristic (the shipped pair with the lowest mean JCT on these same seeds) and "
        "with the other baselines: the mean difference (agent − baseline) with its 95 % interval "
        "(Student t; for the p99 wait, whose per-seed values are skewed, a BCa bootstrap over the seeds), "
        "the difference relative to the baseline's mean, and the seeds won, tied and lost. "
        "`ppo` is the greedy network, with no search; `ppo_rollout` is the same network deciding with "
        "rollouts of itself, scored by JCT. On the FIFO presets (window 1) `ppo` runs the FIFO agent, and "
        f"the window agent is named by its file (`{WINDOW_AGENTS[0]}`). What the tables show: "
        "[the agent](../agent.md#the-window-agent-on-seeds-never-used-in-training).")
    return intro + "\n\n" + "\n\n".join(blocks) + "\n"


def _bracket(low: float, high: float, seeds: int) -> str:
    """A paired difference's 95 % interval over ``seeds`` seeds, or that there is none (one seed
    gives no interval)."""
    if np.isfinite(low) and np.isfinite(high):
        return f"[{low:+.2f}, {high:+.2f}]"
    return "[no interval from one seed]" if seeds < 2 else "[no interval]"


def _planner_rows(runs: pd.DataFrame, scenario: str, baselines: list[str]) -> list[str]:
    """The planner against each baseline, paired seed by seed: mean JCT and p99 wait."""
    lines = ["| policy | against | metric | difference [95 % interval] | relative | won/tied/lost |",
             "|---|---|---|---|---|---|"]
    for baseline in baselines:
        card = scorecard(Comparison(scenario, runs, {}), baseline, ["avg_jct_min", "p99_wait_min"])
        for r in card[card["policy"] == PLANNER].itertuples():
            relative = f"{100 * r.diff / r.baseline_mean:+.1f} %" if r.baseline_mean else "—"
            interval = _bracket(r.low, r.high, r.seeds)
            lines.append(f"| {PLANNER} | {baseline} | {r.metric} | {r.diff:+.2f} {interval} | {relative} | "
                         f"{r.wins}/{r.ties}/{r.losses} |")
    return lines


def lookahead_cut_section(data: dict) -> str:
    """One large preset's section of ``docs/results/lookahead-bound.md``: the planner cut at a
    horizon (what ``lookahead_bound.py --horizon-min`` writes) against the best pair under the same
    information and its own base."""
    runs = pd.DataFrame(data["runs"])
    best, scenario, setting = data["best_heuristic"], data["scenario"], data["setting"]
    base, horizon = data["planner"]["base"], data["planner"]["horizon_min"]
    seeds = sorted(runs["seed"].unique())
    planner = runs[runs["policy"] == PLANNER]
    mean, std = mean_std(runs, [k for k, _, _ in COLUMNS])
    told = f"run times from `{setting}`" if setting else "run times as the preset declares them"
    knowledge = data["best_from"] == "knowledge table"
    moves = (f" `{best}` moves running jobs to faster GPUs as they free up; the planner's actions, as "
             "the window agent's, only start a window job or hold, so the best rule acts where the planner "
             "cannot." if policy_info(best.partition("+")[2]).moves_from else "")
    where = (f"the pair with the lowest mean JCT under `{setting}` in the knowledge table "
             "([what the scheduler knows](urgency.md), its pairs on its seeds)" if knowledge
             else "the shipped pair with the lowest mean JCT on these seeds")
    command = (f"`python benchmarks/lookahead_bound.py --scenario {scenario}"
               f"{f' --setting {setting}' if setting else ''} --base {base} --horizon-min {horizon:g}"
               f"{' --best-from benchmarks/results/urgency.json' if knowledge else ''}"
               f" --workers 1`, one seed at a time, each seed's runs added to the JSON file as the seed "
               "ends (`--merge` of one-seed parts, or `--resume`, which appends seed by seed)")
    lines = [
        f"## {scenario}, {told}", "",
        f"Measured by {command}. At each decision where the window offers more than one distinct action "
        f"(and `{base}` neither preempts nor moves a job), `{PLANNER}` plays every distinct (window job, "
        f"GPU) action and HOLD, then `{base}` for **{horizon:g} minutes** on a fork that knows the whole "
        "future, and scores each fork by the job-minutes spent in the system up to the cut plus a lower "
        "bound of the minutes the unfinished jobs still need (a running job's true time left, a queued "
        "job's remaining work at its best speed); it keeps the lowest, ties going to the base's choice. "
        "Two actions are one when they start the same job on GPUs of the same model with the same free "
        "VRAM and compute. **This is a clairvoyant planner's reach with a "
        f"{horizon:g}-minute horizon, not a proven bound**: a cut rollout sees no wait after the cut, so "
        "the planner may choose worse than its base, and a longer horizon or another base may reach "
        "further.", "",
        f"Seeds {', '.join(str(s) for s in seeds)} ({len(seeds)} of the held-out 1000–1009), mean ± std. "
        f"Best rule under the same information: `{best}`, {where}, run here on these seeds. Per run, "
        f"`{PLANNER}` searched {planner['planned'].mean():,.0f} of {planner['decisions'].mean():,.0f} "
        f"decisions, left its base at {planner['departed'].mean():,.0f}, played "
        f"{planner['forks'].mean():,.0f} forks and took {planner['seconds'].mean():,.0f} s of wall "
        f"time ({planner['cpu_seconds'].mean():,.0f} s of CPU) on a shared 2-core machine "
        f"(`{base}` alone: {runs.loc[runs['policy'] == base, 'seconds'].mean():,.1f} s).{moves}", "",
        *_header()]
    for p in dict.fromkeys([PLANNER, best, base]):
        tags = [t for t, on in (("best rule", p == best), ("planner's base", p == base)) if on]
        label = f"{p} ({', '.join(tags)})" if tags else p
        lines.append(_mean_std_row(label, mean.loc[p], std.loc[p]))
    lines += ["", "The headroom: the planner minus the best rule (and minus its own base), paired seed by "
              "seed: Student t for the average JCT, a BCa bootstrap for the p99 wait.", "",
              *_planner_rows(runs, scenario, list(dict.fromkeys([best, base])))]
    return "\n".join(lines)


def _best_moving_rule(mean: pd.DataFrame | pd.Series, moving: Sequence[str]) -> str | None:
    """The rule of ``moving`` (``lookahead_bound.py --moving``) with the lowest mean JCT among those
    measured (``mean`` by policy: a frame with ``avg_jct_min`` or that column alone); ``None``: none."""
    jct = mean["avg_jct_min"] if isinstance(mean, pd.DataFrame) else mean
    measured = [p for p in moving if p in jct.index]
    return min(measured, key=lambda p: jct[p]) if measured else None


def _paired(runs: pd.DataFrame, scenario: str, policy: str, baseline: str,
            metrics: Sequence[str] = ("avg_jct_min",)) -> pd.DataFrame:
    """``policy`` minus ``baseline`` paired seed by seed (the scorecard's row of each metric,
    indexed by metric)."""
    card = scorecard(Comparison(scenario, runs, {}), baseline, list(metrics))
    return card[card["policy"] == policy].set_index("metric")


def lookahead_moving_base_section(data: dict) -> str:
    """The fleet's planner over a base that moves jobs (what ``lookahead_bound.py --base
    ORDER+fastest_move --moving`` writes), against the best rule that moves jobs and the best pair."""
    runs = pd.DataFrame(data["runs"])
    scenario, best, base = data["scenario"], data["best_heuristic"], data["planner"]["base"]
    mean, std = mean_std(runs, [k for k, _, _ in COLUMNS])
    moving = [p for p in data["moving"] if p in mean.index]
    mover = _best_moving_rule(mean, moving)
    seeds = sorted(runs["seed"].unique())
    wide = runs.pivot_table(index="seed", columns="policy", values="avg_jct_min")
    above = int((wide[PLANNER] > wide[base] + 1e-9).sum())
    never = (f"On every seed its mean JCT is at most `{base}`'s." if not above else
             f"Its mean JCT is above `{base}`'s on {above} of {len(seeds)} seeds.")
    row = _paired(runs, scenario, PLANNER, mover).loc["avg_jct_min"]
    lines = [
        f"## {scenario}, over a base that moves jobs", "",
        f"Measured by `python benchmarks/lookahead_bound.py --base {base} --moving"
        f"{' --deployable' if DEPLOYABLE in set(runs['policy']) else ''} --workers 1 "
        f"--json benchmarks/results/{LOOKAHEAD_MOVING_BASE_JSON.name} --resume`. `{PLANNER}` plays every "
        f"distinct (window job, GPU) action and HOLD, then `{base}` to the end, on a fork that knows the "
        f"whole future, and keeps the lowest average JCT; where `{base}` moves a running job, it moves it as "
        f"`{base}` does, without a fork. So it bounds what one step of perfect foresight adds to a rule that "
        f"moves jobs. {never}", "",
        f"Seeds {seeds[0]}-{seeds[-1]}, mean ± std; `{PLANNER}` took "
        f"{runs.loc[runs.policy == PLANNER, 'seconds'].mean():.0f} s per run. Beside it: the best rule that "
        f"moves jobs (of {', '.join(f'`{p}`' for p in moving)}) and the best shipped pair.", "", *_header()]
    deployable = DEPLOYABLE in mean.index
    for p in dict.fromkeys([PLANNER, *([DEPLOYABLE] if deployable else []), mover, base, best]):
        tags = [t for t, on in (("told only the arrived jobs", p == DEPLOYABLE),
                                ("best rule that moves jobs", p == mover), ("planner's base", p == base),
                                ("best heuristic", p == best)) if on]
        lines.append(_mean_std_row(f"{p} ({', '.join(tags)})" if tags else p, mean.loc[p], std.loc[p]))
    lines += ["", "Paired seed by seed: Student t for the average JCT, a BCa bootstrap for the p99 wait.", "",
              *_planner_rows(runs, scenario, list(dict.fromkeys([mover, best]))), "",
              f"The headroom above the rules that move jobs: {row['diff']:+.2f} min "
              f"{_bracket(row['low'], row['high'], row['seeds'])} against `{mover}` "
              f"({100 * row['diff'] / row['baseline_mean']:+.1f} %; won/tied/lost by the planner "
              f"{row['wins']}/{row['ties']}/{row['losses']})."]
    if deployable:
        lines += ["", _deployable_sentence(runs, scenario, base)]
    return "\n".join(lines)


def _deployable_sentence(runs: pd.DataFrame, scenario: str, base: str) -> str:
    """What the planner told only the arrived jobs reaches against its base, and what the
    clairvoyant planner adds over it, each paired seed by seed."""
    own = _paired(runs, scenario, DEPLOYABLE, base).loc["avg_jct_min"]
    lead = _paired(runs, scenario, PLANNER, DEPLOYABLE).loc["avg_jct_min"]
    mean = runs.loc[runs.policy == DEPLOYABLE, "avg_jct_min"].mean()
    seconds = runs.loc[runs.policy == DEPLOYABLE, "seconds"].mean()
    return ("Told only the jobs that have arrived and their declared run times (`--deployable`, "
            f"`{DEPLOYABLE}`: a scheduler one could run, with the rules' information; {seconds:.1f} s a "
            f"run), the same search over `{base}` averages {mean:.2f} min: {own['diff']:+.2f} min "
            f"{_bracket(own['low'], own['high'], own['seeds'])} against `{base}` "
            f"({own['wins']}/{own['ties']}/{own['losses']} seeds won/tied/lost). What the clairvoyant "
            f"planner adds over it, {lead['diff']:+.2f} min "
            f"{_bracket(lead['low'], lead['high'], lead['seeds'])}, is what knowing the future buys.")


def lookahead_bound_markdown(data: dict, cut: Sequence[dict] = (), moving_base: dict | None = None) -> str:
    """``docs/results/lookahead-bound.md`` from what ``lookahead_bound.py --json`` writes: the
    fleet's bound, the fleet's planner over a base that moves jobs (``moving_base``, when shipped),
    then a section per large preset of ``cut``."""
    runs = pd.DataFrame(data["runs"])
    best = data["best_heuristic"]
    seeds = sorted(runs["seed"].unique())
    mean, std = mean_std(runs, [k for k, _, _ in COLUMNS])
    lines = [
        "# The clairvoyant bound in the window agent's action space", "",
        "Generated by `python benchmarks/render_results.py` from `benchmarks/results/lookahead-bound.json`, "
        "which `python benchmarks/lookahead_bound.py --json benchmarks/results/lookahead-bound.json` "
        f"measured; do not edit by hand. `{PLANNER}` plays every distinct (window job, GPU) action and "
        "HOLD, then `sjf+fastest_fit` to the end, on a fork that knows the whole future, and keeps the "
        "lowest average JCT. No scheduler could run it; it bounds what one step of perfect foresight buys "
        "([the agent](../agent.md#training-on-time-to-result)).", "",
        f"**{data['scenario']}**, seeds {seeds[0]}-{seeds[-1]}, mean ± std; `{PLANNER}` took "
        f"{runs.loc[runs.policy == PLANNER, 'seconds'].mean():.0f} s per run.", "", *_header()]
    moving = [p for p in data.get("moving", []) if p in mean.index]
    mover = _best_moving_rule(mean, moving)
    for p in (PLANNER, best):
        lines.append(_mean_std_row(f"{p}{' (best heuristic)' if p == best else ''}", mean.loc[p], std.loc[p]))
    if mover is not None:
        lines.append(_mean_std_row(f"{mover} (best rule that moves jobs)", mean.loc[mover], std.loc[mover]))
    lines += ["", "Paired intervals: Student t for the average JCT, a BCa bootstrap over the seeds for the "
              "p99 wait (skewed, never negative).", "",
              *_planner_rows(runs, data["scenario"], [best] if mover is None else [best, mover])]
    if mover is not None:
        lines += ["", moving_rules_paragraph(runs, data["scenario"], moving, mover)]
    extra = [] if moving_base is None else [lookahead_moving_base_section(moving_base)]
    return "\n\n".join(["\n".join(lines), *extra, *(lookahead_cut_section(d) for d in cut)]) + "\n"


def moving_rules_paragraph(runs: pd.DataFrame, scenario: str, moving: Sequence[str], mover: str) -> str:
    """What the rules that move running jobs (``lookahead_bound.py --moving``) reach beside the
    bound: an action outside the planner's space, so never its best rule; each clause follows the
    paired difference of the best of them against the planner."""
    planner = _paired(runs, scenario, PLANNER, mover, ("avg_jct_min", "p99_wait_min"))
    jct, p99 = planner.loc["avg_jct_min"], planner.loc["p99_wait_min"]
    interval = _bracket(jct.low, jct.high, jct.seeds)
    if jct.low > 0:
        verdict, reach = (f"{jct['diff']:+.2f} min {interval}: its mean JCT is below the planner's",
                          "beyond the bound of this action space")
    elif jct.high < 0:
        verdict, reach = (f"{jct['diff']:+.2f} min {interval}: the planner's mean JCT is the lower",
                          "short of the bound of this action space")
    else:
        verdict, reach = (f"{jct['diff']:+.2f} min {interval}, an interval that includes 0",
                          "as far as the bound of this action space, within the interval")
    tail = "shorter" if p99.high < 0 else "longer" if p99.low > 0 else "not different beyond its interval"
    ran = ", ".join(f"`{p}`" for p in moving)
    return ("**Rules that move jobs.** The planner's actions, as the window agent's, only start a window "
            "job or hold. A rule may also move a running job to a faster GPU as one frees up "
            "(`ORDER+fastest_move`, [policies](../policies.md)): these rules are run beside the bound "
            f"(`--moving`: {ran}) and never taken as its best rule. The best of them, `{mover}`, reaches "
            f"{reach}. The planner minus `{mover}`: {verdict} ({jct.wins}/{jct.ties}/{jct.losses} seeds "
            f"won/tied/lost by the planner); the planner's p99 wait is {tail} "
            f"({p99['diff']:+.1f} min {_bracket(p99.low, p99.high, p99.seeds)}).")


def _stall_row(f: FamilyFinding) -> str:
    share = f.causes[f.dominant_cause] / sum(f.causes.values()) if f.dominant_cause else 0.0
    cause = f"{f.dominant_cause} ({100 * share:.0f} %)" if f.dominant_cause else "none"
    ratio = f"{100 * f.ff_blocked_min / f.ll_queued_min:.0f} %" if f.ll_queued_min else "—"
    d = f.wait_diff
    return (f"| `{f.family}` | {'yes' if f.stalls else 'no'} ({f.wait_ratio:.2f}×) | "
            f"{d.mean:+.1f} [{d.low:.1f}, {d.high:.1f}] | {cause} | {policy_label(f.worst_variant)} | "
            f"{'yes' if f.ff_blocks_as_badly else 'no'} ({ratio}) |")


def stall_conditions_markdown(findings: list[FamilyFinding]) -> str:
    """``docs/results/stall-conditions.md`` from the shipped conditions map's findings."""
    runs = "/".join(str(n) for n in sorted({f.runs for f in findings}))
    return "\n".join([
        "# Where the Least-Loaded stall happens: what the conditions map measured", "",
        "Generated by `python benchmarks/render_results.py` from the shipped sweep "
        "`assets/sweeps/results/stall-conditions/` (`gpusched sweep assets/sweeps/stall-conditions.yaml`); "
        f"do not edit by hand. Paired differences over the {runs} (load, seed) runs of each family "
        "(`gpusched.experiment.stall.conditions_findings`). What the columns mean: "
        "[scenarios and limits](../scenarios.md#where-the-least-loaded-stall-happens).", "",
        "| family | Least-Loaded stalls (mean wait ratio) | Least-Loaded − First-Fit wait (min, 95 % CI) "
        "| dominant misroute cause (share) | variant with the longest stall | First-Fit blocks as badly "
        "(its idle GPU-min blocked / LL's queued) |",
        "|---|---|---|---|---|---|",
        *(_stall_row(f) for f in findings)]) + "\n"


# ---------------------------------------------------------------------------- Gavel cross-check
GAVEL_ROUNDS = {"r60w0": "60 s / 0 s", "r360w1920": "360 s / 1,920 s"}
"""Gavel's round settings (round length / time between allocation resets), by run-name suffix."""
GAVEL_MOVING_COMMANDS = ("python benchmarks/gavel_crosscheck.py", "python benchmarks/render_results.py",
                         "python -m pytest tests/test_gavel_crosscheck.py tests/test_docs_results.py -q")
"""What to run again once ``fastest_move`` is registered."""
CROSSCHECK_HEADER = (
    "| run | cluster (V100:P100:K80) | Gavel rounds / resets | seed | gpusched policy | Gavel mean JCT (s) "
    "| gpusched mean JCT (s) | difference | jobs within 5 % | criterion |\n"
    "|---|---|---|---|---|---|---|---|---|---|")
"""The header of the tier-1 and tier-2 tables."""


def _signed_s(x: float) -> str:
    """Seconds with their sign, thousands separated, and a true minus sign."""
    return signed(x, 0) if round(x) == 0 else f"{x:+,.0f}".replace("-", "−")


def _cluster(c: dict) -> str:
    return f"{c['v100']}:{c['p100']}:{c['k80']}"


def _verdict_cell(passes: bool | None) -> str:
    return "—" if passes is None else ("**pass**" if passes else "**fail**")


def _crosscheck_row(r: dict, criterion: str) -> str:
    return (f"| `{r['run']}` | {_cluster(r['cluster'])} | {GAVEL_ROUNDS[r['rounds']]} | {r['seed']} | "
            f"`{r['policy']}` | {r['gavel_mean_jct_s']:,.0f} | {r['gpusched_mean_jct_s']:,.0f} | "
            f"{signed(r['diff_pct'], 2)} % | {r['jobs_within']} / {r['jobs']} | {criterion} |")


def _tier1_section(rows: list[dict], c: dict) -> list[str]:
    fine = [r for r in rows if r["criterion"] is not None]
    driver = [r for r in rows if r["criterion"] is None]
    met = all(r["criterion"] for r in fine)
    lines = ["## Tier 1: V100 only, FIFO", "",
             "`fcfs+first_fit` against Gavel's `fifo_perf` on 12 V100s. Criterion, against Gavel at 60 s "
             f"rounds with no wait between allocation resets: mean JCT within {c['tier1_mean_pct']:g} % "
             f"and at least {100 * c['tier1_jobs_share']:.0f} % of jobs within {100 * c['within']:.0f} %. "
             "The trace driver's own settings (360 s / 1,920 s) are reported beside it, with no criterion.",
             "", CROSSCHECK_HEADER]
    lines += [_crosscheck_row(r, _verdict_cell(r["criterion"])) for r in rows]
    lines += ["", "| run | Gavel rounds / resets | Gavel − gpusched per job: mean (s) | largest (s) "
              "| smallest (s) |", "|---|---|---|---|---|"]
    lines += [f"| `{r['run']}` | {GAVEL_ROUNDS[r['rounds']]} | {r['mean_gavel_minus_gpusched_s']:,.0f} | "
              f"{r['largest_gavel_minus_gpusched_s']:,.0f} | {r['smallest_gavel_minus_gpusched_s']:,.1f} |"
              for r in rows]
    earliest = min(r["smallest_gavel_minus_gpusched_s"] for r in rows)
    fine_text = ", ".join(f"{signed(r['diff_pct'], 2)} % and {r['jobs_within']} / {r['jobs']} jobs"
                          for r in fine)
    driver_jobs = " and ".join(f"{r['jobs_within']} / {r['jobs']}" for r in driver)
    driver_pct = " and ".join(f"{signed(-r['diff_pct'], 2)} %" for r in driver)
    earlier = ("No job finishes earlier in Gavel than in gpusched" if earliest >= 0
               else "Some jobs finish earlier in Gavel than in gpusched")
    lines += ["", f"**{'Met' if met else 'Not met'}** at 60 s rounds on both lists ({fine_text}). "
              f"At the driver's settings {driver_jobs} jobs are within 5 % and Gavel's mean is {driver_pct} "
              f"above gpusched's. {earlier} (smallest Gavel − gpusched: {earliest:.1f} s): the difference "
              "is a delay, and it is Gavel's rounds. "
              "Jobs enter Gavel's scheduler only at round boundaries, a GPU whose job ends inside a round "
              "stays idle until the round ends, and the allocation is recomputed only when at least the "
              "reset interval has passed since the last one, so at 360 s / 1,920 s a job can wait up to "
              "about 1,920 s to start on an idle GPU, and each delay pushes back every job queued behind it; "
              "on the longer list the queue is longer and the delays compound. At 60 s rounds with no wait "
              "the delay is at most a round or so per start. gpusched is event-driven: a job starts the "
              "instant a GPU frees (on V100 only, `fcfs+first_fit` is plain first come, first served). "
              "A job is within 5 % when its two JCTs differ by at most 5 % of Gavel's."]
    return lines


def _tier2_section(t2: dict, c: dict) -> list[str]:
    lines = ["## Tier 2: mixed GPUs", "",
             f"`{t2['moving_policy']}` (with `checkpoint.restore_min: 0`: Gavel moves jobs for free) "
             f"against Gavel's `fifo_perf`, at both round settings, {c['tier2_seeds']} seeds on 4:4:4 and "
             f"8:8:8. Criterion: mean JCT within {c['tier2_mean_pct']:g} % on every run of at least "
             f"{c['tier2_seeds']} seeds and {c['tier2_sizes']} cluster sizes. `fcfs+fastest_fit` and "
             "`fcfs+eft` never move a running job; they are the baselines, with no criterion.", ""]
    if not t2["moving_available"]:
        lines += [f"**`{t2['moving_policy']}`: not available.** The placement `fastest_move` is not "
                  "registered in this build, so the criterion is unmeasured. Once it is, run "
                  + ", then ".join(f"`{cmd}`" for cmd in GAVEL_MOVING_COMMANDS) + ".", ""]
    else:
        moved = [r for r in t2["rows"] if r["policy"] == t2["moving_policy"]]
        ok = sum(r["criterion"] for r in moved)
        lines += [f"**{'Met' if t2['passes'] else 'Not met'}**: {ok} of {len(moved)} runs of "
                  f"`{t2['moving_policy']}` within {c['tier2_mean_pct']:g} %.", ""]
    lines += [CROSSCHECK_HEADER]
    lines += [_crosscheck_row(r, "baseline" if r["criterion"] is None else _verdict_cell(r["criterion"]))
              for r in t2["rows"]]
    base = [r for r in t2["rows"] if r["criterion"] is None]
    above = sum(r["diff_pct"] > 0 for r in base)
    low, high = min(r["diff_pct"] for r in base), max(r["diff_pct"] for r in base)
    lines += ["", f"The baselines are above Gavel's mean on {above} of {len(base)} runs "
              f"({signed(low, 2)} % to {signed(high, 2)} %)"
              + (": they bracket it from above. " if above == len(base) else ". ")
              + "Gavel's `fifo_perf` recomputes the allocation in arrival order and moves an older job "
              "up to a faster GPU type, for free, as one frees up; a job placed by these policies keeps "
              "its GPU to the end (`fcfs+eft` may wait for a faster GPU instead, `fcfs+fastest_fit` never "
              "waits), so a long job started on a K80 stays there."]
    return lines


def _tier3_paired_row(p: dict) -> str:
    verdict = "Gavel against itself" if p["criterion"] is None else _verdict_cell(p["criterion"])
    return (f"| {p['a']} − {p['b']} | {p['a_mean_jct_s']:,.0f} | {p['b_mean_jct_s']:,.0f} | "
            f"{_signed_s(p['diff_s'])} [{_signed_s(p['low_s'])}, {_signed_s(p['high_s'])}] | "
            f"{signed(100 * p['diff_s'] / p['b_mean_jct_s'], 1)} % | {p['a_lower']} / {p['a_higher']} | "
            f"{verdict} |")


def _tier3_section(t3: dict, c: dict) -> list[str]:
    rows = {(r["seed"], r["rounds"]): r for r in t3["rows"]}
    seeds = t3["seeds"]
    level = f"{100 * c['tier3_confidence']:.0f} %"
    lines = ["## Tier 3: random placement", "",
             "gpusched's `random` against Gavel's `fifo` with its GPU-type bug fixed (`fifo_fixed`: the "
             "line that reads the drawn type added at run time, as `benchmarks/gavel/README.md` says), on "
             f"4:4:4, {len(seeds)} seeds ({seeds[0]}–{seeds[-1]}), each seed its own job list and the "
             "policy's seed.", "",
             "What \"random\" means in each: both are first come, first served, and a job that finds "
             "its GPUs busy waits at the head of the queue. gpusched's `random` draws a **GPU** "
             "uniformly among the GPUs where the job fits (here, the free ones), from a NumPy generator "
             "seeded with the run's seed. Gavel's `fifo_fixed` draws a **GPU type** uniformly among the "
             "types with enough free GPUs, once per job, from Python's `random.Random(seed)`, and a job "
             "that ends hands its type to the oldest waiting job without a draw. So with 3 free V100s and "
             "1 free K80, gpusched sends a job to the K80 with probability 1/4 and Gavel with 1/2; when "
             "one GPU frees under a queue both simply give it to the head job. The two draw from different "
             "streams, so per-job JCTs are not expected to agree (the jobs-within column shows how little "
             "they do), and Gavel's own two round settings draw differently from each other. The "
             f"comparison is of mean JCT, seed by seed on the same jobs. Criterion: the paired {level} "
             "interval (Student t) of the per-seed difference contains 0, against each round setting.", "",
             "| seed | Gavel mean JCT, 360 s / 1,920 s (s) | Gavel mean JCT, 60 s / 0 s (s) "
             "| gpusched `random` (s) | difference vs 360 s / 1,920 s | vs 60 s / 0 s "
             "| jobs within 5 %, 360 s / 1,920 s | 60 s / 0 s |", "|---|---|---|---|---|---|---|---|"]
    for s in seeds:
        d, f = rows[s, "r360w1920"], rows[s, "r60w0"]
        lines.append(f"| {s} | {d['gavel_mean_jct_s']:,.0f} | {f['gavel_mean_jct_s']:,.0f} | "
                     f"{f['gpusched_mean_jct_s']:,.0f} | {signed(d['diff_pct'], 2)} % | "
                     f"{signed(f['diff_pct'], 2)} % | {d['jobs_within']} / {d['jobs']} | "
                     f"{f['jobs_within']} / {f['jobs']} |")
    lines += ["", "| comparison (a − b) | a: mean over seeds (s) | b: mean over seeds (s) | difference (s) "
              f"[{level} interval] | relative to b | seeds a lower / higher | criterion |",
              "|---|---|---|---|---|---|---|"]
    lines += [_tier3_paired_row(p) for p in t3["paired"]]
    judged = [p for p in t3["paired"] if p["criterion"] is not None]
    widest = max(p["high_s"] - p["low_s"] for p in judged)
    share = 100 * widest / judged[0]["b_mean_jct_s"]
    lines += ["", f"**{'Met' if t3['passes'] else 'Not met'}**: "
              + ("no measurable difference in mean JCT against either round setting"
                 if t3["passes"] else "a measurable difference in mean JCT")
              + f", but over {len(seeds)} seeds the intervals are wide (up to {widest:,.0f} s, about "
              f"{share:.0f} % of the mean): one random placement of 100 long jobs on 12 GPUs varies a great "
              "deal from seed to seed, as Gavel's two round settings show against each other (last row). "
              "This tier shows that the two random rules give means of the same size; it cannot show that "
              "they agree to a few per cent."]
    return lines


def _wall_group_row(key: tuple, rs: list[dict]) -> str:
    tier, rounds, gavel_policy, policy = key
    total = {k: sum(r[k] for r in rs) for k in ("jobs", "gavel_wall_s", "gavel_cpu_s", "gpusched_wall_s",
                                               "gpusched_cpu_s")}
    return (f"| {tier} | {GAVEL_ROUNDS[rounds]} | {len(rs)} | {total['jobs']:,} | `{gavel_policy}` | "
            f"{total['gavel_wall_s']:.2f} | {total['gavel_cpu_s']:.2f} | `{policy}` | "
            f"{total['gpusched_wall_s']:.3f} | {total['gpusched_cpu_s']:.3f} |")


def _wall_section(data: dict) -> list[str]:
    groups: dict[tuple, list[dict]] = {}
    for r in [*data["tier1"], *data["tier2"]["rows"], *data["tier3"]["rows"]]:
        groups.setdefault((r["tier"], r["rounds"], r["gavel_policy"], r["policy"]), []).append(r)
    w = data["wall"]
    first = w["rows"][0]
    load = data["machine"]["load_average_1min"]
    lines = ["## Wall times, on the same job lists", "",
             "Gavel's times are its `simulate` call's (log silenced), stored in "
             "`benchmarks/gavel/references.json`; gpusched's are measured by "
             "`benchmarks/gavel_crosscheck.py` from the scenario to the result (the job list read "
             "included), one run each. Both on this "
             f"project's shared 2-core machine, which other work shared (load average {load:g} when "
             "gpusched's were measured; Gavel's were measured at 4 to 7), so CPU time is the fairer "
             "comparison.", "",
             "gpusched has no rounds, so its run of a list is the same against both of Gavel's round "
             "settings; each row times it again.", "",
             "| tier | Gavel rounds / resets | runs | jobs (all runs) | Gavel policy | Gavel wall (s) "
             "| Gavel CPU (s) | gpusched policy | gpusched wall (s) | gpusched CPU (s) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    lines += [_wall_group_row(key, rs) for key, rs in groups.items()]
    lines += ["", f"The wall-time list (`{w['run']}`: {first['jobs']:,} jobs on "
              f"{_cluster(first['cluster'])}, Gavel's `fifo_perf` at {GAVEL_ROUNDS[first['rounds']]}): "
              f"Gavel's `simulate` took {first['gavel_wall_s']:.2f} s of wall time "
              f"({first['gavel_cpu_s']:.2f} s CPU) and its trace driver, log included, "
              f"{w['gavel_trace_driver_wall_s']:.2f} s ({w['gavel_trace_driver_cpu_s']:.2f} s CPU), for a "
              f"mean JCT of {first['gavel_mean_jct_s']:,.0f} s.", "",
              "| gpusched policy | wall (s) | CPU (s) | mean JCT (s) | difference from Gavel's `fifo_perf` "
              "| mean wait (s) |", "|---|---|---|---|---|---|"]
    lines += [f"| `{r['policy']}` | {r['gpusched_wall_s']:.3f} | {r['gpusched_cpu_s']:.3f} | "
              f"{r['gpusched_mean_jct_s']:,.0f} | {signed(r['diff_pct'], 2)} % | "
              f"{r['gpusched_mean_wait_s']:,.0f} |" for r in w["rows"]]
    eft = {r["policy"]: r for r in w["rows"]}
    if "fcfs+eft" in eft and "fcfs+fastest_fit" in eft:
        e, f = eft["fcfs+eft"], eft["fcfs+fastest_fit"]
        lines += ["", f"On this list `fcfs+eft` waits {e['gpusched_mean_wait_s']:,.0f} s on average against "
                  f"{f['gpusched_mean_wait_s']:,.0f} s for `fcfs+fastest_fit`: under a strict first come, "
                  "first served queue, a head job that waits for a faster GPU holds every job behind it."]
    return lines


def gavel_crosscheck_markdown(data: dict) -> str:
    """``docs/results/gavel-crosscheck.md`` from what ``gavel_crosscheck.py`` writes."""
    import yaml

    c = data["criteria"]
    lines = [
        "# gpusched beside Gavel's simulator: the cross-check", "",
        "Generated by `python benchmarks/render_results.py` from `benchmarks/results/gavel-crosscheck.json`, "
        "which `python benchmarks/gavel_crosscheck.py` measured; do not edit by hand. Gavel (Narayanan et "
        "al., \"Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning Workloads\", OSDI 2020; "
        f"MIT licence) ran each job list at commit `{data['gavel']['commit'][:12]}`; its per-job JCTs, "
        "settings and wall times are stored in `benchmarks/gavel/` (how they were made, and how Gavel's "
        "rounds behave: [its README](../../benchmarks/gavel/README.md)). gpusched runs the same lists "
        "through its scenario surface alone: "
        "[`speed: gavel`](../scenarios.md#gavels-measured-speeds-speed-gavel), the run's cluster as nodes "
        "of one GPU each, and [`workload.trace.jobs`](../scenarios.md#job-lists-workloadtracejobs) naming "
        "the job list, whose jobs take a whole GPU (`compute` 1.0, the job list's default). For the first "
        "list:", "",
        "```yaml", yaml.safe_dump(data["scenario_example"], sort_keys=False).rstrip(), "```", "",
        "A job's JCT is its finish minus its arrival (seconds); a job is within 5 % when its two JCTs "
        "differ by at most 5 % of Gavel's; the difference is gpusched's mean JCT over Gavel's, minus 1.", "",
        *_tier1_section(data["tier1"], c), "", *_tier2_section(data["tier2"], c), "",
        *_tier3_section(data["tier3"], c), "", *_wall_section(data), "",
        "## Out of scope, and why", "",
        "Gavel's time-sliced, LP-based policies (`max_min_fairness*`, `finish_time_fairness`) are not "
        "compared. Each round they solve an optimisation (with cvxpy) for a fractional allocation, the "
        "share of time each job should get on each GPU type, and realise it by time-slicing: every round "
        "the jobs furthest behind their share run, and the others are paused, for free. gpusched has no "
        "such mechanism: a job holds its gang from its start to its end unless it is preempted or moved, "
        "each at a cost, and its policies place jobs event by event. Running those policies beside "
        "gpusched would compare Gavel's LP and its round-robin against a mechanism gpusched does not have, "
        "not the two simulators' dynamics; agreement could not be expected, and no criterion would mean "
        "anything until gpusched gains a round-based fractional allocation.", ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class FgdAccuracy:
    """What ``docs/results/fgd-accuracy.md`` reports.

    :param rows: (trace, policy) pairs compared.
    :param largest_diff: the largest absolute difference from the published mean (percentage points).
    """

    rows: int
    largest_diff: float


def read_fgd_accuracy(text: str) -> FgdAccuracy:
    """The FGD accuracy table's size and its largest absolute difference, read from its rows."""
    rows = [line.split("|")[1:-1] for line in text.splitlines() if re.match(r"\| \w+ \| \d\d-", line)]
    diffs = [abs(float(cells[i].split()[0])) for cells in rows for i in (4, 7)]
    return FgdAccuracy(rows=len(rows), largest_diff=max(diffs))


def _pct(a: float, b: float) -> str:
    """``a`` relative to ``b`` as a signed percentage, with a true minus sign."""
    return f"{signed(100 * (a / b - 1), 1)} %"


def mixes_gpu_sizes(family: str) -> bool:
    """Whether a conditions-map family's cluster holds GPUs of more than one VRAM size."""
    return len({node.vram_gb for node in load_scenario(family).cluster.nodes}) > 1


def agent_against_best(window: dict, name: str) -> PairedDifference:
    """The greedy agent's mean JCT minus the best heuristic's on ``name``, paired seed by seed."""
    runs = pd.DataFrame(window[name]["runs"])
    jct = runs.pivot_table(index="seed", columns="policy", values="avg_jct_min")
    return paired_difference(jct[AGENT_POLICY], jct[window[name]["best_heuristic"]])


def _verdict(diff: PairedDifference, baseline: float, best: str) -> str:
    """A paired difference in words: a percentage when its interval excludes 0, else no difference."""
    return paired_verdict(diff, baseline, f"`{best}`")


def headline_finding(h: Headline) -> str:
    """The README's headline bullet: the same sentence as Home and Compare, from the same numbers."""
    return ("- **Choosing which job runs next matters.** "
            + headline_sentence(h.scenario, h.seeds, h.best, policy_label(h.best), h.mean(h.best),
                                h.baseline, h.mean(h.baseline), h.best_vs_baseline)
            + " Every policy on these seeds: [table](docs/results/window-agent.md).")


def agent_finding(window: dict) -> str:
    """The README's agent bullet: the greedy window agent against the best heuristic on every
    fleet (queue window > 1) of the shipped table, by paired mean JCT; its title follows the
    intervals."""
    fleets = [n for n, d in window.items() if load_scenario(n).window > 1]
    diffs = {n: agent_against_best(window, n) for n in fleets}
    means = {n: pd.DataFrame(window[n]["runs"]).groupby("policy")["avg_jct_min"].mean() for n in fleets}
    home = "fleet-16gpu"
    worse = [n for n in fleets if diffs[n].excludes_zero and diffs[n].mean > 0]
    better = [n for n in fleets if diffs[n].excludes_zero and diffs[n].mean < 0]
    if not worse and not better:
        title = "The learned agent matches the best heuristic, and no more."
    elif worse and not better:
        title = ("The learned agent matches the best heuristic at best." if home not in worse
                 else "The learned agent trails the best heuristic.")
    elif better and not worse:
        title = "The learned agent beats the best heuristic."
    else:
        title = "The learned agent beats the best heuristic on some fleets and trails it on others."
    home_best = window[home]["best_heuristic"]
    others = "; ".join(f"on `{n}` {_verdict(diffs[n], means[n][best], best)}"
                       for n in fleets if n != home for best in [window[n]["best_heuristic"]])
    return (f"- **{title}** Trained on the time to result, the greedy window agent's average time to "
            f"result on `{home}` is **{means[home][AGENT_POLICY]:.1f} min** against "
            f"{means[home][home_best]:.1f} for `{home_best}`, "
            f"{_verdict(diffs[home], means[home][home_best], home_best)} over {diffs[home].n} seeds it "
            f"never saw. On fleets it never trained on: {others}.")


def _min(x: float, fmt: str = "+,.1f") -> str:
    """``x`` formatted with ``fmt``, its minus sign a true minus (as :func:`signed`)."""
    return format(x, fmt).replace("-", "−")


def gavel_load_paired(data: dict, load: float) -> dict[str, PairedDifference]:
    """Each pair's per-seed mean JCT at ``load`` against the baseline's, seed by seed (t interval)."""
    runs = pd.DataFrame(data["runs"])
    at = runs[runs["load"] == load].pivot(index="seed", columns="policy", values="avg_jct_min")
    return {p: paired_difference(at[p].to_numpy(), at[data["baseline"]].to_numpy())
            for p in data["agnostic"] + data["aware"] if p != data["baseline"]}


def gavel_load_means(data: dict) -> pd.DataFrame:
    """Mean over the seeds of each pair's mean JCT (min): one row per load, one column per pair."""
    runs = pd.DataFrame(data["runs"])
    return runs.pivot_table(index="load", columns="policy", values="avg_jct_min", aggfunc="mean")


@dataclass(frozen=True)
class GavelRatio:
    """The agnostic/aware JCT ratio at the sweep's heaviest load.

    :param load: the heaviest load of the sweep.
    :param baseline_jct_min: the baseline's (``fcfs+first_fit``) mean JCT there (min).
    :param best: the aware pair with the lowest mean JCT there.
    :param best_jct_min: its mean JCT (min).
    :param worst_agnostic: the agnostic pair with the highest mean JCT there.
    :param worst_jct_min: its mean JCT (min).
    :param diff: ``best`` against the baseline, paired over the seeds.
    """

    load: float
    baseline_jct_min: float
    best: str
    best_jct_min: float
    worst_agnostic: str
    worst_jct_min: float
    diff: PairedDifference

    @property
    def ratio(self) -> float:
        """The baseline's mean JCT over the best aware pair's."""
        return self.baseline_jct_min / self.best_jct_min

    @property
    def worst_ratio(self) -> float:
        """The worst agnostic pair's mean JCT over the best aware pair's."""
        return self.worst_jct_min / self.best_jct_min


def gavel_ratio(data: dict) -> GavelRatio:
    """:class:`GavelRatio` of the sweep ``data`` (what ``gavel_load_sweep.py`` writes)."""
    load = max(data["loads"])
    means = gavel_load_means(data).loc[load]
    best = min(data["aware"], key=lambda p: means[p])
    worst = max(data["agnostic"], key=lambda p: means[p])
    return GavelRatio(load, float(means[data["baseline"]]), best, float(means[best]), worst,
                      float(means[worst]), gavel_load_paired(data, load)[best])


def _load_name(data: dict, load: float) -> str:
    names = [f"`{name}` ({kind})" for kind, (name, x) in data["presets"].items() if x == load]
    return f"load {load:g}" + (f", {names[0]}" if names else "")


def _gavel_tuning_section(tuning: dict) -> list[str]:
    seeds = tuning["tuning_seeds"]
    chosen = tuning["chosen"]
    lines = ["## How the loads were chosen", "",
             f"`python benchmarks/gavel_load.py --json benchmarks/results/gavel-load-tuning.json` ran "
             f"`fcfs+first_fit` and `fcfs+fastest_move` on seeds {seeds[0]}–{seeds[-1]} (tuning seeds: "
             "no run below uses them) at each load of a grid, means over the seeds. **Light** is the "
             "highest load whose JCT gap (First-Fit over Fastest-Move, minus 1) is at most "
             f"{100 * tuning['light_gap_points']:.0f} points above the gap at the grid's lowest load, where "
             "no job waits: the gap there is placement alone (First-Fit takes the first free GPU, a V100, "
             "which is not every model's fastest), and the criterion measures what contention adds to it. "
             "**Heavy** is the highest load at which First-Fit's queue still drains: every job completes "
             "in a run without a horizon, and the second half of the jobs (by arrival) waits at most "
             f"{tuning['drain_slack_min']:.0f} min longer on average than the first half, so the queue "
             "does not grow through the run. **Medium** is the grid load midway between them.", "",
             "| load | JCT `fcfs+first_fit` (min) | JCT `fcfs+fastest_move` (min) | gap | wait, 1st half "
             "(min) | wait, 2nd half (min) | light | drains |", "|---|---|---|---|---|---|---|---|"]
    for r in tuning["rows"]:
        lines.append(f"| {r['load']:g} | {r['ff_jct_min']:,.1f} | {r['fm_jct_min']:,.1f} | "
                     f"{100 * r['gap']:.1f} % | {r['first_half_wait_min']:,.1f} | "
                     f"{r['second_half_wait_min']:,.1f} | {'yes' if r['light'] else 'no'} | "
                     f"{'yes' if r['drains'] else 'no'} |")
    lines += ["", "Chosen: " + ", ".join(f"{k} **{v:g}**" for k, v in chosen.items()) + "."]
    return lines


def _gavel_load_table(data: dict, load: float, means: pd.Series) -> list[str]:
    paired = gavel_load_paired(data, load)
    base = data["baseline"]
    runs = pd.DataFrame(data["runs"])
    done = runs[runs["load"] == load].groupby("policy")["jobs_completed"].mean()
    lines = [f"### {_load_name(data, load)}", "",
             f"| pair | kind | mean JCT (min) | − `{base}` [95 % interval] (min) | relative | "
             "lower/tied/higher | jobs completed |", "|---|---|---|---|---|---|---|"]
    for p in sorted(data["agnostic"] + data["aware"], key=lambda q: means[q]):
        kind = "agnostic" if p in data["agnostic"] else "aware"
        if p == base:
            cells = "baseline | | "
        else:
            d = paired[p]
            cells = (f"{_min(d.mean)} [{_min(d.low)}, {_min(d.high)}] | "
                     f"{signed(100 * d.mean / means[base], 1)} % | {d.a_lower}/{d.ties}/{d.a_higher}")
        lines.append(f"| `{p}` | {kind} | {means[p]:,.1f} | {cells} | {done[p]:,.0f} |")
    return lines


GAVEL_LOAD_COLORS = ("#6b7280", "#9ca3af", "#2563eb", "#16a34a", "#dc2626", "#9333ea", "#ea580c",
                     "#0891b2", "#ca8a04")
"""One colour per pair of the load plot, in the order the sweep lists them (agnostic first)."""


def gavel_load_svg(data: dict, title: str = "Mean time to result against offered load") -> str:
    """``docs/results/gavel-load.svg``: mean JCT (min) against offered load, one line per pair
    (agnostic pairs dashed), drawn from the sweep's JSON as plain SVG (no plotting library)."""
    means = gavel_load_means(data)
    pairs = [*data["agnostic"], *data["aware"]]
    width, height, left, right, top, bottom = 760, 420, 70, 200, 40, 50
    loads = [float(x) for x in means.index]
    lo_y, hi_y = 0.0, float(means[pairs].to_numpy().max()) * 1.05
    x_of = {x: left + (x - loads[0]) / (loads[-1] - loads[0]) * (width - left - right) for x in loads}

    def y_of(v: float) -> float:
        return top + (1 - (v - lo_y) / (hi_y - lo_y)) * (height - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="14">{title}, '
           f'{data["scenario"]}, seeds {data["seeds"][0]}–{data["seeds"][-1]}</text>']
    step = 500.0 * max(1.0, math.ceil(hi_y / 5000.0))
    tick = 0.0
    while tick <= hi_y:
        y = y_of(tick)
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e7eb"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:,.0f}</text>')
        tick += step
    for x in loads:
        out.append(f'<text x="{x_of[x]:.1f}" y="{height - bottom + 18}" text-anchor="middle">{x:g}</text>')
    out.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 10}" text-anchor="middle">'
               'offered load</text>')
    out.append(f'<text x="16" y="{(top + height - bottom) / 2:.0f}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(top + height - bottom) / 2:.0f})">mean JCT (min)</text>')
    for k, pair in enumerate(pairs):
        color = GAVEL_LOAD_COLORS[k % len(GAVEL_LOAD_COLORS)]
        dash = ' stroke-dasharray="6 4"' if pair in data["agnostic"] else ""
        points = " ".join(f"{x_of[x]:.1f},{y_of(float(means.loc[x, pair])):.1f}" for x in means.index)
        out.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        y = top + 16 * k + 8
        out.append(f'<line x1="{width - right + 12}" x2="{width - right + 36}" y1="{y}" y2="{y}" '
                   f'stroke="{color}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{width - right + 42}" y="{y + 4}">{pair}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class RoundRatio:
    """One pair of the rounds mode at one load: the agnostic policy's mean JCT over the aware one's,
    seed by seed.

    :param load: the offered load.
    :param agnostic: the agnostic policy.
    :param aware: its aware twin.
    :param mean: the mean over the seeds of the per-seed ratio.
    :param low: the Student-t 95 % interval's low end.
    :param high: its high end.
    :param n: seeds.
    """

    load: float
    agnostic: str
    aware: str
    mean: float
    low: float
    high: float
    n: int


def gavel_round_ratios(data: dict) -> list[RoundRatio]:
    """Every pair's per-seed JCT ratio (agnostic over aware) at every load of the rounds mode."""
    runs = pd.DataFrame(data["runs"])
    out = []
    for load in data["loads"]:
        at = runs[runs["load"] == load].pivot(index="seed", columns="policy", values="avg_jct_min")
        for agnostic, aware in data["pairs"]:
            ratio = (at[agnostic] / at[aware]).to_numpy()
            mean, low, high = mean_interval(ratio)
            out.append(RoundRatio(load, agnostic, aware, mean, low, high, len(ratio)))
    return out


def gavel_round_largest(data: dict) -> RoundRatio:
    """The largest mean ratio of the rounds mode (over its loads and pairs)."""
    return max(gavel_round_ratios(data), key=lambda r: r.mean)


def gavel_round_saturation(data: dict) -> pd.DataFrame:
    """Per load and policy, the mean over the seeds of the second half's mean wait minus the first
    half's (min): above ``drain_slack_min`` the queue grows through the run (saturated)."""
    runs = pd.DataFrame(data["runs"])
    runs["drift"] = runs["second_half_wait_min"] - runs["first_half_wait_min"]
    return runs.pivot_table(index="load", columns="policy", values="drift", aggfunc="mean")


def gavel_round_svg(data: dict) -> str:
    """``docs/results/gavel-load-rounds.svg``: the rounds mode's mean JCT against load."""
    flat = {"scenario": f"{data['scenario']} (first {data['jobs']} jobs, in rounds)", "seeds": data["seeds"],
            "runs": data["runs"], "agnostic": [a for a, _ in data["pairs"]],
            "aware": [b for _, b in data["pairs"]]}
    return gavel_load_svg(flat, "Agnostic against aware in rounds")


def _first_saturated(data: dict, policy: str) -> float | None:
    drift = gavel_round_saturation(data)[policy]
    over = [float(x) for x in drift.index if drift.loc[x] > data["drain_slack_min"]]
    return min(over) if over else None


def gavel_round_section(data: dict) -> list[str]:
    """The rounds mode's section of ``docs/results/gavel-load.md``."""
    runs = pd.DataFrame(data["runs"])
    means = runs.pivot_table(index="load", columns="policy", values="avg_jct_min", aggfunc="mean")
    changes = runs.pivot_table(index="load", columns="policy", values="type_changes_per_job", aggfunc="mean")
    drift = gavel_round_saturation(data)
    best = gavel_round_largest(data)
    seeds = data["seeds"]
    policies = [p for pair in data["pairs"] for p in pair]
    r = data["rounds"]
    lines = ["## Time-slicing in rounds: agnostic against aware", "",
             "`python benchmarks/gavel_load_sweep.py --rounds` ran the round policies (Gavel's, in "
             f"rounds of {r['length_min']:g} min with at least {r['reset_min']:g} min between allocation "
             "resets) on "
             f"the first {data['jobs']:,} jobs of `{data['scenario']}` at each load, seeds "
             f"{seeds[0]}–{seeds[-1]}: Gavel's LAS agnostic (`max_min_fairness`, which splits each job's "
             "time evenly over the GPU types) against aware (`max_min_fairness_perf`), and FIFO "
             "(`fcfs+first_fit`, blind to the types, against `fifo_perf`, which places the queue head on "
             f"its fastest free type). {len(runs)} runs, {data['cpu_s']:.0f} s of CPU.", "",
             f"**Largest ratio: {best.mean:.2f}×** (`{best.agnostic}` over `{best.aware}` at load "
             f"{best.load:g}; mean of the per-seed ratios, 95 % interval {best.low:.2f}–{best.high:.2f}, "
             f"{best.n} seeds), against Gavel's published up to {GAVEL_HEADLINE:g}×.", "",
             "![Mean JCT against offered load in rounds; agnostic policies dashed]"
             "(gavel-load-rounds.svg)", "",
             "Mean over the seeds of each run's mean JCT (min):", "",
             "| load | " + " | ".join(f"`{p}`" for p in policies) + " |", "|---|" + "---|" * len(policies)]
    for load in data["loads"]:
        lines.append(f"| {load:g} | " + " | ".join(f"{means.loc[load, p]:,.1f}" for p in policies) + " |")
    lines += ["", "Agnostic over aware, the mean of the per-seed ratios of mean JCT with its Student-t 95 % "
              "interval; the queue's drift (the second half of the jobs' mean wait minus the first half's, "
              f"min; above {data['drain_slack_min']:g} the queue grows through the run: saturated); GPU-type "
              "changes per job:", "",
              "| load | pair | ratio [95 % interval] | drift, agnostic | drift, aware "
              "| type changes, agnostic | type changes, aware |", "|---|---|---|---|---|---|---|"]
    for x in gavel_round_ratios(data):
        lines.append(f"| {x.load:g} | `{x.agnostic}` / `{x.aware}` "
                     f"| {x.mean:.2f} [{x.low:.2f}, {x.high:.2f}] "
                     f"| {drift.loc[x.load, x.agnostic]:,.1f} | {drift.loc[x.load, x.aware]:,.1f} "
                     f"| {changes.loc[x.load, x.agnostic]:,.1f} | {changes.loc[x.load, x.aware]:,.1f} |")
    return lines


def gavel_load_markdown(data: dict, tuning: dict, rounds: dict | None = None) -> str:
    """``docs/results/gavel-load.md`` from what ``gavel_load_sweep.py`` and ``gavel_load.py`` write."""
    means = gavel_load_means(data)
    ratio = gavel_ratio(data)
    seeds = data["seeds"]
    lines = ["# Gavel's finding in gpusched's terms: mean JCT against offered load", "",
             "Generated by `python benchmarks/render_results.py` from `benchmarks/results/gavel-load.json` "
             "(`python benchmarks/gavel_load_sweep.py`) and `benchmarks/results/gavel-load-tuning.json` "
             "(`python benchmarks/gavel_load.py --json ...`); do not edit by hand.", "",
             f"`{data['scenario']}`: 36 V100, 36 P100 and 36 K80, one GPU per server, Gavel's measured "
             f"speeds (`speed: gavel`), {data['jobs']:,} jobs of Gavel's generator with gangs of 1–8 GPUs "
             "that may span servers (`gang_placement: spread`), a queue window of 16. Gavel (Narayanan "
             "et al., OSDI 2020) reports up to 3.5× better average JCT from heterogeneity-aware "
             "policies. Agnostic pairs: "
             + ", ".join(f"`{p}`" for p in data["agnostic"]) + "; aware pairs: "
             + ", ".join(f"`{p}`" for p in data["aware"]) + ". No policy here time-slices or preempts "
             "as Gavel's LP policies do; `fastest_move` moves a running job to a faster GPU as one frees "
             "(paying the checkpoint restore)."
             + (" Gavel's round policies, which do, are [measured below](#time-slicing-in-rounds-agnostic-"
                "against-aware)." if rounds is not None else ""), "",
             f"**At the heaviest load ({ratio.load:g})**, `{data['baseline']}` averages "
             f"{ratio.baseline_jct_min:,.1f} min against {ratio.best_jct_min:,.1f} min for `{ratio.best}`, "
             f"the best aware pair: a JCT ratio agnostic/aware of **{ratio.ratio:.2f}×** (paired "
             f"difference {_min(ratio.diff.mean)} min, 95 % interval {_min(ratio.diff.low)} to "
             f"{_min(ratio.diff.high)}, lower on {ratio.diff.a_lower} of {ratio.diff.n} seeds); the worst "
             f"agnostic pair, `{ratio.worst_agnostic}`, {ratio.worst_ratio:.2f}×.", "",
             *_gavel_tuning_section(tuning), "",
             "## Mean JCT against load", "",
             "![Mean JCT against offered load, one line per pair; agnostic pairs dashed](gavel-load.svg)", "",
             f"Evaluation seeds {seeds[0]}–{seeds[-1]} ({len(seeds)} per load; each seed its own jobs and "
             "policy seed). Mean over the seeds of each run's mean JCT (min):", "",
             "| load | " + " | ".join(f"`{p}`" for p in data["agnostic"] + data["aware"]) + " |",
             "|---|" + "---|" * len(data["agnostic"] + data["aware"])]
    for load in data["loads"]:
        lines.append(f"| {load:g} | " + " | ".join(f"{means.loc[load, p]:,.1f}"
                                                   for p in data["agnostic"] + data["aware"]) + " |")
    lines += ["", "## Paired against `" + data["baseline"] + "`, per load", "",
              "Each pair's mean JCT minus the baseline's, seed by seed, with the Student-t 95 % interval "
              "(`gpusched.experiment.paired.paired_difference`), and the seeds on which the pair is "
              "lower, tied and higher.", ""]
    for load in data["loads"]:
        lines += _gavel_load_table(data, load, means.loc[load]) + [""]
    lines.append(f"The sweep took {data['wall_s']:.0f} s of wall time ({len(data['runs'])} runs).")
    if rounds is not None:
        lines += ["", *gavel_round_section(rounds)]
    return "\n".join(lines) + "\n"


def gavel_round_finding(data: dict) -> str:
    """The README's sentence on the rounds mode: the largest agnostic/aware ratio beside Gavel's
    3.5x, and, below it, what the measurement shows of why (the LAS pair's ratio at the lightest
    and the heaviest load, and where each queue stops draining)."""
    best = gavel_round_largest(data)
    text = (f"In rounds (Gavel's mechanism and policies), the largest agnostic/aware ratio is "
            f"**{best.mean:.2f}×**, `{best.aware}` against `{best.agnostic}` at load {best.load:g} (mean of "
            f"the per-seed ratios, 95 % interval {best.low:.2f}–{best.high:.2f}, {best.n} seeds of "
            f"{data['jobs']:,} jobs), against Gavel's up to {GAVEL_HEADLINE:g}×")
    link = "([rounds](docs/results/gavel-load.md#time-slicing-in-rounds-agnostic-against-aware))"
    if best.mean >= GAVEL_HEADLINE:
        return f"{text} {link}."
    agnostic, aware = data["pairs"][0]
    las = [x for x in gavel_round_ratios(data) if x.agnostic == agnostic]
    grows, aware_grows = _first_saturated(data, agnostic), _first_saturated(data, aware)
    if grows is not None and grows == aware_grows:
        queues = (f"both queues start to grow through the run at the same load, {grows:g} (the second half "
                  "of the jobs waits over an hour longer than the first), so no load measured has the "
                  "agnostic queue growing while the aware one drains")
    else:
        queues = (f"`{agnostic}`'s queue grows through the run from load {grows:g}" if grows is not None
                  else f"`{agnostic}`'s queue drains at every load measured")
        queues += (f" and `{aware}`'s from load {aware_grows:g}" if aware_grows is not None
                   else f" and `{aware}`'s drains at every load")
    return (f"{text}. Gavel's LAS, `{aware}` against `{agnostic}`, gives {las[0].mean:.2f}× at load "
            f"{las[0].load:g} and {las[-1].mean:.2f}× at load {las[-1].load:g}: the agnostic LAS splits "
            "each job's time evenly over the types, a steady speed penalty, and the ratio grows past it "
            f"only while the agnostic queue grows and the aware one drains; here {queues}, and a list of "
            f"{data['jobs']:,} jobs bounds how far a queue grows, where Gavel measures a window of a "
            f"continuous stream whose agnostic queue grows without bound {link}.")


def gavel_finding(data: dict, rounds: dict | None = None) -> str:
    """The README's bullet on Gavel's finding, from the load sweep (and its rounds mode)."""
    r = gavel_ratio(data)
    low = gavel_load_means(data).loc[min(data["loads"])]
    low_ratio = low[data["baseline"]] / low[data["aware"]].min()
    return (f"- **Heterogeneity-aware placement pays as the load grows.** On `{data['scenario']}` (36 V100, "
            f"36 P100, 36 K80, Gavel's measured speeds and generator) at load {r.load:g}, `{r.best}` "
            f"averages **{r.best_jct_min:,.0f} min** JCT against {r.baseline_jct_min:,.0f} for "
            f"`{data['baseline']}`: **{r.ratio:.2f}×** (paired 95 % interval of the difference "
            f"{_min(r.diff.low, '+,.0f')} to {_min(r.diff.high, '+,.0f')} min, {r.diff.n} seeds never used "
            f"to tune the load), up from {low_ratio:.2f}× at load {min(data['loads']):g}, and "
            f"{r.worst_ratio:.2f}× against `{r.worst_agnostic}` ([table](docs/results/gavel-load.md)). "
            + (gavel_round_finding(rounds) if rounds is not None else
               "Gavel reports up to 3.5× with its LP policies, which time-slice jobs across GPU types."))


URGENCY_COLUMNS = (("avg_jct_min", "mean JCT (min)", "{:,.1f}"),
                   ("p99_wait_min", "p99 wait (min)", "{:,.1f}"),
                   ("slo_attainment", "SLO attainment (%)", "{:.1f}"),
                   ("weighted_jct_min", "weighted JCT (min)", "{:,.1f}"),
                   ("cost_usd", "cost (USD)", "{:,.0f}"))
"""The urgency tables' columns of means: metric, header, format (SLO attainment only where jobs have
deadlines, weighted JCT only where it differs from the mean JCT: where jobs have weights)."""


def _weighted(t: KnowledgeTable) -> bool:
    """Whether the runs' weighted JCT differs from their mean JCT (the jobs carry weights)."""
    runs = t.runs.dropna(subset=["avg_jct_min", "weighted_jct_min"])
    return not np.allclose(runs["weighted_jct_min"], runs["avg_jct_min"], rtol=1e-9, atol=0.0)


def _interval(diff: float, low: float, high: float) -> str:
    if math.isnan(diff):
        return ""
    if math.isnan(low):
        return _min(diff)
    return f"{_min(diff)} [{_min(low)}, {_min(high)}]"


def urgency_window_section(data: dict) -> list[str]:
    """The window measurement's section of ``docs/results/urgency.md`` (``urgency_window.py``)."""
    s = window_summary(data)
    runs = pd.DataFrame(data["runs"])
    queue = runs.groupby("policy")["max_queue"].max()
    seeds = data["seeds"]
    flat = bool(s.means.loc[s.best].nunique() == 1)
    lines = ["## The queue window for the agent", "",
             f"`{data['scenario']}`, told run times only by the history estimator "
             f"(`declared_run_time: {data['setting']}`), seeds {seeds[0]}–{seeds[-1]} (held out), each "
             "pair at each queue window (`queue.window`). Mean over the seeds of each run's mean JCT "
             "(min), and the most jobs that waited at once in any of the pair's runs:", "",
             "| pair | " + " | ".join(f"window {w}" for w in data["windows"]) + " | best window | "
             "largest queue |", "|---|" + "---|" * (len(data["windows"]) + 2)]
    for p in data["policies"]:
        cells = [f"**{s.means.loc[p, w]:,.1f}**" if w == s.best_window[p] else f"{s.means.loc[p, w]:,.1f}"
                 for w in data["windows"]]
        lines.append(f"| `{p}` | " + " | ".join(cells) + f" | {s.best_window[p]} | {int(queue[p]):,} |")
    d = s.against_preset
    if flat:
        verdict = (f"every window gives it the same mean JCT: its queue never held more than "
                   f"{int(queue[s.best]):,} jobs, so a window above that shows an order nothing more")
    else:
        verdict = (f"against the preset's window of {data['preset_window']}, "
                   f"{_interval(d.mean, d.low, d.high)} min (paired, 95 % t interval, lower on "
                   f"{d.a_lower} of {d.n} seeds)")
    lines += ["", f"**The best pair not told run times is `{s.best}`: {s.jct_min:,.1f} min at window "
              f"{s.window}** (the smallest window on a tie); {verdict}. The measurement took "
              f"{data['wall_s']:.0f} s ({len(runs)} runs; `python benchmarks/urgency_window.py`)."]
    return lines


def urgency_best_rows(tables: dict[str, KnowledgeTable]) -> list[str]:
    """The headline tables: per preset and setting, the pair with the lowest mean JCT; then each
    setting's best against the best told exactly, paired."""
    settings = next(iter(tables.values())).settings
    others = [s for s in settings if s != "exact"]
    lines = ["| preset | " + " | ".join(settings) + " |", "|---|" + "---|" * len(settings)]
    for name, t in tables.items():
        cells = []
        for setting in t.settings:
            best = t.best(setting)
            jct = t.values(setting, best, "avg_jct_min").mean()
            cells.append(f"`{best}` {jct:,.1f}")
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    lines += ["", "The best pair of each setting minus the best pair told exactly, mean JCT (min), paired "
              "seed by seed (95 % t interval): what the best choice loses by not being told.", "",
              "| preset | " + " | ".join(others) + " |", "|---|" + "---|" * len(others)]
    for name, t in tables.items():
        gaps = [t.best_gap(s) for s in others]
        lines.append(f"| `{name}` | " + " | ".join(_interval(g["diff"], g["low"], g["high"]) for g in gaps)
                     + " |")
    return lines


def urgency_table_section(name: str, t: KnowledgeTable, info: dict) -> list[str]:
    """One preset's table: every (setting, pair) with its means, paired against the best pair of
    the setting and against the same pair told exactly."""
    shown = {"slo_attainment": info["deadlines"], "weighted_jct_min": _weighted(t)}
    columns = [c for c in URGENCY_COLUMNS if shown.get(c[0], True)]
    best = t.against_best("avg_jct_min").set_index(["setting", "policy"])
    cost = t.cost_of_not_knowing("avg_jct_min").set_index(["setting", "policy"])
    changed = "".join(f" With `{k}: {str(v).lower()}`." for k, v in info["overrides"].items())
    lines = [f"### `{name}`", "", f"{info['description']}{changed} Seeds {t.seeds[0]}–{t.seeds[-1]}; "
             f"{info['wall_s']:.0f} s for {len(t.runs)} runs.", "",
             "| told | pair | " + " | ".join(h for _, h, _ in columns)
             + " | JCT − best of the setting [95 %] | JCT − told exactly [95 %] |",
             "|---|---|" + "---|" * (len(columns) + 2)]
    for setting in t.settings:
        top = t.best(setting)
        for p in t.policies:
            if t.is_refused(setting, p):
                lines.append(f"| {setting} | `{p}` | refused: it reads run times |"
                             + " |" * (len(columns) + 1))
                continue
            means = [fmt.format(t.values(setting, p, m).mean() * (100 if m == "slo_attainment" else 1))
                     for m, _, fmt in columns]
            b = best.loc[(setting, p)]
            vs_best = "best" if p == top else _interval(b["diff"], b["low"], b["high"])
            vs_exact = ("" if setting == "exact"
                        else _interval(*cost.loc[(setting, p), ["diff", "low", "high"]]))
            label = f"**`{p}`**" if p == top else f"`{p}`"
            lines.append(f"| {setting} | {label} | " + " | ".join(means) + f" | {vs_best} | {vs_exact} |")
    return lines


URGENCY_TARGET_TABLES = ("gavel-108gpu-heavy", "openb-replay-heavy")
"""The tables on which the urgency agent has a JCT target (issue 29: at least 15 % below the best
pair under ``history``, p99 wait no worse)."""
URGENCY_DEADLINE_TABLE = "gavel-108gpu-heavy+deadlines"
"""The table on which its SLO attainment is held against EDF's."""
URGENCY_JCT_CUT = 0.15
"""The JCT target: the agent's mean at least this share below the best pair's."""


def urgency_targets_section(known: dict[str, KnowledgeTable]) -> list[str]:
    """The urgency agent's targets, met or not, from its rows in the knowledge tables: mean JCT
    against the best pair under ``history`` (and the clairvoyant best told exactly beside it),
    p99 wait against that pair, SLO attainment against the best EDF pair."""
    agent = URGENCY_AGENT_POLICY
    lines = ["## The urgency agent's targets", "",
             f"`{agent}` (`docs/agent.md`, \"The urgency agent\") against the pairs under `history`, "
             "paired seed by seed (95 % t interval; BCa bootstrap for the p99 wait). The target: mean "
             f"JCT at least {URGENCY_JCT_CUT:.0%} below the best pair of the same setting, p99 wait no "
             "worse than that pair's; with deadlines, SLO attainment at least that of the best EDF pair. "
             "The best pair told exact run times is the clairvoyant bound beside it.", "",
             "| table | agent JCT (min) | best pair under history | its JCT | agent − pair [95 %] | change "
             "| target JCT | met | agent p99 − pair p99 [95 %] | met | best told exactly (bound) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in URGENCY_TARGET_TABLES:
        t = known.get(name)
        if t is None or agent not in t.policies:
            continue
        pairs = [p for p in t.policies if p != agent]
        best = t.best("history", among=pairs)
        bound = t.best("exact", among=pairs)
        a = t.values("history", agent, "avg_jct_min").mean()
        b = t.values("history", best, "avg_jct_min").mean()
        d = t.paired("history", agent, best)
        w = t.paired("history", agent, best, "p99_wait_min")
        cut = (1 - URGENCY_JCT_CUT) * b
        a99, b99 = (t.values("history", p, "p99_wait_min").mean() for p in (agent, best))
        jct, wait = (_interval(x["diff"], x["low"], x["high"]) for x in (d, w))
        lines.append(f"| `{name}` | {a:,.1f} | `{best}` | {b:,.1f} | {jct} | "
                     f"{(a - b) / b:+.1%} | ≤ {cut:,.1f} | {'yes' if a <= cut else 'no'} | "
                     f"{wait} | {'yes' if a99 <= b99 else 'no'} | "
                     f"`{bound}` {t.values('exact', bound, 'avg_jct_min').mean():,.1f} |")
    t = known.get(URGENCY_DEADLINE_TABLE)
    if t is not None and agent in t.policies:
        edf = t.best("history", "slo_attainment", among=[p for p in t.policies if p.startswith("edf")])
        a, e = (t.values("history", p, "slo_attainment").mean() * 100 for p in (agent, edf))
        d = t.paired("history", agent, edf, "slo_attainment")
        lines += ["", f"With deadlines (`{URGENCY_DEADLINE_TABLE}`, `history`): the agent meets "
                  f"{a:.1f} % of deadlines against {e:.1f} % for `{edf}`, the best EDF pair "
                  f"({signed(d['diff'] * 100, 1)} points [{signed(d['low'] * 100, 1)}, "
                  f"{signed(d['high'] * 100, 1)}]): **target {'met' if a >= e else 'missed'}**."]
    return lines


def urgency_markdown(window: dict | None, tables: dict | None) -> str:
    """``docs/results/urgency.md`` from what ``urgency_table.py`` and ``urgency_window.py`` wrote
    (either may be absent: its section is left out)."""
    lines = ["# What the scheduler knows: run times told exactly, with an error, not at all, or from history",
             "", "Generated by `python benchmarks/render_results.py` from `benchmarks/results/urgency.json` "
             "(`python benchmarks/urgency_table.py`) and `benchmarks/results/urgency-window.json` "
             "(`python benchmarks/urgency_window.py`); do not edit by hand.", "",
             "Each preset runs with only `workload.declared_run_time` replaced: `exact` (every job "
             "declares its true run time), `lognormal 1` (declared = true × exp(Z), Z ~ N(0, 1)), `none` "
             "(nothing declared: pairs that read run times are refused) and `history` (the online "
             "estimator of `gpusched.core.history_estimator`, from the jobs completed before each "
             "arrival). The jobs of a seed are the same under every setting, so every difference is "
             "paired seed by seed (`gpusched.experiment.knowledge`, 95 % Student t intervals of the mean "
             "JCT's differences)."]
    if tables is not None:
        known = {name: KnowledgeTable.from_json(d) for name, d in tables["tables"].items()}
        lines += ["", "## The best pair of each setting", "",
                  "The pair with the lowest mean JCT (min) under each setting, means over the seeds:", "",
                  *urgency_best_rows(known)]
        if any(URGENCY_AGENT_POLICY in t.policies for t in known.values()):
            lines += ["", *urgency_targets_section(known)]
        lines += ["", "## Every pair under every setting", "",
                  "Means over the seeds. **JCT − best of the setting**: the pair's mean JCT minus that of "
                  "the best pair of the same setting, paired seed by seed; **JCT − told exactly**: the cost "
                  "of not knowing, the pair's mean JCT minus its own told exactly (positive: it costs). "
                  "Intervals are 95 % Student t intervals over the seeds."]
        for name, t in known.items():
            lines += ["", *urgency_table_section(name, t, tables["presets"][name])]
    if window is not None:
        lines += ["", *urgency_window_section(window)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- the Philly replay
PHILLY_TARGET_PLACEMENTS = ("first_fit", "best_fit", "least_loaded_fit")
"""The placements the Philly target is computed for (``first_fit`` is the headline)."""
PHILLY_BOOTSTRAP_DRAWS = 10_000
"""Resamples of the seeds for the recovered share's interval."""
PHILLY_BOOTSTRAP_SEED = 0
"""The Generator seed of that bootstrap."""


def philly_recovered(fifo: np.ndarray, exact: np.ndarray, hist: np.ndarray) -> dict:
    """The share of ``qssf`` exact's mean gain over FIFO that ``qssf`` history keeps, with a
    percentile bootstrap 95 % interval over the seeds (NaN where a resample has no gain)."""
    gain, kept = fifo - exact, fifo - hist
    share = float(kept.mean() / gain.mean()) if gain.mean() > 0 else math.nan
    rng = np.random.default_rng(PHILLY_BOOTSTRAP_SEED)
    idx = rng.integers(0, len(fifo), size=(PHILLY_BOOTSTRAP_DRAWS, len(fifo)))
    g, k = gain[idx].mean(axis=1), kept[idx].mean(axis=1)
    draws = np.where(g > 0, k / np.where(g > 0, g, 1.0), np.nan)
    low, high = np.nanpercentile(draws, [2.5, 97.5]) if np.isfinite(draws).any() else (math.nan,) * 2
    return {"share": share, "low": float(low), "high": float(high),
            "no_gain_draws": int(np.isnan(draws).sum())}


def _philly_seeds(seeds: list[int]) -> str:
    return str(seeds[0]) if len(seeds) == 1 else f"{seeds[0]}–{seeds[-1]}"


def _philly_fmt(x: float, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    return f"{x:+,.1f}" if signed else f"{x:,.1f}"


def _philly_ci(mean: float, low: float, high: float) -> str:
    """A signed mean (minutes) with its interval: ``+1.0 [-0.5, +2.5]``."""
    return f"{_philly_fmt(mean, True)} [{_philly_fmt(low, True)}, {_philly_fmt(high, True)}]"


def _philly_cost_rows(table: KnowledgeTable) -> list[str]:
    cost = table.cost_of_not_knowing("avg_jct_min")
    lines = ["| policy | exact | history | history − exact [95 %] | none | none − exact [95 %] |",
             "|---|---|---|---|---|---|"]
    for policy in table.policies:
        exact = table.values("exact", policy, "avg_jct_min").mean()
        cells = [f"`{policy}`", _philly_fmt(exact)]
        for setting in ("history", "none"):
            row = cost[(cost["policy"] == policy) & (cost["setting"] == setting)].iloc[0]
            if table.is_refused(setting, policy):
                cells += ["refused", "—"]
            else:
                cells += [_philly_fmt(row["mean"]),
                          _philly_ci(row["diff"], row["low"], row["high"])]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


PHILLY_FIFO = "fcfs+first_fit"
"""The pair the round policies are measured against first (it reads no run time)."""


def _philly_against(a: pd.Series, b: pd.Series) -> PairedDifference:
    """``a - b`` paired on the seeds of ``a`` (each indexed by seed)."""
    return paired_difference(a.to_numpy(), b.loc[a.index].to_numpy())


def _philly_verdicts(diffs: list[tuple[str, PairedDifference]], than: str) -> str:
    """How many of the differences (policy, policy - reference) lie wholly below 0, wholly above
    it, or take in 0, as a sentence."""
    lower = [p for p, d in diffs if d.high < 0]
    higher = [p for p, d in diffs if d.low > 0]
    return (f"Against {than}: {len(lower)} of the {len(diffs)} shorter, {len(higher)} longer, "
            f"{len(diffs) - len(lower) - len(higher)} not told apart by the interval.")


def philly_rounds_section(ptable: KnowledgeTable, rounds: dict) -> list[str]:
    """The round policies of ``philly-rounds.json`` against FIFO (:data:`PHILLY_FIFO` told
    exactly) and against the best pair told the same, paired seed by seed with the pairs' runs of
    the same windows, then what not knowing costs each."""
    rtable = KnowledgeTable.from_json(rounds["table"])
    jct = "avg_jct_min"
    fifo = ptable.values("exact", PHILLY_FIFO, jct)
    best = {s: ptable.best(s, jct) for s in rtable.settings}
    seeds = rtable.seeds
    rows, vs_fifo, vs_best = [], [], []
    for policy in rtable.policies:
        mine = rtable.values("exact", policy, jct)
        df = _philly_against(mine, fifo)
        vs_fifo.append((policy, df))
        cells = [f"`{policy}`", _philly_fmt(mine.mean()), _philly_ci(df.mean, df.low, df.high)]
        for setting in rtable.settings:
            if rtable.is_refused(setting, policy):
                cells.append("refused")
                continue
            theirs = ptable.values(setting, best[setting], jct)
            db = _philly_against(rtable.values(setting, policy, jct), theirs)
            vs_best.append((f"{policy} {setting}", db))
            cells.append(_philly_ci(db.mean, db.low, db.high))
        rows.append("| " + " | ".join(cells) + " |")
    once = rounds.get("run_once", [])
    return ["## Round policies", "",
            f"Seeds {_philly_seeds(seeds)} ({len(seeds)} window{'s' * (len(seeds) != 1)}, the pairs' own, "
            "so that a round policy pairs with them seed by seed), the default rounds. "
            + (f"The {len(once)} round policies that read no run time ({', '.join(f'`{p}`' for p in once)}) "
               "are run once a seed, told nothing, and that run stands for every setting: a setting "
               "changes only what the scheduler is told. " if once else "")
            + f"Over these seeds FIFO (`{PHILLY_FIFO}`) averages {_philly_fmt(fifo.loc[seeds].mean())} min; "
            "the best pair of each setting (over the pairs' seeds) averages "
            + ", ".join(f"{_philly_fmt(ptable.values(s, b, jct).loc[seeds].mean())} min told {s} (`{b}`)"
                        for s, b in best.items()) + ".", "",
            "### Against FIFO and the best pair", "",
            "Mean JCT (min) told exactly; **− FIFO**: the policy's mean JCT told exactly minus FIFO's; "
            "**− best pair, told …**: the policy's mean JCT minus that of the best pair, both told the "
            "same; paired seed by seed (mean, 95 % Student-t interval).", "",
            "| policy | mean JCT | − FIFO [95 %] | "
            + " | ".join(f"− best pair, told {s} [95 %]" for s in rtable.settings) + " |",
            "|---|---|---|" + "---|" * len(rtable.settings),
            *rows, "",
            _philly_verdicts(vs_fifo, "FIFO, told exactly") + " "
            + _philly_verdicts(vs_best, "the best pair told the same, every setting"), "",
            "### What not knowing costs", "",
            "Mean JCT (min) told exactly, from history and not at all, and the paired difference "
            "against the same policy told exactly.", "", *_philly_cost_rows(rtable), ""]


PHILLY_HISTORY = "history (default keys)"
"""The preset's ``history`` in ``philly-history.json``, which every variant is paired against."""
PHILLY_CEILING = "ceiling: virtual cluster and GPUs"
"""The ceiling of the preset's keys in ``philly-history.json``."""


def philly_history_section(data: dict) -> list[str]:
    """Other history keys and options, and the ceiling of the keys (``philly-history.json``)."""
    tune, ev = data["tuning"], data["evaluation"]

    def share(part: dict, name: str) -> float:
        fifo, exact = np.array(part["fifo"]), np.array(part["exact"])
        return float((fifo - np.array(part["variants"][name])).mean() / (fifo - exact).mean())

    def against(part: dict, name: str) -> PairedDifference:
        variants = part["variants"]
        return paired_difference(np.array(variants[name]), np.array(variants[PHILLY_HISTORY]))

    rows = []
    for name in tune["variants"]:
        d = against(ev, name)
        rows.append(f"| {name} | {100 * share(tune, name):.1f} % | {100 * share(ev, name):.1f} % | "
                    f"{'—' if name == PHILLY_HISTORY else _philly_ci(d.mean, d.low, d.high)} |")
    better = [n for n in tune["variants"] if n != PHILLY_HISTORY and not n.startswith("ceiling")
              and against(tune, n).high < 0]
    ceiling = share(ev, PHILLY_CEILING)
    recent = [n for n in ev["variants"] if n.startswith("recent")]
    top = max(recent, key=lambda n: share(ev, n)) if recent else None
    above = top is not None and share(ev, top) > ceiling
    top_ev, top_tune = (against(ev, top), against(tune, top)) if above else (None, None)
    return ["## Could `history` do better?", "",
            "The file names no user and no job, so `history` keys on the virtual cluster and the GPU count "
            "(the preset's keys: virtual cluster and GPUs, then virtual cluster, then GPUs, then every job). "
            "`nice -n 10 python benchmarks/philly_history.py` runs `qssf+first_fit` with other keys and "
            "options, and with the **ceiling** of a key: each job told, in advance, the geometric mean of "
            "the true run times of every job of its window that shares its key (what the key can say of a "
            "job, known without learning). A variant would be chosen on the tuning seeds "
            f"{_philly_seeds(tune['seeds'])} and only measured on {_philly_seeds(ev['seeds'])}. Recovered: "
            "share of `qssf` exact's gain over FIFO, of the mean JCT; the last column is the variant's "
            "mean JCT (min) minus the preset's `history`, paired seed by seed (95 % Student-t).", "",
            "| variant | recovered, tuning seeds | recovered, evaluation seeds "
            "| − `history`, evaluation [95 %] |",
            "|---|---|---|---|", *rows, "",
            ("On the tuning seeds no key or option shortens the mean JCT beyond its interval, so the preset "
             "keeps its keys. " if not better else
             f"On the tuning seeds {', '.join(better)} shorten the mean JCT beyond the interval. ")
            + f"Told its own keys' ceiling, `qssf` recovers {100 * ceiling:.0f} % on the evaluation seeds"
            + (": the shortfall lies mostly in what the virtual cluster and the GPU count say of a job's "
               "run time (the file has no user or job name, on which Helios' QSSF keys)" if ceiling < 0.9
               else ": the target is within reach of these keys")
            + ("." if not above else
               f". Keeping only each group's latest completions (`recent`) goes past that ceiling on "
               f"the evaluation seeds, which a learner can do since it reads when jobs came, not only "
               f"their keys: `{top}` recovers {100 * share(ev, top):.1f} % there, "
               f"{_philly_ci(top_ev.mean, top_ev.low, top_ev.high)} min against the preset's `history`"
               + (" (an interval that includes 0)" if top_ev.low <= 0 <= top_ev.high else "")
               + f"; on the tuning seeds it recovers {100 * share(tune, top):.1f} % "
               f"({_philly_ci(top_tune.mean, top_tune.low, top_tune.high)} min), "
               + ("no better beyond the interval, so by this page's rule the preset keeps every "
                  "completion." if top_tune.high >= 0 else "better beyond the interval.")), ""]


def philly_markdown(pairs: dict, rounds: dict | None, full: dict | None,
                    history: dict | None = None) -> str:
    """The text of ``docs/results/philly.md``: the pairs (``philly-pairs.json``), the round
    policies (``philly-rounds.json``), the whole trace (``philly-full.json``) and other history keys
    (``philly-history.json``), the last three when measured."""
    ptable = KnowledgeTable.from_json(pairs["table"])
    scenario = load_scenario(ptable.scenario)
    seeds = ptable.seeds
    lines = ["# The Philly replay: what the scheduler knows", "",
             "Rendered by `python benchmarks/render_results.py` from `benchmarks/results/philly-*.json` "
             "(written by `nice -n 10 python benchmarks/philly.py --part pairs`, `--part rounds` and "
             "`--full PATH/philly.csv`). Do not edit by hand.", "",
             f"**Preset** `{ptable.scenario}`: {scenario.description}", "",
             f"**Seeds**: pairs {_philly_seeds(seeds)} ({len(seeds)} windows), round policies "
             + ("not run" if rounds is None else _philly_seeds(rounds["table"]["seeds"]))
             + "; each seed draws another 14-day window, and none sized the preset (900–904 did). "
             f"CPU: pairs {pairs['cpu_s']:.0f} s"
             + ("" if rounds is None else f", round policies {rounds['cpu_s']:.0f} s")
             + ". Mean JCT in minutes; differences are paired seed by seed (mean, 95 % Student-t interval).",
             "", "## The target: what `qssf` with history recovers", "",
             "Share of the gain `qssf` told exact run times has over FIFO (`fcfs`, same placement) that "
             "`qssf` with `history` keeps: (FIFO − qssf history) / (FIFO − qssf exact), of the mean JCT "
             f"over the seeds; interval: percentile bootstrap over the seeds ({PHILLY_BOOTSTRAP_DRAWS:,} "
             f"resamples, Generator seed {PHILLY_BOOTSTRAP_SEED}). Target ≥ 90 %; Alibaba's PAI simulator "
             "reports 99 %.", "",
             "| placement | FIFO | qssf exact | qssf history | gain exact [95 %] | gain history [95 %] "
             "| recovered [95 %] |", "|---|---|---|---|---|---|---|"]
    target = {}
    for place in PHILLY_TARGET_PLACEMENTS:
        fifo = ptable.values("exact", f"fcfs+{place}", "avg_jct_min").to_numpy()
        qe = ptable.values("exact", f"qssf+{place}", "avg_jct_min").to_numpy()
        qh = ptable.values("history", f"qssf+{place}", "avg_jct_min").to_numpy()
        ge, gh = paired_difference(fifo, qe), paired_difference(fifo, qh)
        r = philly_recovered(fifo, qe, qh)
        target[place] = r
        lines.append(f"| `{place}` | {_philly_fmt(fifo.mean())} | {_philly_fmt(qe.mean())} | "
                     f"{_philly_fmt(qh.mean())} | {_philly_ci(ge.mean, ge.low, ge.high)} | "
                     f"{_philly_ci(gh.mean, gh.low, gh.high)} | "
                     f"{100 * r['share']:.0f} % [{100 * r['low']:.0f}, {100 * r['high']:.0f}] |")
    head = target["first_fit"]
    lines += ["", f"With `first_fit`, `qssf` with history recovers **{100 * head['share']:.0f} %** "
              f"(95 % interval {100 * head['low']:.0f}–{100 * head['high']:.0f} %) of the exact gain: "
              + ("the target (≥ 90 %) is met." if head["share"] >= 0.9 else
                 "below the 90 % target, and the interval excludes it." if head["high"] < 0.9 else
                 "below the 90 % target.")
              + (f" {head['no_gain_draws']} of the bootstrap's resamples held no gain and are left out."
                 if head["no_gain_draws"] else ""), ""]
    if history is not None:
        lines += philly_history_section(history)
    lines += ["## Every order+placement pair", "",
              "Mean JCT (min) told exactly, from history and not at all; a pair that reads run times is "
              "refused under `none`. The cluster's servers are identical, so the placements that only "
              "choose among free GPUs give the same runs.", "", *_philly_cost_rows(ptable), ""]
    if rounds is not None:
        lines += philly_rounds_section(ptable, rounds)
    if full is not None:
        lines += ["## The whole trace: speed", "",
                  f"All 82,247 jobs in real time on {full['servers']} servers of 8 GPUs (gangs spread "
                  "over servers), one process per run; targets: a pair ≤ 30 s, a round policy ≤ 5 min. "
                  "Reported, not tuned.", "",
                  "| policy | jobs | CPU s | peak memory (MiB) | mean JCT (min) |",
                  "|---|---|---|---|---|"]
        for row in full["runs"]:
            if "stopped_after_cpu_s" in row:
                lines.append(f"| `{row['policy']}` | — | not finished in {row['stopped_after_cpu_s']} CPU s "
                             "(stopped) | — | — |")
            else:
                lines.append(f"| `{row['policy']}` | {row['jobs']:,} | {row['cpu_s']:.1f} | "
                             f"{row['peak_mib']:,.0f} | {_philly_fmt(row['avg_jct_min'])} |")
        lines.append("")
    return "\n".join(lines)


def _json_or_none(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _and(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def real_cluster_finding(data: dict) -> str:
    """The README's bullet on the real cluster, every figure and every verdict from the shipped
    comparison (:func:`gpusched.dashboard.real_cluster.real_cluster_summary`)."""
    s = real_cluster_summary(data)
    n = len(s.policies)
    against = "at most" if s.ours_mean_abs_pct <= s.sim_mean_abs_pct else "above"
    text = (f"- **Against a real cluster.** On Shockwave's {s.jobs}-job trace, run on 32 real V100 GPUs "
            f"at TACC (NSDI '23), with one calibrated constant ({s.restore_s:g} s of restore when a job "
            f"resumes on other GPUs), our average JCT is within 10 % of the real cluster's for "
            f"**{len(s.close)} of the {n}** policies with shared results: mean |error| "
            f"{s.ours_mean_abs_pct:.2f} %, {against} Shockwave's own simulator's "
            f"{s.sim_mean_abs_pct:.2f} % on the same policies.")
    if s.short:
        text += (" Per job we fall short: the share of jobs within 10 % of their measured JCT is "
                 + _and([f"{o:.0f} % against its {t:.0f} % on `{p}`" for p, o, t in s.short])
                 + f" ({n - len(s.short)} of {n} policies at least match it).")
    else:
        text += " Per job we match it: on every policy at least as many jobs land within 10 % of " \
                "their measured JCT."
    if s.sim_costs is not None:  # the two simulators told the same costs
        resume_s, worst, n_runs = s.sim_costs
        text += (f" Told the costs Shockwave's simulator charges ({resume_s:g} s to a job back after a "
                 f"round off, nothing to a move), our average JCT is within {worst:.1f} % of that "
                 f"simulator's on each of the {n_runs}.")
    return text + (f" Makespan: up to {s.ours_worst_makespan_pct:.1f} % off, against "
                   f"{s.sim_worst_makespan_pct:.1f} % for its simulator "
                   "([table](docs/results/real-cluster.md)).")


def _moving_rule_clause(runs: pd.DataFrame, scenario: str, mean: pd.Series, moving: Sequence[str]) -> str:
    """Where the best rule that moves jobs stands against the fleet's bound (planner minus rule,
    paired seed by seed), or nothing when the bound's file holds no such rule."""
    mover = _best_moving_rule(mean, moving)
    if mover is None:
        return ""
    d = _paired(runs, scenario, PLANNER, mover).loc["avg_jct_min"]
    reach = ("further" if d.low > 0 else "not as far" if d.high < 0
             else "as far, within the paired interval")
    return (f" A rule that moves running jobs to faster GPUs, outside that action space, gets {reach}: "
            f"`{mover}`, {mean[mover]:.1f} min.")


def findings_markdown(window: dict, bound: dict, findings: list[FamilyFinding], fgd: FgdAccuracy) -> str:
    """The README's findings, seven bullets, each number taken from the shipped results."""
    stall = {f.family: f for f in findings}["phase1-8gpu"]
    stalling = [f for f in findings if f.stalls]
    mixed = [f for f in findings if mixes_gpu_sizes(f.family)]
    shares = [100 * f.causes["capacity"] / sum(f.causes.values()) for f in mixed]
    most = "most of" if all(f.dominant_cause == "capacity" for f in mixed) else "many of"
    b_runs = pd.DataFrame(bound["runs"])
    b_best = bound["best_heuristic"]
    b_mean = b_runs.groupby("policy")["avg_jct_min"].mean()
    bullets = [
        "- **Least-Loaded stalls the queue.** It sends a job to the least-busy GPU without checking that "
        f"the job fits there. On `phase1-8gpu` jobs wait **{stall.wait_diff.mean:.0f} min** longer on "
        f"average than with First-Fit (paired 95 % interval {stall.wait_diff.low:.0f} to "
        f"{stall.wait_diff.high:.0f} min), and it stalls on {len(stalling)} of the {len(findings)} cluster "
        "families of the conditions map ([table](docs/results/stall-conditions.md)).",
        f"- **Mixed GPU sizes are the main cause.** On the {len(mixed)} families that mix GPU sizes, "
        f"{most} its misroutes ({min(shares):.0f}–{max(shares):.0f} %) send a job to a GPU too small ever "
        "to hold it ([why](docs/scenarios.md#where-the-least-loaded-stall-happens)).",
        headline_finding(headline(WINDOW_AGENT_JSON)),
        agent_finding(window) + " A clairvoyant planner in the agent's own action space reaches "
        f"{b_mean[PLANNER]:.1f} min on `fleet-16gpu` ({_pct(b_mean[PLANNER], b_mean[b_best])} against "
        f"`{b_best}`; [bound](docs/results/lookahead-bound.md), [agent](docs/agent.md))."
        + _moving_rule_clause(b_runs, bound["scenario"], b_mean, bound.get("moving", [])),
        f"- **The FGD paper reproduces.** On {fgd.rows} trace and policy pairs of Alibaba's openb trace, "
        f"our 10-seed mean GPU allocation is within **{fgd.largest_diff:.2f} points** of the published "
        "one ([table](docs/results/fgd-accuracy.md)).",
        gavel_finding(json.loads(GAVEL_LOAD_JSON.read_text(encoding="utf-8")),
                      _json_or_none(GAVEL_LOAD_ROUNDS_JSON)),
        real_cluster_finding(json.loads(REAL_CLUSTER_RESULTS.read_text(encoding="utf-8"))),
    ]
    return "\n".join(bullets)


def load_inputs() -> tuple[dict, dict, list[FamilyFinding], FgdAccuracy]:
    """Every shipped result the rendered pages come from."""
    window = json.loads(WINDOW_AGENT_JSON.read_text(encoding="utf-8"))
    bound = json.loads(LOOKAHEAD_BOUND_JSON.read_text(encoding="utf-8"))
    findings = conditions_findings(load_sweep_results(STALL_CONDITIONS_RESULTS_DIR))
    fgd = read_fgd_accuracy(FGD_ACCURACY_MD.read_text(encoding="utf-8"))
    return window, bound, findings, fgd


def with_findings(readme: str, findings: str) -> str:
    """The README text with its findings block replaced by ``findings``."""
    start, end = readme.index(FINDINGS_START), readme.index(FINDINGS_END)
    return readme[: start + len(FINDINGS_START)] + "\n" + findings + "\n" + readme[end:]


def rendered() -> dict[Path, str]:
    """Every file this script writes, with the text it should hold."""
    window, bound, findings, fgd = load_inputs()
    rounds = _json_or_none(GAVEL_LOAD_ROUNDS_JSON)
    return {
        DOCS_RESULTS_DIR / "window-agent.md": window_agent_markdown(window),
        DOCS_RESULTS_DIR / "lookahead-bound.md": lookahead_bound_markdown(
            bound, [d for d in map(_json_or_none, LOOKAHEAD_CUT_JSONS) if d is not None],
            _json_or_none(LOOKAHEAD_MOVING_BASE_JSON)),
        DOCS_RESULTS_DIR / "stall-conditions.md": stall_conditions_markdown(findings),
        DOCS_RESULTS_DIR / "gavel-crosscheck.md": gavel_crosscheck_markdown(
            json.loads(GAVEL_CROSSCHECK_JSON.read_text(encoding="utf-8"))),
        DOCS_RESULTS_DIR / "gavel-load.svg": gavel_load_svg(
            json.loads(GAVEL_LOAD_JSON.read_text(encoding="utf-8"))),
        DOCS_RESULTS_DIR / "gavel-load.md": gavel_load_markdown(
            json.loads(GAVEL_LOAD_JSON.read_text(encoding="utf-8")),
            json.loads(GAVEL_LOAD_TUNING_JSON.read_text(encoding="utf-8")), rounds),
        **({DOCS_RESULTS_DIR / "gavel-load-rounds.svg": gavel_round_svg(rounds)} if rounds else {}),
        DOCS_RESULTS_DIR / "urgency.md": urgency_markdown(_json_or_none(URGENCY_WINDOW_RESULTS),
                                                          _json_or_none(URGENCY_RESULTS)),
        **({DOCS_RESULTS_DIR / "philly.md": philly_markdown(
            philly, _json_or_none(PHILLY_ROUNDS_RESULTS), _json_or_none(PHILLY_FULL_RESULTS),
            _json_or_none(PHILLY_HISTORY_RESULTS))}
           if (philly := _json_or_none(PHILLY_PAIRS_RESULTS)) else {}),
        **({DOCS_RESULTS_DIR / "rule-models.md": rule_models_markdown(
            shift, bound, _json_or_none(RULE_MODELS_ROUNDS_JSON))}
           if (shift := _json_or_none(RULE_MODELS_SHIFT_JSON)) else {}),
        README: with_findings(README.read_text(encoding="utf-8"),
                              findings_markdown(window, bound, findings, fgd)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page is stale")
    args = parser.parse_args()
    stale = []
    for path, text in rendered().items():
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'} {path.relative_to(REPO_ROOT)}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
