"""A figure as the dashboard draws it in Streamlit's light or dark theme.

Streamlit's theme (``st.plotly_chart(theme="streamlit")``) sets a chart's background, text and
grid colours, never a colour a figure names itself. The figures name one near-black for marks that
are no policy's (:data:`~gpusched.figures.style.MARK`), which vanishes on the dark theme's
near-black: :func:`in_theme` gives such a figure with those marks in
:data:`~gpusched.figures.style.MARK_ON_DARK` instead, every animation frame included.
"""

from __future__ import annotations

import json

import plotly.graph_objects as go
import plotly.io as pio

from gpusched.figures.frozen import is_frozen
from gpusched.figures.style import MARK, MARK_ON_DARK

DARK = "dark"
"""Streamlit's name of its dark theme (``st.context.theme.type``)."""

_TWIN = "_gpusched_dark_twin"
"""Attribute under which a frozen figure keeps its dark twin, built once."""


def in_theme(fig: go.Figure, theme: str | None) -> go.Figure:
    """``fig`` for the theme named ``theme`` (``"light"``, ``"dark"`` or ``None``, unknown: light).

    On the dark theme, a figure whose JSON names :data:`~gpusched.figures.style.MARK` gets a
    frozen twin with every such colour :data:`~gpusched.figures.style.MARK_ON_DARK`; a frozen figure
    keeps its twin, so a cached figure is converted once. Otherwise ``fig`` itself.
    """
    if theme != DARK:
        return fig
    twin = vars(fig).get(_TWIN)
    if twin is not None:
        return twin
    text = pio.to_json(fig, validate=False)
    if f'"{MARK}"' not in text:
        return fig
    dark = json.loads(text.replace(f'"{MARK}"', f'"{MARK_ON_DARK}"'))
    twin = go.Figure()
    object.__setattr__(twin, "to_dict", lambda: dark)  # frozen, as :func:`freeze` leaves a figure
    if is_frozen(fig):
        object.__setattr__(fig, _TWIN, twin)
    return twin
