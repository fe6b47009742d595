"""Agent: the trained models on disk, and which one the other pages use."""

import pandas as pd
import streamlit as st
from shared import AGENT_KEY, page_header

from gpusched.catalog import SHIPPED_MODELS_DIR, USER_MODELS_DIR, agent_available, list_models


def _summary(meta: dict) -> dict:
    """The sidecar fields worth a column."""
    evaluation = meta.get("eval") or meta.get("evaluation") or {}
    return {
        "trained on": meta.get("scenario") or meta.get("config", {}).get("scenario", "—"),
        "timesteps": meta.get("timesteps") or meta.get("config", {}).get("timesteps"),
        "eval avg wait (min)": evaluation.get("avg_wait_min") if isinstance(evaluation, dict) else None,
    }


def main() -> None:
    page_header("Agent",
                "The trained MaskablePPO agents in the model folders, what they were trained on, "
                "and which one the other pages use.")
    models = list_models()
    st.markdown(f"Models are read from `{SHIPPED_MODELS_DIR.name}/` under `assets/` (shipped) "
                f"and `{USER_MODELS_DIR.name}/` (your own). Each `.zip` has a sidecar `.json` "
                "with its training settings and evaluation results.")
    st.info("There is no model upload on purpose: a model file is a pickle-backed archive and "
            "can carry code that runs when it is loaded. Put files you trust in `models/` "
            "yourself, or train one.", icon=":material/lock:")
    if not models:
        st.warning("No models found yet. The agent's policy (`ppo`) appears on the other pages "
                   "once a model with its sidecar ships in `assets/models/`.", icon=":material/smart_toy:")
        return
    rows = [{"model": m.name, "origin": m.origin, **_summary(m.meta), "note": m.error or ""}
            for m in models]
    st.dataframe(pd.DataFrame(rows), width="stretch", hide_index=True)
    names = [m.policy_name for m in models]
    current = st.session_state.get(AGENT_KEY)
    choice = st.radio("Use this model on Replay, Compare and Stalls", names,
                      index=names.index(current) if current in names else 0, key="agent_choice")
    if agent_available():
        st.session_state[AGENT_KEY] = choice
    picked = models[names.index(choice)]
    with st.expander(f"Sidecar of `{picked.name}`"):
        st.json(picked.meta or {"note": picked.error})
    if not agent_available():
        st.caption("The `ppo` policy is not registered in this install, so models cannot run yet.")


main()
