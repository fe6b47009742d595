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

**One lookup, by exact GPU model.** A GPU's price is its model's entry in the run's table,
the model named exactly as the cluster names it (case included): :func:`gpu_prices`. A scenario's
``prices:`` table (:func:`check_price_table`) must name GPU models of the cluster exactly; a key
that matches one only when case is ignored (``v100`` for ``V100``; so also the same model given
twice in two cases) and a key the cluster lacks are refused, and the cluster's models it leaves
out are unpriced (:func:`unpriced_models`; the command line says so in a ``note:``). The shipped
table prices products, not a cluster's names: :func:`shipped_prices` resolves it once for a
cluster, a product's price going to a model named like it, ignoring case, or beginning with its
name and ``-`` (``V100-32GB`` takes ``V100``; ``A100-40GB`` names the memory, so it applies to that
memory only), before the same exact lookup.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import chain
from operator import itemgetter

import numpy as np

from gpusched.core.numbers import read_as_text
from gpusched.core.numbers import shown as shown_value

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


def _product_matches(model: str, product: str) -> bool:
    """Whether a cluster's GPU model is the shipped table's ``product`` (see the module docstring)."""
    name, p = model.lower(), product.lower()
    return name == p or name.startswith(p + "-")


def shipped_prices(gpu_models: Sequence[str]) -> dict[str, float]:
    """The shipped table resolved for a cluster's GPU models: exact model -> USD per GPU-hour, for
    the models one of its products matches (the first in table order; the others are unpriced)."""
    out: dict[str, float] = {}
    for model in dict.fromkeys(gpu_models):
        for product, price in PRICE_TABLE_USD_PER_GPU_HOUR.items():
            if _product_matches(model, product):
                out[model] = float(price)
                break
    return out


def price_of(model: str, table: Mapping[str, float] | None = None) -> float:
    """The price of a GPU model, named exactly as the cluster names it (NaN: none). ``table`` is a
    checked scenario table; without one, the shipped table resolved for ``model``."""
    table = shipped_prices([model]) if table is None else table
    price = table.get(model)
    return math.nan if price is None else float(price)


def gpu_prices(gpu_models: Sequence[str], table: Mapping[str, float] | None = None) -> np.ndarray:
    """USD per GPU-hour of each GPU (NaN where its model has no price), by GPU index: one exact
    lookup of each GPU's model.

    :param gpu_models: each GPU's model (``Cluster.gpu_model``).
    :param table: exact GPU model -> USD per GPU-hour (default: the shipped table, resolved for
        these models by :func:`shipped_prices`).
    """
    table = shipped_prices(gpu_models) if table is None else table
    return np.array([table.get(m, math.nan) for m in gpu_models], dtype=float)


def unpriced_models(gpu_models: Sequence[str], prices: np.ndarray) -> list[str]:
    """The GPU models whose GPUs have no price, in cluster order."""
    return list(dict.fromkeys(m for m, p in zip(gpu_models, prices.tolist(), strict=True) if math.isnan(p)))


def check_price_table(table: object, gpu_models: Sequence[str] | None) -> dict[str, float]:
    """A scenario's ``prices:`` table checked against the cluster's GPU models.

    :param gpu_models: the cluster's GPU models (``None`` when they are not known yet, a trace's
        cluster: the keys are checked against them once it is built).
    :raises ValueError: for a table that is not a mapping of names to finite prices within
        ``0..MAX_PRICE_USD_PER_GPU_HOUR``, or a key that names no GPU model of the cluster exactly
        (one that matches only when case is ignored is named with the cluster's spelling).
    """
    if not isinstance(table, dict) or not table:
        raise ValueError("must map GPU models to USD per GPU-hour, e.g. {T4-16GB: 0.35}")
    out: dict[str, float] = {}
    for model, price in table.items():
        shown = str(model)[:40]
        if not isinstance(model, str):
            raise ValueError(f"a key must be a GPU model's name (got {shown_value(model)})")
        if isinstance(price, bool) or not isinstance(price, int | float):
            raise ValueError(f"the price of '{shown}' must be a number (got {read_as_text(price)})")
        if not (math.isfinite(price) and 0 <= price <= MAX_PRICE_USD_PER_GPU_HOUR):
            raise ValueError(f"the price of '{shown}' must be between 0 and "
                             f"{MAX_PRICE_USD_PER_GPU_HOUR:g} USD per GPU-hour (got {price})")
        out[model] = float(price)
    if gpu_models is not None:
        check_price_keys(out, gpu_models)
    return out


def check_price_keys(table: Mapping[str, float], gpu_models: Sequence[str]) -> None:
    """Refuse a key of a checked table that names no GPU model of the cluster exactly.

    :raises ValueError: naming the key, and the cluster's spelling when only the case differs.
    """
    known = list(dict.fromkeys(gpu_models))
    for model in table:
        if model in known:
            continue
        shown = model[:40]
        same = [m for m in known if m.lower() == model.lower()]
        if same:
            raise ValueError(f"names the GPU model '{shown}', which the cluster names '{same[0]}' "
                             "(prices name GPU models exactly, case included)")
        raise ValueError(f"names the GPU model '{shown}', which the cluster lacks "
                         f"(its models: {', '.join(known)}; prices name them exactly)")


def unpriced_note(table: Mapping[str, float], gpu_models: Sequence[str]) -> str | None:
    """The ``note:`` line naming the cluster's GPU models a scenario's ``prices:`` table leaves
    out, whose GPUs then cost nothing (``None`` when it prices every model)."""
    missing = [m for m in dict.fromkeys(gpu_models) if m not in table]
    if not missing:
        return None
    return (f"note: prices names no price for {', '.join(m[:40] for m in missing[:8])}"
            f"{f' and {len(missing) - 8} more' if len(missing) > 8 else ''}: their GPUs cost nothing "
            "in cost_usd and cheapest_fit")


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
    if len(stops):
        count = len(stops)
        ended = np.fromiter(map(itemgetter(0), stops), dtype=float, count=count)
        jobs = np.fromiter(map(itemgetter(1), stops), dtype=np.int64, count=count)
        started = np.fromiter(map(itemgetter(3), stops), dtype=float, count=count)
        per_hour = gang_prices_usd_per_hour([stop[4] for stop in stops], paid)
        # one job's runs added in the order they ended, as a loop over the stops adds them
        np.add.at(cost, jobs, (ended - started) * per_hour / 60.0)
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
