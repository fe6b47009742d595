"""The documented limits: one module, the table in docs/scenarios.md, the dashboard's upload size,
and refusals that come before anything is allocated."""

from __future__ import annotations

import re
import time
import tomllib

import pytest

from gpusched import limits
from gpusched.errors import ScenarioError
from gpusched.paths import REPO_ROOT
from gpusched.workload.scenario_yaml import scenario_from_dict

MIB = 1024 * 1024


def _documented_limits() -> dict[str, str]:
    text = (REPO_ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    section = text[text.index("## Limits"):]
    section = section[: section.index("\n## ", 4)]
    return dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, flags=re.MULTILINE))


def _shown(value) -> str:
    if isinstance(value, tuple):
        return "–".join(_shown(v) for v in value)
    if isinstance(value, float) and not value.is_integer():
        return f"{value:g}"
    return f"{int(value):,}"


def test_the_docs_list_every_limit_with_its_value():
    names = [n for n in dir(limits) if n.isupper()]
    table = _documented_limits()
    assert sorted(table) == sorted(names)
    for name in names:
        assert table[name].strip().startswith(_shown(getattr(limits, name))), (name, table[name])


def test_the_dashboard_config_fits_the_largest_upload_and_hides_developer_options():
    config = tomllib.loads((REPO_ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] * MIB == limits.MAX_TRACE_BYTES
    assert limits.MAX_YAML_BYTES <= limits.MAX_TRACE_BYTES
    assert config["client"]["toolbarMode"] in ("viewer", "minimal")


BIG = {
    "name": "big",
    "cluster": {"nodes": [{"gpu_model": "A100-80GB", "vram_gb": 80, "gpus_per_node": 8,
                           "count": 1_000_000_000}]},
    "workload": {"jobs": 10, "arrival_rate_per_hour": 5},
}


def test_a_billion_nodes_are_refused_at_once(monkeypatch):
    from gpusched.core import cluster

    monkeypatch.setattr(cluster.Cluster, "__init__", lambda *a, **k: pytest.fail("a cluster was built"))
    start = time.perf_counter()
    with pytest.raises(ScenarioError, match=r"cluster\.nodes\[0\]\.count: must be <= 10000"):
        scenario_from_dict(BIG, source="big.yaml")
    many = dict(BIG, cluster={"nodes": [{"gpu_model": "T4", "vram_gb": 16, "gpus_per_node": 8,
                                         "count": 2000}]})
    with pytest.raises(ScenarioError, match="16,000 GPUs in total, more than the limit of 10,000"):
        scenario_from_dict(many, source="big.yaml")
    assert time.perf_counter() - start < 1.0


def test_the_limits_themselves_are_accepted():
    top = dict(BIG, cluster={"nodes": [{"gpu_model": "A", "vram_gb": limits.MAX_VRAM_GB,
                                        "gpus_per_node": limits.MAX_GPUS_PER_NODE,
                                        "count": limits.MAX_GPUS // limits.MAX_GPUS_PER_NODE}]},
               workload={"jobs": limits.MAX_JOBS, "seed": limits.MAX_SEED,
                         "arrival_rate_per_hour": limits.ARRIVAL_RATE_RANGE_PER_HOUR[1]},
               horizon_min=limits.MAX_HORIZON_MIN, reward={"wait": -limits.MAX_REWARD_WEIGHT})
    scenario = scenario_from_dict(top)
    assert scenario.n_gpus == limits.MAX_GPUS // limits.MAX_GPUS_PER_NODE * limits.MAX_GPUS_PER_NODE
    low = dict(BIG, cluster=top["cluster"], workload={"jobs": 1, "arrival_rate_per_hour":
                                                      limits.ARRIVAL_RATE_RANGE_PER_HOUR[0]})
    assert scenario_from_dict(low).workload.arrival_rate_per_hour == limits.ARRIVAL_RATE_RANGE_PER_HOUR[0]
