"""A training smoke run of the inspector: a few hundred steps, saved, reloaded, same actions."""

from __future__ import annotations

import numpy as np
import torch

from gpusched.agent.inspect import InspectConfig, inspector_scheduler, network_decide, train_inspector
from gpusched.agent.rule_models import load_inspect
from gpusched.env.inspect import InspectorEnv
from gpusched.policies.proposals import Proposer
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario


def test_train_save_reload_reproduces_the_actions(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(tmp_path))
    config = InspectConfig(timesteps=256, n_steps=128, batch_size=64, n_epochs=1, n_jobs=40, hidden=16,
                           training_seeds=[20_000, 20_001])
    out = train_inspector(config, tmp_path / "inspect" / "smoke.zip", log=lambda _: None)
    model = load_inspect(str(out))
    assert model.meta["base"] == "sjf+first_fit" and model.meta["timesteps"] == 256
    # the weights moved from their start, and the start favours accepting
    net = model.policy()
    assert float(net.action_net.bias[0].detach()) > float(net.action_net.bias[1:].max().detach())
    # reloaded, it takes the same greedy action as the file's weights on every observation
    env = InspectorEnv(load_scenario("fleet-16gpu"), Proposer("sjf+first_fit"), bound=3, n_jobs=40)
    obs, _ = env.reset(options={"workload_seed": 1000})
    again = load_inspect(str(out)).policy()
    decide, decide_again = network_decide(net), network_decide(again)
    seen = 0
    while True:
        mask = env.action_masks()
        a = decide(obs, mask)
        assert a == decide_again(obs, mask) and mask[a]
        obs, _, terminated, truncated, _ = env.step(a)
        seen += 1
        if terminated or truncated:
            break
    assert seen > 10
    for name, tensor in net.state_dict().items():
        assert torch.equal(tensor, again.state_dict()[name]), name
    # and it runs as a scheduler over its base rule, the same run twice
    runs = [make_simulator(load_scenario("fleet-16gpu"), 1000, 40).run(inspector_scheduler(model, "x"))
            for _ in range(2)]
    assert runs[0].metrics == runs[1].metrics
    assert np.isfinite(runs[0].metrics["avg_jct_min"])
