"""gpusched dashboard entry point (placeholder until the dashboard lands)."""

import streamlit as st

import gpusched

st.set_page_config(page_title="gpusched", layout="wide")
st.title("gpusched — GPU-cluster scheduling lab")
st.write(f"Scenario presets: {', '.join(gpusched.preset_names())}")
