"""Everything a visitor reads on a page run by AppTest: titles, text, captions, alerts, card
titles and values, widget labels and options, expander and tab labels, table headers and text
cells, and the charts' titles, axes, annotations and legends."""

from __future__ import annotations

import json

from raw_names import figure_texts

_TEXT_ELEMENTS = ("title", "header", "subheader", "markdown", "caption", "info", "success", "warning",
                  "error", "code")
_LABELLED = ("button", "checkbox", "toggle", "number_input", "text_input", "slider",
             "select_slider", "date_input", "text_area", "expander", "tabs")
_MENUS = ("selectbox", "multiselect", "radio")


def page_texts(at) -> list[str]:
    """The visible texts of the page ``at`` shows now."""
    out: list[str] = []
    for kind in _TEXT_ELEMENTS:
        out += [str(e.value) for e in at.get(kind)]
    for metric in at.metric:
        out += [metric.label, str(metric.value)]
    for kind in _LABELLED:
        for widget in at.get(kind):
            label = getattr(widget, "label", None) or getattr(widget, "proto", None) and \
                getattr(widget.proto, "label", "")
            out.append(str(label or ""))
    for kind in _MENUS:
        for widget in at.get(kind):
            out += [widget.label, *map(str, widget.options)]
    for frame in at.dataframe:
        table = frame.value
        out += [str(c) for c in table.columns] + [str(i) for i in table.index]
        for column in table.columns:
            if table[column].dtype == object:
                out += [str(v) for v in table[column].head(50)]
    for element in at.get("plotly_chart"):
        out += figure_texts(json.loads(element.proto.spec))
    return [t for t in out if t]
