"""Every hostile file of the catalog's Shockwave and Philly section (``READER_CASES`` in
``tests/hostile_inputs.py``) handed straight to its reader: each raises the project's one error
type with one line that names the file and what is wrong, never another exception. The valid files
of that section read without error, so each case fails for its own change alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_inputs import READER_CASES, READER_FILES, ReaderCase

from gpusched.errors import GpuschedError
from gpusched.workload.philly import read_philly
from gpusched.workload.shockwave import (
    read_shockwave_config,
    read_shockwave_throughputs,
    read_shockwave_trace,
)
from gpusched.workload.shockwave_phases import trace_phases
from gpusched.workload.shockwave_results import read_shockwave_result


def _read(reader: str, folder: Path):  # noqa: ANN202 - whatever the reader returns
    if reader == "shockwave trace":
        return read_shockwave_trace(folder / "w.trace")
    if reader == "shockwave throughputs":
        return read_shockwave_throughputs(folder / "t.json")
    if reader == "shockwave settings":
        return read_shockwave_config(folder / "c.json")
    if reader == "shockwave phases":
        return trace_phases(read_shockwave_trace(folder / "w.trace"),
                            read_shockwave_throughputs(folder / "t.json"))
    if reader == "shockwave results":
        return read_shockwave_result(folder / "r.json")
    if reader == "philly":
        return read_philly(folder / "p.csv")
    raise AssertionError(f"unknown reader {reader!r}")


def _write(files: dict[str, str | bytes], folder: Path) -> None:
    for name, content in (READER_FILES | files).items():
        if isinstance(content, bytes):
            (folder / name).write_bytes(content)
        else:
            (folder / name).write_text(content, encoding="utf-8")


READERS = ("shockwave trace", "shockwave throughputs", "shockwave settings", "shockwave phases",
           "shockwave results", "philly")


@pytest.mark.parametrize("reader", READERS)
def test_the_valid_files_of_the_section_read(reader, tmp_path):
    _write({}, tmp_path)
    assert _read(reader, tmp_path)


def test_the_section_is_well_formed():
    ids = [c.id for c in READER_CASES]
    assert len(ids) == len(set(ids))
    assert {c.reader for c in READER_CASES} == set(READERS)
    assert all(c.needles and set(c.files) <= set(READER_FILES) for c in READER_CASES)


@pytest.mark.parametrize("case", READER_CASES, ids=[c.id for c in READER_CASES])
def test_a_hostile_file_is_refused_in_one_line_naming_the_file(case: ReaderCase, tmp_path):
    _write(case.files, tmp_path)
    with pytest.raises(GpuschedError) as caught:
        _read(case.reader, tmp_path)
    message = str(caught.value)
    assert message and "\n" not in message and len(message) <= 1000, message
    for needle in case.needles:
        assert needle in message, (needle, message)
