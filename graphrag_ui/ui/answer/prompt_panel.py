"""The messages a retrieval would send to the model, one block per role (every answer panel shows them)."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.shell.labels import ROLE_LABELS, label
from graphrag_ui.ui.shell.language import t


def prompt_panel(result: Retrieval, key: str = "main") -> None:
    """Collapsed until opened: the prompt holds the whole context, and drawing it on every rerun (a slider
    move) sent it to the browser each time, open or not."""
    with st.expander(t("Prompt"), expanded=False, key=f"{key}_prompt", on_change="rerun") as box:
        if box.open:
            for message in result.messages:
                st.caption(label(ROLE_LABELS, message["role"]))
                st.code(message["content"], language="markdown", wrap_lines=True)
