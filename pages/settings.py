"""Settings: which model answers, which embedder a new index uses, and a connection test.

Keys are read from the environment or .streamlit/secrets.toml only and shown masked; nothing typed
here is written to disk.
"""

from __future__ import annotations

import os

import streamlit as st

from graphrag_ui.embedding.embed import available_embedders
from graphrag_ui.ui.shell import state
from graphrag_ui.ui.shell.language import t
from graphrag_ui.ui.shell.page import open_page

_, _ = open_page("settings", require_index=False)

from graphrag_ui.base.redact import redact  # noqa: E402
from graphrag_ui.model_client.settings import LLMSettings  # noqa: E402
from graphrag_ui.ui.shell.escape import md_escape, shown  # noqa: E402

settings = LLMSettings.from_env_and_secrets()
st.subheader(t("LLM"))
c1, c2 = st.columns(2)
c1.text_input(t("model (GRAPHRAG_UI_LLM_MODEL)"), value=settings.model or "", disabled=True)
c2.text_input(t("API base (GRAPHRAG_UI_LLM_API_BASE)"), value=redact(settings.api_base or ""), disabled=True)
st.text_input(t("API key"), value=settings.masked_key() or t("(none found)"), disabled=True)
st.caption(
    t(
        "Set GRAPHRAG_UI_LLM_MODEL (any litellm model name, e.g. openai/gpt-4o-mini, "
        "ollama/llama3, openai/<name> with GRAPHRAG_UI_LLM_API_BASE for a local OpenAI-compatible "
        "server) and the provider's key variable in the environment or .streamlit/secrets.toml, "
        "then restart the app.",
    )
)
if st.button(t("Test connection"), disabled=not settings.configured):
    from graphrag_ui.model_client.client import test_connection

    with st.spinner(t("Calling the model…")):
        ok, message = test_connection(settings)
    (st.success if ok else st.error)(shown(message))
st.subheader(t("Embedders"))
index = st.session_state.get("_index")
if index is not None:
    st.write(
        t(
            "This index was embedded with **{embedder}** ({dim} dimensions).",
            embedder=md_escape(index.manifest.embedder),
            dim=index.manifest.dimension,
        )
    )
st.write(t("Available: {names}", names=", ".join(f"`{e}`" for e in available_embedders())))
st.caption(
    t(
        "App data folder: {home} · offline tokenizer cache: {tiktoken}",
        home=state.app_home(),
        tiktoken=os.environ.get("TIKTOKEN_CACHE_DIR", "?"),
    ),
)
