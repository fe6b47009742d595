"""The FGD artifact's published allocation and fragmentation results (``analysis_*_discrete.csv``).

Each file has one row per (workload, policy, seed) with columns ``0``..``130``: the allocation ratio
(or fragmentation) in percent of the cluster's GPU capacity at each percent of arrived GPU request.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import pandas as pd

from gpusched.errors import GpuschedError
from gpusched.fgd.allocation import N_COLUMNS
from gpusched.fgd.scoring import PUBLISHED_NAMES
from gpusched.paths import TRACES_DIR
from gpusched.workload.openb import TraceError

CURVE_COLUMNS: tuple[str, ...] = ("policy", "pods", "seed", "arrived_pct", "alloc_pct")
"""Columns of allocation curves in long form (one row per run and arrived-load column)."""

ALLOC_FILE = "analysis_allo_discrete.csv"
FRAG_FILE = "analysis_frag_discrete.csv"


@lru_cache(maxsize=4)
def _load(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise TraceError(f"published results '{path}': no such file")
    return pd.read_csv(path)


def published_runs(
    workload: str, *, metric: str = "alloc", folder: Path | None = None
) -> pd.DataFrame:
    """Published rows of one workload: index (policy, seed), columns 0..130 as ints.

    :param workload: the pod list's stem, e.g. ``openb_pod_list_default``.
    :param metric: ``"alloc"`` (allocation ratio, %) or ``"frag"`` (fragmentation, % of capacity).
    :param folder: where the CSV files are (default: the bundled traces).
    :raises TraceError: if the workload has no published rows.
    """
    name = {"alloc": ALLOC_FILE, "frag": FRAG_FILE}[metric]
    frame = _load((folder or TRACES_DIR) / name)
    rows = frame[frame["workload"] == workload]
    if rows.empty:
        known = ", ".join(sorted(frame["workload"].unique()))
        raise TraceError(f"no published results for trace '{workload}' (known: {known})")
    ours = {v: k for k, v in PUBLISHED_NAMES.items()}
    policy = rows["sc_policy"].map(ours)
    rows = rows[policy.notna()]
    values = rows[[str(k) for k in range(N_COLUMNS)]].to_numpy()
    index = pd.MultiIndex.from_arrays(
        [policy[policy.notna()].to_numpy(), rows["seed"].to_numpy()], names=["policy", "seed"]
    )
    return pd.DataFrame(values, index=index, columns=range(N_COLUMNS))


def published_means(
    workload: str, columns: tuple[int, ...] = (100, 130)
) -> dict[str, dict[int, float]]:
    """Mean over the published seeds of the allocation ratio at ``columns``, per policy (ours
    names).

    :param workload: the pod list's stem.
    :param columns: the arrived-load columns (percent of capacity).
    """
    runs = published_runs(workload)
    means = runs.groupby(level="policy")[list(columns)].mean()
    return {p: {c: float(means.loc[p, c]) for c in columns} for p in means.index}


def published_alloc_long(pods: Iterable[str]) -> pd.DataFrame:
    """The FGD artifact's published allocation curves of the traces ``pods``, in long form
    (:data:`CURVE_COLUMNS`; traces without published rows are left out)."""
    parts = []
    for name in sorted(set(pods)):
        try:
            runs = published_runs(str(name))
        except GpuschedError:
            continue
        long = runs.reset_index().melt(id_vars=["policy", "seed"], var_name="arrived_pct",
                                       value_name="alloc_pct")
        parts.append(long.assign(pods=name))
    if not parts:
        return pd.DataFrame(columns=list(CURVE_COLUMNS))
    out = pd.concat(parts, ignore_index=True)
    out["arrived_pct"] = out["arrived_pct"].astype(int)
    return out
