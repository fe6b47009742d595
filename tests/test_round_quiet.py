"""Quiet rounds run in place (RoundMechanism._skip_quiet_rounds): a run gives the same jobs table,
metrics, logs, integrals and round state as one that goes through a decision at every round."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.core.lifecycle import Lifecycle
from gpusched.core.rounds.mechanism import RoundMechanism
from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario_yaml import scenario_from_dict

CLUSTER = {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 2, "count": 1}
                     for m in ("V100", "P100", "K80")]}
ROUND_ARRAYS = ("time_min", "type_time_min", "deficit_min", "service_min", "work_min", "type_changes",
                "last_type")


def _gavel(recompute: str = "held", **extra) -> object:
    return scenario_from_dict({"name": "quiet-rounds", "cluster": CLUSTER,
                               "workload": {"generator": "gavel", "jobs": 30, "load": 1.2, "seed": 5},
                               "speed": "gavel",
                               "rounds": {"length_min": 6, "reset_min": 32, "recompute": recompute},
                               **extra})


def _run(scenario, policy: str, n_jobs: int | None = None):
    sim = make_simulator(scenario, n_jobs=n_jobs, rounds=True)
    result = sim.run(get_policy(policy, 0))
    return sim, result


def _same_run(scenario, policy: str, monkeypatch, n_jobs: int | None = None) -> int:
    """Run with quiet rounds skipped and without; assert that everything matches; return how many
    rounds were run in place."""
    skipped = []
    real = RoundMechanism._skip_quiet_rounds

    def counting(self, run, r, end):
        before = r.rounds
        end = real(self, run, r, end)
        skipped.append(r.rounds - before)
        return end

    monkeypatch.setattr(RoundMechanism, "_skip_quiet_rounds", counting)
    fast_sim, fast = _run(scenario, policy, n_jobs)
    monkeypatch.setattr(RoundMechanism, "_skip_quiet_rounds", lambda self, run, r, end: end)
    slow_sim, slow = _run(scenario, policy, n_jobs)
    assert fast.jobs.equals(slow.jobs)
    keep = [k for k in fast.metrics if "solve" not in k]
    assert {k: fast.metrics[k] for k in keep} == {k: slow.metrics[k] for k in keep}
    a, b = fast_sim.run_state, slow_sim.run_state
    assert (a.decisions, a.time_min, a.end_reason) == (b.decisions, b.time_min, b.end_reason)
    assert a.log.holds == b.log.holds and a.log.stops == b.log.stops and a.log.resumes == b.log.resumes
    for name in a.integrals.FLOATS:
        assert getattr(a.integrals, name) == getattr(b.integrals, name), name
    assert a.rounds.rounds == b.rounds.rounds
    for name in ROUND_ARRAYS:
        np.testing.assert_array_equal(getattr(a.rounds, name), getattr(b.rounds, name), err_msg=name)
    return sum(skipped)


@pytest.mark.parametrize("policy", ["fifo_perf", "max_sum_throughput_perf", "max_min_fairness_perf",
                                    "finish_time_fairness_perf", "allox", "gandiva", "max_min_fairness"])
def test_quiet_rounds_in_place_give_the_same_run(policy, monkeypatch):
    skipped = _same_run(_gavel(), policy, monkeypatch)
    if policy in ("fifo_perf", "max_sum_throughput_perf", "allox"):
        assert skipped > 0  # the case does have quiet rounds


def test_quiet_rounds_under_on_change(monkeypatch):
    assert _same_run(_gavel("on_change"), "max_sum_throughput_perf", monkeypatch) > 0


def test_quiet_rounds_stop_at_the_horizon(monkeypatch):
    """A horizon in the middle of the run ends it at the same instant, in the same state."""
    scenario = _gavel(horizon_min=900.0)
    _, result = _run(scenario, "fifo_perf")
    assert result.end_reason == "horizon"
    assert _same_run(scenario, "fifo_perf", monkeypatch) > 0


def test_quiet_rounds_stop_at_node_failures(monkeypatch):
    scenario = load_scenario("fleet-16gpu-failures").with_overrides(
        **{"failures.node_failures_per_1000_node_days": 1500.0})
    _same_run(scenario, "max_sum_throughput_perf", monkeypatch, n_jobs=40)
    _, result = _run(scenario, "max_sum_throughput_perf", n_jobs=40)
    assert result.metrics["node_failures"] > 0


def test_quiet_rounds_with_jobs_that_change_phase(monkeypatch):
    """Shockwave's dynamic jobs: a phase's end is an event, so no round is skipped across one."""
    assert _same_run(load_scenario("shockwave-tacc-32gpu"), "max_sum_throughput_perf", monkeypatch) > 0


@pytest.mark.parametrize("policy", ["fifo_perf", "max_sum_throughput_perf", "max_min_fairness_perf"])
def test_a_stretch_of_quiet_rounds_as_arrays_is_the_rounds_one_by_one(policy, monkeypatch):
    """The quiet rounds summed as arrays (RoundMechanism._close_and_open) leave the round state,
    the clock and the decisions after each stretch exactly as closing and opening them one at a
    time does, on stretches of many rounds with several jobs on one GPU type."""
    scenario = scenario_from_dict({
        "name": "quiet-stretches",
        "cluster": {"nodes": [{"gpu_model": m, "vram_gb": 16, "gpus_per_node": 4, "count": 1}
                              for m in ("V100", "P100", "K80")]},
        "workload": {"generator": "gavel", "jobs": 40, "load": 0.8, "seed": 11}, "speed": "gavel",
        "rounds": {"length_min": 6, "reset_min": 32}})
    real = RoundMechanism._skip_quiet_rounds
    seen: dict[bool, list] = {True: [], False: []}
    longest = []

    for as_arrays in (True, False):
        def recording(self, run, r, end, as_arrays=as_arrays):
            before = r.rounds
            end = real(self, run, r, end)
            seen[as_arrays].append((end, r.rounds, r.round_start_min, r.gavel_round_start_min,
                                    r.gavel_round_end_min, r.type_time_min.tobytes(), r.time_min.tobytes(),
                                    r.service_min.tobytes(), r.work_min.tobytes(), tuple(r.placed),
                                    tuple(sorted(r._ended.items())), run.decisions, run.time_min))
            if as_arrays:
                longest.append((r.rounds - before, len(r.placed) - len({j for _, j, _ in r.placed})))
            return end

        monkeypatch.setattr(RoundMechanism, "_skip_quiet_rounds", recording)
        if not as_arrays:  # progress that cannot be read as arrays: the rounds one at a time
            monkeypatch.setattr(Lifecycle, "fixed_speeds", lambda self, run, jobs: False)
        _run(scenario, policy)
    assert seen[True] == seen[False]
    assert any(rounds > 1 and shared > 0 for rounds, shared in longest)  # long stretches, types shared
