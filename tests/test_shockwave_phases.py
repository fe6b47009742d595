"""The phases of Shockwave's jobs (gpusched/workload/shockwave_phases.py): hand-built gns and
accordion jobs get the batch sizes and phases worked out by hand from Shockwave's rules, refused
changes keep one phase, and on the shipped trace the batch sizes agree with those Shockwave's own
simulator recorded."""

from __future__ import annotations

import json
import math

import pytest

from gpusched.paths import SHOCKWAVE_RESULTS_DIR, SHOCKWAVE_THROUGHPUTS, SHOCKWAVE_TRACE
from gpusched.workload.openb import TraceError
from gpusched.workload.shockwave import (
    read_shockwave_throughputs,
    read_shockwave_trace,
)
from gpusched.workload.shockwave_phases import (
    DATASET_SAMPLES,
    accordion_critical,
    batch_size_runs,
    epochs_of,
    gns_pattern,
    job_phases,
    trace_phases,
)

SPEEDS = {  # steps per second, made up so that every phase has its own
    "LM (batch size 10)": {"v100": 100.0, "k80": 25.0},
    "LM (batch size 20)": {"v100": 80.0, "k80": 20.0},
    "LM (batch size 40)": {"v100": 50.0, "k80": 10.0},
    "LM (batch size 80)": {"v100": 20.0, "k80": 4.0},
    "ResNet-50 (batch size 32)": {"v100": 5.0, "k80": 1.0},
    "ResNet-50 (batch size 128)": {"v100": 2.0, "k80": 0.5},
    "Transformer (batch size 32)": {"v100": 4.0, "k80": 1.0},
}


def _files(tmp_path, lines: list[str], speeds=SPEEDS):  # noqa: ANN001, ANN202
    doc = {gpu: {f"('{t}', 1)": {"null": s[gpu]} for t, s in speeds.items()} for gpu in ("v100", "k80")}
    (tmp_path / "t.json").write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "w.trace").write_text("".join(lines), encoding="utf-8")
    return read_shockwave_trace(tmp_path / "w.trace"), read_shockwave_throughputs(tmp_path / "t.json")


def _line(job_type: str, steps: int, mode: str, arrival: int = 0) -> str:
    return f"{job_type}\tpython3 x.py\tdir\t--steps\t1\t{steps}\t1\t{mode}\t1\t-1.000000\t100\t{arrival}\n"


def test_a_gns_lm_job_doubles_its_batch_size_one_epoch_before_the_pattern(tmp_path):
    # LM's dataset is 59,675 samples: 5,968 steps an epoch at batch size 10, 2,984 at 20, 1,492 at 40.
    # Its pattern (batch size 10, 1 GPU) is x2 from epoch 11 and x4 from epoch 21; the job doubles
    # when the pattern of the next epoch is larger, so from epoch 10 and from epoch 20.
    trace, table = _files(tmp_path, [_line("LM (batch size 10)", 25 * 5968, "gns")])
    job = trace.jobs[0]
    assert epochs_of(job) == 25
    assert batch_size_runs(trace, job, table, ["V100"]) == ((0, 10), (10, 20), (20, 40))
    phases = job_phases(trace, job, table, ["V100"])
    assert [(p.batch_size, p.epochs, p.work_steps) for p in phases.phases] == [
        (10, 10, 59680), (20, 10, 29840), (40, 5, 7460)]
    # V100: 59680/100 + 29840/80 + 7460/50 = 596.8 + 373 + 149.2 s; K80: 2387.2 + 1492 + 746 s.
    assert phases.duration_min("V100") == pytest.approx(1119.0 / 60)
    assert phases.duration_min("K80") == pytest.approx(4625.2 / 60)
    # After 900 s on a V100 it is in its second phase: 303.2 s of it done at 80 steps/s.
    phase, done = phases.advance("V100", 15.0)
    assert phase == 1 and done == pytest.approx(303.2 * 80)


