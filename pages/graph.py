"""Graph: browse the whole index around an entity or inside a community; click a node for details."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.ui import graph_view
from graphrag_ui.ui.graph_panel import show_graph
from graphrag_ui.ui.i18n import t
from graphrag_ui.ui.page import open_page

lang, index, _ = open_page("graph")

by_degree = sorted(index.entities, key=lambda e: (-index.graph.degree(e.name), e.name))
names = [e.name for e in by_degree]
if not names:
    st.info(t("graph_empty", lang))
    st.stop()
levels = sorted({c.level for c in index.communities}) or [0]
c1, c2, c3, c4 = st.columns([3, 1, 1, 2])
centre = c1.selectbox(
    t("search_entity", lang), names, key="g_entity", bind="query-params", placeholder=t("choose", lang)
)
depth = c2.slider(t("depth", lang), 0, 4, 1, key="g_depth", bind="query-params")
level = c3.selectbox(t("level", lang), levels, key="g_level", bind="query-params", placeholder=t("choose", lang))
communities = [c for c in index.communities if c.level == level]
titles = {c.id: c.title for c in communities}
community = c4.selectbox(
    t("community", lang),
    [""] + [c.id for c in communities],
    key="g_comm",
    bind="query-params",
    help=t("community_help", lang),
    placeholder=t("choose", lang),
)

if community and titles.get(community):
    c4.caption(titles[community])
if community:
    members = [m for m in index.community_by_id[community].members if m in index.graph]
    spec = graph_view.neighbourhood(index, members, 0, level=level)
    cache_key = f"community|{community}|{level}"
else:
    spec = graph_view.neighbourhood(index, [centre], depth, level=level)
    cache_key = f"entity|{centre}|{depth}|{level}"
st.caption(t("graph_caption", lang))
show_graph(index, spec, lang, key="g", cache_key=cache_key, default_view="interactive", file_name="graph.html")
if community:
    with st.expander(t("report", lang)):
        st.text(index.community_by_id[community].report)
