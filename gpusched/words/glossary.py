"""The glossary: every term a stakeholder meets on the pages, in one line each.

Pages put these lines in tooltips (``help=``) and render the whole glossary on Home; the docs'
glossary (``docs/metrics.md#glossary``) says the same in more words.
"""

from __future__ import annotations

import re

GLOSSARY: dict[str, str] = {
    "time to result (JCT)": "Job completion time: from a job's arrival until it ends, waiting and "
                            "running. The lower, the sooner people get their results.",
    "wait": "Time a job spends in the queue before it starts on a GPU.",
    "p99": "The 99th percentile: 99 % of jobs do at least this well; it describes the slowest 1 %.",
    "slowdown": "Time to result divided by the run time on the best GPU the cluster could give the "
                "job; 1 means no wait and the best GPU.",
    "bounded slowdown": "Slowdown with run times under 10 min counted as 10 min, so that very short "
                        "jobs do not dominate the average.",
    "speed loss": "Extra run time from running on a slower GPU than the fastest one that fitted.",
    "stall": "Time the first job in the queue could have run on some GPU, but the policy held it; "
             "every job behind it waits too.",
    "blocked": "Time the first job in the queue fitted on no GPU at all, so the queue waited for "
               "GPUs to free up.",
    "misroute": "The policy sent a job to a GPU where it did not fit, so the job waited there "
                "instead of starting elsewhere.",
    "capacity misroute": "A misroute to a GPU too small to ever hold the job (too little memory).",
    "head job": "The job at the front of the queue: the oldest one still waiting.",
    "strict queue (FIFO)": "Jobs start in arrival order: a job may start only once every earlier "
                           "job has started (first in, first out).",
    "queue window": "How many of the oldest waiting jobs the scheduler may choose from; a window of "
                    "1 is the strict queue.",
    "backfilling": "Starting a later job ahead of an earlier one that cannot start yet, without "
                   "delaying it.",
    "greedy (no search)": "The trained agent taking its single best-scored action at each decision, "
                          "without trying alternatives ahead (the rollout agent does try them).",
    "rollouts": "Trying each candidate action on a copy of the cluster a little ahead in time and "
                "keeping the one that turned out best.",
    "heuristic": "A fixed rule for choosing a GPU or a job, such as First-Fit or Least-Loaded.",
    "GPU occupancy": "Share of the cluster's GPU compute held by running jobs; slow runs raise it, "
                     "so a busier cluster is not a more productive one.",
    "goodput": "Share of the GPU time jobs held that did useful work: not lost to a node failure and "
               "not spent restoring from a checkpoint.",
    "offered load": "The GPU compute the arriving jobs ask for, as a fraction of what the cluster "
                    "can give; above 1 the queue grows without end.",
    "seed": "The number that fixes the random workload; the same seed gives every policy exactly the "
            "same jobs, so results compare like with like.",
    "paired difference": "A policy's result minus the baseline's on the same seed, averaged over "
                         "seeds with a 95 % interval; an interval that excludes 0 is a real "
                         "difference.",
    "t interval": "An interval of a mean from the spread of the seeds' values (Student's t): right "
                  "when the values are roughly symmetric, as mean times to result are.",
    "bootstrap": "An interval found by resampling the seeds many times (seeded, so it is the same "
                 "on every run): used for skewed values that are never negative, such as the p99 "
                 "wait and the stall time.",
    "fragmentation": "Free GPU shares too small for the typical job: capacity that exists but "
                     "cannot be used.",
    # The rules: a rule's name is an order (which waiting job starts) and a placement (where).
    "FCFS (first come, first served)": "Queue order: only the oldest waiting job may start, so jobs "
                                       "start in arrival order (the strict queue).",
    "Fit-first": "Queue order: the oldest waiting job that fits now starts, skipping those that do "
                 "not (it can starve big jobs).",
    "EASY backfilling": "Queue order: the oldest job gets a reserved start time; a later job may "
                        "start ahead of it only if that does not delay the reservation.",
    "SJF (shortest job first)": "Queue order: the waiting job with the shortest declared run time "
                                "starts first.",
    "Priority": "Queue order: the waiting job with the highest priority starts first, oldest first "
                "within a priority.",
    "WFP3": "Queue order that favours jobs that have waited long for their size: the highest "
            "(wait ÷ declared run time)³ × GPUs starts first (from the RLScheduler paper, 2020).",
    "LAS (least attained service)": "Queue order: the jobs that have run least so far go first, and "
                                    "may pause running jobs that have run more (preemption).",
    "SRTF (shortest remaining time first)": "Queue order: the jobs closest to done by their declared "
                                            "run time go first, and may pause others (preemption).",
    "QSSF (quasi-shortest service first)": "Queue order: the waiting job with the least predicted "
                                              "GPU time (GPUs × predicted run time) starts first; its "
                                              "predictions come from the jobs that finished before "
                                              "(from the Helios study, 2021).",
    "EDF (earliest deadline first)": "Queue order: the waiting job whose deadline comes soonest "
                                     "starts first.",
    "Least slack": "Queue order: the waiting job with the least time to spare before its deadline, "
                   "after its declared or predicted run, starts first.",
    "Cheapest-Fit": "Placement: the cheapest GPUs on which the job still meets its deadline; "
                    "otherwise the fastest.",
    "First-Fit": "Placement: the first GPU, in the cluster's order, with room for the job.",
    "Best-Fit": "Placement: the GPU the job fits most tightly (the least memory left free after it).",
    "Fastest-Fit": "Placement: the fastest GPU model with room for the job.",
    "EFT (earliest finish time)": "Placement: wherever the job would finish soonest, counting both "
                                  "the wait for a GPU and the GPU's speed.",
    "Least-Loaded": "Placement: the least busy GPU, without checking that the job fits there; "
                    "(fit) checks the fit, (jobs) counts running jobs, (VRAM) counts free memory.",
    "Random": "Placement: a random GPU with room for the job; a floor any rule should beat.",
    "PPO agent": "The scheduler trained by reinforcement learning (PPO, proximal policy "
                 "optimisation): a neural network that picks the job and the GPU.",
    "PPO agent (urgency)": "The agent trained where nobody tells the scheduler how long jobs run: it "
                           "sees history's predictions, how many past jobs each rests on, deadlines, "
                           "weights and job models.",
    "Learned-weight score": "A rule with learned weights: each waiting job gets a weighted sum of what the "
                   "scheduler sees of it (wait, work left on its best GPU, GPUs, service so far, "
                   "deadline slack, weight, speed of the best free GPUs, cost), weights found by "
                   "search on training runs; it improves the rule its weights were searched against.",
    "Inspector agent": "An agent on top of a rule: the rule proposes each decision, and a network "
                       "trained by PPO accepts it, asks for the rule's next choice, or waits.",
    "Clairvoyant lookahead": "A planner that knows every job's true run time in advance and tries "
                             "each choice ahead: a bound no real scheduler can reach.",
    "FGD (fragmentation gradient descent)": "Placement from the FGD paper (Weng et al., 2023): "
                                            "the GPU where the pod fragments the free shares least.",
    "Dot-Product": "Placement from the FGD paper's baselines: the node whose free resources best "
                   "match the pod's request (largest dot product).",
    "GPU Clustering": "Placement from the FGD paper's baselines: pods of one GPU model's kind "
                      "packed together.",
    "GPU Packing": "Placement from the FGD paper's baselines: fill partly used GPUs first, then "
                   "used nodes, then idle ones.",
    # Other words and abbreviations on the pages.
    "p95": "The 95th percentile: 95 % of jobs do at least this well; it describes the slowest 5 %.",
    "makespan": "Time from the first job's arrival until the last job finishes.",
    "Gini": "The Gini coefficient of the GPUs' loads: 0 when every GPU is equally busy, near 1 "
            "when one GPU does all the work.",
    "CDF (cumulative distribution)": "For each wait, the share of jobs that waited at most that "
                                     "long.",
    "VRAM": "A GPU's own memory (GB); a job fits on a GPU only if its memory need fits in the free "
            "VRAM.",
    "node failure": "A machine of the cluster going down with every job on it; it comes back after "
                    "a repair time.",
    "checkpoint": "A saved copy of a job's progress; after a failure the job resumes from it, "
                  "losing only the work done since.",
    "preemption": "Pausing a running job to give its GPUs to another; it saves its progress and "
                  "resumes later.",
    "pod": "A job of Alibaba's openb trace (a Kubernetes pod): it asks for a share of one GPU, or "
           "for whole GPUs.",
    "warm start": "Before its reinforcement learning, the agent's network learns to copy a fixed "
                  "rule's decisions, so it starts from sensible play.",
    "expert iteration": "Training rounds in which the agent with rollouts labels the network's "
                        "decisions and the network learns the better labels.",
    "declared run time": "What the scheduler is told a job will run: exact, off by an error, "
                         "nothing, or predicted from the jobs that finished before it arrived.",
    "deadline": "The time by which a job should finish, counted from its arrival.",
    "SLO attainment": "Share of the jobs with a deadline that finished by it.",
    "job weight": "How much a job counts: a weight-5 job counts five times in the weighted time "
                  "to result.",
    "GPU price": "What one GPU costs per hour, fixed per GPU model; a job pays for every GPU it "
                 "holds for every minute it holds it.",
    # Rounds: the field's optimisation policies (Gavel's names) and the fairness they aim at.
    "round": "A fixed slice of time (6 minutes by default, Gavel's) after which a round policy may give "
             "every GPU to another job; a job that keeps its GPUs renews its lease and pays no restore.",
    "round policy": "A policy that re-allocates the whole cluster every round by solving for the share of "
                    "time each job should spend on each GPU type, as Gavel, Themis and AlloX do.",
    "heterogeneity-agnostic": "A round policy that treats every GPU type as equally fast (Gavel's names "
                              "without _perf); its _perf twin reads each type's measured speed for each "
                              "job.",
    "Max-min fairness (Gavel's LAS)": "Round policy: give every job the same share of the cluster, raising "
                                      "the smallest share as far as it goes (weighted by job weights); the "
                                      "_perf twin counts shares in each job's own speed.",
    "Max-min fairness, co-located pairs": "Round policy: max-min fairness where two jobs may share one GPU "
                                          "at their measured pair speeds (Gavel's max_min_fairness_packed).",
    "Finish-time fairness policy (Themis)": "Round policy: keep the worst job's finish-time fairness ρ as "
                                            "low as possible (Themis, as Gavel solves it).",
    "Minimum makespan": "Round policy: finish every active job as early as possible, the last one first of "
                        "all (Gavel's min_total_duration).",
    "Maximum total throughput": "Round policy: the allocation with the most total work done per unit of "
                                "time, whatever the share of each job (Gavel's max_sum_throughput_perf).",
    "Maximum throughput per dollar": "Round policy: the most work done per dollar of GPU time at the "
                                     "scenario's prices (Gavel's "
                                     "max_sum_throughput_normalized_by_cost_perf).",
    "Gandiva": "Round policy after Gandiva (Xiao et al., 2018) as Gavel runs it: jobs time-share the "
               "GPUs, and pairs are tried on one GPU and kept where both gain.",
    "AlloX": "Round policy after AlloX (Le et al., EuroSys 2020): jobs go to GPU types by a matching that "
             "minimises the mean completion time.",
    "finish-time fairness (ρ)": "A job's time to result divided by its time alone on a 1/N share of the "
                                "cluster, N the jobs in the system during its stay; above 1, sharing cost "
                                "it more than its fair share.",
    "Jain's index": "How evenly jobs are served: 1 when every job gets the same ideal-run-time-to-JCT "
                    "ratio, 1/n when one job gets it all.",
    "GPU-type change": "A job's next run on another GPU model than its last; round policies that ignore "
                       "speeds rotate jobs over the types round after round.",
}
"""Term -> one-line explanation, in the order a stakeholder meets them."""


def glossary_line(term: str) -> str:
    """The one-line explanation of ``term`` (a key of :data:`GLOSSARY`)."""
    return GLOSSARY[term]


def entry_for(word: str) -> str | None:
    """The glossary term that explains ``word`` (a policy part such as ``First-Fit``, or an
    abbreviation such as ``WFP3``): the first that names it as a whole word, case aside."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(word.lower())}(?![\w-])")
    return next((term for term in GLOSSARY if pattern.search(term.lower())), None)


def explained(word: str) -> bool:
    """Whether the glossary explains ``word`` (see :func:`entry_for`)."""
    return entry_for(word) is not None


def glossary_markdown() -> str:
    """The whole glossary as a Markdown list (term in bold, then its line)."""
    return "\n".join(f"- **{term}**: {line}" for term, line in GLOSSARY.items())


GLOSSARY_DOC = "docs/metrics.md#glossary"
"""Where the docs' glossary lives in the repository."""
