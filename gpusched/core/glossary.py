"""The glossary: every term a stakeholder meets on the pages, in one line each.

Pages put these lines in tooltips (``help=``) and render the whole glossary on Home; the docs'
glossary (``docs/metrics.md#glossary``) says the same in more words.
"""

from __future__ import annotations

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
    "fragmentation": "Free GPU shares too small for the typical job: capacity that exists but "
                     "cannot be used.",
    "declared run time": "What the scheduler is told a job will run: exact, off by an error, "
                         "nothing, or predicted from the jobs that finished before it arrived.",
    "deadline": "The time by which a job should finish, counted from its arrival.",
    "SLO attainment": "Share of the jobs with a deadline that finished by it.",
    "job weight": "How much a job counts: a weight-5 job counts five times in the weighted time "
                  "to result.",
    "GPU price": "What one GPU costs per hour, fixed per GPU model; a job pays for every GPU it "
                 "holds for every minute it holds it.",
}
"""Term -> one-line explanation, in the order a stakeholder meets them."""


def glossary_line(term: str) -> str:
    """The one-line explanation of ``term`` (a key of :data:`GLOSSARY`)."""
    return GLOSSARY[term]


def glossary_markdown() -> str:
    """The whole glossary as a Markdown list (term in bold, then its line)."""
    return "\n".join(f"- **{term}**: {line}" for term, line in GLOSSARY.items())


GLOSSARY_DOC = "docs/metrics.md#glossary"
"""Where the docs' glossary lives in the repository."""
