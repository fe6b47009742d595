"""The lost work of node failures as a story, worded from the numbers
(:func:`gpusched.experiment.lost_work.lost_work`): which rule loses most, which least, and why
(more interruptions, or a higher cost per interruption, and how much of it was in jobs that save
no checkpoint), and the time spent restoring."""

from __future__ import annotations

from collections.abc import Sequence

from gpusched.experiment.lost_work import LostWork
from gpusched.policies import policy_label


def _per_run(row: LostWork) -> str:
    return " a run" if row.seeds > 1 else ""


def lost_work_story(rows: Sequence[LostWork], saving: Sequence[str] = ()) -> list[str]:
    """Markdown sentences on the lost work of one or more policies.

    :param rows: each policy's lost work (one row: a sentence on that run alone).
    :param saving: the job types that save checkpoints (to name the ones that do not).
    """
    if not rows or all(r.lost_gpu_hours <= 0 and r.restore_gpu_hours <= 0 for r in rows):
        failed = max((r.node_failures for r in rows), default=0.0)
        if failed:
            return [f"Nodes failed ({failed:,.1f} times{_per_run(rows[0])}), but never under a "
                    "running job: no work was lost and nothing had to be restored."]
        return ["No node failed, so no work was lost and nothing had to be restored."]
    unsaved = ("jobs that save no checkpoint" if not saving else
               f"jobs that save no checkpoint (all but {', '.join(saving)} jobs)")
    if len(rows) == 1:
        r = rows[0]
        out = [f"Node failures interrupted {r.interruptions:,.1f} jobs{_per_run(r)} and threw away "
               f"**{r.lost_gpu_hours:,.1f} GPU-hours** of progress, "
               f"{r.lost_per_interruption_gpu_min:,.0f} GPU-minutes each; "
               f"{r.unsaved_share * 100:.0f} % of it in {unsaved}, which start over."]
    else:
        worst = max(rows, key=lambda r: r.lost_gpu_hours)
        best = min(rows, key=lambda r: r.lost_gpu_hours)
        w, b = policy_label(worst.policy), policy_label(best.policy)
        out = [f"**{w}** loses the most work to node failures: **{worst.lost_gpu_hours:,.1f} "
               f"GPU-hours**{_per_run(worst)} over {worst.interruptions:,.1f} interruptions; "
               f"**{b}** loses the least, {best.lost_gpu_hours:,.1f} GPU-hours over "
               f"{best.interruptions:,.1f}. Every rule meets the same failures at the same times: "
               "what differs is which jobs were running on the node that failed."]
        if best.interruptions > 0 and best.lost_per_interruption_gpu_min > 0:
            hits = worst.interruptions / best.interruptions
            cost = worst.lost_per_interruption_gpu_min / best.lost_per_interruption_gpu_min
            if hits >= cost:
                out.append(f"Why: mostly because more of {w}'s jobs were running where a node "
                           f"failed ({hits:.2g}× as many interruptions as {b}); each cost "
                           f"{cost:.2g}× as much ({worst.lost_per_interruption_gpu_min:,.0f} against "
                           f"{best.lost_per_interruption_gpu_min:,.0f} GPU-minutes).")
            else:
                out.append(f"Why: mostly because each interruption cost {w} more "
                           f"({worst.lost_per_interruption_gpu_min:,.0f} "
                           f"against {best.lost_per_interruption_gpu_min:,.0f} GPU-minutes, on "
                           f"{worst.gpus_per_interruption:.2g} against {best.gpus_per_interruption:.2g} "
                           "GPUs a job), and "
                           f"{worst.unsaved_share * 100:.0f} % of its lost work was in {unsaved} "
                           f"({best.unsaved_share * 100:.0f} % for {b}).")
    restoring = max(rows, key=lambda r: r.restore_gpu_hours)
    if restoring.restore_gpu_hours > 0:
        why = (f", after {restoring.preemptions:,.1f} preemptions{_per_run(restoring)} as well as "
               "the failures" if restoring.preemptions else "")
        who = "" if len(rows) == 1 else f" longest under {policy_label(restoring.policy)}:"
        out.append(f"Restoring from checkpoints took{who} {restoring.restore_gpu_hours:,.1f} "
                   f"GPU-hours{_per_run(restoring)}{why}.")
    return out
