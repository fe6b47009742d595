"""The stakeholder tour's defects, each kept fixed where it can be read without a browser: panel
heights that do not shrink with the rows, one x-axis title per heatmap row, no forest panel of
zeros, log ticks labelled in full, one colour per policy in a chart, numbers that never read
``−0``, wait differences in words, ratios over 100 % as multiples, no stray text above a page's
title, and no machine path on a page."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from gpusched import compare, load_scenario
from gpusched.experiment.scorecard import scorecard
from gpusched.figures import conditions_heatmap_figure, duration_figure, metric_bars_figure
from gpusched.figures.compare import BAR_GAP_PX, BAR_PANEL_PX, forest_figure, wait_cdf_figure
from gpusched.figures.style import log_axis_ticks, policy_colors
from gpusched.figures.words import longer_or_shorter, signed
from gpusched.paths import REPO_ROOT, STALL_CONDITIONS_RESULTS_DIR, shown_path
from gpusched.sweep.analysis import load_sweep_results
from gpusched.words.metric_names import format_metric, format_number

APP = REPO_ROOT / "app"


@pytest.fixture(scope="module")
def comparison():
    scenario = load_scenario("phase1-4gpu").with_overrides(**{"workload.jobs": 40})
    return compare(scenario, ["first_fit", "least_loaded", "best_fit", "fcfs+best_fit"], [0, 1, 2])


def _domains(fig, axis: str) -> list[tuple[float, float]]:
    layout = fig.to_plotly_json()["layout"]
    return [tuple(v["domain"]) for k, v in layout.items() if k.startswith(axis) and "domain" in v]


def test_bar_panels_keep_their_height_and_their_gaps_stay_small(comparison):
    fig = metric_bars_figure(comparison)
    layout = fig.layout
    plot_px = layout.height - layout.margin.t - layout.margin.b
    heights = sorted({round((hi - lo) * plot_px) for lo, hi in _domains(fig, "yaxis")})
    assert all(abs(h - BAR_PANEL_PX) <= 2 for h in heights), heights
    bottoms = sorted({lo for lo, _ in _domains(fig, "yaxis")})
    tops = sorted({hi for _, hi in _domains(fig, "yaxis")})
    gaps = [round((b - t) * plot_px) for t, b in zip(tops[:-1], bottoms[1:], strict=True)]
    assert all(abs(g - BAR_GAP_PX) <= 2 for g in gaps), gaps


def test_no_two_policies_of_one_chart_share_a_colour(comparison):
    """``best_fit`` and ``fcfs+best_fit`` are the same rule with the same own colour; in one chart
    they still differ."""
    for fig in (metric_bars_figure(comparison), wait_cdf_figure(comparison)):
        colours = {}
        for trace in fig.data:
            colour = (trace.line.color if trace.type == "scatter" else trace.marker.color)
            if trace.name and isinstance(colour, str) and trace.showlegend is not False:
                colours.setdefault(trace.name, colour)
        assert len(set(colours.values())) == len(colours), colours
    names = ["best_fit", "fcfs+best_fit", "fgd_best_fit", "sjf+first_fit", "sjf+best_fit", "ppo"]
    palette = policy_colors(names)
    assert len(set(palette.values())) == len(names)
    assert palette["best_fit"] == policy_colors(["best_fit"])["best_fit"]  # the first keeps its own


def test_forest_plot_names_instead_of_draws_a_metric_with_no_difference(comparison):
    card = scorecard(comparison, "best_fit")
    fig = forest_figure(card, ["avg_wait_min", "speed_loss_min", "jobs_completed"])
    drawn = [a.text for a in fig.layout.annotations]
    assert any("Average wait" in t for t in drawn)
    flat = [m for m in ("speed_loss_min", "jobs_completed")
            if np.allclose(card[card["metric"] == m][["diff", "low", "high"]].to_numpy(float), 0)]
    assert flat, "the small scenario should have a metric with no difference"
    for trace in fig.data:
        assert np.abs(np.asarray(trace.x, float)).max() > 0 or len(fig.data) == 1
    assert "no difference on any seed" in fig.layout.title.subtitle.text


def test_heatmap_has_one_x_axis_title_that_cannot_overlap_another():
    fig = conditions_heatmap_figure(load_sweep_results(STALL_CONDITIONS_RESULTS_DIR))
    layout = fig.to_plotly_json()["layout"]
    titled = [k for k, v in layout.items() if k.startswith("xaxis") and v.get("title", {}).get("text")]
    assert len(titled) == 1, titled
    assert all("−0" not in t and "+0" not in t for trace in fig.data for row in trace.text for t in row)


def test_log_axis_ticks_are_labelled_in_full():
    ticks = log_axis_ticks(3.2, 1500)
    assert ticks["ticktext"] == ["5", "10", "20", "50", "100", "200", "500", "1,000"]
    jobs = load_scenario("phase1-8gpu").jobs()
    axis = duration_figure(jobs).layout.xaxis
    assert axis.type == "log" and axis.tickmode == "array"
    assert all(str(int(v)) == t.replace(",", "") for v, t in zip(axis.tickvals, axis.ticktext, strict=True)
               if v >= 1)


@pytest.mark.parametrize("value", [-0.04, -0.0, 0.0, 0.04, -1e-12])
def test_a_value_that_rounds_to_zero_reads_zero(value):
    assert format_number(value, 1) in ("0.0",)
    assert format_metric("avg_util", value / 100) == "0.0"
    assert signed(value, 1) == "0.0"
    assert format_number(value, 0) == "0" and signed(value) == "0"


def test_signed_and_worded_differences():
    assert signed(2.26, 1) == "+2.3" and signed(-2.26, 1) == "−2.3"
    assert longer_or_shorter(-2.2, "Least-Loaded") == "2 min less than Least-Loaded"
    assert longer_or_shorter(3.0, "First-Fit") == "3 min longer than First-Fit"
    assert longer_or_shorter(0.2, "First-Fit") == "as long as First-Fit"


def test_shown_paths_are_never_the_machines():
    assert shown_path(REPO_ROOT / "assets" / "sweeps") == "assets/sweeps"
    outside = shown_path("/somewhere/deep/down/results")
    assert not outside.startswith("/") and outside.endswith("down/results")


@pytest.mark.parametrize("page", sorted([APP / "Home.py", *(APP / "views").glob("*.py")]),
                         ids=lambda p: p.name)
def test_no_page_renders_a_stray_string(page: Path):
    """Streamlit draws every bare string expression of a page script (its "magic"): only the
    module docstring may be one, so a variable's docstring never shows above the title."""
    tree = ast.parse(page.read_text(encoding="utf-8"))
    stray = [node.lineno for node in tree.body[1:]
             if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
             and isinstance(node.value.value, str)]
    assert stray == [], f"{page.name}: bare strings at lines {stray}"


