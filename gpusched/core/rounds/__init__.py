"""Rounds, as the field's schedulers run them (Gavel, OSDI 2020): a round policy returns an
allocation, each job's fraction of time on each GPU type (:mod:`~gpusched.core.rounds.problem`),
and the round mechanism turns it into the next round's placement
(:mod:`~gpusched.core.rounds.assign`; with co-located pairs, :mod:`~gpusched.core.rounds.pairs`).
Pure functions on numpy arrays; the simulator plugs them in."""

from gpusched.core.rounds.assign import (
    RoundAssignment,
    assign_round,
    needs_reallocation,
    reset_time_received,
    round_priorities,
    shuffled_type_order,
)
from gpusched.core.rounds.problem import Allocation, RoundProblem, RoundProblemError, RoundSolveError

__all__ = [
    "Allocation",
    "RoundAssignment",
    "RoundProblem",
    "RoundProblemError",
    "RoundSolveError",
    "assign_round",
    "needs_reallocation",
    "reset_time_received",
    "round_priorities",
    "shuffled_type_order",
]
