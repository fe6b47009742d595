"""Per-job weights from the tuned score in a round policy (``max_min_fairness_perf:tuned:NAME``):
the rank map, a hand-computed allocation, equal weights giving exactly the plain run, weights read
from the view, and bad model files refused in one line through the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gpusched.agent.rule_models import save_tuned
from gpusched.core.rounds import RoundProblem
from gpusched.policies import check_policy, get_policy
from gpusched.policies.registry import is_round_policy, reads_run_times
from gpusched.policies.rounds.max_min_fairness import MaxMinFairnessPerf
from gpusched.policies.rounds.scheduler import RoundScheduler
from gpusched.policies.rounds.weights import RANK_SPREAD, rank_multipliers, score_weights
from gpusched.policies.tuned import TUNED_FEATURES, tuned_scores
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

PRESET = "gavel-12gpu-rounds"
WALL_CLOCK = {"round_solve_median_s", "round_solve_p99_s", "round_solve_total_s"}
"""Metrics of the solver's wall-clock time: the only ones two identical runs may differ in."""
N_JOBS = 40
WEIGHTED = "max_min_fairness_perf:tuned:m"


def _save(folder, name="m", weights=None):
    path = folder / "tuned" / f"{name}.npz"
    w = np.zeros(len(TUNED_FEATURES)) if weights is None else np.asarray(weights, dtype=float)
    save_tuned(path, w, {"base": "sjf+fastest_fit", "placement": "fastest_fit"})
    return path


def _only(feature: str, value: float) -> np.ndarray:
    w = np.zeros(len(TUNED_FEATURES))
    w[TUNED_FEATURES.index(feature)] = value
    return w


@pytest.fixture
def models(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(tmp_path))
    return tmp_path


def _run(policy, seed=1000):
    sim = make_simulator(load_scenario(PRESET), seed, N_JOBS, rounds=True)
    return sim.run(policy)


# ---------------------------------------------------------------------------- the map
def test_equal_scores_give_exactly_one_and_the_map_is_monotone():
    assert np.array_equal(rank_multipliers(np.full(7, 3.25)), np.ones(7))
    assert np.array_equal(rank_multipliers(np.array([2.0])), np.ones(1))
    scores = np.array([0.3, -1.0, 0.3, 4.0, 2.0])
    m = rank_multipliers(scores, spread=4.0)
    assert m[1] == 4.0 and m[3] == 1.0 and m[0] == m[2]
    order = np.argsort(scores, kind="stable")
    assert np.all(np.diff(m[order]) <= 0)  # a lower score never gets a smaller multiplier
    # three jobs strictly above job 0 out of 4 others: 4 ** (3 / 4)
    assert m[0] == pytest.approx(4.0 ** 0.5)


@pytest.mark.parametrize("bad", [np.array([0.0, np.nan]), np.zeros((2, 2))])
def test_bad_scores_or_spread_are_refused(bad):
    with pytest.raises(ValueError):
        rank_multipliers(bad)
    with pytest.raises(ValueError):
        rank_multipliers(np.zeros(3), spread=0.5)


@pytest.mark.parametrize(("scores", "spread", "shares"), [
    # weights 5 and 1 on one GPU: Gavel's weight counts twice, time shares 25:1
    ([0.0, 1.0], 5.0, [25 / 26, 1 / 26]),
    # weights 4, 2, 1 (ranks 2, 1, 0 of 2): time shares 16:4:1
    ([-3.0, 0.5, 7.0], 4.0, [16 / 21, 4 / 21, 1 / 21]),
])
def test_a_hand_set_score_gives_the_hand_computed_allocation(scores, spread, shares):
    weight = rank_multipliers(np.array(scores), spread)
    n = len(scores)
    problem = RoundProblem(throughput=np.ones((n, 1)), scale_factor=np.ones(n), capacity=np.array([1]),
                           weight=weight)
    allocation = MaxMinFairnessPerf()(problem)
    assert allocation.share[:, 0] == pytest.approx(shares, abs=1e-6)


# ---------------------------------------------------------------------------- in a run
def test_the_name_is_a_round_policy_that_reads_run_times(models):
    _save(models)
    assert is_round_policy(WEIGHTED) and is_round_policy("max_min_fairness_perf")
    assert not is_round_policy("tuned:m")
    assert reads_run_times(WEIGHTED)
    check_policy(WEIGHTED)
    assert get_policy(WEIGHTED).name == WEIGHTED


