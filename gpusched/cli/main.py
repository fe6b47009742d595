"""The ``gpusched`` command line (the same as ``python -m gpusched``).

Every sub-command lives in its own module of this package and is imported here directly. Bad
input prints one line on stderr and exits with code 2, never a traceback. Output piped into a
command that stops reading early (``gpusched compare ... | head``) is not an error: the rest of
the output is dropped, the command finishes its work (so the files it writes are complete) and
exits quietly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from gpusched.cli import allocation, simulate, sweep, train
from gpusched.cli.args import EXIT_BAD_INPUT, Parser
from gpusched.errors import GpuschedError

SUBCOMMANDS = (simulate, train, allocation, sweep)
"""The modules that add sub-commands, in the order ``gpusched --help`` lists them."""


class _ClosedPipeSafe:
    """A text stream that, once its reader has gone (``BrokenPipeError``), sends the rest of the
    output to the null device instead of failing (also at interpreter exit)."""

    def __init__(self, stream):
        self._stream = stream

    def _drop_the_rest(self) -> None:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):  # not a real file: nothing to redirect
            pass

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._drop_the_rest()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._drop_the_rest()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def build_parser() -> Parser:
    """The ``gpusched`` parser with every sub-command."""
    parser = Parser(prog="gpusched", description="GPU-cluster scheduling lab.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for module in SUBCOMMANDS:
        module.install(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code (2 for bad input, 130 when interrupted)."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _ClosedPipeSafe(sys.stdout), _ClosedPipeSafe(sys.stderr)
    try:
        return _run(argv)
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = streams


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a bad argument (already printed on one line)
        return int(exc.code or 0)
    try:
        return args.func(args)
    except GpuschedError as exc:
        print(f"gpusched: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("gpusched: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
