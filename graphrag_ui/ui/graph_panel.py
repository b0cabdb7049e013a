"""One graph panel for every page: interactive (click → details) or standalone pyvis page, legend, download.

Both views are drawn from the same ``graph_view.elements``; the details panel shows the clicked (or
picked) node: type, description, why it was selected, its communities and its source chunks.
"""

from __future__ import annotations

import streamlit as st

from graphrag_ui.i18n import t
from graphrag_ui.index.model import Index
from graphrag_ui.ui import graph_view
from graphrag_ui.ui.escape import md_escape
from graphrag_ui.ui.graph_component import clickable_graph
from graphrag_ui.ui.labels import GRAPH_VIEWS, label

VIEWS = ("interactive", "standalone")


@st.cache_data(max_entries=32, show_spinner=False)
def _html(_index: Index, _spec: graph_view.GraphSpec, cache_key: str, dark: bool, lang: str) -> tuple[str, list[dict]]:
    return graph_view.render(_index, _spec, dark=dark, lang=lang)


@st.cache_data(max_entries=32, show_spinner=False)
def _elements(_index: Index, _spec: graph_view.GraphSpec, cache_key: str, lang: str) -> graph_view.GraphElements:
    return graph_view.elements(_index, _spec, lang)


def _dark() -> bool:
    try:
        return st.context.theme.type == "dark"
    except Exception:  # no browser context (AppTest, bare mode)
        return False


def show_graph(
    index: Index,
    spec: graph_view.GraphSpec,
    lang: str,
    *,
    key: str,
    cache_key: str,
    default_view: str = "interactive",
    side_by_side: bool = True,
    file_name: str = "graph.html",
) -> None:
    """Graph + details panel; ``cache_key`` must change whenever ``spec`` does."""
    if not spec.nodes:
        st.info(
            t("Nothing to draw: this mode recalled no entities or relations. Try another mode or a larger top_k.", lang)
        )
        return
    dark = _dark()
    top = st.columns([3, 2], vertical_alignment="bottom")
    view = top[0].segmented_control(
        t("Graph view", lang),
        VIEWS,
        default=default_view,
        key=f"{key}_view",
        format_func=lambda v: label(GRAPH_VIEWS, v, lang),
        help=t(
            "Interactive: click a node to see its details beside the graph. Standalone: the same graph "
            "as the self-contained pyvis page you can download.",
            lang,
        ),
    )
    if spec.capped:
        top[1].caption(t("Graph capped at {n} nodes (of {total}).", lang, n=len(spec.nodes), total=spec.total))
    key_with_index = f"{index.path}|{cache_key}"
    if side_by_side:
        graph_area, details_area = st.columns([3, 2], gap="medium")
    else:
        graph_area, details_area = st.container(), st.container()
    node_key = f"{key}_node"
    with graph_area:
        if view == "standalone":
            page, _ = _html(index, spec, key_with_index, dark, lang)
            st.iframe(page, height=700, tab_index=0, alt="Knowledge graph (standalone pyvis view)")
        else:
            built = _elements(index, spec, key_with_index, lang)
            clicked = clickable_graph(built, graph_view.options(dark), key=f"{key}_graph", height=620)
            if clicked in spec.nodes:
                st.session_state[node_key] = clicked
    with details_area:
        if st.session_state.get(node_key) not in spec.nodes:
            st.session_state.pop(node_key, None)
        chosen = st.selectbox(
            t("Node details", lang),
            spec.nodes,
            index=None,
            key=node_key,
            placeholder=t("Click a node in the graph, or pick one", lang),
        )
        if chosen:
            node_details(index, chosen, spec.roles.get(chosen, ""), graph_view.why_text(spec, chosen, lang), lang)
        st.download_button(
            t("Download graph HTML", lang),
            lambda: graph_view.render(index, spec, dark=dark, lang=lang)[0].encode("utf-8"),  # built on click only
            file_name=file_name,
            mime="text/html",
            key=f"{key}_graph_dl",
            icon=":material/download:",
            on_click="ignore",
        )


def node_details(index: Index, name: str, role: str, why: str, lang: str) -> None:
    """Everything known about one entity, as text (never HTML)."""
    entity = index.entity_by_name.get(name)
    if entity is None:
        st.warning(t("{name} is not an entity of this index.", lang, name=md_escape(name)))
        return
    with st.container(border=True):
        st.markdown(f"#### {md_escape(entity.name)}")
        st.markdown(
            t("Type", lang)
            + f" {md_escape(entity.type or '—')} · "
            + t("Degree", lang)
            + f" **{index.graph.degree(entity.name)}** · "
            + t("Source chunks", lang)
            + f" **{len(entity.source_chunk_ids)}**"
        )
        if role:
            st.caption(
                t("{label}: {value}", lang, label=t("Role in this view", lang), value=graph_view.role_text(role, lang))
            )
        if why:
            st.markdown("**" + t("Why selected", lang) + "** ")
            st.text(why)  # already in the UI language (graph_view.why_text)
        st.markdown("**" + t("Description", lang) + "**")
        description = entity.description.replace("<SEP>", "\n") or "—"
        with st.container(height=220 if len(description) > 500 else "content", border=False):
            st.text(description)
        if entity.aliases:
            st.caption(t("Aliases", lang) + ": " + md_escape(", ".join(entity.aliases)))
        rows = []
        for level, cid in entity.communities:
            community = index.community_by_id.get(cid)
            rows.append({"level": level, "community": cid, "title": community.title if community else ""})
        if rows:
            st.markdown("**" + t("Communities", lang) + "**")
            st.dataframe(rows, hide_index=True, width="stretch")
        if entity.source_chunk_ids:
            with st.expander(t("Source chunks", lang) + f" ({len(entity.source_chunk_ids)})"):
                for cid in entity.source_chunk_ids[:8]:
                    chunk = index.chunk_by_id.get(cid)
                    st.caption(md_escape(cid))
                    st.text((chunk.text[:600] + ("…" if len(chunk.text) > 600 else "")) if chunk else "(missing)")
