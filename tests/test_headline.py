"""One headline: Home, Compare's default view and the README name the same best rule, the same
seeds and the same numbers, all of them those of the shipped results."""

from __future__ import annotations

import json
import re

import pandas as pd
from apptest_support import assert_clean, open_page

from gpusched.paths import REPO_ROOT, WINDOW_AGENT_RESULTS

SENTENCE = re.compile(
    r"On `(?P<scenario>[\w-]+)`, over (?P<n>\d+) seeds \((?P<lo>\d+)–(?P<hi>\d+)\), the best queue-aware "
    r"heuristic, (?P<label>[^(]+) \(`(?P<best>[\w+]+)`\), brings the average time to result to "
    r"\*\*(?P<best_mean>[\d.]+) min\*\*, against (?P<base_mean>[\d.]+) for first-come first-served "
    r"First-Fit \(`fcfs\+first_fit`\): (?P<pct>−?[\d.]+) % \(95 % interval (?P<pct_lo>−?[\d.]+) % to "
    r"(?P<pct_hi>−?[\d.]+) %\)")


PLAIN = re.compile(
    r"The best of the (?P<rules>\d+) fixed rules measured here, \*\*(?P<label>[^*]+)\*\*, brings the average "
    r"time to result \(from a job's arrival to its end\) to \*\*(?P<best_mean>[\d,]+) min\*\*, against "
    r"(?P<base_mean>[\d,]+) min for First-Fit taking jobs in arrival order: \*\*(?P<pct>\d+) % shorter\*\* "
    r"\(95 % interval: (?P<pct_lo>\d+) to (?P<pct_hi>\d+) % shorter\); shorter on (?P<wins>\d+) of the "
    r"(?P<n>\d+) workloads\.")
"""Home's wording of the headline: the same numbers, in plain words and whole minutes."""


def _named(texts: list[str], where: str, sentence: re.Pattern = SENTENCE) -> dict[str, str]:
    found = [m.groupdict() for t in texts for m in [sentence.search(t)] if m]
    assert found, f"no headline sentence on {where}"
    return found[0]


def test_home_compare_and_the_readme_name_the_same_best_rule_seeds_and_numbers():
    home = open_page()
    assert_clean(home)
    compare = open_page("views/compare.py")
    assert_clean(compare)
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    said = {"Compare": _named([m.value for m in compare.markdown], "Compare"),
            "README": _named([readme], "the README")}
    assert said["Compare"] == said["README"], said
    plain = _named([m.value for m in home.markdown], "Home", PLAIN)
    one = said["Compare"]
    assert plain["label"] == one["label"].strip() and int(plain["n"]) == int(one["n"])

    # ... and they are the shipped results', recomputed here from the JSON itself.
    runs = pd.DataFrame(json.loads(WINDOW_AGENT_RESULTS.read_text(encoding="utf-8"))["fleet-16gpu"]["runs"])
    jct = runs.pivot_table(index="seed", columns="policy", values="avg_jct_min")
    heuristics = [p for p in jct.columns if not p.startswith("ppo")]
    best = jct[heuristics].mean().idxmin()
    assert (one["scenario"], one["best"], int(one["n"])) == ("fleet-16gpu", best, len(jct))
    assert (int(one["lo"]), int(one["hi"])) == (jct.index.min(), jct.index.max())
    assert one["best_mean"] == f"{jct[best].mean():.1f}"
    assert one["base_mean"] == f"{jct['fcfs+first_fit'].mean():.1f}"
    pct = 100 * (jct[best].mean() / jct["fcfs+first_fit"].mean() - 1)
    assert float(one["pct"].replace("−", "-")) == round(pct, 1)
    assert float(one["pct_lo"].replace("−", "-")) < round(pct, 1) < float(one["pct_hi"].replace("−", "-"))

    assert plain["best_mean"] == f"{jct[best].mean():,.0f}"
    assert plain["base_mean"] == f"{jct['fcfs+first_fit'].mean():,.0f}"
    assert plain["pct"] == f"{abs(pct):.0f}"
    assert int(plain["wins"]) == int((jct[best] < jct["fcfs+first_fit"]).sum())
    assert int(plain["rules"]) == len(heuristics)

    # Home's cards and Compare's table show the same means.
    cards = [m.value for m in home.metric if m.label == "Time to result (min)"]
    assert one["base_mean"] in cards and one["best_mean"] in cards
    table = next(df.value for df in compare.dataframe if "Time to result (min)" in df.value.columns)
    assert table["Time to result (min)"].str.startswith((one["base_mean"], one["best_mean"])).sum() >= 2
