"""GraphRAG Retrieval Explorer — entry point: page frame, language, index picker, navigation.

Every page runs inside ``run_guarded``: an unexpected error becomes one st.error line, never a
traceback on the page.
"""

from __future__ import annotations

import streamlit as st

import graphrag_ui  # noqa: F401  (offline environment first)
from graphrag_ui.ui import state
from graphrag_ui.ui.guard import run_guarded
from graphrag_ui.ui.i18n import t

st.set_page_config(page_title="GraphRAG Retrieval Explorer", page_icon="🕸️", layout="wide")

lang, index, index_key = state.sidebar_frame()
st.session_state["_index"] = index
st.session_state["_index_key"] = index_key

pages = [
    st.Page(
        "app_pages/explore.py", title=t("explore", lang), icon=":material/search:", url_path="explore", default=True
    ),
    st.Page("app_pages/compare.py", title=t("compare", lang), icon=":material/compare_arrows:", url_path="compare"),
    st.Page("app_pages/recall.py", title=t("recall", lang), icon=":material/target:", url_path="recall"),
    st.Page("app_pages/graph.py", title=t("graph", lang), icon=":material/hub:", url_path="graph"),
    st.Page("app_pages/index.py", title=t("index", lang), icon=":material/database:", url_path="index"),
    st.Page("app_pages/settings.py", title=t("settings", lang), icon=":material/settings:", url_path="settings"),
]
page = st.navigation(pages, position="sidebar")
run_guarded(page.run, lang)
