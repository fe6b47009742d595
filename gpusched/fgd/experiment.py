"""The allocation experiment as an interactive front end runs it: load a trace (a bundled pod list
or an uploaded one) once, then run a grid of policies and seeds behind a single progress callback,
optionally on a worker thread so that the caller can keep a progress bar moving.

The experiment itself is :func:`gpusched.fgd.allocation.run_allocation`; this module only prepares its
inputs and strings runs together.
"""

from __future__ import annotations

import hashlib
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpusched.fgd.allocation import AllocationRun
from gpusched.fgd.typical_pods import TypicalPods, typical_pods
from gpusched.workload.openb import OpenbNodes, OpenbPods, TraceError, read_openb_nodes, read_openb_pods

NODE_LIST = "openb_node_list_gpu_node"
"""The bundled node list every experiment runs on (1,213 nodes, 6,212 GPUs)."""

BUNDLED_POD_LISTS: dict[str, str] = {
    "openb_pod_list_default": "default: as recorded (8,152 pods)",
    "openb_pod_list_gpushare100": "gpushare100: every GPU pod asks for a share of one GPU",
    "openb_pod_list_gpuspec33": "gpuspec33: about 33 % of GPU pods need a given GPU model",
    "openb_pod_list_multigpu50": "multigpu50: default plus 909 multi-GPU pods (9,061 pods)",
}
"""The bundled pod lists (file stems in ``assets/traces/``) with a one-line description each."""

UPLOAD_PREFIX = "upload:"
"""Trace keys of uploaded pod lists start with this (``upload:NAME:DIGEST``)."""


def pod_list_label(key: str) -> str:
    """A pod list in words: a bundled list's description, an uploaded file's name, else the key."""
    if key in BUNDLED_POD_LISTS:
        return f"openb {BUNDLED_POD_LISTS[key]}"
    if key.startswith(UPLOAD_PREFIX):
        return key[len(UPLOAD_PREFIX):].rsplit(":", 1)[0]
    return key


SECONDS_PER_RUN: dict[str, float] = {"fgd": 4.0}
"""Rough wall time of one run on the bundled cluster (s), by policy; other policies take
:data:`DEFAULT_SECONDS_PER_RUN`."""

DEFAULT_SECONDS_PER_RUN = 2.0

RunProgress = Callable[[int, int], None]
"""``progress(done_pods, total_pods)`` within one run."""

GridProgress = Callable[[float, str], None]
"""``progress(fraction 0-1 of the whole grid, one-line status)``."""


@dataclass(frozen=True)
class TraceData:
    """Everything one run needs from a trace.

    :param key: the trace key: a bundled stem, or ``upload:NAME:DIGEST`` for an uploaded file.
    :param label: the name shown to users (:func:`pod_list_label`: a bundled list's description or
        the uploaded file's name).
    :param nodes: the node list.
    :param pods: the pod list.
    :param typical: FGD's typical pods of the pod list.
    """

    key: str
    label: str
    nodes: OpenbNodes
    pods: OpenbPods
    typical: TypicalPods

    @property
    def published_workload(self) -> str | None:
        """The workload name in the published results (``None`` for an uploaded trace)."""
        return None if self.key.startswith(UPLOAD_PREFIX) else self.key


def upload_key(name: str, data: bytes) -> str:
    """The trace key of an uploaded pod list: its file name and a digest of its bytes.

    :param name: the uploaded file's name.
    :param data: its content.
    """
    return f"{UPLOAD_PREFIX}{Path(name).name}:{hashlib.sha256(data).hexdigest()[:16]}"


def load_trace(key: str, upload: bytes | None = None) -> TraceData:
    """Read the bundled node list and a pod list, and compute its typical pods.

    :param key: a bundled pod-list stem, or an :func:`upload_key`.
    :param upload: the uploaded file's bytes (required when ``key`` is an upload key).
    :raises TraceError: if the key names no bundled pod list, or a file is invalid. Messages about an
        uploaded file name it as the user uploaded it.
    """
    nodes = read_openb_nodes(NODE_LIST)
    most = int(nodes.gpus.max())
    if not key.startswith(UPLOAD_PREFIX):
        if key not in BUNDLED_POD_LISTS:
            raise TraceError(f"trace '{key}': not a bundled pod list (one of {', '.join(BUNDLED_POD_LISTS)})")
        pods = read_openb_pods(key, max_gpus_per_node=most)
        return TraceData(key, pod_list_label(key), nodes, pods, typical_pods(pods))
    if upload is None:
        raise TraceError(f"trace '{key}': the uploaded file is no longer available; upload it again")
    name = key[len(UPLOAD_PREFIX):].rsplit(":", 1)[0]
    pods = _read_uploaded_pods(name, upload, most)
    if len(pods) == 0:
        raise TraceError(f"trace '{name}': holds no pods")
    return TraceData(key, name, nodes, pods, typical_pods(pods))


