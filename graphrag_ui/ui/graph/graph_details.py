"""The details of one entity beside the graph: type, description, why it was selected, communities, chunks.

Everything from the index is shown as text (``st.text``) or as Markdown with every control character
escaped (``md``), never as markup.
"""

from __future__ import annotations

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.ui.graph.graph_style import role_text
from graphrag_ui.ui.shell.escape import md_escape
from graphrag_ui.ui.shell.language import t


def node_details(index: Index, name: str, role: str, why: str) -> None:
    """Everything known about one entity, as text (never HTML)."""
    entity = index.entity_by_name.get(name)
    if entity is None:
        st.warning(t("{name} is not an entity of this index.", name=md_escape(name)))
        return
    with st.container(border=True):
        st.markdown(f"#### {md_escape(entity.name)}")
        st.markdown(
            t("Type")
            + f" {md_escape(entity.type or '—')} · "
            + t("Degree")
            + f" **{index.graph.degree(entity.name)}** · "
            + t("Source chunks")
            + f" **{len(entity.source_chunk_ids)}**"
        )
        if role:
            st.caption(t("{label}: {value}", label=t("Role in this view"), value=role_text(role)))
        if why:
            st.markdown("**" + t("Why selected") + "** ")
            st.text(why)  # already in the UI language (graph_style.why_text)
        st.markdown("**" + t("Description") + "**")
        description = entity.description.replace("<SEP>", "\n") or "—"
        with st.container(height=220 if len(description) > 500 else "content", border=False):
            st.text(description)
        if entity.aliases:
            st.caption(t("Aliases") + ": " + md_escape(", ".join(entity.aliases)))
        rows = []
        for level, cid in entity.communities:
            community = index.community_by_id.get(cid)
            rows.append({"level": level, "community": cid, "title": community.title if community else ""})
        if rows:
            st.markdown("**" + t("Communities") + "**")
            st.dataframe(rows, hide_index=True, width="stretch")
        if entity.source_chunk_ids:
            with st.expander(t("Source chunks") + f" ({len(entity.source_chunk_ids)})"):
                for cid in entity.source_chunk_ids[:8]:
                    chunk = index.chunk_by_id.get(cid)
                    st.caption(md_escape(cid))
                    st.text((chunk.text[:600] + ("…" if len(chunk.text) > 600 else "")) if chunk else t("(missing)"))
