"""The answer's trace kept per retrieval in the session, and the grid marks it gives: cited, estimated.

The answer panels remember the trace of the answer they show (``remember``); the grids, the budget
view, the graph and the run line read it back for the same retrieval (``trace_for``). A row the answer
cites is marked "✓" with the sentences that cite it; a row that only an overlap estimate ties to a
sentence is marked "≈" with its score, in its own column — estimates never mix with citations.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import streamlit as st

from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.ui.results import derived
from graphrag_ui.ui.results.row_marks import RowMark, register
from graphrag_ui.ui.shell.language import t

if TYPE_CHECKING:  # the answer's modules (~40 ms): imported where an answer exists, which no first view has
    from graphrag_ui.citations import Item, Trace

SENTENCE_CHARS = 90  # of one citing sentence in a grid cell
SENTENCES_SHOWN = 2


def trace_key(result: Retrieval) -> str:
    """The same for a retrieval before and after its model stages ran (same mode, question, settings, items);
    once per result (the grids, the budget view and the run line each ask)."""
    return derived.once(result, "answer trace key", _trace_key)


def _trace_key(result: Retrieval) -> str:
    raw = json.dumps(
        [
            result.mode,
            result.query,
            sorted((str(k), str(v)) for k, v in result.params.items()),
            result.keywords.hl,
            result.keywords.ll,
            [result.selected_ids(kind) for kind in KINDS],
        ],
        ensure_ascii=False,
    )
    return "answer_trace_" + hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


def remember(result: Retrieval, trace: Trace | None) -> None:
    if trace is not None:
        st.session_state[trace_key(result)] = trace


def trace_for(result: Retrieval) -> Trace | None:
    trace = st.session_state.get(trace_key(result))
    if trace is None:
        return None
    from graphrag_ui.citations import Trace

    return trace if isinstance(trace, Trace) else None


def citing_sentences(trace: Trace) -> dict[Item, list[str]]:
    """Item -> the sentences (or reference-list lines) whose citations resolve to it, in answer order."""
    out: dict[Item, list[str]] = {}
    for citation in trace.all_citations():
        where = citation.sentence if citation.scope == "answer" else f"{citation.scope}: {citation.sentence}"
        for cited in citation.ids:
            for item in cited.items:
                seen = out.setdefault(item, [])
                if where not in seen:
                    seen.append(where)
    return out


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SENTENCE_CHARS else text[: SENTENCE_CHARS - 1] + "…"


def cited_mark(result: Retrieval, kind: str) -> RowMark | None:
    trace = trace_for(result)
    if trace is None or trace.style == "none":
        return None
    values = {}
    for item, sentences in citing_sentences(trace).items():
        if item.kind != kind:
            continue
        more = len(sentences) - SENTENCES_SHOWN
        text = " | ".join(_short(s) for s in sentences[:SENTENCES_SHOWN])
        values[item.item_id] = "✓ " + text + (f" (+{more})" if more > 0 else "")
    return RowMark(
        "cited",
        t("cited by the answer"),
        t("✓: the answer cites this row; the sentences that cite it"),
        values,
    )


def estimated_mark(result: Retrieval, kind: str) -> RowMark | None:
    trace = trace_for(result)
    if trace is None:
        return None
    best: dict[str, tuple[float, str]] = {}
    for part in [trace, *trace.parts]:
        for sentence in part.sentences:
            for estimate in sentence.estimates:
                if estimate.kind == kind and estimate.score > best.get(estimate.item_id, (0.0, ""))[0]:
                    best[estimate.item_id] = (estimate.score, sentence.text)
    values = {i: f"≈ {score:.2f} · {_short(text)}" for i, (score, text) in best.items()}
    return RowMark(
        "estimated",
        t("support (estimate)"),
        t("≈: an estimate, not a citation — share of an uncited sentence's words this row holds"),
        values,
    )


register(cited_mark, estimated_mark)
