"""The messages a retrieval would send to the model, one block per role (every answer panel shows them)."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.i18n import t
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.labels import ROLE_LABELS, label


def prompt_panel(result: Retrieval, lang: str) -> None:
    with st.expander(t("Prompt", lang), expanded=False):
        for message in result.messages:
            st.caption(label(ROLE_LABELS, message["role"], lang))
            st.code(message["content"], language="markdown", wrap_lines=True)
