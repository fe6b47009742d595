"""The ``gpusched`` command line: :func:`main` parses the arguments and runs one sub-command."""

from gpusched.cli.main import main

__all__ = ["main"]
