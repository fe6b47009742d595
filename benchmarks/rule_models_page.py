"""``docs/results/rule-models.md``: the models built on a rule against the best rule, the clairvoyant
bound and under shift (issue 38's targets), rendered from shipped JSON by ``render_results.py``.

Inputs:

- ``benchmarks/results/rule-models-shift.json`` (``rule_models_shift.py --json``): every shipped
  order+placement pair and the models on the same held-out seeds, as trained and in four shifted
  settings;
- ``benchmarks/results/lookahead-bound.json`` (``lookahead_bound.py --json``): the clairvoyant
  planner on ``fleet-16gpu``, whose runs on the same seeds give the bound;
- ``benchmarks/results/rule-models-rounds.json`` (``rule_models_rounds.py --json``), when present:
  the tuned score setting per-job weights of ``max_min_fairness_perf`` in rounds, paired against the
  plain policy (:func:`rounds_markdown`).

Every number and every verdict word on the page is computed here from those files.
"""

from __future__ import annotations

import pandas as pd

PLANNER = "lookahead_jct"
"""The clairvoyant planner whose mean JCT is the bound."""

GAP_SHARE_TARGET = 0.5
"""Issue 38: the best learned scheduler closes at least half the gap between the best rule and the
bound."""


def bound_jct_min(bound: dict, scenario: str, seeds: list[int]) -> float | None:
    """The planner's mean JCT (minutes) on ``seeds`` of ``scenario``, or ``None`` when the bound was
    not measured there on every one of them."""
    if bound.get("scenario") != scenario:
        return None
    runs = pd.DataFrame(bound["runs"])
    mine = runs[(runs.policy == PLANNER) & runs.seed.isin(seeds)]
    return float(mine.avg_jct_min.mean()) if len(mine) == len(seeds) else None


def gap_closed(best_min: float, model_min: float, bound_min: float) -> float:
    """The share of the gap between the best rule and the bound that a model closes (1: reaches
    the bound; 0: no better than the best rule; negative: worse)."""
    return (best_min - model_min) / (best_min - bound_min)


def _row(label: str, best: str, best_min: float, m: dict, verdict: str) -> str:
    return (f"| {label} | `{best}` {best_min:.1f} | `{m['model']}` {m['jct_min']:.1f} | {m['diff_min']:+.2f} "
            f"[{m['low_min']:+.2f}, {m['high_min']:+.2f}] | {m['diff_pct']:+.1f} % | "
            f"{m['model_lower']}/{m['ties']}/{m['model_higher']} | {m['p99_wait_min']:.0f} | {verdict} |")


def rounds_markdown(rounds: dict) -> list[str]:
    """The section "In rounds": the weighted round policy against the plain one, paired seed by
    seed, with the verdict word computed from the interval."""
    seeds = rounds["seeds"]
    if rounds["high_min"] < 0:
        verdict = "lower mean JCT than the plain policy (the interval lies below 0)"
    elif rounds["low_min"] > 0:
        verdict = "higher mean JCT than the plain policy (the interval lies above 0)"
    else:
        verdict = ("no difference in mean JCT from the plain policy that these seeds can show (the "
                   "interval holds 0)")
    lines = [
        "", "## In rounds", "",
        f"`{rounds['policy']}` runs Gavel's `{rounds['base']}` with each job's weight multiplied by a "
        f"rank-based map of its tuned score (the best-scored active job {rounds['spread']:g} times the "
        "worst, geometric in between; [the map](../policies.md#weights-from-the-tuned-score)), against "
        f"the plain policy on the same jobs of `{rounds['scenario']}`, held-out seeds "
        f"{seeds[0]}-{seeds[-1]} ({len(seeds)} seeds), paired seed by seed (Student t, 95 %). Nothing "
        "was tuned for rounds: the model is the shipped one, trained on `fleet-16gpu` in the queue, "
        "and the spread is fixed. From `benchmarks/results/rule-models-rounds.json` (`python "
        "benchmarks/rule_models_rounds.py --json benchmarks/results/rule-models-rounds.json`).", "",
        "| policy | mean JCT (min) | difference [95 %] | relative | won/tied/lost | p99 wait (min) |",
        "|---|---:|---|---:|---|---:|",
        f"| `{rounds['base']}` | {rounds['base_jct_min']:.1f} | reference | | | "
        f"{rounds['base_p99_wait_min']:.0f} |",
        f"| `{rounds['policy']}` | {rounds['jct_min']:.1f} | {rounds['diff_min']:+.2f} "
        f"[{rounds['low_min']:+.2f}, {rounds['high_min']:+.2f}] | {rounds['diff_pct']:+.1f} % | "
        f"{rounds['model_lower']}/{rounds['ties']}/{rounds['model_higher']} | {rounds['p99_wait_min']:.0f} |",
    ]
    control = rounds.get("control")
    if control is not None:
        lines.append(f"| {control['policy']} (control) | {control['jct_min']:.1f} | | | | "
                     f"{control['p99_wait_min']:.0f} |")
    lines += ["", f"With the tuned score's weights, `{rounds['base']}` has {verdict}."]
    if control is not None:
        c = control
        against = ("lower than" if c["high_min"] < 0 else "higher than" if c["low_min"] > 0
                   else "not different from")
        lines[-1] += (f" The control gives the same map a score of `left_best` alone (least declared work "
                      f"left weighs most): against it the tuned score's mean JCT differs by "
                      f"{c['diff_min']:+.2f} min [{c['low_min']:+.2f}, {c['high_min']:+.2f}] "
                      f"({c['model_lower']}/{c['ties']}/{c['model_higher']} won/tied/lost), "
                      f"{against} the control's at this level (95 %).")
    lines[-1] += f" Measured in {rounds['cpu_seconds']:,.0f} CPU s."
    return lines


