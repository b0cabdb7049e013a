"""Compare: two modes, or one mode with two parameter sets, on the same question, side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.retrieval.core.compare import overlap
from graphrag_ui.retrieval.registry import mode_names, reference_name
from graphrag_ui.ui.answer import staged_answer
from graphrag_ui.ui.answer.answer_view import answer_panel
from graphrag_ui.ui.results import mode_marks
from graphrag_ui.ui.results.retrieval_view import result_tabs, warnings_box
from graphrag_ui.ui.results.threshold_rescue import offer_lower_threshold
from graphrag_ui.ui.shell import state
from graphrag_ui.ui.shell.escape import md_escape, shown_error
from graphrag_ui.ui.shell.labels import KIND_LABELS, label
from graphrag_ui.ui.shell.language import t
from graphrag_ui.ui.shell.page import open_page
from graphrag_ui.ui.shell.runner import retrieve
from graphrag_ui.ui.widgets import mode_form, question, url_notices


def side_title(spec, values: dict) -> str:
    """The side's header: its mode, and the reference release when the mode follows several."""
    if not spec.versions:
        return spec.name
    reference = reference_name(spec.family)
    return t("{mode} · {reference} {version}", mode=spec.name, reference=reference, version=values["version"])


def shown_jaccard(value: float | None) -> str:
    """Two decimals; "—" when neither side has an item of the kind (there is nothing to agree on)."""
    return "—" if value is None else f"{value:.2f}"


index, index_key = open_page("compare")
suggested = state.suggested_questions(index_key)
state.seed_widget("cq", suggested[0] if suggested else "")
question.in_url("cq")
query = st.text_area(t("Question"), key="cq", bind="query-params", height=80)
modes = mode_names()
sides = {}
specs = {}
columns = st.columns(2, gap="large")
for side, column, default_mode in (("a", columns[0], modes[0]), ("b", columns[1], modes[min(1, len(modes) - 1)])):
    with column:
        title = t("Left") if side == "a" else t("Right")
        mode, spec = mode_form.pick_mode(index, f"{side}_", title=title, default=modes.index(default_mode))
        with st.expander(t("Parameters")):
            form = mode_form.mode_settings(mode, spec, f"{side}_", compact=True)
        sides[side] = (mode, form.values, form.hl, form.ll)
        specs[side] = spec

url_notices.show_url_notices("compare", ("a_", "b_"))
if not query.strip():
    st.stop()
results = {}
marks = mode_marks.marks_of(index)
for side, (mode, values, hl, ll) in sides.items():
    if values.get("recall") != "ilike" and mode_marks.explain_cannot_run(mode, marks):
        st.stop()  # the reasons and the way out, not the query's error
    try:
        results[side] = retrieve(index, index_key, mode, query, values, hl, ll)
    except UserError as exc:
        title = t("Left") if side == "a" else t("Right")
        st.error(t("{side}: {error}", side=md_escape(title), error=shown_error(exc)))
        st.stop()

st.subheader(t("Overlap"))
rows = overlap(results["a"], results["b"])
st.dataframe(
    pd.DataFrame(
        [
            {
                "kind": label(KIND_LABELS, r.kind),
                "left": r.left,
                "right": r.right,
                "shared": r.shared,
                "jaccard_shown": shown_jaccard(r.jaccard),
                "jaccard": None if r.jaccard is None else round(r.jaccard, 3),
                t("Only left"): ", ".join(r.only_left[:12]) + (" …" if len(r.only_left) > 12 else ""),
                t("Only right"): ", ".join(r.only_right[:12]) + (" …" if len(r.only_right) > 12 else ""),
            }
            for r in rows
        ]
    ),
    hide_index=True,
    width="stretch",
    column_config={
        "kind": st.column_config.TextColumn(t("kind"), width=100),
        "left": st.column_config.NumberColumn(t("Left"), width=60),
        "right": st.column_config.NumberColumn(t("Right"), width=60),
        "shared": st.column_config.NumberColumn(t("shared"), width=60),
        t("Only left"): st.column_config.TextColumn(width=240),  # fits 1280×800 with the sidebar open
        t("Only right"): st.column_config.TextColumn(width=240),
        "jaccard_shown": st.column_config.TextColumn(
            "jaccard", width=70, help=t("shared / (left ∪ right); — when neither side has an item of this kind")
        ),
        "jaccard": st.column_config.ProgressColumn(" ", min_value=0.0, max_value=1.0, format=" ", width=80),
    },
)
columns = st.columns(2, gap="large")
for side, column in zip(("a", "b"), columns, strict=True):
    with column:
        result = results[side]
        _, values, hl, ll = sides[side]
        st.markdown("**" + md_escape(side_title(specs[side], values)) + "**")
        warnings_box(result)
        offer_lower_threshold(index, index_key, specs[side], result, values, hl, ll, prefix=f"{side}_")
        result_tabs(index, staged_answer.latest(result), key=f"cmp_{side}")
        answer_panel(result, key=f"cmp_{side}", rerun=True, index=index)  # a map-reduce run redraws the tabs above
