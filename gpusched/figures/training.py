"""Training curves: the mean training episode reward and the evaluation reward against
environment steps."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gpusched.agent import AGENT_POLICY
from gpusched.agent.training_job import TrainingSnapshot
from gpusched.figures.style import apply_layout, policy_color


def training_curves_figure(snapshot: TrainingSnapshot) -> go.Figure:
    """Three panels on one steps axis: training episode reward (training reward, scaled), and on
    the held-out evaluation seeds the average wait (minutes) and the training reward."""
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.08,
                        subplot_titles=("Training episode reward",
                                        "Evaluation: average wait (min)",
                                        "Evaluation reward (training reward)"))
    colour = policy_color(AGENT_POLICY)
    panels = ((1, snapshot.train_reward, "training", "reward per episode"),
              (2, snapshot.eval_wait_min, "evaluation wait", "average wait (min)"),
              (3, snapshot.eval_reward, "evaluation", "reward per episode"))
    last = max([snapshot.timesteps_total, *(int(df["step"].max()) for _, df, _, _ in panels if len(df))])
    for col, df, name, y_title in panels:
        fig.add_trace(go.Scatter(x=df["step"].tolist(), y=df["value"].round(3).tolist(),
                                 mode="lines+markers", name=name, showlegend=False,
                                 line={"color": colour, "width": 2.2}, marker={"size": 6},
                                 hovertemplate="step %{x:,}: %{y:.2f}<extra>" + name + "</extra>"),
                      row=1, col=col)
        fig.update_xaxes(title_text="environment steps", range=[0, max(last, 1) * 1.03], row=1, col=col)
        fig.update_yaxes(title_text=y_title, row=1, col=col)
    apply_layout(fig, height=340)
    if not any(len(df) for _, df, _, _ in panels) and snapshot.stage and not snapshot.in_ppo:
        fig.add_annotation(text=f"The curves start with the PPO steps; first: {snapshot.stage}.",
                           x=0.5, xref="paper", y=0.5, yref="paper", showarrow=False,
                           font={"size": 13, "color": "#4B5563"})
    return fig


def has_curves(snapshot: TrainingSnapshot) -> bool:
    """Whether the run has logged a point of any training curve yet (during the warm start and
    before the first PPO rollout it has none, and the page says what runs instead of drawing three
    empty panels)."""
    return any(len(df) for df in (snapshot.train_reward, snapshot.eval_wait_min, snapshot.eval_reward))


def expert_rounds_figure(snapshot: TrainingSnapshot) -> go.Figure:
    """Expert iteration's validation score after each round (round 0: the warm start), on the
    held-out evaluation seeds: the greedy network's mean job completion time (minutes)."""
    df = snapshot.expert_rounds
    fig = go.Figure(go.Scatter(
        x=df["round"].tolist(), y=df["score"].round(2).tolist(), mode="lines+markers",
        line={"color": policy_color(AGENT_POLICY), "width": 2.2}, marker={"size": 8}, showlegend=False,
        hovertemplate="round %{x}: %{y:.1f} min<extra>validation</extra>"))
    apply_layout(fig, title="Expert iteration: average JCT on the evaluation seeds after each round",
                 height=300)
    fig.update_xaxes(title_text="round (0: before expert iteration)", dtick=1,
                     range=[-0.3, max(snapshot.expert_total, 1) + 0.3])
    fig.update_yaxes(title_text="average JCT (min)")
    return fig


def progress_line(snapshot: TrainingSnapshot, label: str) -> str:
    """The progress bar's text: the PPO steps once they run, else the stage in words, and the
    seconds since the start (``label``: the status in words, ``Training``)."""
    seconds = f"{snapshot.elapsed_s:,.0f} s"
    if snapshot.status == "done":
        done = snapshot.timesteps_done
        rounded = (f" (the {snapshot.timesteps_total:,} asked, rounded up to whole rollouts of "
                   "steps per env × envs)" if done > snapshot.timesteps_total else "")
        return f"{label}: {done:,} steps{rounded} · {seconds}"
    if snapshot.in_ppo and not snapshot.stage.startswith("evaluating"):
        return (f"{label}: reinforcement learning, {snapshot.timesteps_done:,} / "
                f"{snapshot.timesteps_total:,} steps · {seconds}")
    stage = snapshot.stage or "starting"
    return f"{label}: {stage} · {seconds}"