def test_an_accordion_resnet50_job_leaves_and_reenters_its_critical_regime(tmp_path):
    # ResNet-50 is critical while its started epochs mod 30 are under 10: batch size 32 for epochs
    # 0-9, its largest (128) for 10-29, 32 again for 30-34. Steps an epoch: 3,125 at 32, 782 at 128.
    trace, table = _files(tmp_path, [_line("ResNet-50 (batch size 32)", 35 * 3125, "accordion")])
    phases = job_phases(trace, trace.jobs[0], table, ["V100"])
    assert [(p.batch_size, p.epochs, p.work_steps) for p in phases.phases] == [
        (32, 10, 31250), (128, 20, 15640), (32, 5, 15625)]
    assert phases.duration_min("V100") == pytest.approx((31250 / 5 + 15640 / 2 + 15625 / 5) / 60)
    assert phases.duration_min("K80") == pytest.approx((31250 + 15640 / 0.5 + 15625) / 60)


def test_a_partial_last_epoch_is_run_at_the_batch_size_of_its_epoch(tmp_path):
    trace, table = _files(tmp_path, [_line("LM (batch size 10)", 62664, "gns")])  # 10.5 epochs
    phases = job_phases(trace, trace.jobs[0], table, ["V100"])
    assert [(p.batch_size, p.epochs, p.work_steps) for p in phases.phases] == [
        (10, 10, 59680), (20, pytest.approx(0.5), pytest.approx(1492))]


def test_refused_changes_keep_one_phase(tmp_path):
    no_128 = {k: v for k, v in SPEEDS.items() if k != "ResNet-50 (batch size 128)"}
    trace, table = _files(tmp_path, [
        _line("LM (batch size 80)", 40 * 746, "accordion"),        # already its model's largest
        _line("ResNet-50 (batch size 32)", 35 * 3125, "accordion"),  # 128 not measured
        _line("Transformer (batch size 32)", 50 * 313, "gns"),      # no pattern: never changes
        _line("LM (batch size 10)", 25 * 5968, "static"),
    ], speeds=no_128 | {"LM (batch size 80)": {"v100": 20.0, "k80": 4.0}})
    for job in trace.jobs:
        phases = job_phases(trace, job, table, ["V100"])
        assert len(phases) == 1 and phases.total_steps == job.total_steps, job.id
        assert phases.duration_min("V100") == pytest.approx(
            job.total_steps / table.steps_per_s("V100", job.job_type, 1) / 60)


def test_shockwaves_rules_at_their_edges():
    assert [accordion_critical("LM", 10, c) for c in (0, 9, 10)] == [True, True, False]
    assert [accordion_critical("ResNet-18", 32, c) for c in (9, 10, 149, 150, 159, 160)] == [
        True, False, False, True, True, False]
    assert accordion_critical("ResNet-18", 256, 15) is True
    assert [accordion_critical("Recommendation", b, 35) for b in (512, 2048, 4096)] == [False, True, False]
    assert accordion_critical("Recommendation", 300, 0) is None and accordion_critical("BERT", 8, 0) is None
    assert [gns_pattern("ResNet-18", 16, 1, e) for e in (30, 31, 41, 51, 71)] == [16, 32, 64, 128, 256]
    assert gns_pattern("LM", 5, 1, 100) == 80                     # x16 = 80, the cap
    assert gns_pattern("ResNet-18", 16, 8, 500) == 16            # no pattern at 8 GPUs


def _deduplicated(sizes: list[int]) -> list[int]:
    return [b for i, b in enumerate(sizes) if i == 0 or sizes[i - 1] != b]


