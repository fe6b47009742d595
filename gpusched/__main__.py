"""``python -m gpusched`` is the same as the ``gpusched`` command."""

from gpusched.cli import main

raise SystemExit(main())
