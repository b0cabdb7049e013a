"""Evaluate: a question set with gold evidence over several modes and one parameter range, scored."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.ui.evaluate import eval_plan_view, eval_run_view, eval_set
from graphrag_ui.ui.shell.language import t
from graphrag_ui.ui.shell.page import open_page

index, index_key = open_page("evaluate")
st.caption(
    t(
        "Scores every chosen mode and setting against the evidence each question needs: context only, no "
        "model calls. The numbers come from the same retrieval Explore shows.",
    )
)
loaded = eval_set.set_picker(index_key)
st.subheader(t("What to run"))
plan, signature = eval_plan_view.plan_picker(index)
eval_plan_view.show_notices()
eval_run_view.run_view(index, index_key, loaded, plan, signature)
