"""Agent: the trained models on disk, which one the other pages use, and training a new one."""

import pandas as pd
import streamlit as st
from shared import (
    AGENT_KEY,
    available_policies,
    background_ready,
    best_heuristic_now,
    cached_compare,
    current_scenario,
    metric_columns,
    page_header,
    show_chart,
    url_value,
)

from gpusched import preset_names
from gpusched.agent import AGENT_POLICY, ROLLOUT_AGENT_POLICY
from gpusched.agent.models import list_models
from gpusched.agent.names import URGENCY_AGENT_POLICY
from gpusched.agent.plugin import shipped_model_for
from gpusched.dashboard.headline import AGENT_NAMES, LIVE_SEEDS, SHIPPED_SOURCE, ShippedResults, shipped_for
from gpusched.dashboard.policies import training_available
from gpusched.dashboard.rule_models import rule_model_rows
from gpusched.dashboard.url_state import UrlChoice
from gpusched.errors import GpuschedError
from gpusched.figures.models import AGENT_KINDS, evaluation_table, model_summary
from gpusched.figures.same_jobs import agents_table, identity_notes
from gpusched.limits import MAX_WINDOW
from gpusched.paths import DEFAULT_MODEL, SHIPPED_MODELS_DIR, URGENCY_MODEL, USER_MODELS_DIR, WINDOW_MODEL
from gpusched.policies import policy_label
from gpusched.words.glossary import glossary_line

JOB_KEY = "training_job"
SEEN_KEY = "training_seen_finished"
POLL_S = 1.0  # how often the progress panel refreshes while a run is going (seconds)
SHIPPED_CHOICE = (f"The shipped agents: {WINDOW_MODEL.stem} on a queue window, "
                  f"{DEFAULT_MODEL.stem} on a strict queue")
VALUES_KEY = "training_form_values"  # session state: the last form sent, shown again after training


@st.cache_resource(show_spinner=False)
def _can_train() -> bool:
    return training_available()


def _models_section() -> None:
    models = list_models()
    st.markdown(f"Models are read from `assets/{SHIPPED_MODELS_DIR.name}/` (shipped) and "
                f"`{USER_MODELS_DIR.name}/` (yours). Each `.zip` has a record beside it (a `.json` "
                "of the same name) with its training settings and evaluation results.")
    st.info("There is no model upload on purpose: a model file can carry code that runs when "
            "it is loaded. Models are only read from the two "
            "folders above, checked against the checksum in their record, and loaded as plain "
            "weights. Put files you trust in `models/` yourself, or train one below.",
            icon=":material/lock:")
    if not models:
        st.warning("No models yet. The agent (`ppo`) joins the other pages once its model ships "
                   "in `assets/models/`, or once you train one below.", icon=":material/smart_toy:")
        return
    rows = [{"model": m.name, "origin": m.origin, **model_summary(m.meta, m.windowed), "note": m.error or ""}
            for m in models]
    table = pd.DataFrame(rows)
    st.caption("Evaluation numbers come from each model's record: its own held-out seeds; each "
               f"minute row is a mean over them. {glossary_line('time to result (JCT)')} "
               f"Queue windows: {glossary_line('queue window')}")
    # one column per model: the many fields stay inside the page instead of running off its edge
    st.dataframe(table.set_index("model").T, width="stretch")
    shipped = AGENT_POLICY in available_policies()
    names = [*([AGENT_POLICY] if shipped else []), *(m.policy_name for m in models)]
    current = st.session_state.get(AGENT_KEY, AGENT_POLICY)
    opened = url_value(UrlChoice("policy", current if current in names else names[0], names), "agent_choice")
    choice = st.radio("Model the other pages run", names, index=names.index(opened), key="agent_choice",
                      format_func=lambda n: SHIPPED_CHOICE if n == AGENT_POLICY else policy_label(n),
                      help="The agent Replay, Compare and Least-Loaded stalls run as PPO agent.")
    if choice == AGENT_POLICY:
        st.session_state.pop(AGENT_KEY, None)  # the registry's ``ppo``: the shipped models
    else:
        st.session_state[AGENT_KEY] = choice
    shown = ([m for m in models if m.origin == "shipped"] if choice == AGENT_POLICY
             else [m for m in models if m.policy_name == choice])
    for picked in shown:
        with st.expander(f"Training record of `{picked.name}`"):
            st.json(picked.meta or {"note": picked.error})


