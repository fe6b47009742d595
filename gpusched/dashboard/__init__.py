"""Services for the Streamlit dashboard (``app/``) that need no Streamlit: the background worker
for slow runs, and the policies and models the dashboard offers."""
