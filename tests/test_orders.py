"""The queue orders, each one spec: every name, label, list and refusal the registry gives is read
from it, and a scheduler is composed from the order's and the placement's traits."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpusched.figures.style import ORDER_COLORS
from gpusched.policies import (
    get_policy,
    moving_policy_names,
    policy_info,
    policy_label,
    preemptive_policy_names,
    queue_policy_names,
    reads_run_times,
    registry,
    urgency_policy_names,
)
from gpusched.policies import orders as orders_module
from gpusched.policies.eft import EarliestFinishQueue
from gpusched.policies.migration import FastestMove
from gpusched.policies.order_spec import OrderSpec
from gpusched.policies.preemptive import Preemptive
from gpusched.policies.queue import EasyBackfill, QueuePolicy, sjf_key
from gpusched.words.glossary import entry_for
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario

ORDERS = orders_module.ORDERS
PLACEMENTS = ("best_fit", "first_fit", "fastest_fit", "least_loaded_fit", "eft", "cheapest_fit",
              "fastest_move", "queue_lookahead", "lookahead", "fgd")


def test_every_order_is_registered_under_its_spec_and_labelled_from_it():
    for name, spec in ORDERS.items():
        assert spec.name == name
        info = policy_info(name)
        assert info.run_times == spec.run_times
        if name != registry.SAME_AS_PLACEMENT:
            assert policy_label(f"{name}+first_fit") == f"{spec.label} + First-Fit"
        assert entry_for(spec.label) is not None, f"the glossary does not explain {spec.label}"
    assert set(ORDER_COLORS) <= set(ORDERS)


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_a_pair_reads_run_times_when_its_order_or_its_placement_does(placement):
    for name, spec in ORDERS.items():
        assert reads_run_times(f"{name}+{placement}") == (spec.run_times or policy_info(placement).run_times)
    assert reads_run_times("eft") and reads_run_times("cheapest_fit") and reads_run_times("queue_lookahead")
    assert not reads_run_times("lookahead") and not reads_run_times("fastest_move")


def test_the_shipped_lists_follow_the_traits():
    preempting = {n for n, s in ORDERS.items() if s.preempts is not None}
    urgent = {n for n, s in ORDERS.items() if s.urgency}
    assert preempting == {"las", "srtf"} and urgent == {"qssf", "edf", "least_slack"}
    assert {n.partition("+")[0] for n in queue_policy_names()} == set(ORDERS) - preempting - urgent
    assert {n.partition("+")[0] for n in preemptive_policy_names()} == preempting
    assert {n.partition("+")[0] for n in urgency_policy_names()} == urgent
    assert {n.partition("+")[0] for n in moving_policy_names()} == set(ORDERS)


@pytest.mark.parametrize("name", list(ORDERS))
def test_each_scheduler_is_composed_from_the_traits(name):
    spec = ORDERS[name]
    for placement, inner_type in (("best_fit", EasyBackfill if spec.backfills else QueuePolicy),
                                  ("eft", EarliestFinishQueue)):
        policy = get_policy(f"{name}+{placement}")
        if spec.preempts is not None:
            assert isinstance(policy, Preemptive) and policy.order is spec
            policy = policy.inner
        assert type(policy) is inner_type and policy.order is spec
    moving = get_policy(f"{name}+fastest_move")
    assert isinstance(moving, FastestMove)
    inner = moving.inner.inner if spec.preempts is not None else moving.inner
    assert inner.placement.name == "fastest_fit"


def test_a_new_order_is_one_spec(monkeypatch):
    """An order added to the table alone is named, labelled, refused without run times, listed,
    and runs with any placement, as ``sjf`` does."""
    toy = replace(ORDERS["sjf"], name="toy", label="Toy")
    monkeypatch.setitem(ORDERS, "toy", toy)
    assert toy.key is sjf_key
    assert policy_label("toy+best_fit") == "Toy + Best-Fit" and reads_run_times("toy+first_fit")
    assert "toy+eft" in queue_policy_names()
    scenario = load_scenario("fleet-16gpu")
    for placement in ("best_fit", "eft"):
        toy_run = make_simulator(scenario, seed=0, n_jobs=40).run(get_policy(f"toy+{placement}"))
        sjf_run = make_simulator(scenario, seed=0, n_jobs=40).run(get_policy(f"sjf+{placement}"))
        assert toy_run.metrics == sjf_run.metrics and toy_run.metrics["jobs_completed"] == 40


def test_a_preemptive_wrapper_refuses_an_order_that_does_not_preempt():
    with pytest.raises(ValueError, match="not a preemptive order"):
        Preemptive(None, ORDERS["sjf"], "sjf")
    assert isinstance(ORDERS["fcfs"], OrderSpec) and ORDERS["fcfs"].reserves == "none"
    assert ORDERS["easy"].reserves == "head" and ORDERS["sjf"].reserves == "all"
