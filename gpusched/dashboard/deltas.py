"""The change shown under a result card (``st.metric``'s delta): its text, its colour rule and its
arrow, in one place for every page.

Streamlit reads a delta's direction from its text: one that starts with an ASCII ``-`` points down,
the literal ``"0"`` has no arrow, anything else points up. A Unicode minus (``−``, the sign the
pages print in sentences) therefore reads as *up*, and a good change on a metric where lower is
better (a wait) is red under ``delta_color="normal"``. :func:`metric_delta` writes the sign
Streamlit parses and picks ``"inverse"`` for the metrics of
:data:`~gpusched.experiment.scorecard.LOWER_IS_BETTER`, so a shorter wait reads as a green arrow
down; a change that rounds to zero gets neither arrow nor colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpusched.experiment.scorecard import LOWER_IS_BETTER
from gpusched.words.metric_names import format_number, metric_name


@dataclass(frozen=True)
class MetricDelta:
    """What ``st.metric`` takes for one change.

    :param text: the change with an ASCII sign Streamlit parses (``"-20 min vs First-Fit"``,
        ``"+3.1 %"``; no sign when it rounds to zero).
    :param color: ``st.metric``'s ``delta_color``: ``"inverse"`` where lower is better,
        ``"normal"`` where higher is, ``"off"`` for no change.
    :param arrow: ``st.metric``'s ``delta_arrow``: ``"auto"`` (from the sign), ``"off"`` for no change.
    :param better: whether the change is an improvement (``None`` for no change).
    """

    text: str
    color: str
    arrow: str
    better: bool | None


def lower_is_better(key: str) -> bool:
    """Whether a lower value of metric ``key`` is better (a wait, a cost, an imbalance)."""
    return key in LOWER_IS_BETTER


def metric_delta(key: str, change: float, *, percent_of: float | None = None, against: str = "",
                 decimals: int | None = None) -> MetricDelta:
    """The delta of metric ``key`` changed by ``change`` (in the metric's stored unit).

    :param key: the metric (:data:`~gpusched.words.metric_names.METRIC_NAMES`), which sets the unit,
        the decimals and whether lower is better.
    :param change: the new value minus the reference value.
    :param percent_of: the reference value: given, the change is shown as a percentage of it.
    :param against: what the change is measured against, appended as ``"vs First-Fit"``.
    :param decimals: digits after the point (default: the metric's own, 1 for a percentage).
    """
    name = metric_name(key)
    if percent_of is not None:
        value, unit, digits = 100.0 * change / percent_of, "%", 1 if decimals is None else decimals
    else:
        # a unit that names a scale rather than a quantity ("Gini, 0–1") is left out
        value, unit = change * name.scale, ("" if "," in name.unit else name.unit)
        digits = name.decimals if decimals is None else decimals
    number = format_number(abs(value), digits)
    zero = number.strip("0.,") == "" or number == "—"
    sign = "" if zero else ("+" if value > 0 else "-")
    text = f"{sign}{number}" + (f" {unit}" if unit else "") + (f" vs {against}" if against else "")
    if zero:
        return MetricDelta(text, "off", "off", None)
    lower = lower_is_better(key)
    return MetricDelta(text, "inverse" if lower else "normal", "auto", (value < 0) == lower)