def rule_models_markdown(shift: dict, bound: dict, rounds: dict | None = None) -> str:
    """The page (see the module docstring); ``rounds``: the section :func:`rounds_markdown`."""
    seeds = shift["seeds"]
    trained, *shifted = shift["settings"]
    target = shift["target_pct"]
    lines = [
        "# The models built on a rule: against the best rule, the bound and under shift", "",
        "Generated by `python benchmarks/render_results.py` from `benchmarks/results/rule-models-shift.json` "
        "(`python benchmarks/rule_models_shift.py --json benchmarks/results/rule-models-shift.json`) and "
        "`benchmarks/results/lookahead-bound.json`; do not edit by hand. Held-out seeds "
        f"{seeds[0]}-{seeds[-1]}. In each setting the best rule is the shipped order+placement pair with "
        "the lowest mean JCT on these very seeds (chosen after the fact: the hardest comparison for a "
        "model), and each model is paired against it seed by seed (Student t, 95 %). Both models trained "
        "on `fleet-16gpu` at load 0.3 only ([the agent](../agent.md)).", "",
        "## Against the bound, as trained", ""]
    bound_min = bound_jct_min(bound, trained["scenario"], seeds)
    best_min = trained["best_jct_min"]
    if bound_min is None:
        lines.append(f"The bound was not measured on `{trained['scenario']}` for every one of these seeds.")
    else:
        lines += [f"On `{trained['scenario']}` the best rule, `{trained['best']}`, averages {best_min:.1f} "
                  f"min; the clairvoyant planner `{PLANNER}` ([the bound](lookahead-bound.md)) "
                  f"{bound_min:.1f} min on the same seeds: a gap of {best_min - bound_min:.1f} min. "
                  "The target is to close at least "
                  f"{100 * GAP_SHARE_TARGET:.0f} % of it with p99 wait no worse than the best rule's "
                  f"({trained['best_p99_wait_min']:.0f} min).", "",
                  "| model | mean JCT (min) | share of the gap closed | p99 wait (min) | target |",
                  "|---|---:|---:|---:|---|"]
        for m in trained["models"]:
            share = gap_closed(best_min, m["jct_min"], bound_min)
            met = share >= GAP_SHARE_TARGET and m["p99_wait_min"] <= trained["best_p99_wait_min"]
            lines.append(f"| `{m['model']}` | {m['jct_min']:.1f} | {100 * share:+.0f} % | "
                         f"{m['p99_wait_min']:.0f} | {'met' if met else 'missed'} |")
    lines += ["", "## Under shift", "",
              f"Target: never more than {target:g} % worse (mean JCT) than the best rule of the setting. "
              "Columns: the best rule and its mean JCT, the model and its mean JCT, the paired difference "
              "(min) [95 % interval], relative, seeds won/tied/lost by the model, the model's p99 wait.", "",
              "| setting | best rule (min) | model (min) | difference [95 %] | relative | won/tied/lost | "
              "p99 wait (min) | target |",
              "|---|---|---|---|---:|---|---:|---|"]
    for setting in (trained, *shifted):
        for m in setting["models"]:
            verdict = ("reference" if setting is trained else "met" if m["within_target"] else "missed")
            lines.append(_row(setting["label"], setting["best"], setting["best_jct_min"], m, verdict))
    misses = [f"{m['model']} ({s['label']}, {m['diff_pct']:+.1f} %)"
              for s in shifted for m in s["models"] if not m["within_target"]]
    lines += ["", ("Every model stays within the target in every shifted setting." if not misses else
                   "Outside the target: " + "; ".join(misses) + ".")]
    cpu = sum(s["cpu_seconds"] for s in shift["settings"])
    lines += ["", f"Measured in {cpu:,.0f} CPU s (every pair and model, every setting and seed)."]
    if rounds is not None:
        lines += rounds_markdown(rounds)
    return "\n".join(lines) + "\n"
