"""Plotly figures of runs and comparisons: pure functions from results to ``go.Figure``.

They know nothing of Streamlit, so a test can check a figure's JSON without starting a page.
Colours (one per policy, per job type and per utilisation band) live in
:mod:`gpusched.figures.style`.
"""

from gpusched.figures.compare import (
    BAR_METRICS,
    FAILURE_BAR_METRICS,
    OCCUPANCY_NOTE,
    forest_figure,
    has_disruptions,
    metric_bars_figure,
    results_table,
    scorecard_table,
    util_over_time_figure,
    wait_cdf_figure,
)
from gpusched.figures.replay import gantt_figure, replay_figure, side_by_side_figure
from gpusched.figures.stall import (
    BLOCKED_LEGEND,
    STALL_LEGEND,
    conditions_heatmap_figure,
    conditions_summary,
    control_note,
    control_table,
    findings_table,
    misroute_causes_figure,
    stall_blurb,
    stall_explanation,
    stall_figure,
)
from gpusched.figures.style import (
    BAND_COLORS,
    JOB_TYPE_COLORS,
    POLICY_COLORS,
    band_color,
    job_type_color,
    policy_color,
)
from gpusched.figures.workload import (
    arrivals_figure,
    duration_figure,
    gpus_figure,
    jobs_frame,
    model_speed_figure,
    runtime_by_model_figure,
    vram_figure,
)


def __getattr__(name: str):
    # The training figure imports the agent's training-job module; load it only when asked for.
    if name in ("training_curves_figure", "expert_rounds_figure"):
        from gpusched.figures import training

        return getattr(training, name)
    raise AttributeError(name)


__all__ = [
    "BAND_COLORS",
    "BAR_METRICS",
    "FAILURE_BAR_METRICS",
    "OCCUPANCY_NOTE",
    "JOB_TYPE_COLORS",
    "POLICY_COLORS",
    "BLOCKED_LEGEND",
    "STALL_LEGEND",
    "arrivals_figure",
    "band_color",
    "duration_figure",
    "forest_figure",
    "gantt_figure",
    "gpus_figure",
    "has_disruptions",
    "job_type_color",
    "jobs_frame",
    "metric_bars_figure",
    "policy_color",
    "replay_figure",
    "results_table",
    "model_speed_figure",
    "runtime_by_model_figure",
    "scorecard_table",
    "side_by_side_figure",
    "conditions_heatmap_figure",
    "conditions_summary",
    "control_note",
    "control_table",
    "findings_table",
    "misroute_causes_figure",
    "stall_blurb",
    "stall_explanation",
    "stall_figure",
    "util_over_time_figure",
    "vram_figure",
    "wait_cdf_figure",
]
