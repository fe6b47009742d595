"""Tuning the tuned rule's weights: the cross-entropy method over training seeds.

The search (Rubinstein, "The Cross-Entropy Method for Combinatorial and Continuous Optimization",
Methodology and Computing in Applied Probability 1(2), 1999; as a policy search, Szita and
Lőrincz, "Learning Tetris Using the Noisy Cross-Entropy Method", Neural Computation 18(12), 2006):

1. start from a mean ``mu`` (the base order's weights: all on ``left_best``, which is ``sjf``) and
   a standard deviation ``sigma`` per weight;
2. each iteration draws ``population`` weight vectors from ``N(mu, sigma^2)`` with one seeded
   numpy Generator, runs the tuned rule with each on every training seed (the same jobs for all),
   and scores each by its mean JCT over those seeds (minutes);
3. ``mu`` and ``sigma`` become the mean and standard deviation of the ``elite`` best, plus a noise
   floor ``sigma_floor`` (Szita and Lőrincz's noisy CEM), and the best vector seen so far is kept.

The score the search minimises is the mean over the training seeds of the run's ``avg_jct_min``.
Training seeds are drawn from 20000 upwards, apart from the held-out seeds (1000-1019) on which
the result is measured. RLScheduler (Zhang et al., SC '20) learns a per-job scoring kernel by
policy gradient; a linear score of eight features is small enough for a black-box search.

Run it with ``python benchmarks/tune_rule.py`` (:class:`TuneConfig` holds every knob).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from gpusched.policies.tuned import TUNED_FEATURES, tuned_rule
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario
from gpusched.workload.scenario import Scenario


@dataclass
class TuneConfig:
    """Every knob of a tuning run (the documented defaults)."""

    scenario: str = "fleet-16gpu"
    """The training scenario (preset name or file)."""
    placement: str = "fastest_fit"
    """The registered placement the score is composed with (``fastest_fit``, ``eft``,
    ``fastest_move``, ...; :func:`~gpusched.policies.tuned.tuned_rule`)."""
    base: str = "sjf+fastest_fit"
    """The rule it starts from and is measured against."""
    training_seeds: list[int] = field(default_factory=lambda: list(range(20_000, 20_008)))
    """Workload seeds of the objective (apart from the held-out 1000-1019)."""
    n_jobs: int | None = None
    """Jobs per run (``None``: the scenario's)."""
    iterations: int = 8
    """CEM iterations."""
    population: int = 12
    """Weight vectors drawn per iteration."""
    elite: int = 4
    """The best vectors the next distribution is fitted to."""
    init_sigma: float = 0.5
    """The first standard deviation of every weight."""
    sigma_floor: float = 0.02
    """Noise added to every standard deviation after each fit (noisy CEM)."""
    seed: int = 0
    """Seed of the search's Generator."""


def start_weights() -> np.ndarray:
    """All weight on ``left_best``: the order of ``sjf`` on a run without preemption."""
    w = np.zeros(len(TUNED_FEATURES))
    w[TUNED_FEATURES.index("left_best")] = 1.0
    return w


def mean_jct_min(weights: np.ndarray, scenario: Scenario, placement: str, seeds: Sequence[int],
                 n_jobs: int | None = None) -> float:
    """The mean over ``seeds`` of the tuned rule's mean JCT (minutes) with ``weights``."""
    out = []
    for seed in seeds:
        sim = make_simulator(scenario, seed, n_jobs)
        out.append(sim.run(tuned_rule(weights, placement, "tuned", seed)).metrics["avg_jct_min"])
    return float(np.mean(out))


def tune(config: TuneConfig, log: Callable[[str], None] = print) -> tuple[np.ndarray, dict]:
    """Search the weights (see the module docstring).

    :return: the best weights found and the search's record (per iteration the best and the
        elite mean score, the start's score, the time taken, the config).
    """
    scenario = load_scenario(config.scenario)
    rng = np.random.default_rng(config.seed)
    mu, sigma = start_weights(), np.full(len(TUNED_FEATURES), config.init_sigma)

    def score(w: np.ndarray) -> float:
        return mean_jct_min(w, scenario, config.placement, config.training_seeds, config.n_jobs)

    start = time.perf_counter()
    best_w, best = mu.copy(), score(mu)
    record = {"start_score_min": best, "iterations": []}
    log(f"start (sjf order): mean JCT {best:.2f} min over {len(config.training_seeds)} training seeds")
    for it in range(config.iterations):
        pop = mu + sigma * rng.standard_normal((config.population, len(mu)))
        scores = np.array([score(w) for w in pop])
        order = np.argsort(scores, kind="stable")
        elite = pop[order[: config.elite]]
        mu, sigma = elite.mean(axis=0), elite.std(axis=0) + config.sigma_floor
        if scores[order[0]] < best:
            best, best_w = float(scores[order[0]]), pop[order[0]].copy()
        record["iterations"].append({"best_min": float(scores[order[0]]),
                                     "elite_mean_min": float(scores[order[: config.elite]].mean())})
        log(f"iteration {it + 1}/{config.iterations}: best {scores[order[0]]:.2f}, kept {best:.2f} min")
    record.update(best_score_min=best, time_s=round(time.perf_counter() - start, 3), config=asdict(config))
    return best_w, record
