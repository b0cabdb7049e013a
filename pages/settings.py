"""Settings: which model answers, which embedder a new index uses, and a connection test.

Keys are read from the environment or .streamlit/secrets.toml only and shown masked; nothing typed
here is written to disk.
"""

from __future__ import annotations

import os

import streamlit as st

from graphrag_ui.embed import available_embedders
from graphrag_ui.ui import state

lang, _, _ = state.open_page("settings", require_index=False)

from graphrag_ui.llm.settings import LLMSettings  # noqa: E402

settings = LLMSettings.from_env_and_secrets()
st.subheader("LLM")
c1, c2 = st.columns(2)
c1.text_input("model (GRAPHRAG_UI_LLM_MODEL)", value=settings.model or "", disabled=True)
c2.text_input("API base (GRAPHRAG_UI_LLM_API_BASE)", value=settings.api_base or "", disabled=True)
st.text_input("API key", value=settings.masked_key() or "(none found)", disabled=True)
st.caption(
    "Set GRAPHRAG_UI_LLM_MODEL (any litellm model name, e.g. openai/gpt-4o-mini, ollama/llama3, "
    "openai/<name> with GRAPHRAG_UI_LLM_API_BASE for a local OpenAI-compatible server) and the provider's "
    "key variable in the environment or .streamlit/secrets.toml, then restart the app."
)
if st.button("Test connection", disabled=not settings.configured):
    from graphrag_ui.llm.client import test_connection

    with st.spinner("Calling the model…"):
        ok, message = test_connection(settings)
    (st.success if ok else st.error)(message)
st.subheader("Embedders")
index = st.session_state.get("_index")
if index is not None:
    st.write(f"This index was embedded with **{index.manifest.embedder}** ({index.manifest.dimension} dimensions).")
st.write("Available: " + ", ".join(f"`{e}`" for e in available_embedders()))
st.caption(
    f"App data folder: {state.app_home()} · offline tokenizer cache: {os.environ.get('TIKTOKEN_CACHE_DIR', '?')}"
)
