"""The Agent page's list of models built on a rule says which rule each improves, in words."""

from __future__ import annotations

from gpusched.agent.inspect_network import build_network
from gpusched.agent.rule_models import save_inspect, save_tuned
from gpusched.agent.tune import start_weights
from gpusched.dashboard.rule_models import rule_model_rows
from gpusched.env.inspect import INSPECT_FEATURES


def test_rows_name_the_rule_each_model_improves(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(tmp_path))
    save_tuned(tmp_path / "tuned" / "mine.npz", start_weights(),
               {"base": "sjf+first_fit", "placement": "first_fit", "scenario": "fleet-16gpu",
                "training_seeds": [20_000, 20_001]})
    net = build_network(len(INSPECT_FEATURES), 8)
    save_inspect(tmp_path / "inspect" / "fcfs+best_fit.zip", net.state_dict(),
                 {"base": "fcfs+best_fit", "bound": 2, "hidden": 8, "obs_size": len(INSPECT_FEATURES)})
    (tmp_path / "tuned" / "broken.npz").write_bytes(b"x")
    rows = {r["model"]: r for r in rule_model_rows()}
    assert rows["tuned:mine"]["built on"] == "improves SJF + First-Fit, placed by First-Fit"
    assert rows["tuned:mine"]["trained on"] == "fleet-16gpu, 2 training seeds"
    assert rows["ppo_inspect:fcfs+best_fit"]["built on"] == "improves Best-Fit"
    assert "no sidecar" in rows["tuned:broken"]["note"] and rows["tuned:broken"]["built on"] == ""
    assert all("/" not in r["built on"] and ".npz" not in r["built on"] for r in rows.values())
