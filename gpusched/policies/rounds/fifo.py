"""FIFO in rounds: ``fifo_perf``.

Source: Gavel, ``stanford-futuredata/gavel``, ``scheduler/policies/fifo.py`` (``FIFOPolicy`` in
``perf`` mode, wrapped by ``FIFOPolicyWithPerf``). Read, not copied.

**Rule** (no program). Each call starts afresh. Jobs are taken in arrival order (``job_ids``
ascending, Gavel's job ids); each goes whole (``x = 1``) to the type, among those with at least
``scale_factor`` GPUs still free, where its throughput is highest (ties: the lower type index); the
first job that fits no type stops the pass, so no job overtakes an earlier one. The round
mechanism then skips jobs of priority 0 (``RoundPolicy.fifo``), as Gavel does for FIFO.
"""

from __future__ import annotations

import numpy as np

from gpusched.core.rounds.problem import Allocation, RoundProblem
from gpusched.policies.rounds.base import RoundPolicy


class FifoPerf(RoundPolicy):
    """Gavel's ``fifo_perf``: arrival order, each job on its fastest free type."""

    name = "fifo_perf"
    label = "FIFO (Gavel, per-type speeds)"
    fifo = True

    def solve(self, problem: RoundProblem) -> Allocation:
        share = np.zeros((problem.n_jobs, problem.n_types))
        free = problem.capacity.copy()
        for i in np.argsort(problem.job_ids, kind="stable"):
            open_types = free >= problem.scale_factor[i]
            if not open_types.any():
                break
            speed = np.where(open_types, problem.throughput[i], -1.0)
            j = int(np.argmax(speed))
            share[i, j] = 1.0
            free[j] -= problem.scale_factor[i]
        return Allocation(share=share)
