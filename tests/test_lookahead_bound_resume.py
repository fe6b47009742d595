"""``benchmarks/lookahead_bound.py --resume``: the planner's measurement written seed by seed, so a
stopped run keeps every seed it finished and starts again at the first one it did not."""

from __future__ import annotations

import argparse
import json
import sys

import pytest

from gpusched.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import lookahead_bound  # noqa: E402

RULES = ["las+fastest_move", "las+fastest_fit"]
MOVING = ["sjf+fastest_move"]  # what the faked moving_rules returns


class Stop(Exception):
    """Stands for a measurement cut short."""


def _args(path, seeds: str, horizon: float = 720.0, moving: bool = False,
          deployable: bool = False) -> argparse.Namespace:
    return argparse.Namespace(scenario="gavel-108gpu-heavy", seeds=seeds, setting="history",
                              base="las+fastest_fit", horizon_min=horizon, best_from="table.json",
                              workers=1, json=str(path), moving=moving, deployable=deployable)


@pytest.fixture
def calls(monkeypatch):
    """Every (policy, seed) run, faked: a run's JCT is its seed plus its policy's rank; a run of
    the planner on a seed in ``stop_on`` raises :class:`Stop`."""
    made: list[tuple[str, int]] = []
    stop_on: set[int] = set()

    def plan(args):
        return list(RULES), RULES[0], {"base": args.base, "horizon_min": args.horizon_min}

    def one_run(task):
        _, _, policy, seed, _ = task
        if policy == lookahead_bound.PLANNER and seed in stop_on:
            raise Stop(seed)
        made.append((policy, seed))
        beside = (*MOVING, lookahead_bound.DEPLOYABLE)  # the lowest JCT, and still never the best rule
        rank = -1 if policy in beside else [*RULES, lookahead_bound.PLANNER].index(policy)
        return {"policy": policy, "seed": seed, "seconds": 1.0, "cpu_seconds": 0.5,
                **{m: float(seed + rank) for m in lookahead_bound.METRICS}}

    monkeypatch.setattr(lookahead_bound, "plan", plan)
    monkeypatch.setattr(lookahead_bound, "one_run", one_run)
    return made, stop_on


def _seeds_in(path) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for r in json.loads(path.read_text(encoding="utf-8"))["runs"]:
        out.setdefault(r["seed"], set()).add(r["policy"])
    return out


def test_a_stopped_measurement_keeps_its_finished_seeds_and_resumes_at_the_next(tmp_path, calls):
    made, stop_on = calls
    path = tmp_path / "bound.json"
    stop_on.add(1001)
    with pytest.raises(Stop):
        lookahead_bound.measure_resumable(_args(path, "1000-1002"))
    everyone = {*RULES, lookahead_bound.PLANNER}
    assert _seeds_in(path) == {1000: everyone}  # seed 1001 was cut: none of its runs is kept
    stop_on.clear()
    made.clear()
    data = lookahead_bound.measure_resumable(_args(path, "1000-1002"))
    assert {s for _, s in made} == {1001, 1002}  # seed 1000 is not run again
    assert _seeds_in(path) == {1000: everyone, 1001: everyone, 1002: everyone}
    assert data == json.loads(path.read_text(encoding="utf-8"))
    assert data["best_heuristic"] == RULES[0] and data["planner"]["horizon_min"] == 720.0
    jct = {(r["policy"], r["seed"]): r["avg_jct_min"] for r in data["runs"]}
    assert jct[(lookahead_bound.PLANNER, 1002)] == 1004.0


def test_another_measurement_in_the_file_is_refused_and_left_alone(tmp_path, calls):
    made, _ = calls
    path = tmp_path / "bound.json"
    lookahead_bound.measure_resumable(_args(path, "1000"))
    before = path.read_text(encoding="utf-8")
    made.clear()
    with pytest.raises(SystemExit, match="another measurement"):
        lookahead_bound.measure_resumable(_args(path, "1000-1001", horizon=360.0))
    assert made == [] and path.read_text(encoding="utf-8") == before


def test_a_merged_file_of_the_same_measurement_is_extended(tmp_path, calls):
    """A file joined with ``--merge`` (the shipped gavel bound) is extended in place."""
    made, _ = calls
    path = tmp_path / "bound.json"
    lookahead_bound.measure_resumable(_args(path, "1000"))
    merged = lookahead_bound.merged([str(path)])
    path.write_text(json.dumps(merged) + "\n", encoding="utf-8")
    made.clear()
    lookahead_bound.measure_resumable(_args(path, "1000-1001"))
    assert {s for _, s in made} == {1001}
    assert sorted(_seeds_in(path)) == [1000, 1001]


def test_the_rules_that_move_jobs_are_added_beside_and_never_taken_as_the_best(tmp_path, calls, monkeypatch):
    """``--moving`` on a file that holds the rest runs only the rules that move jobs; they have the
    lowest JCT here and are still not the best rule."""
    made, _ = calls
    assert lookahead_bound.moving_rules(["sjf+first_fit", "sjf+eft", "fcfs+eft"]) == [
        "sjf+fastest_move", "fcfs+fastest_move"]
    monkeypatch.setattr(lookahead_bound, "moving_rules", lambda rules: list(MOVING))
    planner = {"base": "las+fastest_fit", "horizon_min": 720.0}
    monkeypatch.setattr(lookahead_bound, "plan",  # the best rule picked from the runs, as on the fleet
                        lambda args: (list(RULES), None, planner))
    path = tmp_path / "bound.json"
    lookahead_bound.measure_resumable(_args(path, "1000-1001"))
    made.clear()
    data = lookahead_bound.measure_resumable(_args(path, "1000-1001", moving=True))
    assert sorted(made) == [(m, s) for m in MOVING for s in (1000, 1001)]
    assert data["moving"] == MOVING and data["best_heuristic"] == RULES[0]
    made.clear()
    again = lookahead_bound.measure_resumable(_args(path, "1000-1002"))  # kept without --moving
    assert {p for p, s in made if s == 1002} == {*RULES, lookahead_bound.PLANNER, *MOVING}
    assert again["moving"] == MOVING


def test_the_deployable_planner_is_added_beside_and_kept(tmp_path, calls, monkeypatch):
    """``--deployable`` on a file that holds the rest runs only the planner told the arrived jobs."""
    made, _ = calls
    monkeypatch.setattr(lookahead_bound, "plan",
                        lambda args: (list(RULES), None, {"base": "las+fastest_fit", "horizon_min": 720.0}))
    path = tmp_path / "bound.json"
    lookahead_bound.measure_resumable(_args(path, "1000-1001"))
    made.clear()
    data = lookahead_bound.measure_resumable(_args(path, "1000-1001", deployable=True))
    assert sorted(made) == [(lookahead_bound.DEPLOYABLE, 1000), (lookahead_bound.DEPLOYABLE, 1001)]
    assert data["deployable"] is True and data["best_heuristic"] in RULES
    made.clear()
    lookahead_bound.measure_resumable(_args(path, "1000-1002"))  # kept without --deployable
    assert {p for p, s in made if s == 1002} == {*RULES, lookahead_bound.PLANNER, lookahead_bound.DEPLOYABLE}
