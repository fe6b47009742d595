"""Every hostile input of the catalog (``tests/hostile_inputs.py``) through the command line:
bad input is one line on stderr and exit code 2, never a traceback; the rest runs and says what
it did. Then, for each class of failure, one case in a fresh process, and output piped into a
reader that stops early."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_inputs import CASES, CLASSES, Case

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
