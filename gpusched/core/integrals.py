"""The integrals of one run over time, and the reward so far.

The simulator updates :class:`Integrals` when the clock moves (:meth:`Integrals.accumulate`), when
GPUs change (:meth:`Integrals.on_util_change`), when jobs complete and when the policy holds; the
reward is a function of the integrals alone (:func:`gpusched.core.reward.reward_for`).
"""

from __future__ import annotations

import numpy as np

from gpusched.core.metrics import RunningGini
from gpusched.core.reward import RewardSpec, reward_for

_RESYNC_EVERY = 4096
"""Recompute the running pairwise-difference sum exactly after this many updates."""


class Integrals:
    """The integrals of one run over time, and the reward so far.

    ``util_min`` (cluster utilisation, minutes), ``in_band_min`` (minutes with the utilisation in
    the target band), ``gini_min`` (Gini of GPU compute, minutes), ``waiting_job_min`` and
    ``system_job_min`` (jobs queued, and queued or running, job-minutes), ``busy_gpu_min`` (GPUs
    running at least one job, GPU-minutes), ``stall_min`` (minutes the policy held while a window
    job could fit), ``idle_gpu_min_stalled`` and ``idle_gpu_min_blocked`` (idle GPU-minutes while
    jobs waited, stalled or blocked), ``total_reward``.

    :param compute_used: the cluster state's compute per GPU (read at every change).
    :param n_gpus: the cluster's GPUs.
    :param util_band: the target band of cluster utilisation (fractions 0-1).
    :param reward: the reward weights.
    """

    FLOATS = ("util_min", "in_band_min", "gini_min", "waiting_job_min", "system_job_min", "stall_min",
              "idle_gpu_min_stalled", "idle_gpu_min_blocked", "busy_gpu_min", "total_reward")

    def __init__(self, compute_used: np.ndarray, n_gpus: int, util_band: tuple[float, float],
                 reward: RewardSpec):
        self.gini = RunningGini(compute_used)  # also keeps the utilisation sum
        self.updates = 0
        self.n_gpus = n_gpus
        self.util_band = util_band
        self.reward = reward
        self._weights = (reward.completion * 0, reward.wait, reward.util_band, reward.imbalance, reward.jct)
        self._completion_gain: dict[int, float] = {}
        """The reward of ``n`` completions at one instant, by ``n`` (the weights are fixed for
        the run)."""
        for name in self.FLOATS:
            setattr(self, name, 0.0)

    def copy(self) -> Integrals:
        """An independent copy."""
        twin = object.__new__(Integrals)
        twin.__dict__.update(self.__dict__)
        twin.gini = self.gini.copy()
        twin._completion_gain = dict(self._completion_gain)
        return twin

    def on_util_change(self, compute_used: np.ndarray, gpus: tuple[int, ...], before: list[float]) -> None:
        """Update the running sums behind cluster utilisation and Gini after GPUs changed."""
        self.updates += 1
        if self.updates % _RESYNC_EVERY == 0:
            self.gini.resync(compute_used)
            return
        for g, old in zip(gpus, before, strict=True):
            self.gini.update(old, float(compute_used[g]))

    def accumulate(self, dt: float, queued: int, running: int, idle_gpus: int) -> None:
        """Integrate ``dt`` minutes (> 0) with ``queued`` and ``running`` jobs and ``idle_gpus``.

        The reward of the stretch is :func:`~gpusched.core.reward.reward_for`'s formula with no
        completion, written out here with the weights taken once (it runs at every jump of the
        clock); its floating-point operations are the same, in the same order."""
        n = self.n_gpus
        gini = self.gini
        util = gini.total / n
        gini_now = gini.value()
        lo, hi = self.util_band
        in_band = dt if lo <= util <= hi else 0.0
        waiting = queued * dt
        in_system = waiting + running * dt
        gini_dt = gini_now * dt
        self.busy_gpu_min += (n - idle_gpus) * dt
        self.util_min += util * dt
        self.in_band_min += in_band
        self.gini_min += gini_dt
        self.waiting_job_min += waiting
        self.system_job_min += in_system
        no_completion, wait, band, imbalance, jct = self._weights
        self.total_reward += (no_completion - wait * waiting / 60.0 + band * in_band / 60.0
                              - imbalance * gini_dt / 60.0 - jct * in_system / 60.0)

    def completions(self, completed: int) -> None:
        """``completed`` jobs completed at one instant (the reward's completion term)."""
        gain = self._completion_gain.get(completed)
        if gain is None:
            gain = self._completion_gain[completed] = reward_for(self.reward, completed, 0.0, 0.0, 0.0)
        self.total_reward += gain

    def hold(self, held_min: float, idle_gpus: int, could_fit: bool) -> None:
        """The policy held for ``held_min`` with ``idle_gpus`` up and idle: stalled if a window job
        could fit, else blocked."""
        if could_fit:
            self.stall_min += held_min
            self.idle_gpu_min_stalled += idle_gpus * held_min
        else:
            self.idle_gpu_min_blocked += idle_gpus * held_min
