"""The reward: one function, used by the simulator's ``total_reward`` and by the RL environment.

The reward of any stretch of a run is

    r = completion * jobs_completed
        - wait * waiting_job_hours
        + util_band * hours_with_cluster_util_in_band
        - imbalance * gini_hours
        - jct * job_hours_in_system

where ``waiting_job_hours`` is the integral of queue length over time (job-hours),
``hours_with_cluster_util_in_band`` the time (hours) during which cluster utilisation was inside
the target band, and ``gini_hours`` the integral of the Gini coefficient of per-GPU utilisation
(hours), and ``job_hours_in_system`` the integral of the number of jobs in the system, queued or
running (job-hours). By Little's law the integral of jobs in the system over a run is the sum of
their completion times, so ``jct`` charges every minute from a job's arrival to its end, whether
it waits or runs slowly (the reward of Decima, Mao et al., SIGCOMM 2019). Its default weight is 0,
so a scenario without it keeps its reward. The environment's step reward is this quantity for the
stretch of time the step covers, so the sum of an episode's rewards equals the simulator's ``total_reward``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from gpusched.limits import MAX_REWARD_WEIGHT

_WEIGHT = {"ge": -MAX_REWARD_WEIGHT, "le": MAX_REWARD_WEIGHT, "strict": True}
"""Bounds of every weight (finite, see :mod:`gpusched.limits`); strict: a number, never ``true``
or a quoted number."""


class RewardSpec(BaseModel):
    """Weights of the reward terms (the scenario's ``reward:`` block; every weight has a default)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    completion: float = Field(1.0, **_WEIGHT, description="bonus per completed job")
    wait: float = Field(1.0, **_WEIGHT, description="penalty per job-hour spent waiting in the queue")
    util_band: float = Field(1.0, **_WEIGHT,
                             description="bonus per hour with cluster utilisation in the band")
    imbalance: float = Field(1.0, **_WEIGHT, description="penalty per hour, times the Gini coefficient")
    jct: float = Field(0.0, **_WEIGHT,
                       description="penalty per job-hour in the system (queued or running): the sum of JCTs")


def reward_for(
    spec: RewardSpec,
    completed: int,
    waiting_job_min: float,
    in_band_min: float,
    gini_min: float,
    system_job_min: float = 0.0,
) -> float:
    """The reward of one stretch of a run.

    :param spec: the weights.
    :param completed: jobs that completed in the stretch.
    :param waiting_job_min: integral of queue length over the stretch (job-minutes).
    :param in_band_min: minutes of the stretch with cluster utilisation in the target band.
    :param gini_min: integral of the per-GPU utilisation Gini over the stretch (minutes).
    :param system_job_min: integral of the jobs in the system (queued or running) over the
        stretch (job-minutes).
    """
    return (
        spec.completion * completed
        - spec.wait * waiting_job_min / 60.0
        + spec.util_band * in_band_min / 60.0
        - spec.imbalance * gini_min / 60.0
        - spec.jct * system_job_min / 60.0
    )


class TrainingRewardSpec(RewardSpec):
    """The weights of a training reward (``TrainConfig.train_reward``): the scenario's terms, and
    three of urgency that only training uses (each 0 by default; :mod:`gpusched.core.urgency_reward`
    integrates them from the run's record):

        - weighted_jct * weighted_job_hours_in_system
        - late * job_hours_past_deadline
        - missed * jobs_past_deadline

    ``weighted_job_hours_in_system`` is the integral of the summed weights (``Job.weight``) of the
    jobs in the system, so its episode total is the weighted sum of JCTs (``weighted_jct_min``
    times the jobs); ``job_hours_past_deadline`` is the integral of the number of jobs in the system
    past their deadline, so its total is the summed lateness; ``jobs_past_deadline`` counts each
    job once, when it passes its deadline unfinished (its total is the jobs that miss).
    """

    weighted_jct: float = Field(0.0, **_WEIGHT, description="penalty per weighted job-hour in the system")
    late: float = Field(0.0, **_WEIGHT, description="penalty per job-hour past its deadline")
    missed: float = Field(0.0, **_WEIGHT, description="penalty per job that passes its deadline unfinished")

    @property
    def urgent(self) -> bool:
        """Whether any urgency term is weighted."""
        return bool(self.weighted_jct or self.late or self.missed)


def urgency_reward_for(spec: TrainingRewardSpec, weighted_system_job_min: float, late_job_min: float,
                       missed: int) -> float:
    """The urgency terms of one stretch of a run (added to :func:`reward_for`'s).

    :param weighted_system_job_min: integral of the weights of the jobs in the system (job-minutes).
    :param late_job_min: integral of the jobs in the system past their deadline (job-minutes).
    :param missed: jobs that passed their deadline unfinished in the stretch.
    """
    return -spec.weighted_jct * weighted_system_job_min / 60.0 - spec.late * late_job_min / 60.0 \
        - spec.missed * missed
