"""The ``gpusched`` command line (the same as ``python -m gpusched``).

Every sub-command lives in its own module of this package and is imported here directly. Bad
input prints one line on stderr and exits with code 2, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from gpusched.cli import allocation, simulate, sweep, train
from gpusched.cli.args import EXIT_BAD_INPUT, Parser
from gpusched.errors import GpuschedError

SUBCOMMANDS = (simulate, train, allocation, sweep)
"""The modules that add sub-commands, in the order ``gpusched --help`` lists them."""


def build_parser() -> Parser:
    """The ``gpusched`` parser with every sub-command."""
    parser = Parser(prog="gpusched", description="GPU-cluster scheduling lab.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for module in SUBCOMMANDS:
        module.install(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code (2 for bad input, 130 when interrupted)."""
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
