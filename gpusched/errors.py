"""Error types that carry a one-line message a user can act on.

The CLI prints ``str(error)`` on one line and exits with code 2; the dashboard shows it inline.
"""

from __future__ import annotations


class GpuschedError(ValueError):
    """Base class for bad input: a scenario, trace, job list, policy name or model file.

    Its message is always one line: a line break that came with the user's own text (a quoted CSV
    header, a YAML key) is shown escaped, as ``\\n``.
    """

    def __str__(self) -> str:
        text = super().__str__()
        return text.replace("\r", "\\r").replace("\n", "\\n")


def shorten(text: str, width: int = 60) -> str:
    """A user's text cut to ``width`` characters (``...`` marks the cut), for a one-line message
    that echoes it: a 5,000-character policy name is not repeated in full."""
    text = str(text)
    return text if len(text) <= width else text[: width - 3] + "..."


class ScenarioError(GpuschedError):
    """A scenario file or dictionary is malformed (names the file and the key)."""


class InfeasibleJobError(GpuschedError):
    """A job asks for more than any node of the cluster could ever hold."""


class UnknownPolicyError(GpuschedError):
    """A policy name is not in the registry."""
