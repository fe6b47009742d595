"""gpusched dashboard: the entry point. It builds the navigation; each page is one file in
``pages/``. Run with ``streamlit run app/Home.py``."""

import streamlit as st

st.set_page_config(page_title="gpusched · GPU scheduling lab", page_icon="🧮", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon="🏠", default=True),
    st.Page("pages/cluster.py", title="Cluster & workload", icon="🖥️", url_path="cluster"),
    st.Page("pages/agent.py", title="Agent", icon="🤖", url_path="agent"),
    st.Page("pages/replay.py", title="Replay", icon="▶️", url_path="replay"),
    st.Page("pages/compare.py", title="Compare", icon="📊", url_path="compare"),
    st.Page("pages/stalls.py", title="Least-Loaded stalls", icon="🚧", url_path="stalls"),
]

st.navigation(PAGES).run()
