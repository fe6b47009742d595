"""Every hostile input of the catalog (``tests/hostile_inputs.py``) through the command line:
bad input is one line on stderr and exit code 2, never a traceback; the rest runs and says what
it did. Then, for each class of failure, one case in a fresh process, and output piped into a
reader that stops early."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_inputs import CASES, CLASSES, READER_CASES, Case

from gpusched.cli import main


def _materialise(case: Case, tmp: Path) -> list[str]:
    """Write the case's files into ``tmp`` and return its arguments with ``{tmp}`` filled in."""
    for name, content in case.files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content.replace("{tmp}", str(tmp)), encoding="utf-8")
    return [a.replace("{tmp}", str(tmp)) for a in case.argv]


def _check(case: Case, code: int, out: str, err: str) -> None:
    assert "Traceback" not in err and "Traceback" not in out
    if case.expect == "error":
        lines = err.strip().splitlines()
        assert code == 2, (code, err)
        assert len(lines) == 1 and lines[0].startswith("gpusched"), err
        assert len(lines[0]) <= 1000, f"{len(lines[0])} characters: a user's text is echoed in full"
        for needle in case.needles:
            assert needle in lines[0], (needle, lines[0])
    else:
        assert code == 0, err
        assert all(line.startswith("note: ") for line in err.strip().splitlines()), err
        for needle in case.needles:
            assert needle in out + err, (needle, out, err)


def test_the_readme_counts_the_catalog():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert f"tries {len(CASES)} hostile inputs" in readme
    assert f"hands {len(READER_CASES)} hostile files straight to the readers" in readme


def test_the_catalog_is_well_formed():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    assert all(c.expect in ("error", "ok") and c.needles for c in CASES)
    assert set(CLASSES) >= {
        "files",
        "numbers",
        "silent",
        "args",
        "outputs",
        "allocation",
        "sweep",
        "sidecar",
        "traces",
        "newcomer",
    }


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input_is_handled(case: Case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GPUSCHED_MODELS_DIR", str(tmp_path / "models"))
    argv = _materialise(case, tmp_path)
    code = main(argv)
    captured = capsys.readouterr()
    _check(case, code, captured.out, captured.err)


FIRST_OF_EACH_CLASS = [
    next(c for c in CASES if c.cls == cls and c.expect == "error")
    for cls in CLASSES
    if any(c.cls == cls and c.expect == "error" for c in CASES)
]


@pytest.mark.parametrize("case", FIRST_OF_EACH_CLASS, ids=[c.cls for c in FIRST_OF_EACH_CLASS])
def test_each_class_in_a_fresh_process(case: Case, tmp_path):
    argv = _materialise(case, tmp_path)
    env = os.environ | {"GPUSCHED_MODELS_DIR": str(tmp_path / "models")}
    out = subprocess.run(
        [sys.executable, "-m", "gpusched", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    _check(case, out.returncode, out.stdout, out.stderr)


def test_output_into_a_closed_pipe_exits_quietly_and_keeps_its_files(tmp_path):
    """``gpusched compare ... | head`` where the reader has gone before the first line."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gpusched",
            "compare",
            "--scenario",
            "ll-stall-mini",
            "--seeds",
            "2",
            "--json",
            str(tmp_path / "cmp.json"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    proc.stdout.close()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0
    assert b"Traceback" not in err and b"BrokenPipe" not in err and b"Exception ignored" not in err, err
    assert (tmp_path / "cmp.json").is_file()


def _outputs_case(kind: str, tmp: Path) -> tuple[list[str], str]:
    """A ``simulate`` whose ``--json`` goes to a new file beside an output that cannot be written,
    and the needle of its refusal."""
    json_path = str(tmp / "run.json")
    if kind == "fifo":
        fifo = tmp / "pipe"
        os.mkfifo(fifo)
        return ["--json", json_path, "--jobs-csv", str(fifo)], "not a regular file"
    if kind == "/dev/full":
        return ["--json", json_path, "--jobs-csv", "/dev/full"], "not a regular file"
    if kind == "read-only folder (chmod)":
        folder = tmp / "ro"
        folder.mkdir()
        folder.chmod(0o555)
        return ["--json", json_path, "--jobs-csv", str(folder / "jobs.csv")], "not writable"
    # /proc: a folder where no file can be created, even by root (os.access says yes to root)
    return ["--json", json_path, "--jobs-csv", "/proc/gpusched-jobs.csv"], "cannot create a file"


OUTPUT_CASES = ["fifo", "/dev/full", "read-only folder (/proc)",
                *(["read-only folder (chmod)"] if os.geteuid() != 0 else [])]
"""Outputs that cannot be written. As root, permission bits do not stop a write, so the chmod case
is collected only for other users; the ``/proc`` case checks the same promise for root (the probe
creates a file, which fails there even for root)."""


@pytest.mark.skipif(not Path("/proc").is_dir() or not hasattr(os, "mkfifo"), reason="needs Linux")
@pytest.mark.parametrize("kind", OUTPUT_CASES)
def test_outputs_that_cannot_be_written_exit_2_without_hanging_or_partial_files(kind, tmp_path):
    """Each is refused in one line, exit code 2, before the run (so at once, and a pipe with no
    reader never blocks it), and nothing is written: not the other output, not a temporary file."""
    extra, needle = _outputs_case(kind, tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    out = subprocess.run(
        [sys.executable, "-m", "gpusched", "simulate", "--scenario", "ll-stall-mini", "--policy", "first_fit",
         *extra],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and needle in lines[0], out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_compare_with_a_baseline_over_one_seed_writes_null_not_nan(tmp_path, capsys):
    """With one seed a paired difference has no interval: the JSON says ``null``, which strict
    readers accept, and every number in it is finite."""
    path = tmp_path / "cmp.json"
    code = main(["compare", "--scenario", "ll-stall-mini", "--policies", "first_fit,best_fit", "--baseline",
                 "first_fit", "--seeds", "1", "--json", str(path)])
    assert code == 0, capsys.readouterr().err
    text = path.read_text(encoding="utf-8")
    assert "NaN" not in text and "Infinity" not in text

    def strict(name: str):
        raise AssertionError(f"non-finite number {name} in the JSON")

    card = json.loads(text, parse_constant=strict)["scorecard"]
    assert card and all(row["low"] is None and row["high"] is None for row in card)
    assert all(isinstance(row["diff"], float) for row in card)


def test_the_readme_counts_the_fuzz_examples_and_the_total():
    """Each fuzz test runs the active profile's example count (100 in CI)."""
    import test_fuzz
    from hypothesis import settings

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    fuzz_tests = [f for name, f in vars(test_fuzz).items()
                  if name.startswith("test_") and hasattr(f, "hypothesis")]
    examples = len(fuzz_tests) * settings.default.max_examples
    assert f"fuzzes the readers with {examples:,} Hypothesis examples" in " ".join(readme.split())
    total = len(CASES) + len(READER_CASES) + examples
    assert f"{total:,} hostile inputs per run, all handled" in " ".join(readme.split())
