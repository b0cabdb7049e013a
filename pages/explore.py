"""Explore: one question, one mode, sliders from the mode's schema; answer beside its context."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.ui.answer.answer_view import answer_panel
from graphrag_ui.ui.answer.layout import answer_and_results, layout_picker
from graphrag_ui.ui.results import gold_view, mode_marks
from graphrag_ui.ui.results.change_view import change_bar, remember
from graphrag_ui.ui.results.retrieval_view import (
    empty_state,
    result_tabs,
    run_summary,
    vector_search_note,
    warnings_box,
)
from graphrag_ui.ui.results.threshold_rescue import offer_lower_threshold
from graphrag_ui.ui.shell import state
from graphrag_ui.ui.shell.escape import shown_error
from graphrag_ui.ui.shell.guard import guarded
from graphrag_ui.ui.shell.language import t
from graphrag_ui.ui.shell.page import open_page
from graphrag_ui.ui.shell.runner import timed_retrieve, waiting_note
from graphrag_ui.ui.widgets import mode_form, question, url_notices

index, index_key = open_page("explore")
gold_view.use_gold(index, index_key)  # the loaded question set's gold marks on the grids (Evaluate)
suggested = state.suggested_questions(index_key)


def _use_suggestion() -> None:
    chosen = st.session_state.get("suggestion")
    if chosen:
        st.session_state["q"] = chosen


top = st.columns([3, 1])
with top[1]:
    marks = mode_marks.marks_of(index)  # the import report's readiness: modes that cannot run are marked
    mode, spec = mode_form.pick_mode(index, marks=marks)
    if suggested:
        st.selectbox(
            t("Suggested questions"),
            suggested,
            index=None,
            key="suggestion",
            on_change=_use_suggestion,
            placeholder=t("Choose an option"),
        )
    if state.on_chroma_server(index.path):
        engine = st.selectbox(
            t("Vector search"),
            ["local", "server"],
            key="vectors",
            bind="query-params",
            help=t(
                "This index's vectors are also on a chroma server. local: exact search on this machine "
                "(the default). server: the chroma server searches (approximate HNSW, no vectors loaded "
                "here); its top-k is compared with the exact search when the local copy exists. Same as "
                "the CLI's --vectors.",
            ),
            placeholder=t("Choose an option"),
        )
        if engine == "server":
            try:
                index = state.load_index(index.path, vectors="server")
            except UserError as exc:
                st.error(shown_error(exc))
                st.stop()
with top[0]:
    state.seed_widget("q", suggested[0] if suggested else "")
    question.in_url("q")
    query = st.text_area(t("Question"), key="q", bind="query-params", height=90)


RESULTS = "explore_results"


def _rerun_results() -> None:
    """A parameter's callback: only the results below rerun (the frame, the question and the sidebar stay
    as drawn; Streamlit's own floor is one short rerun, and redrawing 15 widgets was most of ours)."""
    st.rerun(RESULTS)


with st.sidebar:
    answer_layout = layout_picker(wide_answer=bool(spec.stages and spec.stages.wide_answer))
    drawn = mode_form.mode_settings(mode, spec, on_change=_rerun_results)


@st.fragment(key=RESULTS)
@guarded
def run_and_show(index, index_key: str, mode: str, spec, marks, query: str, drawn, answer_layout: str) -> None:
    """Everything drawn from the run: a parameter move reruns only this part (see ``_rerun_results``)."""
    url_notices.read_url_again()  # a rerun of this part alone: the link as it is now (the frame did not run)
    form = mode_form.current(drawn)
    values, hl, ll = form.values, form.hl, form.ll

    # --- links: what the URL asked for that could not be used, one notice each (graphrag_ui/ui/widgets/url_notices.py)
    url_notices.show_url_notices("explore", ("",), state.on_chroma_server(index.path))
    # ---
    if not query.strip():
        st.info(t("Type a question (or pick a suggested one) to see what each mode retrieves."), icon=":material/help:")
        return

    mode_form.warn_unknown(form)
    if values.get("recall") != "ilike" and mode_marks.explain_cannot_run(mode, marks):  # ilike needs no vector
        return
    try:
        with waiting_note(t("Retrieving…")):  # a catalog or chroma server may take up to its timeout
            result = timed_retrieve(index, index_key, mode, query, values, hl, ll)
    except UserError as exc:
        st.error(shown_error(exc))
        return

    # a staged mode's answer panel fills in its result (DRIFT's rounds, a map-reduce's stages): its notes and
    # views wait for it; any other result is final here, drawn in reading order without a block to hold a
    # place (each block is redrawn on every move)
    staged = result.stages is not None or get_mode(result.mode).stages is not None
    notes = st.container() if staged else None
    if not staged:
        warnings_box(result)
    vector_search_note(result)
    empty_state(result, known_cause=mode_marks.has_known_cause(mode, marks))
    offer_lower_threshold(index, index_key, spec, result, values, hl, ll)
    comparison = remember(result, index_key, "main")
    change_bar(result, comparison, "main")
    if not staged and answer_layout == "below":
        result_tabs(index, result, comparison=comparison)
        answer_panel(result, index=index)
    else:
        left, right = answer_and_results(answer_layout)
        with left:
            result = answer_panel(result, index=index)  # a staged mode's result is filled in once its model calls ran
        with right:
            result_tabs(index, result, comparison=comparison)
    if staged:
        with notes:
            warnings_box(result)
    run_summary(result)
    gold_view.gold_line(index, index_key, result)


run_and_show(index, index_key, mode, spec, marks, query, drawn, answer_layout)
