"""Training curves: the mean training episode reward and the evaluation reward against
environment steps."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gpusched.figures.style import apply_layout, policy_color
from gpusched.training_job import TrainingSnapshot


def training_curves_figure(snapshot: TrainingSnapshot) -> go.Figure:
    """Two panels on one steps axis: training episode reward (training reward, scaled) and the
    evaluation reward on held-out seeds (the scenario's reward)."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("Training episode reward (mean of recent episodes)",
                                        "Evaluation reward on held-out seeds"))
    colour = policy_color("ppo")
    for col, df, name in ((1, snapshot.train_reward, "training"),
                          (2, snapshot.eval_reward, "evaluation")):
        fig.add_trace(go.Scatter(x=df["step"].tolist(), y=df["value"].round(3).tolist(),
                                 mode="lines+markers", name=name, showlegend=False,
                                 line={"color": colour, "width": 2.2}, marker={"size": 6},
                                 hovertemplate="step %{x:,}: %{y:.2f}<extra>" + name + "</extra>"),
                      row=1, col=col)
        fig.update_xaxes(title_text="environment steps", range=[0, max(snapshot.timesteps_total, 1)],
                         row=1, col=col)
        fig.update_yaxes(title_text="reward per episode", row=1, col=col)
    apply_layout(fig, height=340)
    return fig
