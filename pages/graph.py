"""Graph: browse the whole index around an entity or inside a community; click a node for details."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.i18n import t
from graphrag_ui.ui import graph_view
from graphrag_ui.ui.escape import md_escape
from graphrag_ui.ui.graph_panel import show_graph
from graphrag_ui.ui.page import open_page

lang, index, _ = open_page("graph")

by_degree = sorted(index.entities, key=lambda e: (-index.graph.degree(e.name), e.name))
names = [e.name for e in by_degree]
if not names:
    st.info(
        t("Nothing to draw: this mode recalled no entities or relations. Try another mode or a larger top_k.", lang)
    )
    st.stop()
levels = sorted({c.level for c in index.communities}) or [0]
c1, c2, c3, c4 = st.columns([3, 1, 1, 2])
centre = c1.selectbox(
    t("Search an entity", lang), names, key="g_entity", bind="query-params", placeholder=t("Choose an option", lang)
)
depth = c2.slider(t("Neighbourhood depth", lang), 0, 4, 1, key="g_depth", bind="query-params")
level = c3.selectbox(
    t("Community level", lang), levels, key="g_level", bind="query-params", placeholder=t("Choose an option", lang)
)
communities = [c for c in index.communities if c.level == level]
titles = {c.id: c.title for c in communities}
community = c4.selectbox(
    t("Community", lang),
    [""] + [c.id for c in communities],
    key="g_comm",
    bind="query-params",
    help=t("A community id at the chosen level; empty = browse around the entity.", lang),
    placeholder=t("Choose an option", lang),
)

if community and titles.get(community):
    c4.caption(md_escape(titles[community]))
if community:
    members = [m for m in index.community_by_id[community].members if m in index.graph]
    spec = graph_view.neighbourhood(index, members, 0, level=level)
    cache_key = f"community|{community}|{level}"
else:
    spec = graph_view.neighbourhood(index, [centre], depth, level=level)
    cache_key = f"entity|{centre}|{depth}|{level}"
st.caption(
    t(
        "Colour = community · size = degree · ★ = searched entity. Hover a node for a summary; click it for details.",
        lang,
    )
)
show_graph(index, spec, lang, key="g", cache_key=cache_key, default_view="interactive", file_name="graph.html")
if community:
    with st.expander(t("Community report", lang)):
        st.text(index.community_by_id[community].report)