def _read_uploaded_pods(name: str, data: bytes, max_gpus_per_node: int) -> OpenbPods:
    """Validate uploaded bytes as a pod list; errors name the file as uploaded, not a temporary path."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / (name if name.endswith(".csv") else f"{name}.csv")
        path.write_bytes(data)
        try:
            return read_openb_pods(path, max_gpus_per_node=max_gpus_per_node)
        except TraceError as err:
            raise TraceError(str(err).replace(str(path), name)) from None


def estimated_seconds(policies: Sequence[str], n_seeds: int,
                      measured: Mapping[str, float] | None = None) -> float:
    """A rough wall time of a grid on the bundled cluster (s), for telling users what to expect:
    each policy's measured seconds per run where ``measured`` has them, else the shipped guess
    (:data:`SECONDS_PER_RUN`).

    :param policies: policy names.
    :param n_seeds: seeds per policy.
    :param measured: seconds per run measured on this machine, by policy.
    """
    measured = measured or {}
    return n_seeds * sum(measured.get(p, SECONDS_PER_RUN.get(p, DEFAULT_SECONDS_PER_RUN))
                         for p in policies)


def measured_seconds(runs: Sequence[AllocationRun]) -> dict[str, float]:
    """Mean wall seconds per run of each policy among ``runs`` (measured where they ran)."""
    by_policy: dict[str, list[float]] = {}
    for run in runs:
        by_policy.setdefault(run.policy, []).append(float(run.seconds))
    return {p: sum(v) / len(v) for p, v in by_policy.items()}


def estimate_line(policies: Sequence[str], n_seeds: int,
                  measured: Mapping[str, float] | None = None) -> str:
    """What a grid will take, in words: the runs, the seconds, and where the seconds come from
    (the runs measured on this machine, or a first guess before any ran)."""
    measured = measured or {}
    known = all(p in measured for p in policies)
    seconds = estimated_seconds(policies, n_seeds, measured)
    source = ("from the runs measured here" if known else
              "a first guess until a run of each policy is measured here")
    return (f"{len(policies) * n_seeds} run(s), about {max(seconds, 1):.0f} s when not cached "
            f"({source}).")


def run_grid(
    policies: Sequence[str],
    seeds: Sequence[int],
    run_one: Callable[[str, int, RunProgress], AllocationRun],
    progress: GridProgress | None = None,
    label: Callable[[str], str] = str,
) -> list[AllocationRun]:
    """Every policy with every seed, in that order (policy-major), reporting one overall progress.

    :param policies: policy names.
    :param seeds: seeds.
    :param run_one: runs one (policy, seed) and forwards pod progress to its third argument, e.g. a
        cached :func:`gpusched.fgd.allocation.run_allocation`.
    :param progress: receives the fraction (0-1) of the whole grid done and a status line.
    :param label: a policy's name in the status line (e.g. ``gpusched.policies.policy_label``).
    """
    pairs = [(p, s) for p in policies for s in seeds]
    runs: list[AllocationRun] = []
    for i, (policy, seed) in enumerate(pairs):
        status = f"{label(policy)}, seed {seed} (run {i + 1} of {len(pairs)})"

        def step(done: int, total: int, i: int = i, status: str = status) -> None:
            if progress is not None:
                progress((i + done / max(total, 1)) / len(pairs), f"{status}: {done:,} of {total:,} pods")

        step(0, 1)
        runs.append(run_one(policy, seed, step))
    if progress is not None:
        progress(1.0, f"{len(pairs)} run(s) done")
    return runs


def run_grid_polled(
    policies: Sequence[str],
    seeds: Sequence[int],
    run_one: Callable[[str, int, RunProgress], AllocationRun],
    progress: GridProgress,
    *,
    poll_s: float = 0.1,
    prepare_thread: Callable[[threading.Thread], None] | None = None,
    label: Callable[[str], str] = str,
) -> list[AllocationRun]:
    """:func:`run_grid` on a worker thread, with ``progress`` called on the calling thread.

    The worker only records its latest progress; the caller reads it every ``poll_s`` seconds. That
    keeps every call of ``progress`` (e.g. a UI update) on the caller's thread, and every call of
    ``run_one`` (e.g. a cached function) off it.

    :param policies: policy names.
    :param seeds: seeds.
    :param run_one: as in :func:`run_grid`.
    :param progress: receives the fraction (0-1) of the grid done and a status line.
    :param poll_s: seconds between progress reads.
    :param prepare_thread: called with the worker thread before it starts (e.g. to attach a UI
        framework's context to it).
    :param label: as in :func:`run_grid`.
    :raises Exception: whatever ``run_one`` raised, re-raised on the calling thread.
    """
    lock = threading.Lock()
    latest: list = [0.0, "starting"]
    outcome: dict[str, object] = {}

    def record(fraction: float, status: str) -> None:
        with lock:
            latest[:] = [fraction, status]

    def work() -> None:
        try:
            outcome["runs"] = run_grid(policies, seeds, run_one, record, label)
        except BaseException as err:  # handed to the calling thread below
            outcome["error"] = err

    worker = threading.Thread(target=work, name="gpusched-allocation-grid", daemon=True)
    if prepare_thread is not None:
        prepare_thread(worker)
    worker.start()
    while worker.is_alive():
        worker.join(poll_s)
        with lock:
            fraction, status = latest
        progress(fraction, status)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["runs"]  # type: ignore[return-value]
