"""The messages a retrieval would send to the model, one block per role (every answer panel shows them)."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.i18n import t


def prompt_panel(result: Retrieval, lang: str) -> None:
    with st.expander(t("prompt", lang), expanded=False):
        for message in result.messages:
            st.caption(t(f"role_{message['role']}", lang))
            st.code(message["content"], language="markdown", wrap_lines=True)
