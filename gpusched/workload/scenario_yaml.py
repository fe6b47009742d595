"""Reading a scenario: YAML text or a mapping, validated against the schema
(:class:`gpusched.workload.scenario.Scenario`), a bad key named on one line
(:mod:`gpusched.workload.validation`): ``scenario 'x.yaml', cluster.nodes[2].vram_gb: must be > 0
(got -16)``.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from gpusched.errors import ScenarioError
from gpusched.workload.files import load_yaml_mapping
from gpusched.workload.scenario import Scenario
from gpusched.workload.validation import scenario_error


def scenario_from_dict(data: Any, source: str = "<dict>") -> Scenario:
    """Validate a scenario mapping.

    :param source: what the mapping was read from (a file's name): every error names it, those
        of the checks made later too (:attr:`Scenario.label <gpusched.workload.scenario.Scenario.label>`).
    :raises ScenarioError: naming ``source`` and the bad key.
    """
    if not isinstance(data, dict):
        raise ScenarioError(f"scenario '{source}': expected a mapping of keys, got "
                            f"{type(data).__name__}")
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise scenario_error(exc, source) from None
    return scenario if source in ("<dict>", "<yaml>") else scenario.read_from(source)


def scenario_from_yaml(text: str, source: str = "<yaml>") -> Scenario:
    """Parse and validate scenario YAML text (the safe loader of :mod:`gpusched.workload.files`)."""
    data = load_yaml_mapping(text, label=f"scenario '{source}'", error=ScenarioError)
    return scenario_from_dict(data, source)
