"""Entity recall (seed 003): ILIKE hits, vector hits and the merged ranking with each score term."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.retrieval.core.recall import explain_recall
from graphrag_ui.services.query import query_embedder_id
from graphrag_ui.ui.shell.escape import shown_error
from graphrag_ui.ui.shell.labels import COLUMNS, label
from graphrag_ui.ui.shell.language import t
from graphrag_ui.ui.shell.page import open_page

RECALL_COLUMNS = (
    "rank",
    "entity",
    "score",
    "sim",
    "match",
    "ilike term",
    "sim term",
    "occurrence term",
    "occurrence",
    "aliases",
)

index, _ = open_page("recall")
st.caption(
    t(
        "score = w_ilike·ilike + w_sim·sim + w_occ·log(occurrence+1). ILIKE runs first; vector "
        "recall only fills in when ILIKE finds fewer than the limit.",
    )
)
default_text = "跑步数据" if index.manifest.language == "zh" else ""
text = st.text_input(t("Recall text"), value=default_text, key="rq", bind="query-params")
c1, c2, c3, c4, c5 = st.columns(5)
limit = c1.slider(t("limit"), 1, 50, 10, key="r_limit", bind="query-params")
threshold = c2.slider(t("cosine threshold"), 0.0, 1.0, 0.2, 0.05, key="r_thr", bind="query-params")
w_ilike = c3.slider("w_ilike", 0.0, 2.0, 1.0, 0.05, key="w_ilike", bind="query-params")
w_sim = c4.slider("w_sim", 0.0, 2.0, 0.7, 0.05, key="w_sim", bind="query-params")
w_occ = c5.slider("w_occ", 0.0, 1.0, 0.2, 0.05, key="w_occ", bind="query-params")
if not text.strip():
    st.stop()
try:
    from graphrag_ui.embedding.embed import get_embedder

    vec = get_embedder(query_embedder_id(index)).embed([text])[0]
except UserError as exc:
    st.warning(t("{error} — showing ILIKE only.", error=shown_error(exc)))
    vec = None
with st.spinner(t("Searching the entity catalog…")):  # a team catalog server may take its timeout
    breakdown = explain_recall(index, text, vec, top_k=limit, threshold=threshold, weights=(w_ilike, w_sim, w_occ))
headers = {name: label(COLUMNS, name.replace(" ", "_")) for name in RECALL_COLUMNS}
left, middle = st.columns(2)
with left:
    st.subheader(t("ILIKE ({n})", n=len(breakdown.ilike)))
    st.dataframe(pd.DataFrame(breakdown.ilike), hide_index=True, width="stretch", column_config=headers)
with middle:
    st.subheader(t("vector ({n})", n=len(breakdown.vector)))
    if not breakdown.vector_ran:
        st.caption(t("hybrid skips this list: ILIKE already found the limit"))
    st.dataframe(pd.DataFrame(breakdown.vector), hide_index=True, width="stretch", column_config=headers)
st.subheader(t("hybrid ranking"))
st.dataframe(pd.DataFrame(breakdown.merged), hide_index=True, width="stretch", column_config=headers)
