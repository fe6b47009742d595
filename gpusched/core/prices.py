"""GPU prices: a fixed price per GPU model, in USD per GPU-hour, and what runs cost.

**The prices are fixed, not dynamic.** Each GPU model has one price for the whole run, whatever
the cluster's state; a job pays the price of each GPU it holds for every minute it holds it
(restores and lost work included: a held GPU is paid for), over all its runs. A GPU whose model has
no price costs nothing in the sums, and :func:`unpriced_models` names such models so a page or the
CLI can say so. Dynamic pricing (a price that depends on the cluster's state, e.g. on the
utilisation or the queue) is the next step; it would replace :func:`gpu_prices` with a price
process the simulator integrates over time, and is described in ``docs/metrics.md``.

**The shipped table** (:data:`PRICE_TABLE_USD_PER_GPU_HOUR`): Google Cloud Compute Engine's
published on-demand GPU prices for us-central1, per GPU and hour, GPU only (the VM's vCPUs and
memory are billed apart), as recorded in SkyPilot's GCP catalog script
(``skypilot-org/skypilot``, the hard-coded ``gpu_data`` of its GCP catalog fetcher, which cites
https://cloud.google.com/compute/gpus-pricing); read 2026-12-01 (:data:`PRICES_READ`). K80 0.45,
P100 1.46, V100 2.48, T4 0.35, A100 (40 GB) 2.939. No price for the A100 80 GB or the L4 was
found in a source that could be cited; they are left out (priced at nothing, and named by
:func:`unpriced_models`).

**Matching a cluster's GPU model** (``A100-80GB``, ``v100``): a row applies to a model whose name
equals the row's, ignoring case, or begins with the row's name and ``-`` (``V100-32GB`` takes
``V100``); a row that names the memory (``A100-40GB``) applies to that memory only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import chain

import numpy as np

PRICES_READ = "2026-12-01"
"""The date the shipped prices were read."""

PRICE_SOURCE = ("Google Cloud Compute Engine on-demand GPU prices, us-central1 "
                "(https://cloud.google.com/compute/gpus-pricing), as recorded in SkyPilot's GCP "
                "catalog script")
"""Where the shipped prices come from."""

PRICE_TABLE_USD_PER_GPU_HOUR: dict[str, float] = {
    "K80": 0.45,
    "P100": 1.46,
    "V100": 2.48,
    "T4": 0.35,
    "A100-40GB": 2.939,
}
"""USD per GPU-hour of each GPU model (see the module docstring for the source and the date)."""

MAX_PRICE_USD_PER_GPU_HOUR = 1000.0
"""The largest price a scenario's table may give (USD per GPU-hour)."""


def price_of(model: str, table: Mapping[str, float]) -> float:
    """The price of a GPU model by the matching rule of the module docstring (NaN: none)."""
    name = model.lower()
    for row, price in table.items():
        r = row.lower()
        if name == r or name.startswith(r + "-"):
            return float(price)
    return math.nan


def gpu_prices(gpu_models: Sequence[str], table: Mapping[str, float] | None = None) -> np.ndarray:
    """USD per GPU-hour of each GPU (NaN where its model has no price), by GPU index.

    :param gpu_models: each GPU's model (``Cluster.gpu_model``).
    :param table: model -> USD per GPU-hour (default: :data:`PRICE_TABLE_USD_PER_GPU_HOUR`).
    """
    table = PRICE_TABLE_USD_PER_GPU_HOUR if table is None else table
    cache: dict[str, float] = {}
    return np.array([cache.setdefault(m, price_of(m, table)) for m in gpu_models], dtype=float)


def unpriced_models(gpu_models: Sequence[str], prices: np.ndarray) -> list[str]:
    """The GPU models whose GPUs have no price, in cluster order."""
    return list(dict.fromkeys(m for m, p in zip(gpu_models, prices.tolist(), strict=True) if math.isnan(p)))


def check_price_table(table: object, gpu_models: Sequence[str]) -> dict[str, float]:
    """A scenario's ``prices:`` table checked against the cluster's GPU models.

    :raises ValueError: for a table that is not a mapping of names to finite prices within
        ``0..MAX_PRICE_USD_PER_GPU_HOUR``, or a row that matches none of the cluster's models.
    """
    if not isinstance(table, dict) or not table:
        raise ValueError("must map GPU models to USD per GPU-hour, e.g. {T4-16GB: 0.35}")
    known = list(dict.fromkeys(gpu_models))
    out: dict[str, float] = {}
    for model, price in table.items():
        shown = str(model)[:40]
        if isinstance(price, bool) or not isinstance(price, int | float):
            raise ValueError(f"the price of '{shown}' must be a number (got {type(price).__name__})")
        if not (math.isfinite(price) and 0 <= price <= MAX_PRICE_USD_PER_GPU_HOUR):
            raise ValueError(f"the price of '{shown}' must be between 0 and "
                             f"{MAX_PRICE_USD_PER_GPU_HOUR:g} USD per GPU-hour (got {price})")
        if not any(not math.isnan(price_of(m, {str(model): 1.0})) for m in known):
            raise ValueError(f"names the GPU model '{shown}', which the cluster lacks "
                             f"(its models: {', '.join(known)})")
        out[str(model)] = float(price)
    return out


def run_costs_usd(job_gpus: Sequence[Sequence[int]], held_min: np.ndarray, stops: Sequence[tuple],
                  prices: np.ndarray | None) -> np.ndarray:
    """Per job, USD paid for the GPUs it held: its current or last run (``held_min`` minutes on
    ``job_gpus``) plus every run a stop ended (``stops``: the simulator's records, with the run's
    start, its GPUs and the stop time). Unpriced GPUs cost nothing; no prices: every cost is 0.
    """
    n = len(job_gpus)
    if prices is None:
        return np.zeros(n)
    paid = np.nan_to_num(prices, nan=0.0)
    cost = held_min * gang_prices_usd_per_hour(job_gpus, paid) / 60.0
    for time_min, idx, _, start_min, gpus, *_ in stops:
        cost[idx] += (time_min - start_min) * float(paid[list(gpus)].sum()) / 60.0
    return cost


def gang_prices_usd_per_hour(job_gpus: Sequence[Sequence[int]], paid: np.ndarray) -> np.ndarray:
    """Per job, USD per hour of the gang ``job_gpus`` holds (the sum of its GPUs' ``paid``
    prices; 0 for none). The gangs of one size are summed as one array, row by row, which adds
    each gang's prices in the order a per-gang sum does.
    """
    n = len(job_gpus)
    sizes = np.fromiter(map(len, job_gpus), dtype=np.int64, count=n)
    flat = np.fromiter(chain.from_iterable(job_gpus), dtype=np.int64, count=int(sizes.sum()))
    first = np.cumsum(sizes) - sizes
    per_hour = np.zeros(n)
    for size in np.unique(sizes[sizes > 0]).tolist():
        rows = np.flatnonzero(sizes == size)
        per_hour[rows] = paid[flat[first[rows, None] + np.arange(size)]].sum(axis=1)
    return per_hour
