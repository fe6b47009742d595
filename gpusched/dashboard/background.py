"""Slow runs in the background: a worker process that runs policies and hands back futures.

The trained agent decides with a neural network, so one of its runs takes seconds where a
heuristic takes a fraction of one. Pages submit such runs here and draw them when they are done,
instead of blocking their first render. Results are kept per (scenario YAML, policy, seed).

The worker is a process, not a thread: the agent's many small torch calls each release and
re-take the GIL, so in a thread of a busy server every decision waited for the pages' own Python
work (about 9 ms instead of 0.6 ms), and importing torch there held up the pages' first render.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import time
import types
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from gpusched.agent.names import AGENT_POLICY
from gpusched.core.result import Result
from gpusched.experiment.runner import run_policy
from gpusched.policies import get_policy
from gpusched.workload.scenario_yaml import scenario_from_yaml


class BackgroundRuns:
    """Runs submitted by (scenario YAML, policy, seed), computed one after another.

    :param workers: worker processes (the machine's cores are shared with the page's own work);
        they start at once, so the worker's imports overlap the page's first render.
    :param max_kept: finished runs to keep before the oldest are dropped.
    """

    def __init__(self, workers: int = 1, max_kept: int = 256):
        self._workers = workers
        self._futures: dict[tuple[str, str, int], Future[Result]] = {}
        self._lock = threading.Lock()
        self._max_kept = max_kept
        self._pool = _start_pool(workers)

    def _submit_run(self, scenario_yaml: str, policy: str, seed: int) -> Future[Result]:
        """Hand one run to the pool, replacing a pool whose worker died (its runs keep the error)."""
        try:
            return self._pool.submit(_run, scenario_yaml, policy, seed)
        except BrokenProcessPool:
            self._pool = _start_pool(self._workers)
            return self._pool.submit(_run, scenario_yaml, policy, seed)

    def submit(self, scenario_yaml: str, policy: str, seed: int) -> Future[Result]:
        """The future of one run; submitted once, shared by every caller (a failed run keeps
        its error, so pages can show it)."""
        key = (scenario_yaml, policy, int(seed))
        with self._lock:
            future = self._futures.get(key)
            if future is None:
                future = self._submit_run(scenario_yaml, policy, int(seed))
                self._futures[key] = future
                if len(self._futures) > self._max_kept:
                    oldest = next(k for k, f in self._futures.items() if f.done())
                    self._futures.pop(oldest, None)
            return future

    def submit_mean(self, scenario_yaml: str, policy: str, seeds: tuple[int, ...],
                    metric: str) -> Future[float]:
        """The future of ``policy``'s mean of ``metric`` over ``seeds`` (one task: the runs stay
        in the worker and only the number comes back); submitted once, shared by every caller."""
        key = (scenario_yaml, f"mean:{metric}:{policy}:{','.join(map(str, seeds))}", -1)
        with self._lock:
            future = self._futures.get(key)
            if future is None:
                try:
                    future = self._pool.submit(_mean, scenario_yaml, policy, tuple(seeds), metric)
                except BrokenProcessPool:
                    self._pool = _start_pool(self._workers)
                    future = self._pool.submit(_mean, scenario_yaml, policy, tuple(seeds), metric)
                self._futures[key] = future
            return future

    def ready(self, scenario_yaml: str, policy: str, seeds: list[int] | tuple[int, ...]) -> bool:
        """Whether every seed's run is finished (submitting the missing ones)."""
        return all(self.submit(scenario_yaml, policy, s).done() for s in seeds)

    def results(self, scenario_yaml: str, policy: str,
                seeds: list[int] | tuple[int, ...]) -> dict[tuple[str, int], Result]:
        """The finished runs, keyed (policy, seed); waits for unfinished ones.

        :raises GpuschedError: when a run failed (e.g. a model that cannot be loaded).
        """
        return {(policy, s): self.submit(scenario_yaml, policy, s).result() for s in seeds}


@contextlib.contextmanager
def _bare_main() -> Iterator[None]:
    """A bare ``__main__`` while workers start: a spawned worker re-runs the parent's ``__main__``
    file, and under Streamlit that is the app script, which must not run again in the worker."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _start_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of freshly spawned workers, started now (a forked copy of a threaded server could
    inherit locks held by its other threads)."""
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_warm_worker)
    with _bare_main():
        for _ in range(workers):
            pool.submit(int)  # each no-op spawns one more worker, inside this block
    return pool


WORKER_NICENESS = 10
"""How much lower than the server the worker's CPU priority is (``os.nice``; POSIX only): its
imports and runs yield to the pages' own drawing, which is what a visitor waits for."""


PARENT_CHECK_S = 1.0
"""How often a worker checks that the server that started it still runs (seconds)."""


def _exit_with_parent(parent: int) -> None:
    """End the worker once its server is gone (a stopped server must not leave a worker running
    the rest of its queue)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(0)


def _warm_worker() -> None:
    """Start-up of a worker: a lower CPU priority (:data:`WORKER_NICENESS`) and one core for the
    agent's network, leaving the machine to the pages first, and torch, the shipped model and the
    observation kernel load now, not in the first run."""
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True,
                     name="gpusched-worker-watch").start()
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(WORKER_NICENESS)
    try:
        import torch
    except ImportError:  # no agent installed: nothing to limit or load
        return
    torch.set_num_threads(1)
    # A missing or refused model is reported by the run that asks for it, not here.
    with contextlib.suppress(Exception):
        get_policy(AGENT_POLICY)
    from gpusched.env.observation import warm_up

    warm_up()


def _run(scenario_yaml: str, policy: str, seed: int) -> Result:
    return run_policy(scenario_from_yaml(scenario_yaml, source="background run"), policy, seed=seed)


def _mean(scenario_yaml: str, policy: str, seeds: tuple[int, ...], metric: str) -> float:
    scenario = scenario_from_yaml(scenario_yaml, source="background run")
    return float(sum(run_policy(scenario, policy, seed=s).metrics[metric] for s in seeds) / len(seeds))
