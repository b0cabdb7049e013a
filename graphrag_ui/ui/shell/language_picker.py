"""The language switch in the sidebar: each language by its own name, its code in the link (``lang=zh``).

Streamlit's URL binding writes the label a select box shows into the link, so a picker that shows
"简体中文" would write ``lang=简体中文`` and break every shared ``lang=zh`` link. This picker keeps the
code in the link itself: it adopts a language the link names (a new link, a reload), and writes the
analyst's choice back (English, the default, leaves the link clean, as a bound widget does).
"""

from __future__ import annotations

import streamlit as st

from graphrag_ui.base.i18n import LANGUAGES, t

KEY = "lang"
_WRITTEN = "_lang_in_link"  # the code this picker last wrote to the link (None: none)


def language_picker() -> str:
    """The picked language's code; the link's ``lang`` follows it."""
    raw = st.query_params.get(KEY)
    written = st.session_state.get(_WRITTEN)
    if raw in LANGUAGES and raw != written:
        st.session_state[KEY] = raw  # the link asks for a language the picker did not write
    elif st.session_state.get(KEY) is None and written in LANGUAGES:
        st.session_state[KEY] = written  # a page switch with its own link (st.switch_page) dropped both
    lang = st.selectbox(
        "Language / 语言",  # in both languages: the reader may not read the current one
        list(LANGUAGES),
        key=KEY,
        format_func=LANGUAGES.__getitem__,
        help=" · ".join(f"{code} = {name}" for code, name in LANGUAGES.items()),  # the codes the link uses
        placeholder=t("Choose an option", st.session_state.get(KEY) or "en"),
    )
    written = None if lang == "en" else lang
    if raw != written:
        if written is None:
            st.query_params.pop(KEY, None)  # an unknown code is dropped too, after its notice (url_notices)
        else:
            st.query_params[KEY] = written
    st.session_state[_WRITTEN] = written
    return lang
