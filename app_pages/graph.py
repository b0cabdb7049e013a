"""Graph: browse the whole index around an entity or inside a community."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from graphrag_ui.ui import graph_view, state
from graphrag_ui.ui.i18n import t
from graphrag_ui.ui.retrieval_view import node_details

lang = state.language()
index = st.session_state.get("_index")
st.title(t("graph", lang))
if index is None:
    st.stop()

by_degree = sorted(index.entities, key=lambda e: (-index.graph.degree(e.name), e.name))
names = [e.name for e in by_degree]
levels = sorted({c.level for c in index.communities}) or [0]
c1, c2, c3, c4 = st.columns([3, 1, 1, 2])
centre = c1.selectbox(t("search_entity", lang), names, key="g_entity", bind="query-params") if names else None
depth = c2.slider(t("depth", lang), 0, 4, 1, key="g_depth", bind="query-params")
level = c3.selectbox(t("level", lang), levels, key="g_level", bind="query-params")
communities = [c for c in index.communities if c.level == level]
community = c4.selectbox(
    t("community", lang),
    [""] + [c.id for c in communities],
    key="g_comm",
    bind="query-params",
    help="community id at the chosen level; empty = browse around the entity",
)

if community:
    members = [m for m in index.community_by_id[community].members if m in index.graph]
    spec = graph_view.neighbourhood(index, members, 0, level=level)
elif centre:
    spec = graph_view.neighbourhood(index, [centre], depth, level=level)
else:
    st.stop()
if spec.capped:
    st.caption(t("capped", lang, n=len(spec.nodes), total=spec.total))
html, legend = graph_view.render(index, spec)
st.iframe(html, height=650, tab_index=0, alt="Knowledge graph neighbourhood")
left, right = st.columns([1, 1])
with left:
    st.dataframe(pd.DataFrame(legend), hide_index=True, width="stretch")
    st.download_button(t("download_graph", lang), html.encode("utf-8"), file_name="graph.html", mime="text/html")
with right:
    chosen = st.selectbox(t("node_details", lang), spec.nodes, key="g_node")
    node_details(index, chosen)
    if community:
        report = index.community_by_id[community].report
        with st.expander("report"):
            st.text(report)
