"""The shipped presets (``assets/scenarios/``), and loading a scenario by preset name or file path.

:func:`load_scenario` reads a file no larger than :data:`~gpusched.limits.MAX_YAML_BYTES`; its
errors name the file and the key, on one line.
"""

from __future__ import annotations

from pathlib import Path

from gpusched.errors import ScenarioError
from gpusched.limits import MAX_YAML_BYTES
from gpusched.paths import SCENARIOS_DIR
from gpusched.workload.files import is_dir, is_file, read_user_text
from gpusched.workload.scenario import Scenario
from gpusched.workload.scenario_yaml import scenario_from_yaml


def preset_names() -> list[str]:
    """Names of the shipped presets."""
    return sorted(p.stem for p in SCENARIOS_DIR.glob("*.yaml"))


def load_scenario(ref: str | Path) -> Scenario:
    """Load a preset by name, or a scenario file by path.

    :raises ScenarioError: for an unknown preset, a missing file, or invalid content.
    """
    path = Path(ref)
    source = path.name  # what every error names: the file, or the preset by its name
    if path.suffix not in (".yaml", ".yml") and not is_file(path):
        preset = SCENARIOS_DIR / f"{ref}.yaml"
        if not is_file(preset):
            raise ScenarioError(
                f"unknown scenario '{ref}': not a preset ({', '.join(preset_names())}) "
                "and not a file")
        path, source = preset, str(ref)
    if is_dir(path):
        raise ScenarioError(f"scenario file '{ref}': is a folder, not a file")
    if not is_file(path):
        raise ScenarioError(f"scenario file '{ref}' not found")
    text = read_user_text(path, label=f"scenario '{source}'", max_bytes=MAX_YAML_BYTES,
                          error=ScenarioError)
    return scenario_from_yaml(text, source=source)


def list_presets() -> list[Scenario]:
    """Every shipped preset, validated."""
    return [load_scenario(name) for name in preset_names()]
