"""A scenario in a stakeholder's words: one line for its GPUs and jobs (the offered load said as
what it means, not ``load 0.3 (3.94/h)``), its node failures, repairs and checkpoints as a line
and as a table of settings, and the note on job shapes no GPU can hold.

The failure process and its sources are :mod:`gpusched.core.failures`; this module only words the
settings a scenario gives it.
"""

from __future__ import annotations

from gpusched.core.failures import KOKOLIS_RATE
from gpusched.workload.scenario import Scenario

RENORMALISED = "(the other options are drawn, renormalised)"
"""The generator's wording of what happens to the options left (:mod:`gpusched.workload.synthetic`)."""
RENORMALISED_WORDS = "(the other sizes are drawn in their place, in the same proportions)"


def scenario_line(scenario: Scenario) -> str:
    """One line: GPUs, and how many jobs arrive how fast, with the offered load in words."""
    w = scenario.workload
    if w.trace is not None:
        return scenario.summary()
    rate = scenario.arrival_rate_per_hour()
    per_hour = f"about {rate:.2g} an hour" if w.load is not None else f"{rate:g} an hour"
    jobs = f"{w.jobs:,} jobs arriving {per_hour}"
    if w.load is not None:
        jobs += (f" (offered load {w.load:g}: together they ask for {w.load * 100:.0f} % of the "
                 "cluster's GPU compute)")
    return f"{scenario.n_gpus} GPUs · {jobs}"


def has_failures(scenario: Scenario) -> bool:
    """Whether the scenario's nodes ever fail."""
    return scenario.failures is not None and scenario.failures.node_failures_per_1000_node_days > 0


def failure_line(scenario: Scenario) -> str:
    """One line on the scenario's node failures, repairs and checkpoints; says so when nodes never
    fail."""
    f = scenario.failures
    if f is None or not has_failures(scenario):
        return "Nodes never fail in this scenario, so no work is lost to failures."
    rate = f.node_failures_per_1000_node_days
    ckpt = scenario.checkpoint
    saves = (f"{', '.join(ckpt.types)} jobs save a checkpoint every {ckpt.interval_min:g} min of "
             f"progress and a resumed job restores for {ckpt.restore_min:g} min; other jobs start "
             "over" if ckpt is not None else "no job saves a checkpoint, so a failure loses all "
                                                "of a job's progress")
    return (f"Nodes fail {rate:g} times per 1,000 node-days: {rate / KOKOLIS_RATE:.3g}× the rate "
            f"measured by Kokolis et al. ({KOKOLIS_RATE:g}) on Meta's clusters; a repair takes "
            f"{f.repair_min.median:g} min (median), {f.repair_min.mean:g} min (mean); {saves}.")


def failure_settings(scenario: Scenario) -> list[dict[str, str]]:
    """The failure, repair, checkpoint and preemption settings as rows (setting, value, meaning)."""
    f, ckpt = scenario.failures, scenario.checkpoint
    rows = [{"setting": "Node failures", "value": "none" if f is None else
             f"{f.node_failures_per_1000_node_days:g} per 1,000 node-days",
             "meaning": "How often a node goes down, taking every job on it (times between "
                        "failures are exponential)."}]
    if f is not None:
        rows += [
            {"setting": "Repair time", "value": f"median {f.repair_min.median:g} min, mean "
                                                f"{f.repair_min.mean:g} min",
             "meaning": "How long a failed node stays down (log-normal: most repairs are short, "
                        "a few are very long)."},
            {"setting": "Failure seed", "value": "from the workload seed" if f.seed is None
             else str(f.seed), "meaning": "Fixes when nodes fail: the same for every policy."},
        ]
    rows += [
        {"setting": "Checkpoints", "value": "none" if ckpt is None else
         f"{', '.join(ckpt.types)} jobs, every {ckpt.interval_min:g} min of progress",
         "meaning": "A job that saves loses only the work since its last save; any other job "
                    "starts over."},
        {"setting": "Restore time", "value": "—" if ckpt is None else f"{ckpt.restore_min:g} min",
         "meaning": "Time a resumed job spends reloading its saved state before it progresses."},
        {"setting": "Restore after a move", "value": "—" if ckpt is None else f"{ckpt.move_min:g} min",
         "meaning": "Time a job that moves straight to other GPUs spends reloading its state there."},
        {"setting": "Preemption", "value": f"after {scenario.preemption_min_run_min:g} min of "
                                           "running",
         "meaning": "A preemptive rule (LAS, SRTF) may pause a job once it has run this long."},
    ]
    return rows


def left_out_line(scenario: Scenario) -> str | None:
    """The note on job shapes no node could ever hold (:meth:`Scenario.left_out_note`), in words."""
    note = scenario.left_out_note()
    return None if note is None else note.replace(RENORMALISED, RENORMALISED_WORDS)
