"""GraphRAG Retrieval Explorer — entry point: page frame, language, index picker, navigation."""

from __future__ import annotations

import streamlit as st

import graphrag_ui  # noqa: F401  (offline environment first)
from graphrag_ui.ui import state
from graphrag_ui.ui.i18n import t

st.set_page_config(page_title="GraphRAG Retrieval Explorer", page_icon="🕸️", layout="wide")

lang, index, index_key = state.sidebar_frame()
st.session_state["_index"] = index
st.session_state["_index_key"] = index_key

pages = [
    st.Page("pages/explore.py", title=t("explore", lang), icon="🔎", url_path="explore", default=True),
    st.Page("pages/compare.py", title=t("compare", lang), icon="⚖️", url_path="compare"),
    st.Page("pages/recall.py", title=t("recall", lang), icon="🎯", url_path="recall"),
    st.Page("pages/graph.py", title=t("graph", lang), icon="🕸️", url_path="graph"),
    st.Page("pages/index.py", title=t("index", lang), icon="🗂️", url_path="index"),
    st.Page("pages/settings.py", title=t("settings", lang), icon="⚙️", url_path="settings"),
]
st.navigation(pages, position="sidebar").run()
