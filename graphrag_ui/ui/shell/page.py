"""Every page's first line: back into the frame if Streamlit ran the page alone, then its title and index."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.ui.shell.frame import return_to_frame
from graphrag_ui.ui.shell.labels import PAGE_TITLES, label


def open_page(title_key: str, *, require_index: bool = True) -> tuple[Index | None, str]:
    """Every page's start: the title in the UI language, the index the frame opened and its key.

    With ``require_index`` the page stops here when no index could be opened (the frame has already
    said why in the sidebar). A page that Streamlit ran without app.py's frame reruns inside it first.
    """
    return_to_frame()
    index = st.session_state.get("_index")
    st.title(label(PAGE_TITLES, title_key))
    if require_index and index is None:
        st.stop()
    return index, st.session_state.get("_index_key", "")
