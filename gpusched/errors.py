"""Error types that carry a one-line message a user can act on.

The CLI prints ``str(error)`` on one line and exits with code 2; the dashboard shows it inline.
"""

from __future__ import annotations


class GpuschedError(ValueError):
    """Base class for bad input: a scenario, trace, job list, policy name or model file."""


class ScenarioError(GpuschedError):
    """A scenario file or dictionary is malformed (names the file and the key)."""


class InfeasibleJobError(GpuschedError):
    """A job asks for more than any node of the cluster could ever hold."""


class UnknownPolicyError(GpuschedError):
    """A policy name is not in the registry."""
