"""Reading users' files in one place: size and encoding guards, the one safe YAML loader, and the
checks that outputs can be written before any work starts."""

from __future__ import annotations

import os

import pytest

from gpusched.errors import GpuschedError, ScenarioError
from gpusched.limits import MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES
from gpusched.workload.files import (
    check_distinct_outputs,
    check_output_dir,
    check_output_file,
    decode_user_bytes,
    load_json_text,
    load_yaml,
    load_yaml_mapping,
    read_user_text,
    write_together,
)


def _one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text and text
    return text


@pytest.mark.parametrize("data,needle", [
    ("name: x\n".encode("utf-16"), "UTF-16"),
    ("name: x\n".encode("utf-16-be"), "NUL bytes"),
    ("name: x\n".encode("utf-32"), "UTF-32"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "NUL bytes"),
    (b"name: caf\xe9\n", "not UTF-8 text (byte 9"),
    (b"a" * (64 + 1), "larger than the limit of 64 bytes"),
])
def test_bytes_that_are_not_utf8_text_or_too_large_are_refused(data, needle):
    with pytest.raises(ScenarioError) as info:
        decode_user_bytes(data, label="scenario 'x.yaml'", max_bytes=64, error=ScenarioError)
    text = _one_line(info)
    assert text.startswith("scenario 'x.yaml': ") and needle in text


def test_a_utf8_byte_order_mark_is_dropped_and_text_passes():
    assert decode_user_bytes("\ufeffname: é\n".encode(), label="x", max_bytes=100) == "name: é\n"


def test_a_file_over_its_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * 2048)
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    with pytest.raises(GpuschedError, match="2,048 bytes is larger than the limit of 1,024 bytes"):
        read_user_text(big, label="scenario 'big.yaml'", max_bytes=1024)
    assert not opened
    with pytest.raises(GpuschedError, match="cannot read it"):
        read_user_text(tmp_path / "missing.yaml", label="x", max_bytes=1024)


YAML_CASES = {
    "duplicate top key": ("name: a\nseed: 1\nname: b\n", "duplicate key 'name' at line 3"),
    "duplicate nested key": ("w:\n  jobs: 1\n  jobs: 2\n", "duplicate key 'jobs' at line 3"),
    "duplicate key after yaml 1.1 bools": ("yes: 1\ntrue: 2\n", "duplicate key 'True' at line 2"),
    "deep flow nesting": ("a: " + "[" * 5000 + "]" * 5000 + "\n", f"deeper than {MAX_YAML_DEPTH} levels"),
    "deep block nesting": ("".join("  " * i + f"k{i}:\n" for i in range(60)) + "  " * 60 + "v: 1\n",
                           f"deeper than {MAX_YAML_DEPTH} levels"),
    "alias bomb": ("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                   + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n"
                             for p, c in zip("abcde", "bcdef", strict=True))
                   + "g: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
                   f"more than {MAX_YAML_NODES:,} values"),
    "recursive alias": ("a: &a [*a]\n", "alias refers to the value that holds it"),
    "python tag": ("a: !!python/object/apply:os.system [ls]\n", "not valid YAML at line 1"),
    "unclosed list": ("a: [1, 2\n", "not valid YAML at line 2"),
    "two documents": ("a: 1\n---\nb: 2\n", "not valid YAML at line 2"),
    "control character": ("a: \x07\n", "control character #x0007"),
    "unhashable key": ("? [1]\n: 2\n", "not valid YAML"),
    "a list on top": ("- 1\n- 2\n", "expected a mapping of keys, got list"),
    "a scalar on top": ("just text\n", "expected a mapping of keys, got str"),
    "empty file": ("", "expected a mapping of keys, got nothing (the file is empty)"),
    "only a comment": ("# nothing\n", "got nothing"),
    "too large": ("#" * (MAX_YAML_BYTES + 1), "larger than the limit"),
}


@pytest.mark.parametrize("case", sorted(YAML_CASES))
def test_hostile_yaml_is_one_line_naming_the_file(case):
    text, needle = YAML_CASES[case]
    with pytest.raises(ScenarioError) as info:
        load_yaml_mapping(text, label="scenario 'x.yaml'", error=ScenarioError)
    message = _one_line(info)
    assert message.startswith("scenario 'x.yaml': ") and needle in message, message


def test_ordinary_yaml_still_loads():
    data = load_yaml_mapping("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  x: 5\nday: 2024-01-01\n"
                             "deep: " + "[" * (MAX_YAML_DEPTH - 1) + "]" * (MAX_YAML_DEPTH - 1) + "\n",
                             label="x")
    assert data["d"] == {"x": 5, "y": 2}  # a merge key overridden is not a duplicate
    assert data["day"] == "2024-01-01"  # dates stay text
    assert load_yaml("- 1\n- 2\n", label="x") == [1, 2]


