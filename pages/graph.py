"""Graph: browse the whole index around an entity or inside a community; click a node for details."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.ui.graph import graph_view
from graphrag_ui.ui.graph.graph_panel import show_graph
from graphrag_ui.ui.graph.graph_picker import DRAWN, current_entity, entity_picker
from graphrag_ui.ui.shell.escape import md_escape
from graphrag_ui.ui.shell.language import t
from graphrag_ui.ui.shell.page import open_page

index, _ = open_page("graph")

centre = current_entity(index)
if centre is None:
    st.info(t("This index has no entities: there is no graph to draw."))
    st.stop()
st.session_state[DRAWN] = centre
levels = sorted({c.level for c in index.communities}) or [0]
c1, c2, c3, c4 = st.columns([3, 1, 1, 2])
with c1:
    entity_picker(index)
depth = c2.slider(t("Neighbourhood depth"), 0, 4, 1, key="g_depth", bind="query-params")
level = c3.selectbox(
    t("Community level"), levels, key="g_level", bind="query-params", placeholder=t("Choose an option")
)
communities = [c for c in index.communities if c.level == level]
titles = {c.id: c.title for c in communities}
community = c4.selectbox(
    t("Community"),
    [""] + [c.id for c in communities],
    key="g_comm",
    bind="query-params",
    help=t("A community id at the chosen level; empty = browse around the entity."),
    placeholder=t("Choose an option"),
)

if community and titles.get(community):
    c4.caption(md_escape(titles[community]))
if community:
    spec = graph_view.community_members(index, community, level=level)
    scope = f"community|{community}|{level}"
else:
    spec = graph_view.neighbourhood(index, [centre], depth, level=level)
    scope = f"entity|{centre}|{level}"
show_graph(index, spec, key="g", cache_key=f"{scope}|{depth}", scope=scope, file_name="graph.html", fit_all=True)
if community:
    with st.expander(t("Community report")):
        st.text(index.community_by_id[community].report)
