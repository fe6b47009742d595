"""The Real traces page's shipped runs: the FGD allocation experiment on the default openb pod list,
every policy on seed 42 at 1.3x capacity, written to ``benchmarks/results/traces.json``.

The page shows these at once and runs anything else live; ``tests/test_shipped_traces.py`` runs
them again and checks that every number is the same.

Run: ``python benchmarks/traces_shipped.py`` (about 4 s on an idle 2-core machine).
"""

from __future__ import annotations

import json
import time

from gpusched.dashboard.traces import measure
from gpusched.paths import TRACES_RESULTS


def main() -> None:
    t0 = time.perf_counter()
    data = measure(progress=print)
    TRACES_RESULTS.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{len(data['runs'])} runs in {time.perf_counter() - t0:.1f} s -> {TRACES_RESULTS.name}")


if __name__ == "__main__":
    main()
