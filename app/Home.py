"""gpusched dashboard: the entry point. It builds the navigation; each page is one file in
``views/``. Run with ``streamlit run app/Home.py``.

The page files live in ``views/``, not ``pages/``: Streamlit treats a ``pages/`` folder next to
the entry point as an old-style multipage app, and on a fresh server a first visit to a page's
URL would then run that page alone, without this navigation or the wide layout.
"""

import streamlit as st
from shared import tab_title

from gpusched.dashboard.pages import PAGES as PAGE_SPECS
from gpusched.paths import FAVICON

# The tab icon is a file of the repository: a material icon there would be fetched from Google.
st.set_page_config(page_icon=str(FAVICON), layout="wide")

# The one page list (gpusched.dashboard.pages): Home links every page from it too.
PAGES = [st.Page(p.file, title=p.title, icon=p.icon, url_path=p.url_path or None, default=p.name == "home")
         for p in PAGE_SPECS]

page = st.navigation(PAGES)
st.set_page_config(page_title=tab_title(page.title))  # each page its own browser-tab title
page.run()
