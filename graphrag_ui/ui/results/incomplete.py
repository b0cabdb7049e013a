"""An answer that arrived only in part (its stream broke, or the model hit its length limit): the text
shown with a notice saying so, and a Retry button. Shared by the plain and the map-reduce answer panels."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.ui.shell.escape import md_escape, shown
from graphrag_ui.ui.shell.language import t


def incomplete_notice(reply, retry_key: str) -> None:
    """A cut answer (stream broken, or the model's length limit): its text, a notice and a retry button."""
    if reply.text:
        st.markdown(md_escape(reply.text, formatting=True))
    if reply.error_kind == "length":
        notice = t(
            "Incomplete answer: the model stopped at its length limit, so the text above is cut short and was "
            "not cached. ({error})",
            error=shown(reply.error),
        )
    else:
        notice = t(
            "Incomplete answer: the stream stopped before the model finished, so the text above is cut "
            "short and was not cached. ({error})",
            error=shown(reply.error),
        )
    st.warning(notice, icon=":material/warning:")
    st.button(t("Retry"), key=retry_key + "_button", on_click=st.session_state.__setitem__, args=(retry_key, True))
