"""Render one ``Retrieval``: tabs of tables, graph, budget, trace and context, with downloads."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.result import KINDS, Retrieval
from graphrag_ui.ui import graph_view, tables
from graphrag_ui.ui.i18n import t


def warnings_box(result: Retrieval) -> None:
    for warning in result.warnings:
        st.warning(warning, icon="⚠️")


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
    spec = graph_view.retrieval_subgraph(index, result)
    if not spec.nodes:
        st.info(t("none", lang))
        return
    if spec.capped:
        st.caption(t("capped", lang, n=len(spec.nodes), total=spec.total))
    html, legend = _graph_html(index, index.path, result.to_json(indent=None), spec)
    st.iframe(html, height=650, tab_index=0, alt="Knowledge graph of the retrieved entities")
    st.caption("★ recalled entity · ● in context / neighbour · ◆ dropped · red edges: relations in the context")
    st.dataframe(legend, hide_index=True, width="stretch", key=f"{key}_legend")
    st.download_button(
        t("download_graph", lang),
        html.encode("utf-8"),
        file_name="retrieval-graph.html",
        mime="text/html",
        key=f"{key}_graph_dl",
    )
    names = spec.nodes
    chosen = st.selectbox(t("node_details", lang), names, key=f"{key}_node")
    node_details(index, chosen, spec.why.get(chosen, ""))


@st.cache_data(max_entries=64, show_spinner=False)
def _graph_html(
    _index: Index, index_path: str, retrieval_json: str, _spec: graph_view.GraphSpec
) -> tuple[str, list[dict]]:
    return graph_view.render(_index, _spec)


def node_details(index: Index, name: str | None, why: str = "") -> None:
    entity = index.entity_by_name.get(name) if name else None
    if entity is None:
        return
    with st.container(border=True):
        st.markdown(f"**{_md(entity.name)}** · `{_md(entity.type)}` · degree {index.graph.degree(entity.name)}")
        if why:
            st.caption(why)
        st.text(entity.description.replace("<SEP>", "\n"))
        if entity.aliases:
            st.caption("aliases: " + ", ".join(entity.aliases))
        st.caption(f"communities: {entity.communities} · chunks: {len(entity.source_chunk_ids)}")


def _md(text: str) -> str:
    """Escape Markdown control characters in short labels."""
    return "".join("\\" + ch if ch in "\\`*_{}[]<>()#+-.!|~" else ch for ch in text)


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
