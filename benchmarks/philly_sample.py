"""Write the shipped sample of Microsoft's Philly trace (``assets/philly/philly-sample.csv``).

The sample is the rows of the processed trace (Pollux's and Sia's ``philly.csv``, 82,247 jobs) at
positions 0, 274, 548, ... in file order (every 274th row: 301 rows), then the first row of each
virtual cluster those rows miss, so that every virtual cluster appears. The rows keep the file's
order and are copied unchanged (the header too). No random draw: the rule alone picks them.

With ``--clusters A B ...`` it writes instead every row of those virtual clusters, unchanged and in
file order (the replay preset's file, ``assets/philly/philly-2vc.csv``: ``--clusters 103959 0e4a51
--out assets/philly/philly-2vc.csv``).

Usage: ``python benchmarks/philly_sample.py PATH/philly.csv [--out assets/philly/philly-sample.csv]
[--clusters NAME ...]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gpusched.paths import PHILLY_SAMPLE
from gpusched.workload.philly import read_philly

STRIDE = 274
"""Every STRIDE-th row of the file is kept."""


def sample_rows(path: Path) -> list[int]:
    """The 0-based data rows of the sample, ascending."""
    jobs = read_philly(path)  # refuses a malformed file before anything is written
    rows = set(range(0, len(jobs), STRIDE))
    seen = {jobs.cluster[i] for i in rows}
    for i, name in enumerate(jobs.cluster):
        if name not in seen:
            rows.add(i)
            seen.add(name)
    return sorted(rows)


def cluster_rows(path: Path, clusters: list[str]) -> list[int]:
    """The 0-based data rows of the named virtual clusters, ascending."""
    jobs = read_philly(path)
    missing = set(clusters) - set(jobs.cluster)
    if missing:
        raise SystemExit(f"trace '{path}': no virtual cluster {', '.join(sorted(missing))}")
    return [i for i, name in enumerate(jobs.cluster) if name in clusters]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the processed philly.csv")
    parser.add_argument("--out", type=Path, default=PHILLY_SAMPLE)
    parser.add_argument("--clusters", nargs="+", help="every row of these virtual clusters instead")
    args = parser.parse_args()
    lines = args.source.read_text(encoding="utf-8").split("\n")
    rows = cluster_rows(args.source, args.clusters) if args.clusters else sample_rows(args.source)
    args.out.write_text(lines[0] + "\n" + "".join(lines[i + 1] + "\n" for i in rows), encoding="utf-8")
    print(f"{len(rows)} rows -> {args.out}")


if __name__ == "__main__":
    main()
