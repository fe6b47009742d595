"""Sweeps: load a sweep's results folder and plot any metric against any parameter."""

from pathlib import Path

import streamlit as st
from shared import metric_columns, page_header, show_chart, url_value

from gpusched.dashboard.sweeps import telling_value
from gpusched.dashboard.url_state import UrlChoice
from gpusched.errors import GpuschedError
from gpusched.fgd.experiment import pod_list_label
from gpusched.figures.sweep import axis_title, labelled_runs, sweep_figure
from gpusched.paths import shown_path
from gpusched.policies import policy_label
from gpusched.sweep.analysis import (
    alloc_curves,
    discover_sweeps,
    filter_runs,
    load_sweep_results,
    metrics,
    parameters,
    published_alloc_curves,
    results_mtime,
    varied_parameters,
)
from gpusched.words.metric_names import metric_help

CURVES = "allocation curve (FGD Fig. 9a)"
# How the values of a parameter are shown in menus (others as they are).
VALUE_LABELS = {"policy": policy_label, "pods": pod_list_label}


DEFAULT_FOLDER = "stall-conditions"  # the sweep the page opens on: Least-Loaded's stall, cluster by load


def _folder_name(path: str) -> str:
    return path if path == "other…" else Path(path).name


def _menu_label(name: str) -> str:
    """A metric or parameter in the menus, in words."""
    return "Allocation curve (FGD paper, Fig. 9a)" if name == CURVES else axis_title(name)


@st.cache_data(show_spinner=False, ttl=30)
def cached_results(folder: str, mtime: float):
    """A results table, re-read when the file changes (``mtime``)."""
    return load_sweep_results(folder)


def main() -> None:
    page_header("Sweeps",
                "A sweep's results (`gpusched sweep SPEC.yaml`): any metric against any parameter, "
                "one line per policy, mean ± std over the other parameters.")
    found = [str(p) for p in discover_sweeps()]
    c1, c2 = st.columns([2, 3])
    options = [*found, "other…"]
    default = next((p for p in found if Path(p).name == DEFAULT_FOLDER), options[0])
    opened = url_value(UrlChoice("folder", default, options, to_text=_folder_name), "sweep_folder")
    choice = c1.selectbox("Results folder", options, index=options.index(opened), key="sweep_folder",
                          format_func=_folder_name)
    folder = c2.text_input("Folder path", key="sweep_path") if choice == "other…" else choice
    if not folder:
        st.info("Enter the path of a folder written by `gpusched sweep --out DIR`.")
        return
    try:
        table = cached_results(folder, results_mtime(folder))
    except GpuschedError as err:
        st.error(str(err))
        return
    failed = int((table["error"] != "").sum())
    st.caption(f"{len(table)} runs · {failed} failed · folder `{shown_path(folder)}`")

    params = [p for p in parameters(table) if p != "policy"]
    has_alloc = bool((table.get("kind") == "allocation").any())
    y_options = ([CURVES] if has_alloc else []) + metrics(table)
    c1, c2 = st.columns(2)
    # Every key below carries the folder's name: a filter of one folder never leaks into the next.
    folder_key = Path(folder).name
    default_y = "avg_wait_min" if "avg_wait_min" in y_options else y_options[0]
    y = c1.selectbox("Metric", y_options, format_func=_menu_label, key=f"sweep_metric_{folder_key}",
                     index=y_options.index(url_value(UrlChoice("metric", default_y, y_options),
                                                     f"sweep_metric_{folder_key}")),
                     help="What to plot, one line per policy; each metric's meaning is under the chart.")
    keep = {}
    if y == CURVES:
        curves = alloc_curves(table)
        traces = sorted(curves["pods"].unique())
        trace = c2.selectbox("Trace", traces, key=f"sweep_trace_{folder_key}", format_func=pod_list_label)
        runs = filter_runs(curves, {"pods": [trace]})
        published = published_alloc_curves(table)
        published = filter_runs(published, {"pods": [trace], "policy": list(runs["policy"].unique())})
        show_chart(sweep_figure(runs, "arrived_pct", "alloc_pct", published=published),
                   key="sweep_curves")
        st.caption("Dashed: the FGD artifact's published 10-seed means for the same trace.")
        return
    varied = varied_parameters(table, params)
    default_x = params.index(varied[-1]) if varied else 0
    x = c2.selectbox("Against", params, index=default_x, format_func=_menu_label,
                     key=f"sweep_param_{folder_key}")
    others = [p for p in varied if p != x]
    if others:
        cols = st.columns(len(others))
        for col, name in zip(cols, others, strict=True):
            values = sorted(table[name].dropna().unique().tolist())
            keep[name] = col.multiselect(axis_title(name), values, default=[telling_value(table, name, y)],
                                         key=f"sweep_keep_{folder_key}_{name}",
                                         format_func=VALUE_LABELS.get(name, str),
                                         help="Opens on the value where the policies differ the most.")
    runs = filter_runs(table, keep)
    show_chart(sweep_figure(runs, x, y), key="sweep_chart")
    st.caption(f"**{axis_title(y)}**: {metric_help(y)}")
    shown = labelled_runs(runs, ["policy", *varied, "seed", y, "error"])
    st.dataframe(shown, width="stretch", hide_index=True, column_config=metric_columns(shown.columns, shown))
    st.download_button("Every column of these runs (CSV)", runs.to_csv(index=False).encode("utf-8"),
                       file_name=f"{folder_key}-runs.csv", mime="text/csv", key=f"sweep_csv_{folder_key}")


main()
