"""The answer traced to its context, where the analyst reads it: under the answer, in the budget, on the run line.

Under the answer: the run line's numbers, every citation as a button (✗ when it names something the
context never held) that shows the rows it resolves to, and each sentence with its support — cited,
estimated by word overlap (said to be an estimate), or none (marked). Map-reduce points and DRIFT
questions carry their own citations, named by their point or question.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.answer.citation_marks import remember, trace_for
from graphrag_ui.ui.answer.judge_view import judge_panel
from graphrag_ui.ui.shell.escape import md_escape, shown
from graphrag_ui.ui.shell.labels import KIND_LABELS, label
from graphrag_ui.ui.shell.language import in_this_language, t, translate

if TYPE_CHECKING:  # the answer's modules (~40 ms): imported where an answer exists, which no first view has
    from graphrag_ui.citations import Citation, Trace

PILL_CHARS = 48
GRAPHRAG_TABLES = ("Entities", "Relationships", "Sources", "Reports", "Claims")


def _labels(result: Retrieval) -> dict[tuple[str, str], str]:
    return {(kind, c.id): c.label for kind in KIND_LABELS for c in result.candidates(kind)}


def _pill(citation: Citation) -> str:
    """``Entities (26, 27)`` for one table of a data reference (a marker may name several), else the marker."""
    if citation.table in GRAPHRAG_TABLES:
        ids = [i.id for i in citation.ids] + (["+more"] if citation.more else [])
        text = f"{citation.table} ({', '.join(ids)})"
    else:  # a reference-list line without its bullet
        text = re.sub(r"^(?:[-*+•·]|\d{1,3}[.)、])\s+", "", " ".join(citation.text.split()))
    text = text if len(text) <= PILL_CHARS else text[: PILL_CHARS - 1] + "…"
    scope = "" if citation.scope == "answer" else translate(_scope(citation.scope)) + " · "
    mark = "" if citation.in_context else "✗ "
    return md_escape(mark + scope + text)


def _scope(scope: str) -> str:
    kind, _, n = scope.partition(" ")
    return msg("point {n}", n=n) if kind == "point" else msg("question {n}", n=n) if kind == "question" else scope


def citation_panel(result: Retrieval, trace: Trace | None, key: str) -> None:
    """The panel under an answer; remembers the trace for the grids, the budget and the run line."""
    if trace is None:
        return
    from graphrag_ui.citations import summary_line

    remember(result, trace)
    st.caption(shown(summary_line(trace)))
    citations = trace.all_citations()
    if trace.style == "none":
        st.caption(t("This mode's prompt asks for no citations: the support below is an estimate by word overlap."))
    elif citations:
        picked = st.pills(
            t("Citations: click one to see its rows"),
            list(range(len(citations))),
            format_func=in_this_language(lambda i: _pill(citations[i])),
            key=f"{key}_citation",
        )
        if picked is not None and picked < len(citations):
            _citation_rows(result, citations[picked], key)
    else:
        st.caption(t("The answer has no citation markers: the support below is an estimate by word overlap."))
    _sentences(result, trace, key)
    judge_panel(result, trace, key)


def _citation_rows(result: Retrieval, citation: Citation, key: str) -> None:
    names = _labels(result)
    rows = []
    for cited in citation.ids:
        status = t("✓ in the context") if cited.in_context else t("✗ not in the context")
        note = translate(cited.note)
        if not cited.items:
            rows.append({"id": cited.id, "status": status, "kind": "", "row": "", "note": note})
        for item in cited.items:
            kind = label(KIND_LABELS, item.kind) if item.kind in KIND_LABELS else item.kind
            rows.append(
                {
                    "id": cited.id,
                    "status": status,
                    "kind": kind,
                    "row": names.get((item.kind, item.item_id), item.item_id),
                    "note": note,
                }
            )
    with st.container(border=True, key=f"{key}_citation_rows"):
        st.caption(t("cited by: {sentence}", sentence=md_escape(citation.sentence)))
        if citation.note:
            st.caption(t("read loosely: {note}", note=shown(citation.note)))
        st.dataframe(
            pd.DataFrame(rows, columns=["status", "row", "note", "id", "kind"]),
            hide_index=True,
            width="stretch",
            column_config={
                "id": t("id as written"),
                "status": t("status"),
                "kind": t("kind"),
                "row": st.column_config.TextColumn(t("row"), width="medium"),
                "note": st.column_config.TextColumn(t("note"), width="medium"),
            },
        )


def _sentences(result: Retrieval, trace: Trace, key: str) -> None:
    names = _labels(result)
    rows = []
    for sentence in trace.sentences:
        if sentence.cited:
            support = t(
                "✓ cited: {rows}",
                rows="; ".join(names.get((i.kind, i.item_id), i.item_id) for i in sentence.cited[:3]),
            )
        elif sentence.estimates:
            best = sentence.estimates[0]
            support = t(
                "≈ estimate {score}: {row}",
                score=f"{best.score:.2f}",
                row=names.get((best.kind, best.item_id), best.item_id),
            )
        else:
            support = t("⚠ no support found")
        if sentence.invented:
            support += " · " + t("✗ {n} citation ids not in the context", n=sentence.invented)
        rows.append({"sentence": sentence.text, "support": support})
    if not rows:
        return
    unsupported = sum(1 for s in trace.sentences if not s.supported)
    with st.expander(t("Sentences and their support ({n} without support)", n=unsupported)):
        st.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            width="stretch",
            key=f"{key}_sentences",
            column_config={
                "sentence": st.column_config.TextColumn(t("sentence"), width="large"),
                "support": st.column_config.TextColumn(t("support"), width="large"),
            },
        )


def run_line(result: Retrieval) -> None:
    """The run line's answer part: cited of all, not in the context, unused tokens (when an answer is shown)."""
    trace = trace_for(result)
    if trace is not None:
        from graphrag_ui.citations import summary_line

        st.caption(shown(summary_line(trace)))


def citation_budget(result: Retrieval) -> None:
    """Tokens per section: cited by the answer / estimated support / never used (after an answer)."""
    trace = trace_for(result)
    if trace is None or not trace.split:
        return
    import altair as alt

    st.caption(t("What the answer used of each section (estimate: word overlap, for sentences that cite nothing)"))
    parts = {"cited": t("cited"), "estimated": t("estimated"), "unused": t("never used")}
    rows = [
        {
            "section": label(KIND_LABELS, s.section) if s.section in KIND_LABELS else s.section,
            "part": parts[p],
            "tokens": getattr(s, p),
            "order": i,
        }
        for s in trace.split
        for i, p in enumerate(parts)
    ]
    chart = (
        alt.Chart(pd.DataFrame(rows))
        .mark_bar()
        .encode(
            y=alt.Y("section:N", title=None),
            x=alt.X("tokens:Q", stack="zero", title=t("tokens")),
            color=alt.Color(
                "part:N",
                scale=alt.Scale(domain=list(parts.values()), range=["#59a14f", "#edc948", "#d9dde3"]),
                legend=alt.Legend(orient="bottom", title=None),
            ),
            order=alt.Order("order:Q"),
            tooltip=["section:N", "part:N", "tokens:Q"],
        )
        .properties(height={"step": 26})
    )
    st.altair_chart(chart, width="stretch")