def _rule_models_section() -> None:
    rows = rule_model_rows()
    if not rows:
        return
    st.subheader("Built on a rule")
    st.caption("These do not replace a rule: each improves one. Run them by the name in the first "
               "column (in `models/tuned/` or `models/inspect/` for your own). Trained with "
               "`python benchmarks/tune_rule.py` and `python benchmarks/train_inspector.py`.")
    for row in rows:  # one line each: the long words fit any width, where a table would scroll
        trained = f"; trained on {row['trained on']}" if row["trained on"] else ""
        st.markdown(f"- **`{row['model']}`**: {row['what it is']}, {row['built on']}{trained} "
                    f"({row['origin']})")
        if row["note"]:
            st.warning(f"`{row['model']}`: {row['note']}", icon=":material/block:")


def _same_seeds_section() -> None:
    """Every listed model and the best heuristic on the current scenario's jobs, same seeds."""
    models = [m.policy_name for m in list_models() if not m.error]
    agents = list(dict.fromkeys([*([AGENT_POLICY] if AGENT_POLICY in available_policies() else []),
                                 *models]))
    if not agents:
        return
    scenario = current_scenario()
    text, seeds = scenario.to_yaml(), LIVE_SEEDS
    st.subheader("Every model against the best heuristic, on the same jobs")
    shipped = shipped_for(text)
    if shipped is not None and not st.session_state.get(LIVE_KEY):
        _shipped_agents(scenario.name, shipped, scenario.window)
        return
    try:
        found = best_heuristic_now(text)
    except GpuschedError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    if found is None:
        return
    best = found[0]
    st.caption(f"On `{scenario.name}` (change it on *Cluster & workload*), workload seeds "
               f"{', '.join(map(str, seeds))}: every model and {policy_label(best)}, the best "
               "heuristic here by time to result, run on exactly the same jobs. The evaluations in "
               "the table above come from each model's record, on its own held-out seeds and "
               "training scenario, so their numbers differ from these.")
    policies = (best, *agents)
    if not background_ready(text, policies, seeds):
        return
    try:
        comparison = cached_compare(text, policies, seeds)
    except GpuschedError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    table = agents_table(comparison, best, agents, which=_which(scenario.window))
    st.dataframe(table, width="stretch", hide_index=True, column_config=metric_columns(table.columns))
    for note in identity_notes(comparison, scenario.window):
        st.caption(note)


LIVE_KEY = "agent_same_seeds_live"  # session state: run every model live on this scenario


def _which(window: int) -> dict[str, str]:
    """The model file each shipped agent name runs on a scenario with this queue window."""
    shipped = shipped_model_for(window).stem
    return {AGENT_POLICY: shipped, ROLLOUT_AGENT_POLICY: shipped, URGENCY_AGENT_POLICY: URGENCY_MODEL.stem}