@pytest.mark.parametrize("policy", ["allox", "finish_time_fairness", "max_min_fairness"])
def test_the_shipped_trace_changes_batch_size_as_shockwaves_simulator_did(policy):
    """Per job, the batch sizes in phase order against those Shockwave's simulator ran in round
    order: the same on 118 of 120 jobs, and on the other two one is the start of the other (a job
    that ended at the edge of a change)."""
    trace = read_shockwave_trace(SHOCKWAVE_TRACE)
    phases = trace_phases(trace, read_shockwave_throughputs(SHOCKWAVE_THROUGHPUTS))
    recorded = json.loads((SHOCKWAVE_RESULTS_DIR / f"{policy}.simulation.json").read_text(encoding="utf-8"))
    same = 0
    for job, job_phases_ in zip(trace.jobs, phases, strict=True):
        ours = [p.batch_size for p in job_phases_.phases]
        theirs = _deduplicated([entry[2] for entry in recorded["throughput_timeline"][str(job.id)]])
        same += ours == theirs
        shorter = min(len(ours), len(theirs))
        assert ours[:shorter] == theirs[:shorter], (job.id, ours, theirs)
    assert same >= 118


def test_the_shipped_trace_phases():
    trace = read_shockwave_trace(SHOCKWAVE_TRACE)
    phases = trace_phases(trace, read_shockwave_throughputs(SHOCKWAVE_THROUGHPUTS))
    assert len(phases) == 120 and all(j.model in DATASET_SAMPLES for j in trace.jobs)
    for job, job_phases_ in zip(trace.jobs, phases, strict=True):
        if len(job_phases_) > 1:  # the phases hold the job's epochs
            assert sum(p.epochs for p in job_phases_.phases) == pytest.approx(epochs_of(job))
        assert math.isfinite(job_phases_.duration_min("V100"))
        if len(job_phases_) == 1:  # one phase: the trace's own duration (whole seconds)
            assert job_phases_.duration_min("V100") * 60 == pytest.approx(job.duration_s, abs=1.0)
    assert sum(len(p) > 1 for p in phases) == 67
    assert max(len(p) for p in phases) == 6


def test_phases_need_a_measured_initial_job_type(tmp_path):
    unmeasured = {k: v for k, v in SPEEDS.items() if k != "LM (batch size 10)"}
    trace, table = _files(tmp_path, [_line("LM (batch size 10)", 100, "gns")], speeds=unmeasured)
    with pytest.raises(TraceError, match=r"line 1, column 'job_type': .* no throughput"):
        job_phases(trace, trace.jobs[0], table)


def _per_epoch(job, measured) -> list[int]:  # noqa: ANN001 - a plain reading of the rules
    """The batch size of each epoch, decided epoch by epoch as the module docstring says: the
    decision taken while epoch k - 1 runs (k epochs started) holds from epoch k."""
    from gpusched.workload.shockwave_phases import GNS_LIMIT, MAX_BATCH

    initial, n = job.batch_size, math.ceil(epochs_of(job) - 1e-12)
    sizes = [initial]
    for k in range(1, n):
        batch, new = sizes[-1], sizes[-1]
        if job.mode == "accordion":
            largest = MAX_BATCH.get(job.model, initial)
            critical = accordion_critical(job.model, initial, k)
            if batch == initial and not critical and batch != largest:
                new = largest
            elif batch != initial and critical:
                new = initial
        elif job.mode == "gns":
            ahead = max(gns_pattern(job.model, initial, job.scale_factor, k),
                        gns_pattern(job.model, initial, job.scale_factor, k + 1))
            if ahead > batch and batch != GNS_LIMIT.get(job.model):
                new = 2 * batch
        if new != batch and MAX_BATCH.get(job.model) != initial and measured(new):
            batch = new
        sizes.append(batch)
    return sizes


