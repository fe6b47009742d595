"""The Real traces page's shipped runs (``benchmarks/results/traces.json``) are what the runs give:
the page shows them at once, so each one is run again here and compared number by number."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from gpusched.dashboard.traces import (
    COMPARED_FIELDS,
    SHIPPED_POD_LIST,
    SHIPPED_SEEDS,
    SHIPPED_TUNE,
    allocation_mismatches,
    shipped_allocation,
    shipped_allocations,
)
from gpusched.fgd.allocation import run_allocation
from gpusched.fgd.experiment import load_trace
from gpusched.fgd.scoring import POLICY_NAMES
from gpusched.paths import TRACES_RESULTS


@pytest.fixture(scope="module")
def trace():
    return load_trace(SHIPPED_POD_LIST)


def test_every_policy_is_shipped_on_the_shipped_seeds():
    keys = set(shipped_allocations())
    assert keys == {(SHIPPED_POD_LIST, p, s, SHIPPED_TUNE) for p in POLICY_NAMES for s in SHIPPED_SEEDS}


@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_a_shipped_run_is_what_the_run_gives(trace, policy):
    seed = SHIPPED_SEEDS[0]
    shipped = shipped_allocation(SHIPPED_POD_LIST, policy, seed, SHIPPED_TUNE)
    live = run_allocation(trace.nodes, trace.pods, policy, seed, tune=SHIPPED_TUNE, typical=trace.typical)
    assert allocation_mismatches([shipped], [live]) == []
    assert shipped.final_rem.shape == live.final_rem.shape


def test_a_changed_number_or_a_run_never_shipped_is_caught():
    shipped = shipped_allocation(SHIPPED_POD_LIST, "fgd", SHIPPED_SEEDS[0], SHIPPED_TUNE)
    rem = shipped.final_rem.copy()
    rem[0, 0] += 1
    changed = dataclasses.replace(shipped, final_rem=rem, failed_pods=shipped.failed_pods + 1)
    assert allocation_mismatches([shipped], [changed]) == [("fgd", shipped.seed, "failed_pods"),
                                                          ("fgd", shipped.seed, "final_rem")]
    other = dataclasses.replace(shipped, seed=7)
    assert [m[2] for m in allocation_mismatches([shipped], [other])] == list(COMPARED_FIELDS)


def test_other_requests_have_no_shipped_run():
    assert shipped_allocation(SHIPPED_POD_LIST, "fgd", 43, SHIPPED_TUNE) is None
    assert shipped_allocation(SHIPPED_POD_LIST, "fgd", SHIPPED_SEEDS[0], 1.2) is None
    assert shipped_allocation("openb_pod_list_gpushare100", "fgd", SHIPPED_SEEDS[0], SHIPPED_TUNE) is None


def test_an_absent_file_ships_nothing(tmp_path):
    assert shipped_allocations(tmp_path / "missing.json") == {}
    data = json.loads(TRACES_RESULTS.read_text(encoding="utf-8"))
    assert all(np.asarray(r["final_rem"]).ndim == 2 for r in data["runs"])
