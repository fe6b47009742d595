"""What a round policy is: a small object that turns a :class:`RoundProblem` into an
:class:`Allocation`, timed.

A policy computes, the round mechanism applies (Gavel's split: ``scheduler/policies/*.py`` return
allocations, ``scheduler/scheduler.py`` runs the rounds). A policy may remember jobs across calls
(AlloX, Gandiva); it is then built fresh for each run, from a seed, by the registry.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from gpusched.core.rounds.problem import Allocation, RoundProblem


class RoundPolicy:
    """Base class: subclasses set :attr:`name` and implement :meth:`solve`.

    :attr agnostic: the policy treats every GPU type as equal (Gavel's agnostic twins); the round
        mechanism then shuffles the type order each round, as Gavel does.
    :attr fifo: the round mechanism skips jobs of priority 0 (Gavel's FIFO policies).
    :attr label: the name pages show.
    :attr run_times: the policy reads declared run times (the work a job has left), so it cannot
        run where none is declared.
    :attr packs: the policy pairs jobs on shared GPUs (Gavel's ``_packed``): the round scheduler
        lists candidate pairs in its problem and the round mechanism runs the pairs it allocates
        (:mod:`gpusched.core.rounds.pairs`).
    :attr weighted: the policy honours ``RoundProblem.weight`` (a job of twice the weight gets more
        time), so that per-job weights set from a score can steer it
        (:mod:`gpusched.policies.rounds.weights`).
    :attr oversubscribes: the policy's allocation may ask for more GPUs of a type than there are
        (Shockwave's AlloX keeps a gang's earlier share beside new ones); the round mechanism's
        priorities then decide who runs, and only the row sums are checked.
    """

    name: str = ""
    label: str = ""
    run_times: bool = False
    agnostic: bool = False
    fifo: bool = False
    packs: bool = False
    weighted: bool = False
    oversubscribes: bool = False

    def solve(self, problem: RoundProblem) -> Allocation:
        """The allocation for ``problem`` (without timing)."""
        raise NotImplementedError

    def __call__(self, problem: RoundProblem) -> Allocation:
        """:meth:`solve`, with its wall-clock time in ``Allocation.solve_s`` (seconds)."""
        start = time.perf_counter()
        if problem.n_jobs == 0:
            allocation = Allocation(share=np.zeros((0, problem.n_types)))
        else:
            allocation = self.solve(problem)
        return replace(allocation, solve_s=time.perf_counter() - start)
