"""gpusched dashboard: the entry point. It builds the navigation; each page is one file in
``views/``. Run with ``streamlit run app/Home.py``.

The page files live in ``views/``, not ``pages/``: Streamlit treats a ``pages/`` folder next to
the entry point as an old-style multipage app, and on a fresh server a first visit to a page's
URL would then run that page alone, without this navigation or the wide layout.
"""

import streamlit as st
from shared import tab_title

from gpusched.paths import FAVICON

# The tab icon is a file of the repository: a material icon there would be fetched from Google.
st.set_page_config(page_icon=str(FAVICON), layout="wide")

PAGES = [
    st.Page("views/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("views/cluster.py", title="Cluster & workload", icon=":material/dns:", url_path="cluster"),
    st.Page("views/agent.py", title="Agent", icon=":material/smart_toy:", url_path="agent"),
    st.Page("views/replay.py", title="Replay", icon=":material/play_circle:", url_path="replay"),
    st.Page("views/compare.py", title="Compare", icon=":material/bar_chart:", url_path="compare"),
    st.Page("views/stalls.py", title="Least-Loaded stalls", icon=":material/traffic:",
            url_path="stalls"),
    st.Page("views/knowledge.py", title="What the scheduler knows", icon=":material/psychology:",
            url_path="knowledge"),
    st.Page("views/traces.py", title="Real traces", icon=":material/dataset:", url_path="traces"),
    st.Page("views/sweeps.py", title="Sweeps", icon=":material/grid_on:", url_path="sweeps"),
]

page = st.navigation(PAGES)
st.set_page_config(page_title=tab_title(page.title))  # each page its own browser-tab title
page.run()
