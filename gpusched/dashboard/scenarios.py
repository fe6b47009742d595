"""The scenario the dashboard runs: an uploaded file checked as the command line checks a file,
whether a scenario can run as it is, and which shipped preset it is.

An upload must run exactly as the command line would run the same file (from the same folder), or
be refused with the one-line error the command line would print; nothing is substituted.
"""

from __future__ import annotations

from gpusched.errors import GpuschedError, ScenarioError
from gpusched.limits import MAX_YAML_BYTES
from gpusched.workload.files import decode_user_bytes
from gpusched.workload.presets import load_scenario, preset_names
from gpusched.workload.scenario import Scenario
from gpusched.workload.scenario_yaml import scenario_from_yaml


def check_runnable(scenario: Scenario) -> None:
    """Build the scenario's cluster, and for a trace its jobs, as a run would.

    :raises GpuschedError: when a trace file is missing or invalid, or a node sample cannot be
        drawn (the error a run would raise, raised before the scenario is used).
    """
    if scenario.is_trace:
        scenario.trace_jobs()
    else:
        scenario.build_cluster()


def scenario_from_upload(data: bytes, name: str) -> Scenario:
    """An uploaded scenario file, read like a file given to the command line, checked to run.

    :param data: the file's bytes.
    :param name: the file's name (messages name it).
    :raises GpuschedError: for content that is too large, not UTF-8, not valid YAML, not a valid
        scenario, or that cannot run (see :func:`check_runnable`).
    """
    text = decode_user_bytes(data, label=f"scenario '{name}'", max_bytes=MAX_YAML_BYTES,
                             error=ScenarioError)
    scenario = scenario_from_yaml(text, source=name)
    try:
        check_runnable(scenario)
    except GpuschedError as exc:
        raise ScenarioError(f"scenario '{name}' cannot run as uploaded: {exc}") from None
    return scenario


def matching_preset(scenario: Scenario) -> str | None:
    """The name of the shipped preset that ``scenario`` is, unchanged, or ``None``."""
    return next((name for name in preset_names() if load_scenario(name) == scenario), None)
