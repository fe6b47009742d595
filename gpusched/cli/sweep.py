"""The ``gpusched sweep SPEC.yaml`` command (local or Ray backends, resumable).

The spec (every grid point's scenario and every policy, and every grid point through the check
``simulate`` makes before its run: :func:`gpusched.sweep.spec.check_sweep`),
the run count (``--max-runs``) and ``--out`` (or ``sweeps/<name>``: the name is one plain folder
name) are checked before the first run; see :func:`gpusched.sweep.runner.run_sweep`. A sweep in
which a run failed writes every row, says how many failed on stderr, and exits with code 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpusched.cli.args import add_max_runs, worker_count
from gpusched.errors import shorten
from gpusched.paths import DEFAULT_SWEEP_OUT_DIR
from gpusched.sweep.runner import RESULTS_FILE, run_sweep
from gpusched.sweep.spec import load_sweep

EXIT_RUNS_FAILED = 1
"""Exit code of a sweep in which some run failed (its rows are written, with their errors)."""


def sweep_out_dir(name: str, out: str | None = None) -> Path:
    """The results folder of a sweep: ``out`` (``--out``) when given, else ``sweeps/<name>``,
    inside ``sweeps/`` because the spec's name is one plain folder name
    (:func:`gpusched.sweep.spec.check_folder_name`)."""
    return Path(out) if out is not None else DEFAULT_SWEEP_OUT_DIR / name


def cmd_sweep(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    spec = load_sweep(args.spec)
    out = sweep_out_dir(spec.name, args.out)
    bars: list[tqdm] = []

    def progress(done: int, failed: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit="run", desc=f"sweep {spec.name}", dynamic_ncols=True))
        bars[0].update(done - bars[0].n)
        bars[0].set_postfix(failed=failed)

    try:
        table = run_sweep(spec, out, backend=args.backend, workers=args.workers,
                          address=args.address, resume=args.resume, progress=progress,
                          max_runs=args.max_runs)
    finally:
        for bar in bars:
            bar.close()
    failed = int((table["error"] != "").sum()) if "error" in table else 0
    print(f"{len(table)} runs in {out / RESULTS_FILE} ({failed} failed)")
    if failed:
        first = str(table.loc[table["error"] != "", "error"].iloc[0])
        print(f"gpusched: error: {failed} of {len(table)} runs failed (the error column of "
              f"{out / RESULTS_FILE}); the first: {shorten(first, 200)}", file=sys.stderr)
        return EXIT_RUNS_FAILED
    return 0


def install(sub: argparse._SubParsersAction) -> None:
    """Add the ``sweep`` command to the ``gpusched`` parser."""
    p = sub.add_parser("sweep", help="run a grid of runs locally or on a Ray cluster")
    p.add_argument("spec", help="sweep spec YAML (see assets/sweeps/)")
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--address", help="join this Ray cluster (ray backend), e.g. ray://head:10001")
    p.add_argument("--workers", type=worker_count, help="processes (default: all cores)")
    p.add_argument("--out", help="results folder (default: sweeps/<name>)")
    p.add_argument("--resume", action="store_true", help="skip runs already in the results folder")
    add_max_runs(p)
    p.set_defaults(func=cmd_sweep)
