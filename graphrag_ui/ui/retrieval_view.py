"""Render one ``Retrieval``: tabs of tables, graph, budget, trace and context, with downloads."""

from __future__ import annotations

import hashlib

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.result import KINDS, Retrieval
from graphrag_ui.ui import graph_view, tables
from graphrag_ui.ui.graph_panel import show_graph
from graphrag_ui.ui.i18n import t


def warnings_box(result: Retrieval) -> None:
    for warning in result.warnings:
        st.warning(warning, icon="⚠️")


def empty_state(result: Retrieval, lang: str) -> bool:
    """One clear line when a mode put nothing into its context (the dropped rows still explain why)."""
    if any(kept for kept, _ in tables.counts(result).values()):
        return False
    st.info(t("empty_result", lang, mode=result.mode), icon=":material/search_off:")
    return True


def kind_table(result: Retrieval, kind: str, lang: str, key: str) -> None:
    kept, dropped = tables.split_tables(result, kind)
    st.caption(f"{t('in_context', lang)}: {len(kept)}")
    if kept.empty:
        st.info(t("none", lang))
    else:
        st.dataframe(kept, hide_index=True, width="stretch", key=f"{key}_{kind}_kept")
    if not dropped.empty:
        st.caption(f"{t('dropped', lang)}: {len(dropped)}")
        st.dataframe(dropped, hide_index=True, width="stretch", key=f"{key}_{kind}_dropped")
    both = tables.candidate_rows(kind, result.candidates(kind))
    st.download_button(
        t("download_csv", lang),
        both.to_csv(index=False).encode("utf-8"),
        file_name=f"{kind}.csv",
        mime="text/csv",
        key=f"{key}_{kind}_csv",
    )


def budget_chart(result: Retrieval, lang: str) -> None:
    frame = tables.budget_frame(result)
    if frame.empty:
        st.info(t("none", lang))
        return
    st.bar_chart(frame.set_index("section")[["used", "headroom"]], horizontal=True, stack=True)
    st.dataframe(frame, hide_index=True, width="stretch")


def graph_panel(index: Index, result: Retrieval, lang: str, key: str) -> None:
    """The retrieved subgraph inside its 1-hop neighbourhood; standalone pyvis view by default here."""
    spec = graph_view.retrieval_subgraph(index, result)
    cache_key = hashlib.sha1(result.to_json(indent=None).encode("utf-8")).hexdigest()
    show_graph(
        index,
        spec,
        lang,
        key=key,
        cache_key=cache_key,
        default_view="standalone",
        side_by_side=False,
        file_name="retrieval-graph.html",
    )


def context_panel(result: Retrieval, lang: str, key: str) -> None:
    st.code(result.context or "", language=None, wrap_lines=True)
    c1, c2 = st.columns(2)
    c1.download_button(
        t("download_context", lang),
        result.context.encode("utf-8"),
        file_name="context.txt",
        mime="text/plain",
        key=f"{key}_ctx_dl",
    )
    c2.download_button(
        t("download_json", lang),
        result.to_json().encode("utf-8"),
        file_name="retrieval.json",
        mime="application/json",
        key=f"{key}_json_dl",
    )


def result_tabs(index: Index, result: Retrieval, lang: str, key: str = "main") -> None:
    counts = tables.counts(result)
    labels = [f"{t(kind, lang)} ({counts[kind][0]})" for kind in KINDS]
    labels += [t("graph", lang), t("budget", lang), t("trace", lang), t("context", lang)]
    tabs = st.tabs(labels, key=f"{key}_tabs", on_change="rerun")
    for tab, kind in zip(tabs[:4], KINDS, strict=True):
        with tab:
            if tab.open:
                kind_table(result, kind, lang, key)
    with tabs[4]:
        if tabs[4].open:
            graph_panel(index, result, lang, key)
    with tabs[5]:
        if tabs[5].open:
            budget_chart(result, lang)
    with tabs[6]:
        if tabs[6].open:
            st.dataframe(tables.trace_frame(result), hide_index=True, width="stretch")
            st.caption(", ".join(f"{k}: {v:.1f} ms" for k, v in result.timings_ms.items()))
    with tabs[7]:
        if tabs[7].open:
            context_panel(result, lang, key)
