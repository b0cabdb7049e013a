"""A picker whose link holds its option, not its label.

Streamlit's URL binding writes a bound widget's *formatted* label into the link: a translated one in the
Chinese UI ("逐题查看" for the per-question view), a question's whole text for a question picker. Such a
link would depend on the language it was made in. A picker with a ``format_func`` is therefore not bound:
``seed`` gives it the session's choice, else the link's option, else its default, before it draws, and
``sync`` writes the option it shows back into the link.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st


def seed(key: str, options: Sequence[Any], default: Any) -> None:
    """Before the picker ``key`` draws: the session's value, else the link's, else ``default``."""
    current = st.session_state.get(key)
    if current is None:
        current = st.query_params.get(key)
    st.session_state[key] = current if current in options else default


def sync(key: str, value: Any) -> None:
    """After it drew: the link holds the option shown (a link value it did not take is replaced)."""
    text = "" if value is None else str(value)
    if st.query_params.get(key) != text:
        st.query_params[key] = text
