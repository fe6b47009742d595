"""How many runs one command may start: the check behind ``--max-runs``.

A ``compare``, an ``allocation`` grid or a sweep that would start more than ``max_runs`` runs
(:data:`gpusched.limits.DEFAULT_MAX_RUNS` unless the user asks for more) is refused before the
first run, with one line that says how many runs it would make and how to allow them; nothing
may start more than :data:`gpusched.limits.MAX_RUNS`.
"""

from __future__ import annotations

from gpusched.errors import GpuschedError
from gpusched.limits import MAX_RUNS


def check_run_count(n_runs: int, max_runs: int, what: str) -> None:
    """Refuse ``n_runs`` runs when they are more than ``max_runs`` or than the hard limit.

    :param n_runs: the runs the command would start.
    :param max_runs: the most the user allowed (``--max-runs``).
    :param what: the command and how the count arises, e.g. ``compare (5 policies × 100 seeds)``.
    :raises GpuschedError: naming the count and the limit.
    """
    if n_runs <= max_runs and n_runs <= MAX_RUNS:
        return
    if n_runs > MAX_RUNS:
        raise GpuschedError(f"{what}: {n_runs:,} runs, more than the limit of {MAX_RUNS:,} runs "
                            "that any --max-runs allows; choose fewer")
    raise GpuschedError(f"{what}: {n_runs:,} runs, more than --max-runs {max_runs:,}; pass "
                        f"--max-runs {n_runs} to start them all")
