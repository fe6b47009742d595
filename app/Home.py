"""gpusched dashboard: the entry point. It builds the navigation; each page is one file in
``pages/``. Run with ``streamlit run app/Home.py``."""

from pathlib import Path

import streamlit as st

st.set_page_config(page_title="gpusched · GPU scheduling lab", page_icon=":material/memory:",
                   layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/cluster.py", title="Cluster & workload", icon=":material/dns:", url_path="cluster"),
    st.Page("pages/agent.py", title="Agent", icon=":material/smart_toy:", url_path="agent"),
    st.Page("pages/replay.py", title="Replay", icon=":material/play_circle:", url_path="replay"),
    st.Page("pages/compare.py", title="Compare", icon=":material/bar_chart:", url_path="compare"),
    st.Page("pages/stalls.py", title="Least-Loaded stalls", icon=":material/traffic:",
            url_path="stalls"),
]
# Pages that ship with optional parts of the lab appear when their file is present.
if (Path(__file__).parent / "pages" / "sweeps.py").is_file():
    PAGES.append(st.Page("pages/sweeps.py", title="Sweeps", icon=":material/grid_on:",
                         url_path="sweeps"))

st.navigation(PAGES).run()
