"""Settings: which model answers, which embedder a new index uses, and a connection test.

Keys are read from the environment or .streamlit/secrets.toml only and shown masked; nothing typed
here is written to disk.
"""

from __future__ import annotations

import os

import streamlit as st

from graphrag_ui.embed import available_embedders
from graphrag_ui.ui import state
from graphrag_ui.ui.i18n import t, tr
from graphrag_ui.ui.page import open_page

lang, _, _ = open_page("settings", require_index=False)

from graphrag_ui.llm_client.settings import LLMSettings  # noqa: E402

settings = LLMSettings.from_env_and_secrets()
st.subheader(t("llm", lang))
c1, c2 = st.columns(2)
c1.text_input(t("llm_model", lang), value=settings.model or "", disabled=True)
c2.text_input(t("llm_api_base", lang), value=settings.api_base or "", disabled=True)
st.text_input(t("llm_api_key", lang), value=settings.masked_key() or t("llm_no_key", lang), disabled=True)
st.caption(t("llm_howto", lang))
if st.button(t("test_connection", lang), disabled=not settings.configured):
    from graphrag_ui.llm_client.client import test_connection

    with st.spinner(t("calling_model", lang)):
        ok, message = test_connection(settings)
    (st.success if ok else st.error)(tr(message, lang))
st.subheader(t("embedders", lang))
index = st.session_state.get("_index")
if index is not None:
    st.write(t("embedded_with", lang, embedder=index.manifest.embedder, dim=index.manifest.dimension))
st.write(t("embedders_available", lang, names=", ".join(f"`{e}`" for e in available_embedders())))
st.caption(
    t("app_folders", lang, home=state.app_home(), tiktoken=os.environ.get("TIKTOKEN_CACHE_DIR", "?")),
)