def test_equal_weights_give_exactly_the_plain_run(models):
    _save(models)  # every weight 0: every score ties, every multiplier is 1
    _save(models, "gpus", _only("gpus", 1.0))  # every job of this preset asks for one GPU
    plain = _run(get_policy("max_min_fairness_perf"))
    for name in ("m", "gpus"):
        ours = _run(get_policy(f"max_min_fairness_perf:tuned:{name}"))
        assert set(ours.metrics) == set(plain.metrics)
        assert {k: v for k, v in ours.metrics.items() if k not in WALL_CLOCK} == {
            k: v for k, v in plain.metrics.items() if k not in WALL_CLOCK}
        assert ours.jobs.equals(plain.jobs)


class _Recording(MaxMinFairnessPerf):
    """Max-min fairness that keeps every problem it solves."""

    def __init__(self):
        self.problems: list[RoundProblem] = []

    def solve(self, problem):
        self.problems.append(problem)
        return super().solve(problem)


def test_weights_follow_the_score_read_from_the_view():
    policy = _Recording()
    # all weight on the wait, negative: the longest-waiting job scores lowest, weighs most
    scheduler = RoundScheduler(policy, score_weights(tuned_scores(_only("wait", -1.0))), name="w")
    sim = make_simulator(load_scenario(PRESET), 1000, N_JOBS, rounds=True)
    arrival = np.array([job.arrival_min for job in sim.view.jobs])
    result = sim.run(scheduler)
    assert result.metrics["jobs_completed"] == N_JOBS
    checked = 0
    for problem in policy.problems:
        a = arrival[problem.job_ids]
        above = (a[None, :] > a[:, None]).sum(axis=1)  # jobs that arrived later score higher
        expected = RANK_SPREAD ** (above / max(problem.n_jobs - 1, 1))
        assert np.allclose(problem.weight, expected, rtol=1e-12, atol=0)
        checked += problem.n_jobs > 1
    assert checked > 0


def test_a_score_that_ranks_differs_from_the_plain_run(models):
    _save(models, "left", _only("left_best", 1.0))  # the least work left weighs most
    plain = _run(get_policy("max_min_fairness_perf"))
    ours = _run(get_policy("max_min_fairness_perf:tuned:left"))
    assert ours.metrics["avg_jct_min"] != plain.metrics["avg_jct_min"]


def test_a_policy_that_ignores_weights_is_refused():
    from gpusched.policies.rounds.registry import get_round_policy

    with pytest.raises(ValueError, match="does not honour"):
        RoundScheduler(get_round_policy("finish_time_fairness_perf"),
                       lambda view, active: np.ones(len(active)))


# ---------------------------------------------------------------------------- the command line
def _cli(policy, models_dir):
    env = {**os.environ, "GPUSCHED_MODELS_DIR": str(models_dir)}
    return subprocess.run([sys.executable, "-m", "gpusched", "simulate", "--scenario", PRESET,
                           "--policy", policy, "--jobs", "5"], capture_output=True, text=True, env=env,
                          cwd=models_dir, timeout=300)


def _tamper(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(("spoil", "policy", "needle"), [
    ("sha", WEIGHTED, "does not match the sha256"),
    ("nan", WEIGHTED, "NaN"),
    ("version", WEIGHTED, "version: 2 is not 1"),
    ("none", "max_min_fairness_perf:tuned:missing", "not found"),
    ("none", "max_min_fairness_perf:ppo:m", "name the score that sets its job weights"),
    ("none", "fifo_perf:tuned:m", "unknown policy"),
])
def test_bad_model_files_are_refused_in_one_line(models, spoil, policy, needle):
    path = _save(models, "m", _only("wait", np.nan) if spoil == "nan" else None)
    if spoil == "sha":
        _tamper(path)
    elif spoil == "version":
        side = path.with_suffix(".json")
        meta = json.loads(side.read_text())
        meta["version"] = 2
        side.write_text(json.dumps(meta))
    out = _cli(policy, models)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in out.stderr, out.stderr
    assert out.stdout == ""
