"""Where independent tasks run: the local process pool or Ray.

One function, :func:`run_tasks`, serves every embarrassingly parallel job of the project: the runs
of a sweep (:mod:`gpusched.sweep.runner`) and the labelling rounds of expert iteration
(:mod:`gpusched.agent.expert`).

- ``local`` (default): a process pool over the local cores (``workers=1`` runs in this process,
  in order);
- ``ray``: every task is a Ray task. Without ``address`` a local Ray instance is started with
  ``workers`` CPUs; with ``address`` (e.g. ``ray://head:10001`` or ``auto``) the tasks go to an
  existing cluster.

Results are yielded as tasks finish (in task order with one local worker). A task's function must
be importable by name (a module-level function) so that a worker process can run it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, TypeVar

from gpusched.errors import GpuschedError

T = TypeVar("T")

BACKENDS: tuple[str, ...] = ("local", "ray")
"""The names of the backends."""


def check_backend(backend: str) -> None:
    """Refuse an unknown backend name with one line."""
    if backend not in BACKENDS:
        raise GpuschedError(f"unknown backend '{backend}' (use {' or '.join(BACKENDS)})")


def run_tasks(fn: Callable[[Any], T], tasks: Sequence[Any], *, backend: str = "local",
              workers: int | None = 1, address: str | None = None) -> Iterator[T]:
    """``fn(task)`` for every task, on the backend; results as they finish.

    :param fn: a module-level function of one argument.
    :param tasks: its arguments (picklable).
    :param backend: ``local`` or ``ray``.
    :param workers: local processes, or the CPUs of a Ray instance started here (``None``: all).
    :param address: an existing Ray cluster to join (ray backend only).
    """
    check_backend(backend)
    if backend == "local":
        yield from _local(fn, tasks, workers or 1)
    else:
        yield from _ray(fn, tasks, workers, address)


def _local(fn: Callable[[Any], T], tasks: Sequence[Any], workers: int) -> Iterator[T]:
    if workers <= 1:
        for task in tasks:
            yield fn(task)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(fn, task) for task in tasks]
        for future in as_completed(futures):
            yield future.result()


def _ray(fn: Callable[[Any], T], tasks: Sequence[Any], workers: int | None,
         address: str | None) -> Iterator[T]:
    try:
        import ray
    except ImportError:
        raise GpuschedError(
            "the ray backend needs Ray: pip install -r requirements-ray.txt (requirements-dev.txt "
            "includes it)") from None
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(fn)
        pending = [remote.remote(task) for task in tasks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started_here:
            ray.shutdown()
