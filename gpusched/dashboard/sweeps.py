"""What the Sweeps page opens on: the value of each filter that tells the most.

A sweep's results hold every policy on several clusters (or traces); the page filters the others
away to draw one. Opened on a cluster where every policy does the same (``homogeneous-8gpu``, where
Least-Loaded never stalls), every line would overlap: it opens instead on the value where the
policies' means of the chosen metric differ the most.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def policy_spread(table: pd.DataFrame, y: str, group: str = "policy") -> float:
    """How far apart the groups' (policies') means of ``y`` are over the successful runs of
    ``table``: the range of the means over their mean's magnitude (0 when they agree, or there
    is nothing to compare)."""
    data = table[table["error"] == ""] if "error" in table else table
    means = data.groupby(group)[y].mean().dropna().to_numpy(float)
    if means.size < 2:
        return 0.0
    scale = float(np.mean(np.abs(means)))
    return float(np.ptp(means) / scale) if scale > 0 else 0.0


def telling_value(table: pd.DataFrame, param: str, y: str, group: str = "policy"):
    """The value of ``param`` on which the policies differ the most in ``y``
    (:func:`policy_spread`; ties: the first in sorted order).

    :raises ValueError: when ``table`` has no value of ``param``.
    """
    values = sorted(table[param].dropna().unique().tolist())
    if not values:
        raise ValueError(f"no value of '{param}' in the results")
    spreads = [policy_spread(table[table[param] == v], y, group) for v in values]
    return values[int(np.argmax(spreads))]
