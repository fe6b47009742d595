"""The files a user hands to gpusched, read in one place, and the files it writes, checked first.

**Reading.** Scenario files, sweep specs, openb traces, model sidecars and uploads all go through
:func:`read_user_text` or :func:`decode_user_bytes`:

- a file larger than its documented limit (:mod:`gpusched.limits`) is refused before it is read;
- content that is not UTF-8 text (a binary file, UTF-16 or UTF-32 text) is refused; a UTF-8
  byte-order mark is dropped.

**YAML.** :func:`load_yaml_mapping` is the one YAML loader. It builds plain data only (PyYAML's
safe constructors, dates stay strings) and refuses, each with one line that names the file:

- a duplicate key, naming the key and its line (PyYAML would silently keep the last value);
- nesting deeper than :data:`gpusched.limits.MAX_YAML_DEPTH` (before Python's recursion limit);
- more than :data:`gpusched.limits.MAX_YAML_NODES` values once aliases are expanded (an alias
  bomb), and an alias that refers to itself;
- a top level that is not a mapping of keys.

**JSON.** :func:`load_json_text` is the one JSON reader of a user's file (a model sidecar): it
refuses ``NaN`` and ``Infinity`` (which Python's reader would accept) and nesting too deep to read.

**Writing.** :func:`check_output_file` and :func:`check_output_dir` check that an output can be
written before any work starts, so that no computed result is lost to a bad path at the end: the
path is not empty, an existing file is a regular file (not a pipe or a device, which could block
or fail after the run), its folder exists and is a folder, and a file can really be created there
(a temporary file is created beside the target and removed: ``os.access`` says yes to root even
where nothing can be created, such as ``/proc``). :func:`check_distinct_outputs` refuses two
outputs of one command on the same file. :func:`write_together` writes a command's outputs to
temporary files beside their targets and moves them into place only once all of them are written,
so a failure leaves no output half-written and every old file as it was.

Every refusal raises the caller's error type (a :class:`gpusched.errors.GpuschedError`).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from gpusched.errors import GpuschedError, shorten
from gpusched.limits import MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES

_WIDE_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\xfe\xff", "UTF-16"),
    (b"\xff\xfe", "UTF-16"),
)


# ---------------------------------------------------------------------------- reading
def is_file(path: str | Path) -> bool:
    """Whether ``path`` is a file: ``False``, not an error, for a name the system cannot look up
    (too long, or holding a NUL byte)."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def is_dir(path: str | Path) -> bool:
    """Whether ``path`` is a folder: ``False``, not an error, for a name the system cannot look up
    (so a message can say "is a folder" where "no such file" would mislead)."""
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


def decode_user_bytes(data: bytes, *, label: str, max_bytes: int,
                      error: type[GpuschedError] = GpuschedError) -> str:
    """The text of a user's file, given as bytes (an upload, or a file already read).

    :param data: the file's content.
    :param label: how messages name the file, e.g. ``scenario 'x.yaml'``.
    :param max_bytes: the largest size accepted (bytes).
    :param error: the error type to raise.
    :raises GpuschedError: (``error``) for a file over ``max_bytes`` or content that is not UTF-8.
    """
    if len(data) > max_bytes:
        raise error(f"{label}: {len(data):,} bytes is larger than the limit of {max_bytes:,} bytes")
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            raise error(f"{label}: is {encoding} text; save it as UTF-8")
    if b"\x00" in data:
        raise error(f"{label}: holds NUL bytes (a binary file, or UTF-16 text); expected UTF-8 text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{label}: is not UTF-8 text (byte {exc.start:,} cannot be decoded)") from None


def read_user_text(path: str | Path, *, label: str, max_bytes: int,
                   error: type[GpuschedError] = GpuschedError) -> str:
    """The text of a user's file, refused before reading when it is over ``max_bytes``.

    :param path: the file (it must exist; callers word their own "not found" message).
    :param label: how messages name the file, e.g. ``scenario 'x.yaml'``.
    :param max_bytes: the largest size accepted (bytes).
    :param error: the error type to raise.
    :raises GpuschedError: (``error``) for an unreadable or oversized file, or one that is not UTF-8.
    """
    try:
        size = os.stat(path).st_size
        if size > max_bytes:
            raise error(f"{label}: {size:,} bytes is larger than the limit of {max_bytes:,} bytes")
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"{label}: cannot read it ({exc.strerror or type(exc).__name__})") from None
    return decode_user_bytes(data, label=label, max_bytes=max_bytes, error=error)