def test_one_seed_shows_values_without_a_spread():
    from gpusched.figures import results_table

    one = compare(load_scenario("phase1-4gpu").with_overrides(**{"workload.jobs": 40}),
                  ["first_fit", "best_fit"], [0])
    table = results_table(one)
    assert not table.apply(lambda col: col.str.contains("±")).any().any()


def test_trace_progress_names_policies_in_words_and_the_estimate_says_where_it_comes_from():
    from types import SimpleNamespace

    from gpusched.fgd.experiment import estimate_line, measured_seconds, run_grid
    from gpusched.policies import policy_label

    lines: list[str] = []
    runs = run_grid(["fgd_best_fit"], [42], lambda p, s, step: SimpleNamespace(policy=p, seconds=9.0),
                    progress=lambda f, text: lines.append(text), label=policy_label)
    assert lines and all("fgd_best_fit" not in t for t in lines)
    assert any(policy_label("fgd_best_fit") in t for t in lines)
    assert "first guess" in estimate_line(["fgd_best_fit"], 2)
    measured = measured_seconds(runs)
    line = estimate_line(["fgd_best_fit"], 2, measured)
    assert "about 18 s" in line and "measured here" in line


def test_scorecard_and_agent_tables_never_print_minus_zero(comparison):
    import re

    from gpusched.figures.compare import scorecard_table

    table = scorecard_table(scorecard(comparison, "best_fit"))
    cells = " ".join(table["difference [95 % interval]"])
    assert not re.search(r"(?:^|[\s\[(,])[−-]0(?:\.0+)?(?![\d.])", cells), cells
    assert "+0" not in cells.replace("+0.", "")  # a zero difference reads 0, unsigned


def test_policy_tooltips_give_each_part_of_a_rule_once():
    from gpusched.dashboard.policies import policy_help
    from gpusched.words.glossary import GLOSSARY

    text = policy_help("wfp3+fastest_fit", "sjf+fastest_fit", "least_loaded_fit")
    for term in ("WFP3", "SJF (shortest job first)", "Fastest-Fit", "Least-Loaded"):
        assert f"**{term}**: {GLOSSARY[term]}" in text
    assert text.count("**Fastest-Fit**") == 1