def _shipped_agents(name: str, shipped: ShippedResults, window: int) -> None:
    """The shipped agents and the best heuristic on a shipped preset, at once, with a button that
    runs every listed model live instead."""
    agents = [p for p in shipped.policies if p.split(":")[0] in AGENT_NAMES]
    seeds = ", ".join(map(str, shipped.seeds))
    st.caption(f"On `{name}` (change it on *Cluster & workload*), workload seeds {seeds}: the shipped "
               f"agents and {policy_label(shipped.best)}, the best heuristic here by time to result, "
               f"on exactly the same jobs, from the shipped results (`{SHIPPED_SOURCE}`, checked by a "
               "test that runs them again). The evaluations in the table above come from each "
               "model's sidecar, on its own held-out seeds and training scenario, so their numbers "
               "differ from these.")
    table = agents_table(shipped.subset([shipped.best, *agents]), shipped.best, agents, which=_which(window))
    st.dataframe(table, width="stretch", hide_index=True, column_config=metric_columns(table.columns))
    shown = {_which(window).get(p) or p.split("/")[-1].removesuffix(".zip") for p in agents}
    missing = [m.name for m in list_models() if m.origin == "shipped" and not m.error and m.name not in shown]
    if missing:
        st.caption(f"Not in the shipped results of `{name}`: {', '.join(f'`{m}`' for m in missing)} "
                   "(each shipped model's own preset is in the table above, *trained on*); the "
                   "button below runs every listed model here, on the same jobs.")
    if st.button(f"Run every listed model live (seeds {', '.join(map(str, LIVE_SEEDS))})",
                 key="agent_run_live", icon=":material/refresh:"):
        st.session_state[LIVE_KEY] = True
        st.rerun()


def _start_training(values: dict) -> None:
    from gpusched.agent.training_job import TrainingJob, page_config

    job = TrainingJob(page_config(**{k: v for k, v in values.items()}))
    job.start()
    st.session_state[JOB_KEY] = job
    st.session_state[SEEN_KEY] = False


def _training_form() -> None:
    """The training form, filled with the last settings sent (the form is hidden while a run
    trains, and would otherwise open on its defaults again)."""
    last = st.session_state.get(VALUES_KEY, {})
    with st.form("train_form", border=True):
        c = st.columns(4)
        values = {
            "name": c[0].text_input("Model name", last.get("name", "my-ppo"), key="train_name",
                                    help="Saved as models/NAME.zip with its record (NAME.json)."),
            "scenario": c[1].selectbox("Train on", preset_names(),
                                       index=preset_names().index(last.get("scenario", "phase1-8gpu")),
                                       key="train_scenario"),
            "timesteps": c[2].number_input("Timesteps", min_value=1_000, max_value=2_000_000,
                                           value=last.get("timesteps", 20_000), step=5_000,
                                           key="train_timesteps",
                                           help="Environment steps (scheduling decisions)."),
            "n_envs": c[3].number_input("Parallel envs (n_envs)", min_value=1, max_value=16,
                                        value=last.get("n_envs", 2), step=1, key="train_n_envs"),
        }
        h = st.columns(5)
        values.update(
            learning_rate=h[0].number_input("Learning rate", min_value=1e-6, max_value=1e-2,
                                            value=last.get("learning_rate", 1e-4), format="%.0e",
                                            key="train_lr"),
            n_steps=h[1].number_input("Rollout steps per env", min_value=64, max_value=4096,
                                      value=last.get("n_steps", 512), step=64, key="train_n_steps"),
            ent_coef=h[2].number_input("Entropy bonus", min_value=0.0, max_value=0.1,
                                       value=last.get("ent_coef", 0.003), format="%.3f", key="train_ent"),
            hidden=h[3].number_input("Hidden width", min_value=16, max_value=512,
                                     value=last.get("hidden", 64), step=16,
                                     key="train_hidden"),
            seed=h[4].number_input("Seed", min_value=0, value=last.get("seed", 0), step=1, key="train_seed"),
        )
        values["randomize"] = st.checkbox(
            "Randomised clusters (half the episodes on random clusters and job mixes)",
            value=last.get("randomize", False), key="train_randomize")
        w = st.columns([2, 2, 1])
        values["kind"] = w[0].radio(
            "The agent chooses", list(AGENT_KINDS), format_func=AGENT_KINDS.get, horizontal=True,
            index=list(AGENT_KINDS).index(last.get("kind", next(iter(AGENT_KINDS)))),
            key="train_kind", help="A window agent picks which of the first N queued jobs starts and "
                                   "where; a placement agent places the oldest job only.")
        values["windows"] = w[1].slider("Queue windows of the episodes", 1, MAX_WINDOW,
                                        last.get("windows", (1, 16)),
                                        key="train_windows",
                                        help="Each episode draws its window in this range.")
        values["speed_sigma"] = w[2].number_input(
            "Speed randomisation (σ)", min_value=0.0, max_value=1.0, value=last.get("speed_sigma", 0.2),
            step=0.05,
            key="train_speed_sigma",
            help="On random clusters, each GPU model's speeds are the shipped ones times exp(σ·Z).")
        values["expert_rounds"] = st.number_input(
            "Expert-iteration rounds (window agent)", min_value=0, max_value=20,
            value=last.get("expert_rounds", 0), step=1,
            key="train_expert_rounds",
            help="After the warm start: the network schedules 4 episodes, the agent with rollouts "
                 "(scored by time to result) labels every decision, and the network learns the "
                 "labels; the best round on the evaluation seeds is kept.")
        if st.form_submit_button("Start training", type="primary", icon=":material/model_training:"):
            running = st.session_state.get(JOB_KEY)
            if running is None or running.snapshot().finished:
                st.session_state[VALUES_KEY] = values
                _start_training(values)
                st.rerun()  # hide the form and start polling