def test_output_files_are_checked_before_work(tmp_path):
    folder, a_file = tmp_path / "out", tmp_path / "a.txt"
    folder.mkdir()
    a_file.write_text("x")
    assert check_output_file(tmp_path / "ok.json", what="--json") == tmp_path / "ok.json"
    cases = {
        folder: "is a folder, not a file",
        a_file / "run.json": f"'{a_file}' is a file, not a folder",
        a_file / "deeper" / "run.json": f"'{a_file}' is a file, not a folder",
        tmp_path / "missing" / "run.json": "does not exist",
    }
    for path, needle in cases.items():
        with pytest.raises(GpuschedError) as info:
            check_output_file(path, what="--json")
        assert needle in _one_line(info) and str(info.value).startswith(f"--json '{path}': ")
    check_output_file(tmp_path / "new" / "deeper" / "m.zip", what="--out", folder_created=True)
    with pytest.raises(GpuschedError, match="is a file, not a folder"):
        check_output_file(a_file / "m.zip", what="--out", folder_created=True)


def test_output_folders_are_checked_before_work(tmp_path):
    a_file = tmp_path / "a.txt"
    a_file.write_text("x")
    assert check_output_dir(tmp_path / "new" / "deeper", what="--out") == tmp_path / "new" / "deeper"
    with pytest.raises(GpuschedError, match=r"--out '.*a\.txt': is a file, not a folder"):
        check_output_dir(a_file, what="--out")
    with pytest.raises(GpuschedError, match="is a file, not a folder"):
        check_output_dir(a_file / "sub", what="--out")


def test_json_readers_refuse_non_finite_numbers_naming_the_key():
    assert load_json_text('{"a": [1, 2.5]}', label="x") == {"a": [1, 2.5]}
    for text, key in [('{"a": NaN}', "x, a:"), ('{"a": {"b": [0, Infinity]}}', "x, a.b[1]:"),
                      ("-Infinity", "x, (top level):")]:
        with pytest.raises(GpuschedError, match="must be a finite number") as exc:
            load_json_text(text, label="x")
        assert _one_line(exc).startswith(key)


def test_an_output_must_be_a_regular_file_or_a_new_path(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(GpuschedError, match="not a regular file") as exc:
        check_output_file(fifo, what="--json")  # returns at once: a pipe is never opened
    _one_line(exc)
    with pytest.raises(GpuschedError, match="not an empty one"):
        check_output_file("", what="--json")
    with pytest.raises(GpuschedError, match="not an empty one"):
        check_output_dir("", what="--out")
    assert check_output_file(tmp_path / "new.json", what="--json") == tmp_path / "new.json"
    assert list(tmp_path.iterdir()) == [fifo]  # the probe left nothing behind


def test_an_output_is_probed_by_creating_a_file_where_it_goes(tmp_path, monkeypatch):
    """``os.access`` says yes to root where nothing can be created; the probe creates a file."""
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(os, "access", lambda *a, **k: True)
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(GpuschedError, match="cannot create a file in .*Read-only file system"):
        check_output_file(tmp_path / "a.json", what="--json")
    with pytest.raises(GpuschedError, match="cannot create a file"):
        check_output_dir(tmp_path / "sweep", what="--out")


def test_two_outputs_on_one_file_are_refused(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    for other in (tmp_path / "a.txt", tmp_path / "." / "a.txt", tmp_path / "b.txt"):
        with pytest.raises(GpuschedError, match="--json writes the same file"):
            check_distinct_outputs([("--json", tmp_path / "a.txt"), ("--jobs-csv", other)])
    check_distinct_outputs([("--json", tmp_path / "a.txt"), ("--jobs-csv", tmp_path / "c.txt"),
                            ("--out", None)])


def test_outputs_are_written_together_or_not_at_all(tmp_path):
    import errno

    old = tmp_path / "a.json"
    old.write_text("old")

    def half(temps):
        temps[0].write_text("new a")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(GpuschedError, match="nothing was written"):
        write_together([old, tmp_path / "b.csv"], half)
    assert old.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]

    def both(temps):
        temps[0].write_text("new a")
        temps[1].write_text("new b")

    write_together([old, tmp_path / "b.csv"], both)
    assert old.read_text() == "new a" and (tmp_path / "b.csv").read_text() == "new b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.csv"]
