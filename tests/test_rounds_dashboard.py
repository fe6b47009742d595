"""Round policies on the dashboard's side (no Streamlit): offered by Compare and Replay from the
registry's list, run on the background worker, their fairness in Compare's bars and tables, and
Replay's Gantt chart following a job from GPU model to GPU model round by round."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.core.metrics import FAIRNESS_METRIC_KEYS
from gpusched.dashboard.policies import dashboard_policies
from gpusched.experiment.runner import compare, run_policy
from gpusched.figures.compare import FAIRNESS_BAR_METRICS, metric_bars_figure, results_sections
from gpusched.figures.replay import followed_round_job, gantt_figure
from gpusched.policies import is_slow
from gpusched.policies.rounds.registry import round_policy_names
from gpusched.words.metric_names import metric_title
from gpusched.workload.presets import load_scenario

PRESET = "gavel-12gpu-rounds"
JOBS = 24
"""A short prefix of the preset's jobs, so that each run takes well under a second or two."""


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(PRESET)


@pytest.fixture(scope="module")
def comparison(scenario):
    return compare(scenario, ["fcfs+first_fit", "max_min_fairness", "max_min_fairness_perf"], [0, 1],
                   n_jobs=JOBS)


def test_every_round_policy_is_offered_and_runs_in_the_background():
    offered = dashboard_policies()
    assert [p for p in offered if p in round_policy_names()] == round_policy_names()
    assert all(is_slow(p) for p in round_policy_names())
    assert not is_slow("fcfs+first_fit")


def test_the_results_table_has_a_fairness_section(comparison):
    sections = results_sections(comparison)
    assert list(sections["Fairness"].columns) == [metric_title(k) for k in FAIRNESS_METRIC_KEYS]
    assert comparison.metrics[-len(FAIRNESS_METRIC_KEYS):] == list(FAIRNESS_METRIC_KEYS)
    changes = comparison.summary()["type_changes_per_job"]
    assert changes["max_min_fairness"] > changes["max_min_fairness_perf"] >= changes["fcfs+first_fit"] == 0


def test_the_fairness_bars_draw_the_metrics_that_differ(comparison):
    fig = metric_bars_figure(comparison, FAIRNESS_BAR_METRICS)
    titles = [a.text for a in fig.layout.annotations]
    assert metric_title("type_changes_per_job") in titles
    bars = next(t for t in fig.data if t.name == metric_title("type_changes_per_job"))
    assert len(bars.x) == 3 and bars.y[0] == 0 and bars.y[1] > 1


def test_the_gantt_follows_the_job_that_changed_gpu_model_most(scenario):
    result = run_policy(scenario, "max_min_fairness", seed=0, n_jobs=JOBS)
    job = followed_round_job(result)
    jobs = result.jobs.set_index("id")
    assert jobs.loc[job, "type_changes"] == jobs["type_changes"].max() > 0
    traces = gantt_figure(result).data
    line = next(t for t in traces if t.name and t.name.startswith(f"job {job} round by round"))
    models = {label.split()[0] for label in line.customdata}
    assert len(models) >= 2, models
    runs = result.timeline.placements
    assert len(line.x) == 2 * int((runs["job"] == job).sum())
    assert np.all(np.diff(np.asarray(line.x, dtype=float)) >= -0.051)  # round by round, in time order


def test_an_event_driven_run_follows_no_job(scenario):
    result = run_policy(scenario, "fcfs+first_fit", seed=0, n_jobs=JOBS)
    assert followed_round_job(result) is None
    assert not any(t.name and "round by round" in t.name for t in gantt_figure(result).data)