def _progress_panel() -> None:
    from gpusched.figures import expert_rounds_figure, training_curves_figure
    from gpusched.figures.training import has_curves, progress_line

    job = st.session_state.get(JOB_KEY)
    snap = job.snapshot()
    label = {"starting": "Starting…", "running": "Training", "done": "Finished",
             "stopped": "Stopped", "failed": "Failed"}[snap.status]
    if snap.status == "stopped" and not (len(snap.train_reward) or len(snap.eval_reward)):
        st.caption("Stopped before the first PPO steps were logged, so there is no curve yet.")
    top = st.columns([4, 1])
    top[0].progress(snap.stage_fraction, text=progress_line(snap, label))
    if not snap.finished and top[1].button("Stop", icon=":material/stop_circle:", key="train_stop",
                                           width="stretch"):
        job.stop()
        snap = job.snapshot()
    if snap.expert_total and len(snap.expert_rounds):
        show_chart(expert_rounds_figure(snap), key="train_expert_curve")
    if has_curves(snap):
        show_chart(training_curves_figure(snap), key="train_curves")
    elif not snap.finished:
        st.caption(f"Now: {snap.stage or 'starting'}. The reward and evaluation curves appear here with "
                   "the first PPO steps.")
    if snap.log_tail:
        st.code("\n".join(snap.log_tail), language=None)
    if snap.status == "done":
        st.success(f"Saved `{snap.model_path.name}` and its record in `models/`. Pick it above.",
                   icon=":material/check_circle:")
        meta = next((m.meta for m in list_models() if m.path == snap.model_path), {})
        evaluation = (meta.get("eval") or {}).get("avg")
        if evaluation:
            st.markdown("Evaluation on the held-out seeds (mean over seeds):")
            table = evaluation_table(evaluation)
            st.dataframe(table, width="stretch", column_config=metric_columns(table.columns))
    elif snap.status == "failed":
        st.error("Training failed; the last lines of its log are above.", icon=":material/error:")
    if snap.finished and not st.session_state.get(SEEN_KEY):
        st.session_state[SEEN_KEY] = True
        st.rerun(scope="app")  # refresh the model list and stop polling


def main() -> None:
    page_header("Agent",
                "The agents trained by reinforcement learning (PPO) in the model folders, what "
                "they were trained on, and training a new one.")
    _models_section()
    _rule_models_section()
    _same_seeds_section()

    st.subheader("Train a new agent")
    if not _can_train():
        st.warning("Training needs the agent's dependencies (torch, stable-baselines3, "
                   "sb3-contrib): `pip install -r requirements.txt`.", icon=":material/warning:")
        return
    job = st.session_state.get(JOB_KEY)
    running = job is not None and not job.snapshot().finished
    if running:
        st.caption("Training runs in a background process; this panel refreshes every second "
                   "and the rest of the dashboard stays usable.")
    else:
        _training_form()
    if st.session_state.get(JOB_KEY) is not None:
        st.fragment(_progress_panel, run_every=POLL_S if running or
                    not st.session_state.get(SEEN_KEY) else None)()


main()
