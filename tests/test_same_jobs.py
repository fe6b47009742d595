"""Policies on the same jobs: identical results are found from the runs and explained, the agents'
table is measured against the best heuristic on the same seeds, and the stall control's note
follows the numbers of the control shown."""

from __future__ import annotations

import pytest

from gpusched import compare, load_scenario, run_policy
from gpusched.experiment.identical import identical_groups
from gpusched.experiment.stall import analyse_stall, conditions_findings
from gpusched.figures import control_note
from gpusched.figures.same_jobs import agents_table, identity_notes, identity_reason
from gpusched.figures.words import signed
from gpusched.paths import STALL_CONDITIONS_RESULTS_DIR
from gpusched.sweep.analysis import load_sweep_results
from gpusched.words.metric_names import format_metric, metric_title


@pytest.fixture(scope="module")
def fifo_comparison():
    scenario = load_scenario("phase1-4gpu").with_overrides(**{"workload.jobs": 30})
    assert scenario.window == 1
    return compare(scenario, ["first_fit", "fcfs+first_fit", "least_loaded"], [0, 1])


def test_identical_runs_are_grouped_and_explained(fifo_comparison):
    assert identical_groups(fifo_comparison) == [("first_fit", "fcfs+first_fit")]
    notes = identity_notes(fifo_comparison, window=1)
    assert len(notes) == 1 and "First-Fit" in notes[0] and "window of 1" in notes[0]
    assert "Least-Loaded" not in notes[0]


def test_the_reason_depends_on_the_policies_and_the_window():
    assert "rollout" in identity_reason(["ppo", "ppo_rollout"], window=1)
    assert "window of 1" in identity_reason(["ppo:a.zip", "ppo:b.zip"], window=1)
    assert identity_reason(["ppo:a.zip", "ppo:b.zip"], window=8) == \
        "they made the same decisions on these jobs"


def test_agents_table_measures_every_model_against_the_best_on_the_same_seeds(fifo_comparison):
    table = agents_table(fifo_comparison, "first_fit", ["least_loaded", "missing"])
    mean = fifo_comparison.summary()
    assert len(table) == 2  # a model without runs is left out
    jct = metric_title("avg_jct_min")
    assert table[jct].tolist() == [format_metric("avg_jct_min", mean.loc[p, "avg_jct_min"])
                                   for p in ("first_fit", "least_loaded")]
    change = mean.loc["least_loaded", "avg_jct_min"] / mean.loc["first_fit", "avg_jct_min"] - 1
    assert table[f"{jct} vs best heuristic"].tolist() == ["—", f"{change * 100:+.1f} %"]


@pytest.fixture(scope="module")
def findings():
    return {f.family: f for f in conditions_findings(load_sweep_results(STALL_CONDITIONS_RESULTS_DIR))}


@pytest.mark.parametrize("family", ["homogeneous-16gpu", "homogeneous-8gpu", "phase1-8gpu"])
def test_control_note_follows_the_measured_numbers(findings, family):
    scenario = load_scenario(family)
    run, base = run_policy(scenario, "least_loaded", seed=0), run_policy(scenario, "first_fit", seed=0)
    note = control_note(analyse_stall(run), base, findings[family])
    shown = round(run.metrics["avg_wait_min"] - base.metrics["avg_wait_min"])
    worded = ("as long as First-Fit" if shown == 0 else
              f"{abs(shown):,} min {'longer' if shown > 0 else 'less'} than First-Fit")
    assert f"**{worded}**" in note
    finding = findings[family]
    if finding.stalls and shown > 0:
        assert "The map agrees" in note
    elif finding.stalls:
        assert "still lists it" in note and "other loads and seeds" in note
    else:
        assert "does not list it" in note
    assert f"{signed(finding.wait_diff.mean, 1)} min" in note