# ---------------------------------------------------------------------------- YAML
class _DuplicateKey(yaml.YAMLError):
    def __init__(self, key: object, line: int):
        super().__init__(f"duplicate key {key!r}")
        self.key, self.line = key, line


class _TooDeep(yaml.YAMLError):
    def __init__(self, line: int):
        super().__init__("too deep")
        self.line = line


_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"


class _SafeLoader(yaml.SafeLoader):
    """PyYAML's safe loader that counts nesting, refuses duplicate keys and leaves dates as text."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):  # noqa: ANN001, ANN201 - PyYAML's signature
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _TooDeep(self.peek_event().start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_mapping_node(self, anchor):  # noqa: ANN001, ANN201 - PyYAML's signature
        node = super().compose_mapping_node(anchor)
        seen: set = set()
        for key_node, _ in node.value:  # as written: merge keys (<<) are not expanded yet
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE:
                continue
            key = self.construct_object(key_node)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:  # an unhashable key: the constructor reports it
                continue
            if duplicate:
                raise _DuplicateKey(key, key_node.start_mark.line + 1)
        return node


def _expanded_size(root: yaml.Node) -> int:
    """Values under ``root`` with every alias expanded; raises ``ValueError`` on a cycle.

    Depth is bounded by :data:`MAX_YAML_DEPTH`, so the recursion is too.
    """
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in in_progress:
            raise ValueError("an alias refers to the value that holds it")
        in_progress.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        in_progress.discard(key)
        sizes[key] = total = min(total, MAX_YAML_NODES + 1)
        return total

    return size(root)


def load_yaml(text: str, *, label: str, error: type[GpuschedError] = GpuschedError) -> Any:
    """Parse YAML text safely (see the module docstring); any top-level value.

    :param text: the YAML text.
    :param label: how messages name the file, e.g. ``sweep spec 'x.yaml'``.
    :param error: the error type to raise.
    :raises GpuschedError: (``error``) for text that is not valid YAML or breaks a limit.
    """
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_YAML_BYTES:
        raise error(f"{label}: {size:,} bytes is larger than the limit of {MAX_YAML_BYTES:,} bytes")
    loader: _SafeLoader | None = None
    try:
        loader = _SafeLoader(text)  # checks every character first
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            expanded = _expanded_size(node)
        except ValueError as exc:
            raise error(f"{label}: {exc}") from None
        if expanded > MAX_YAML_NODES:
            raise error(f"{label}: holds more than {MAX_YAML_NODES:,} values once its aliases are "
                        "expanded")
        return loader.construct_document(node)
    except _DuplicateKey as exc:
        raise error(f"{label}: duplicate key '{exc.key}' at line {exc.line}") from None
    except _TooDeep as exc:
        raise error(f"{label}: nested deeper than {MAX_YAML_DEPTH} levels (at line {exc.line})") from None
    except yaml.reader.ReaderError as exc:
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise error(f"{label}: not valid YAML (control character #x{code:04x} at position "
                    f"{exc.position:,})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None)
        raise error(f"{label}: not valid YAML{where}" + (f" ({problem})" if problem else "")) from None
    finally:
        if loader is not None:
            loader.dispose()


def load_yaml_mapping(text: str, *, label: str,
                      error: type[GpuschedError] = GpuschedError) -> dict[Any, Any]:
    """:func:`load_yaml`, and the top level must be a mapping of keys.

    :raises GpuschedError: (``error``) as :func:`load_yaml`, or for a top level that is not a mapping.
    """
    data = load_yaml(text, label=label, error=error)
    if not isinstance(data, dict):
        got = "nothing (the file is empty)" if data is None else type(data).__name__
        raise error(f"{label}: expected a mapping of keys, got {got}")
    return data


# ---------------------------------------------------------------------------- JSON
def finite_or_none(value: Any) -> Any:
    """``value`` ready for strict JSON: every non-finite float (NaN, the interval of a single
    seed; infinity) becomes ``None`` (``null``), recursively; numpy scalars become Python ones."""
    if isinstance(value, dict):
        return {k: finite_or_none(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_or_none(v) for v in value]
    if hasattr(value, "item") and hasattr(value, "dtype"):  # a numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _first_non_finite(value: Any, where: str = "") -> tuple[str, float] | None:
    """The place (``a.b[2]``) and value of the first non-finite number in parsed JSON, or ``None``."""
    if isinstance(value, float) and not math.isfinite(value):
        return where or "(top level)", value
    items = (value.items() if isinstance(value, dict)
             else enumerate(value) if isinstance(value, list) else ())
    for key, child in items:
        place = f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}" if where else str(key)
        found = _first_non_finite(child, place)
        if found is not None:
            return found
    return None


class _DuplicateJsonKey(Exception):
    """A JSON object names one key twice (raised from inside :func:`json.loads`)."""


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateJsonKey(key)
        out[key] = value
    return out


def load_json_text(text: str, *, label: str, error: type[GpuschedError] = GpuschedError) -> Any:
    """Parse a user's JSON text: any top-level value, every number finite, no key twice in one
    object (Python's reader keeps the last value; YAML duplicates are refused the same way).

    :param text: the JSON text.
    :param label: how messages name the file, e.g. ``sidecar 'm.json'``.
    :param error: the error type to raise.
    :raises GpuschedError: (``error``) for text that is not JSON, nests too deep to read, names a
        key twice in one object (naming the key), or holds ``NaN``, ``Infinity`` or ``-Infinity``
        (naming its key), which Python's reader accepts.
    """
    try:
        data = json.loads(text, object_pairs_hook=_refuse_duplicate_keys)
    except _DuplicateJsonKey as exc:
        raise error(f"{label}: duplicate key '{shorten(exc.args[0], 60)}' (the last value would "
                    "silently win)") from None
    except RecursionError:
        raise error(f"{label} is not valid JSON (nested too deep)") from None
    except ValueError:
        raise error(f"{label} is not valid JSON") from None
    try:
        found = _first_non_finite(data)
    except RecursionError:
        raise error(f"{label} is not valid JSON (nested too deep)") from None
    if found is not None:
        raise error(f"{label}, {found[0]}: must be a finite number (got {found[1]})")
    return data


# ---------------------------------------------------------------------------- writing
def _first_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (``.`` at worst)."""
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path(".")


def _unusable(path: str | Path, what: str, exc: OSError | ValueError) -> GpuschedError:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return GpuschedError(f"{what} '{path}': cannot use this path ({reason})")


def _probe(folder: Path, label: str) -> None:
    """Create a temporary file in ``folder`` and remove it: the one test that a file can really
    be created there (``os.access`` answers yes to root for ``/proc``, a read-only mount, ...).

    :raises GpuschedError: naming ``label`` and the system's reason.
    """
    try:
        fd, tmp = tempfile.mkstemp(prefix=".gpusched-probe-", suffix=".tmp", dir=folder)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise GpuschedError(f"{label}: cannot create a file in '{folder}' ({reason})") from None
    os.close(fd)
    os.unlink(tmp)


def _not_empty(path: str | Path, what: str) -> None:
    if not str(path).strip():
        raise GpuschedError(f"{what} '{path}': give a file or folder name, not an empty one")


def check_output_file(path: str | Path, *, what: str, folder_created: bool = False) -> Path:
    """Check, before any work, that a result file can be written at ``path`` (see the module
    docstring): by creating a temporary file where it will go, and removing it.

    :param path: the file to write.
    :param what: how messages name it, e.g. ``--json``.
    :param folder_created: the writer creates a missing folder (with its parents) itself.
    :raises GpuschedError: for an empty path, a path that is a folder or ends in ``/``, an existing
        pipe, device or socket, a folder that is missing, a file where a folder should be, a place
        where no file can be created, or a name the system refuses (too long, a NUL byte).
    """
    _not_empty(path, what)
    try:
        p = Path(path)
        label = f"{what} '{path}'"
        if p.is_dir():
            raise GpuschedError(f"{label}: is a folder, not a file")
        if str(path).endswith(("/", os.sep)):  # Path() drops the slash, and would write 'PATH'
            raise GpuschedError(f"{label}: ends in '/', so it names a folder; give a file name")
        if os.path.lexists(p) and not p.is_file():
            raise GpuschedError(f"{label}: is not a regular file (a pipe, a device or a socket, or a "
                                "broken link); give a regular file or a new path")
        parent = Path(os.path.realpath(p)).parent
        if folder_created and not parent.is_dir():
            check_output_dir(parent, what=what)
            return p
        if not parent.is_dir():
            found = _first_existing(p.parent)
            if found.exists() and not found.is_dir():
                raise GpuschedError(f"{label}: '{found}' is a file, not a folder")
            raise GpuschedError(f"{label}: folder '{p.parent}' does not exist")
        if p.exists() and not os.access(p, os.W_OK):
            raise GpuschedError(f"{label}: the file is not writable")
        _probe(parent, label)
        return p
    except (OSError, ValueError) as exc:
        if isinstance(exc, GpuschedError):
            raise
        raise _unusable(path, what, exc) from None


def check_output_dir(path: str | Path, *, what: str) -> Path:
    """Check, before any work, that ``path`` is a folder or can be created as one, by creating a
    temporary file in it (or in its nearest existing parent) and removing it.

    :param path: the folder to write into (created later, with its parents, if missing).
    :param what: how messages name it, e.g. ``--out``.
    :raises GpuschedError: for an empty path, a path that is a file or lies under a file, a place
        where no file can be created, or a name the system refuses (too long, a NUL byte).
    """
    _not_empty(path, what)
    try:
        p = Path(path)
        label = f"{what} '{path}'"
        found = _first_existing(p)
        if found.exists() and not found.is_dir():
            raise GpuschedError(f"{label}: is a file, not a folder" if found == p
                                else f"{label}: '{found}' is a file, not a folder")
        if not found.exists():  # a broken link where a folder should be
            raise GpuschedError(f"{label}: '{found}' is a broken link, not a folder")
        if not os.access(found, os.W_OK | os.X_OK):
            raise GpuschedError(f"{label}: '{found}' is not writable")
        _probe(found, label)
        return p
    except (OSError, ValueError) as exc:
        if isinstance(exc, GpuschedError):
            raise
        raise _unusable(path, what, exc) from None


def check_distinct_outputs(outputs: Sequence[tuple[str, str | Path | None]]) -> None:
    """Refuse two outputs of one command that name the same file (one would overwrite the other).

    :param outputs: ``(what, path)`` pairs, e.g. ``("--json", "run.json")``; ``None`` paths are
        skipped.
    :raises GpuschedError: naming both options and the path.
    """
    seen: dict[str, str] = {}
    for what, path in outputs:
        if path is None:
            continue
        key = os.path.realpath(path)
        if key in seen:
            raise GpuschedError(f"{what} '{path}': {seen[key]} writes the same file; give each "
                                "output its own path")
        for other_key, other in seen.items():
            if os.path.exists(key) and os.path.exists(other_key) and os.path.samefile(key, other_key):
                raise GpuschedError(f"{what} '{path}': {other} writes the same file (a link to it); "
                                    "give each output its own path")
        seen[key] = what


def write_together(targets: Sequence[str | Path], write: Callable[[list[Path]], None], *,
                   what: str = "output") -> None:
    """Write several files all together or not at all.

    ``write`` receives one temporary path per target, beside it (same folder, same suffix), and
    writes every file; only when it returns are the temporary files moved over their targets
    (links are followed: the file they point to is replaced). If it fails, the temporary files are
    removed and every target is left as it was.

    :param targets: the files to write.
    :param write: writes the files, given their temporary paths in the order of ``targets``.
    :param what: how a message names the outputs when writing fails.
    :raises GpuschedError: naming the first target when the system refuses a write (a full disk).
    """
    finals = [Path(os.path.realpath(t)) for t in targets]
    temps: list[Path] = []
    try:
        for final in finals:
            fd, tmp = tempfile.mkstemp(prefix=f".{final.name}.", suffix=f".tmp{final.suffix}",
                                       dir=final.parent)
            os.close(fd)
            temps.append(Path(tmp))
        write(temps)
        for tmp in temps:
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
        for tmp, final in zip(temps, finals, strict=True):
            os.replace(tmp, final)
    except OSError as exc:
        names = ", ".join(f"'{t}'" for t in targets)
        raise GpuschedError(f"{what} {names}: cannot write ({exc.strerror or type(exc).__name__}); "
                            "nothing was written") from None
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)


def shipped_or_path(folder: Path, name: str, suffix: str) -> Path:
    """A file shipped in ``folder`` by its stem ``name`` (``folder / (name + suffix)``, when ``name``
    has no ``/`` and that file exists), else ``name`` as a path."""
    shipped = folder / f"{name}{suffix}"
    return shipped if "/" not in name and shipped.is_file() else Path(name)


def file_stamp(path: str | Path) -> tuple[int, int]:
    """``(mtime_ns, size)`` of ``path``, a cache key that changes with the file; ``(0, 0)`` when it
    cannot be read (the reader then says what is wrong, in one line)."""
    try:
        stat = Path(path).stat()
    except OSError:
        return 0, 0
    return stat.st_mtime_ns, stat.st_size