def test_the_runs_are_the_rules_read_epoch_by_epoch(tmp_path):
    """Every gns pattern and every accordion model, at several lengths, and with a batch size the
    throughputs lack: the run-length computation gives the batch sizes an epoch-by-epoch reading
    of the rules gives."""
    from gpusched.workload.shockwave_phases import GNS_STEPS

    batches = {"ResNet-18": (16, 32, 64, 128, 256), "ResNet-50": (16, 32, 64, 128), "LM": (5, 10, 20, 40, 80),
               "Recommendation": (512, 1024, 2048, 4096, 8192), "Transformer": (16, 32, 64, 128)}
    shapes = {(model, b, g) for model, sizes in batches.items() for b in sizes for g in (1, 2, 4)}
    shapes |= set(GNS_STEPS)
    lines, missing = [], ("ResNet-18 (batch size 256)", 4)  # not measured: refused changes
    for model, batch, gpus in sorted(shapes):
        steps_per_epoch = math.ceil(DATASET_SAMPLES[model] / batch)
        for epochs in (0.5, 10.5, 35, 161, 300):
            for mode in ("accordion", "gns"):
                steps = math.ceil(epochs * steps_per_epoch)
                fields = (f"{model} (batch size {batch})", "x", "d", "-s", "0", str(steps), str(gpus), mode,
                          "1", "-1", "100", "0")
                lines.append("\t".join(fields) + "\n")
    doc = {"v100": {f"('{m} (batch size {b})', {g})": {"null": 1.0} for m, b, g in shapes
                    if (f"{m} (batch size {b})", g) != missing}}
    (tmp_path / "t.json").write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "w.trace").write_text("".join(lines), encoding="utf-8")
    trace, table = read_shockwave_trace(tmp_path / "w.trace"), read_shockwave_throughputs(tmp_path / "t.json")
    changed = 0
    for job in trace.jobs:
        def measured(batch: int, job=job) -> bool:  # noqa: ANN001
            return (f"{job.model} (batch size {batch})", job.scale_factor) != missing
        runs = batch_size_runs(trace, job, table, ["V100"])
        n = math.ceil(epochs_of(job) - 1e-12)
        ends = [start for start, _ in runs[1:]] + [n]
        expanded = [b for (start, b), end in zip(runs, ends, strict=True) for _ in range(start, end)]
        assert expanded == _per_epoch(job, measured), (job.id, job.job_type, job.mode, job.scale_factor)
        assert all(a[1] != b[1] for a, b in zip(runs, runs[1:], strict=False))
        changed += len(runs) > 1
    assert changed > 100  # the comparison covers many changes, not only jobs that keep one size


def test_a_job_too_long_to_list_its_changes_is_refused(tmp_path):
    # ResNet-50 under Accordion changes its batch size twice every 30 epochs: 10^14 steps at batch
    # size 32 are 3.2e10 epochs, far more phases than MAX_PHASES.
    trace, table = _files(tmp_path, [_line("ResNet-50 (batch size 32)", 10**14, "accordion")])
    with pytest.raises(TraceError, match=r"line 1: its batch size changes so often .* \(100,000\)"):
        trace_phases(trace, table)
    # The same number of steps as an LM gns job changes three times at most: it is read, and fast.
    trace, table = _files(tmp_path, [_line("LM (batch size 10)", 10**14, "gns")])
    assert len(trace_phases(trace, table)[0]) == 4


def test_a_scale_down_the_cluster_cannot_measure_is_refused_for_good(tmp_path):
    # The V100 lacks ResNet-50 at batch size 32 (the K80 has it): the job scales up to 128 at
    # epoch 10 and never comes back, where the rules would take it back to 32 at epoch 30.
    speeds = dict(SPEEDS, **{"ResNet-50 (batch size 32)": {"k80": 1.0}})
    doc = {gpu: {f"('{t}', 1)": {"null": s[gpu]} for t, s in speeds.items() if gpu in s}
           for gpu in ("v100", "k80")}
    (tmp_path / "t.json").write_text(json.dumps(doc), encoding="utf-8")
    line = _line("ResNet-50 (batch size 32)", 35 * 3125, "accordion")
    (tmp_path / "w.trace").write_text(line, encoding="utf-8")
    trace, table = read_shockwave_trace(tmp_path / "w.trace"), read_shockwave_throughputs(tmp_path / "t.json")
    assert batch_size_runs(trace, trace.jobs[0], table, ["V100"]) == ((0, 32), (10, 128))
    assert batch_size_runs(trace, trace.jobs[0], table, ["K80"]) == ((0, 32), (10, 128), (30, 32))
