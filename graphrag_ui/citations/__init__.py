"""The answer traced to its context: which items it cites, which it never used, which citations are invented.

Public API (pure functions over an answer text and a ``Retrieval``; no UI, no model):

- ``trace_answer(answer, retrieval) -> Trace`` — every citation (``Trace.citations``: marker text, table,
  ids, per id the resolved ``Item``s and ``in_context``, the sentence that made it), per-sentence support
  (cited items, or an overlap ``Estimate`` when the sentence cites nothing), map points / DRIFT
  questions as ``Trace.parts``, and ``Trace.split``: tokens per section cited / estimated / unused.
- ``summary_line(trace)`` — "answer cites 7 of 31 items; 2 citations not in the context; 64 % …".
- ``cited_items(retrieval, answer) -> list[Item]`` and ``citation_scores(cited, gold)`` — for the
  evaluation: citation precision (cited items carrying gold evidence) and recall (gold items cited);
  an ``Item`` is ``(kind, item_id)`` with ``kind`` a Retrieval kind and ``item_id`` a ``Candidate.id``;
  ``gold`` may be the evaluation's ``(kind, id)`` pairs. ``answer_citation_scores(answer, retrieval, gold)``
  gives ``{"citation_precision", "citation_recall"}``: bind ``gold`` and it is an ``AnswerScorer``.
- ``citations_json(trace)`` — the ``citations`` list ``query --json --answer`` prints.
"""

from __future__ import annotations

from typing import Any

from graphrag_ui.citations.model import Citation, CitedId, Estimate, Item, Sentence, Split, Trace
from graphrag_ui.citations.trace import (
    answer_citation_scores,
    citation_scores,
    cited_items,
    style_of,
    summary_line,
    trace_answer,
)


def citations_json(trace: Trace) -> list[dict[str, Any]]:
    """One entry per marker (the answer's, then its points' / questions'): text, table, ids, resolved items."""
    return [
        {
            "text": c.text,
            "table": c.table,
            "scope": c.scope,
            "sentence": c.sentence,
            "more": c.more,
            "note": c.note,
            "in_context": c.in_context,
            "ids": [
                {
                    "id": i.id,
                    "in_context": i.in_context,
                    "items": [{"kind": it.kind, "item_id": it.item_id} for it in i.items],
                    "note": i.note,
                }
                for i in c.ids
            ],
        }
        for c in trace.all_citations()
    ]


__all__ = [
    "answer_citation_scores",
    "Citation",
    "CitedId",
    "Estimate",
    "Item",
    "Sentence",
    "Split",
    "Trace",
    "citation_scores",
    "cited_items",
    "citations_json",
    "style_of",
    "summary_line",
    "trace_answer",
]
