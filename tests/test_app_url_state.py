"""Every page with a scenario, a policy or a seed opens on the state its address names
(``?scenario=…&policy=…&seed=…``), writes its state back into the address, and meets a wrong value
with one inline message and its default."""

from __future__ import annotations

import pytest
from apptest_support import ENTRY, assert_clean
from streamlit.testing.v1 import AppTest

from gpusched import load_scenario


def _open(page: str, **params: str) -> AppTest:
    """``page`` opened from an address with ``params``, in a fresh session."""
    at = AppTest.from_file(ENTRY, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(page).run()
    assert_clean(at)
    return at


def _param(at: AppTest, key: str) -> str:
    """The page's address parameter ``key`` as it last wrote it."""
    value = at.query_params[key]
    return str(value[-1] if isinstance(value, list) else value)


def _warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if "address" in w.value]


def test_compare_opens_the_shipped_view_the_address_names_and_writes_it_back():
    at = _open("views/compare.py", scenario="phase1-4gpu", policy="first_fit,best_fit")
    assert at.selectbox(key="compare_shipped_scenario").value == "phase1-4gpu"
    assert at.multiselect(key="compare_shipped_policies").value == ["first_fit", "best_fit"]
    assert _warnings(at) == []
    assert _param(at, "view") == "shipped" and _param(at, "scenario") == "phase1-4gpu"


def test_compare_live_reads_seeds_and_policies():
    at = _open("views/compare.py", view="live", seeds="2", policy="first_fit,random")
    assert at.radio(key="compare_source").value == "live"
    assert at.number_input(key="compare_seeds").value == 2
    assert at.multiselect(key="compare_policies").value == ["first_fit", "random"]
    at.number_input(key="compare_seeds").set_value(4).run()
    assert _param(at, "seeds") == "4" and _param(at, "policy") == "first_fit,random"


@pytest.mark.parametrize(("params", "param"), [
    ({"scenario": "no-such-preset"}, "scenario"),
    ({"view": "live", "seeds": "500"}, "seeds"),
    ({"policy": "first_fit,rm -rf"}, "policy"),
])
def test_compare_meets_a_wrong_value_with_one_message_and_its_default(params, param):
    at = _open("views/compare.py", **params)
    warnings = _warnings(at)
    assert len(warnings) == 1 and f"`{param}`" in warnings[0]


def test_cluster_opens_on_the_preset_the_address_names():
    at = _open("views/cluster.py", scenario="gavel-108gpu-heavy")
    assert at.session_state["scenario_yaml"] == load_scenario("gavel-108gpu-heavy").to_yaml()
    assert "gavel-108gpu-heavy" in at.success[0].value
    bad = _open("views/cluster.py", scenario="../../etc/passwd")
    assert len(_warnings(bad)) == 1 and "phase1-8gpu" in _warnings(bad)[0]


def test_replay_opens_on_the_policy_and_seed_of_the_address():
    at = _open("views/replay.py", scenario="phase1-4gpu", policy="fcfs+best_fit", seed="7")
    assert at.selectbox(key="replay_policy").value == "fcfs+best_fit"
    assert at.number_input(key="replay_seed").value == 7
    assert at.session_state["scenario_yaml"] == load_scenario("phase1-4gpu").to_yaml()


def test_stalls_open_on_the_scenario_policy_and_seed_of_the_address():
    at = _open("views/stalls.py", scenario="ll-stall-mini", policy="least_loaded_fit", seed="3")
    assert at.selectbox(key="stall_scenario").value == "ll-stall-mini"
    assert at.selectbox(key="stall_policy").value == "least_loaded_fit"
    assert at.number_input(key="stall_seed").value == 3


def test_knowledge_opens_on_the_preset_and_live_settings_of_the_address():
    at = _open("views/knowledge.py", scenario="fleet-16gpu", seeds="3", policy="fcfs+first_fit,srtf+eft")
    assert at.selectbox(key="knowledge_preset").value == "fleet-16gpu"
    assert at.number_input(key="knowledge_seeds").value == 3
    assert at.multiselect(key="knowledge_policies").value == ["fcfs+first_fit", "srtf+eft"]


def test_sweeps_open_on_the_folder_and_metric_of_the_address():
    at = _open("views/sweeps.py", folder="policy-study", metric="avg_jct_min")
    assert at.selectbox(key="sweep_folder").value.endswith("policy-study")
    assert at.selectbox(key="sweep_metric_policy-study").value == "avg_jct_min"
    bad = _open("views/sweeps.py", folder="/etc")
    assert len(_warnings(bad)) == 1 and bad.selectbox(key="sweep_folder").value.endswith("stall-conditions")


def test_traces_open_on_the_trace_policies_and_seeds_of_the_address():
    at = _open("views/traces.py", trace="openb_pod_list_gpushare100", policy="fgd", seed="42")
    assert at.selectbox(key="traces_trace").value == "openb_pod_list_gpushare100"
    assert at.multiselect(key="traces_policies").value == ["fgd"]
    assert at.multiselect(key="traces_seeds").value == [42]


def test_agent_opens_on_the_model_the_address_names():
    at = _open("views/agent.py", policy="ppo:assets/models/ppo-urgency.zip")
    assert at.radio(key="agent_choice").value == "ppo:assets/models/ppo-urgency.zip"
    assert at.session_state["agent_policy"] == "ppo:assets/models/ppo-urgency.zip"
