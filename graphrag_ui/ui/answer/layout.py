"""Where Explore puts the answer: beside the results only when there is an answer to read.

Without a model the answer panel holds the prompt that would be sent; beside the results it took a third
of the width and left the grids ~600 px (score, rank, tokens and document cut at 1280×800). So the
results take the full width and the answer panel follows below them, unless a model is configured or
the analyst chooses otherwise; the choice is a URL-bound widget (``layout=beside|below``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import streamlit as st

from graphrag_ui.ui.answer.stages_view import model_configured
from graphrag_ui.ui.shell.labels import LAYOUTS, label
from graphrag_ui.ui.shell.language import in_this_language, t

KEY = "layout"
CHOICES = ("beside", "below")


def layout_picker(wide_answer: bool = False) -> str:
    """The sidebar's choice; its default: beside with a model, below without one or when the answer panel
    holds tables of its own (``wide_answer``: DRIFT's question tree and each question's local retrieval)."""
    default = "beside" if model_configured() and not wide_answer else "below"
    chosen = st.radio(  # not a button group: the result views' switch is the page's one
        t("Answer"),
        CHOICES,
        index=CHOICES.index(default),
        horizontal=True,
        key=KEY,
        bind="query-params",
        format_func=in_this_language(lambda v: label(LAYOUTS, v)),
        help=t("Beside the results, or below them (the results then take the whole width)."),
    )
    return chosen or default


def answer_and_results(layout: str) -> tuple[AbstractContextManager, AbstractContextManager]:
    """(where the answer goes, where the results go), drawn in reading order for ``layout``."""
    if layout == "beside":
        left, right = st.columns([1, 2], gap="medium")
        return left, right
    results = st.container()
    answer = st.container()
    return answer, results
