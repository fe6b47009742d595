"""The documented training commands build exactly the settings the shipped models' sidecars record,
so running them reproduces the shipped agents (training is deterministic for a seed)."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from gpusched.cli.main import build_parser
from gpusched.cli.train import config_from_args
from gpusched.paths import REPO_ROOT, SHIPPED_MODELS_DIR

AGENT_DOC = REPO_ROOT / "docs" / "agent.md"
RUN_ONLY = ("out", "log_dir", "progress")
"""Settings that say where a run writes and whether it draws a progress bar: no weight depends
on them."""


def documented_command(model: str) -> str:
    """The ``gpusched train`` command of docs/agent.md whose ``--out`` is the shipped ``model``."""
    blocks = re.findall(r"```bash\n(.*?)```", AGENT_DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    commands = [b.replace("\\\n", " ") for b in blocks if f"--out assets/models/{model}" in b]
    assert len(commands) == 1, f"docs/agent.md documents {len(commands)} commands for {model}"
    return commands[0]


@pytest.mark.parametrize("model", ["ppo-window.zip", "ppo-default.zip", "ppo-urgency.zip"])
def test_the_documented_command_builds_the_settings_the_sidecar_records(model):
    words = shlex.split(documented_command(model))
    assert words[:2] == ["gpusched", "train"]
    config = config_from_args(build_parser().parse_args(words[1:])).to_json()
    recorded = json.loads((SHIPPED_MODELS_DIR / model).with_suffix(".json").read_text())["config"]
    for key in RUN_ONLY:
        config.pop(key), recorded.pop(key, None)
    assert set(recorded) <= set(config), "the sidecar records a setting this code lacks"
    # an older sidecar records fewer settings: the ones added since keep the old behaviour by default
    assert {k: config[k] for k in recorded} == recorded
