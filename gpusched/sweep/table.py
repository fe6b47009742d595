"""Results tables (CSV) that survive a crash at any byte.

- **Appending.** A row is formatted in memory, written with one write and flushed to the operating
  system before the next run is recorded, so a stopped or killed sweep leaves every finished row
  on disk. The file can then only end in the middle of its last row.
- **Reading.** :func:`read_table` keeps the header and the complete rows: a row is complete when
  it ends with a newline and has one field per column. A cut-off last row (a fragment without a
  trailing newline, or a row with fields missing) counts as damaged and is dropped, so its run is
  redone; it is never read as a row of NaN.
- **Rewriting.** :func:`rewrite_table` writes a temporary file in the same folder and renames it
  over the old one, so the table is whole at every moment. :func:`cut_to_last_row` drops a
  damaged tail in place before more rows are appended, so a new row is never glued onto it.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class TableFile:
    """What :func:`read_table` found.

    :param header: the column names, or ``None`` when the file has no complete header line.
    :param rows: the complete rows (field strings), in file order.
    :param damaged: rows dropped because they were cut off or had the wrong number of fields.
    """

    header: list[str] | None
    rows: list[list[str]]
    damaged: int


def format_row(values: Sequence[Any]) -> str:
    """One CSV line (ending in ``\r\n``, as the csv module writes) for ``values``; ``None`` becomes
    an empty field."""
    buffer = io.StringIO()
    csv.writer(buffer).writerow(["" if v is None else v for v in values])  # csv's own "\r\n"
    return buffer.getvalue()


def _complete_bytes(data: bytes) -> bytes:
    """``data`` up to and including its last newline."""
    return data[: data.rfind(b"\n") + 1]


def read_table(path: str | Path) -> TableFile:
    """The header and complete rows of a CSV table (see the module docstring); a missing or empty
    file has no header and no rows."""
    p = Path(path)
    if not p.is_file():
        return TableFile(None, [], 0)
    data = p.read_bytes()
    complete = _complete_bytes(data)
    damaged = int(bool(data[len(complete):].strip()))
    lines = list(csv.reader(io.StringIO(complete.decode("utf-8", errors="replace"), newline="")))
    if not lines:
        return TableFile(None, [], damaged)
    header, rows = lines[0], []
    for line in lines[1:]:
        if not line:
            continue
        if len(line) == len(header):
            rows.append(line)
        else:
            damaged += 1
    return TableFile(header, rows, damaged)


def cut_to_last_row(path: str | Path) -> bool:
    """Drop a cut-off last line of ``path`` in place (a no-op when the file ends in a newline).

    :return: whether anything was dropped.
    """
    p = Path(path)
    if not p.is_file():
        return False
    with p.open("r+b") as handle:
        data = handle.read()
        keep = len(_complete_bytes(data))
        if keep == len(data):
            return False
        handle.truncate(keep)
    return True


def append_rows(path: str | Path, columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> None:
    """Append whole rows (writing the header first into a new or empty file), flushed at once.

    :param path: the table.
    :param columns: its columns; keys of a row that are not columns are ignored.
    :param rows: the rows, as mappings from column to value.
    """
    p = Path(path)
    new = not p.is_file() or p.stat().st_size == 0
    with p.open("a", encoding="utf-8", newline="") as handle:
        if new:
            handle.write(format_row(columns))
            handle.flush()
        for row in rows:
            handle.write(format_row([row.get(c) for c in columns]))
            handle.flush()


def rewrite_table(path: str | Path, header: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
    """Replace the table by ``header`` and ``rows`` (field strings) through a temporary file and a
    rename, so that a crash leaves either the old table or the new one."""
    text = format_row(header) + "".join(format_row(row) for row in rows)
    _replace_atomically(path, text, newline="")


def write_text_atomically(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    _replace_atomically(path, text, newline=None)


def _replace_atomically(path: str | Path, text: str, newline: str | None) -> None:
    """Write ``text`` to a temporary file beside ``path``, sync it, and rename it over ``path``."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
